"""What the OpenTelemetry SDK's exporter sends for span records: the reference the direct encoder must match.

This is the conversion Alicorn's live export used before it encoded OTLP itself (alicorn.observe.otlp): records as
SDK `ReadableSpan`s, encoded by the OTLP exporter's own encoder. Kept here, for tests and the benchmark only.
"""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event as OtelEvent
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from alicorn import __version__
from alicorn.observe.spans import SpanRecord

SCOPE = InstrumentationScope("alicorn.observe", __version__)
_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
_STATUS = {"unset": StatusCode.UNSET, "ok": StatusCode.OK, "error": StatusCode.ERROR}


def resource(service: str = "alicorn") -> Resource:
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


def sdk_encoded(records: Sequence[SpanRecord], where: Resource | None = None) -> bytes:
    """The body `OTLPSpanExporter` would POST for `records`."""
    place = where if where is not None else resource()
    return encode_spans([readable(r, place) for r in records]).SerializePartialToString()
