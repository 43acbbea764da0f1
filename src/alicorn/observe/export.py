"""Traces of a stream after the fact, and the wiring of live export.

`trace(store, ID)` projects a run or a conversation; a conversation's trace also carries the runs it started (each
its own trace, linked from the conversation's `invoke_workflow` span), so `alicorn trace CONV` draws them under it.
`export_trace` sends those spans (and their metrics) to an OTLP/HTTP collector; `start_live` follows a store.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, MetricExportResult

from alicorn import __version__
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.observe.endpoint import endpoint_url
from alicorn.observe.errors import ObserveError
from alicorn.observe.live import LiveExporter, LiveStats
from alicorn.observe.metrics import SpanMetrics
from alicorn.observe.otlp import OtlpSpanSink, resource
from alicorn.observe.process import ProcessExporter
from alicorn.observe.projector import project
from alicorn.observe.semconv import RUN
from alicorn.observe.settings import ObserveSettings
from alicorn.observe.spans import SpanRecord
from alicorn.observe.wiring import CheckedMetricExporter, LiveMetrics, live_parts, metric_exporter


@dataclass(frozen=True)
class Trace:
    """The spans of one stream and, for a conversation, of the runs it linked (stream -> spans, in that order)."""

    root: str
    streams: dict[str, list[SpanRecord]] = field(default_factory=dict)

    @property
    def spans(self) -> list[SpanRecord]:
        return [span for spans in self.streams.values() for span in spans]


def trace(store: JournalStore, stream: str, *, content: bool = False) -> Trace:
    """The trace of a run or conversation; UnknownStreamError when the journal has no such stream."""
    store.require(stream)
    spans = project(stream, store.read(stream), content=content)
    streams = {stream: spans}
    for span in spans:
        run = span.attributes.get(RUN)
        if span.links and isinstance(run, str) and run not in streams and store.head(run) is not None:
            streams[run] = project(run, store.read(run), content=content)
    return Trace(stream, streams)


def export_trace(
    found: Trace,
    endpoint: str,
    *,
    timeout_s: float = 5.0,
    compression: str | None = None,
    metrics_compression: str | None = None,
) -> int:
    """Send a trace's spans and their metrics to `endpoint` (each compression: None, the environment's); the number
    of spans sent. ObserveError when the collector cannot be reached or refuses them (nothing in the journal changes
    either way)."""
    sink = OtlpSpanSink(endpoint, timeout_s=timeout_s, compression=compression)
    try:
        spans = found.spans
        if not sink.send(spans):
            raise ObserveError(
                f"the collector at {sink.url} did not take the {len(spans)} span(s) of {found.root} (unreachable, "
                "or it answered with an error); check that it listens for OTLP over HTTP there"
            )
    finally:
        sink.close()
    if not send_metrics(spans, endpoint, timeout_s=timeout_s, compression=metrics_compression):
        raise ObserveError(
            f"the collector took the {len(spans)} span(s) of {found.root}, but not their metrics at "
            f"{endpoint_url(endpoint, 'metrics')} (unreachable, or it answered with an error); check that it "
            "accepts OTLP metrics over HTTP there"
        )
    return len(spans)


def send_metrics(
    spans: list[SpanRecord], endpoint: str, *, timeout_s: float = 5.0, compression: str | None = None
) -> bool:
    """Record `spans`' metrics once and send them to `endpoint`; whether the collector took them. (The periodic
    reader of live export drops the exporter's answer; a one-off export must know it.)"""
    exporter = CheckedMetricExporter(metric_exporter(endpoint, timeout_s=timeout_s, compression=compression))
    reader = InMemoryMetricReader(
        preferred_temporality=exporter._preferred_temporality,  # what the exporter's periodic reader would ask for
        preferred_aggregation=exporter._preferred_aggregation,
    )
    provider = MeterProvider(metric_readers=[reader], resource=resource())
    try:
        SpanMetrics(provider.get_meter("alicorn.observe", __version__)).record(spans)
        data = reader.get_metrics_data()
        if data is None or not data.resource_metrics:
            return True
        return exporter.export(data, timeout_millis=timeout_s * 1000) is MetricExportResult.SUCCESS
    finally:
        provider.shutdown(timeout_millis=int(timeout_s * 1000))
        exporter.shutdown()


class LiveExport:
    """Live export as the app holds it (in a child process, or a thread for journals without a file), closed
    (flushed, bounded) with the app."""

    def __init__(self, exporter: LiveExporter | ProcessExporter, metrics: LiveMetrics | None = None) -> None:
        self.exporter = exporter
        self.metrics = metrics  # a thread's metrics; an exporter process sends (and counts) its own

    def close(self) -> LiveStats:
        if self.metrics is None or not isinstance(self.exporter, LiveExporter):
            return self.exporter.close()
        stats = self.exporter.close(report=False)
        stats = replace(stats, failed_metric_exports=self.metrics.close(1.0))
        sentence = stats.sentence()
        if sentence is not None:
            print(f"alicorn: warning: {sentence}", file=sys.stderr)
        return stats


def start_live(settings: ObserveSettings, store: JournalStore, *, metrics: bool = True) -> LiveExport | None:
    """Follow `store` and export as it appends, when `settings` name an endpoint; None otherwise. A journal another
    process can open (an SQLite file, a PostgreSQL journal) is exported from a child process; any other store (in
    memory) from a thread of this one."""
    if settings.endpoint is None:
        return None
    path = getattr(store, "path", None)
    if isinstance(store, SQLiteStore) and isinstance(path, Path):
        return LiveExport(ProcessExporter(store, path, settings, metrics=metrics).start())
    postgres = sys.modules.get("alicorn.journal.postgres")  # loaded wherever such a store exists; psycopg is heavy
    if postgres is not None and isinstance(store, postgres.PostgresJournalStore):
        journal = (store.url, store.schema)
        return LiveExport(ProcessExporter(store, journal, settings, metrics=metrics).start())
    exporter, sent = live_parts(settings, store, metrics=metrics)
    return LiveExport(exporter.start(), sent)
