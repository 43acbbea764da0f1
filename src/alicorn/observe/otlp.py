"""Span records as OpenTelemetry SDK spans, sent over OTLP/HTTP (protobuf).

The records already hold their ids and journaled times, so they become `ReadableSpan`s directly (no tracer, no
clock: the SDK never stamps a time of its own on them) and go to `OTLPSpanExporter`. The endpoint is a base URL, as
`OTEL_EXPORTER_OTLP_ENDPOINT` is (`http://collector:4318`): `/v1/traces` is added unless the URL already names it.
"""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event as OtelEvent
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from alicorn import __version__
from alicorn.observe.endpoint import endpoint_url
from alicorn.observe.spans import SpanRecord

SCOPE = InstrumentationScope("alicorn.observe", __version__)
_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
_STATUS = {"unset": StatusCode.UNSET, "ok": StatusCode.OK, "error": StatusCode.ERROR}


def resource(service: str = "alicorn") -> Resource:
    """The resource every Alicorn span carries: the service's name and version."""
    return Resource.create({"service.name": service, "service.version": __version__})


def context_of(trace_id: str, span_id: str) -> SpanContext:
    return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))


def readable(record: SpanRecord, where: Resource) -> ReadableSpan:
    """One record as the SDK's finished span."""
    parent = context_of(record.trace_id, record.parent_id) if record.parent_id else None
    status = (
        Status(_STATUS[record.status], record.status_message or None)
        if record.status == "error"
        else Status(_STATUS[record.status])
    )
    return ReadableSpan(
        name=record.name,
        context=context_of(record.trace_id, record.span_id),
        parent=parent,
        resource=where,
        attributes=dict(record.attributes),
        events=[OtelEvent(e.name, dict(e.attributes), e.time_ns) for e in record.events],
        links=[Link(context_of(link.trace_id, link.span_id), dict(link.attributes)) for link in record.links],
        kind=_KINDS[record.kind],
        status=status,
        start_time=record.start_ns,
        end_time=record.end_ns,
        instrumentation_scope=SCOPE,
    )


class OtlpSpanSink:
    """Sends span records to one OTLP/HTTP endpoint; `send` says whether the collector took them."""

    def __init__(self, endpoint: str, *, timeout_s: float = 5.0, service: str = "alicorn") -> None:
        self.url = endpoint_url(endpoint)
        self._resource = resource(service)
        self._exporter = OTLPSpanExporter(endpoint=self.url, timeout=timeout_s)

    def send(self, records: Sequence[SpanRecord]) -> bool:
        if not records:
            return True
        spans = [readable(r, self._resource) for r in records]
        try:
            return self._exporter.export(spans) is SpanExportResult.SUCCESS
        except Exception:  # a collector's failure is reported by the caller, never raised into a run
            return False

    def close(self) -> None:
        self._exporter.shutdown()  # type: ignore[no-untyped-call]
