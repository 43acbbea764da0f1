"""The parts of live export, built from the settings: the span sink, the metrics' provider, the exporter.

Both ways of running live export use them: a thread of the run's process (alicorn.observe.export.start_live) and
the exporter child process (alicorn.observe.process), which imports this module and not the one that starts it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    MetricExporter,
    MetricExportResult,
    MetricsData,
    PeriodicExportingMetricReader,
)

from alicorn import __version__
from alicorn.journal.store import JournalStore
from alicorn.observe.endpoint import endpoint_url
from alicorn.observe.errors import ObserveError
from alicorn.observe.live import LiveExporter
from alicorn.observe.metrics import SpanMetrics
from alicorn.observe.otlp import OtlpSpanSink, resource
from alicorn.observe.settings import ObserveSettings, compression_from_env


def metric_exporter(endpoint: str, *, timeout_s: float = 5.0, compression: str | None = None) -> OTLPMetricExporter:
    """The SDK's OTLP metric exporter for `endpoint`'s /v1/metrics, compressed as `compression` says (one of
    COMPRESSIONS; None: `OTEL_EXPORTER_OTLP_[METRICS_]COMPRESSION`, default gzip)."""
    chosen = compression_from_env(signal="METRICS") if compression is None else compression
    return OTLPMetricExporter(
        endpoint=endpoint_url(endpoint, "metrics"), timeout=timeout_s, compression=Compression(chosen)
    )


#: The OTLP exporters log each failed attempt; Alicorn counts failures and says them
#: once, so their logs stay quiet (here: the exporter process imports this module, not alicorn.observe.export).
for _name in ("opentelemetry.exporter.otlp", "opentelemetry.exporter", "opentelemetry.sdk.metrics"):
    logging.getLogger(_name).addHandler(logging.NullHandler())
    logging.getLogger(_name).propagate = False


class CheckedMetricExporter(MetricExporter):
    """An OTLP metric exporter that counts the exports the collector did not take: the periodic reader drops the
    exporter's answer, so without the count lost metrics would go unsaid."""

    def __init__(self, inner: OTLPMetricExporter) -> None:
        super().__init__(
            preferred_temporality=inner._preferred_temporality,  # what the reader asks the SDK for, as the SDK's own
            preferred_aggregation=inner._preferred_aggregation,  # periodic reader takes them from the exporter
        )
        self.inner = inner
        self.failed_exports = 0

    def export(self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any) -> MetricExportResult:
        try:
            result = self.inner.export(metrics_data, timeout_millis=timeout_millis)
        except Exception:  # the exporter's own failure is the collector not taking them
            result = MetricExportResult.FAILURE
        if result is not MetricExportResult.SUCCESS:
            self.failed_exports += 1
        return result

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return self.inner.force_flush(timeout_millis)

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        self.inner.shutdown(timeout_millis=timeout_millis)


@dataclass
class LiveMetrics:
    """Live export's metrics: the provider its instruments record on, sending every `interval_s` and at close."""

    provider: MeterProvider
    exporter: CheckedMetricExporter

    def close(self, timeout_s: float) -> int:
        """Send what is left (bounded by `timeout_s`); how many exports the collector did not take in all."""
        self.provider.shutdown(timeout_millis=int(timeout_s * 1000))
        return self.exporter.failed_exports


def live_metrics(
    endpoint: str, *, timeout_s: float = 5.0, interval_s: float = 30.0, compression: str | None = None
) -> LiveMetrics:
    """Metrics sent to `endpoint`'s /v1/metrics every `interval_s` and when closed."""
    exporter = CheckedMetricExporter(metric_exporter(endpoint, timeout_s=timeout_s, compression=compression))
    reader = PeriodicExportingMetricReader(exporter, export_interval_millis=interval_s * 1000)
    return LiveMetrics(MeterProvider(metric_readers=[reader], resource=resource()), exporter)


def live_parts(
    settings: ObserveSettings, store: JournalStore, *, metrics: bool = True
) -> tuple[LiveExporter, LiveMetrics | None]:
    """An exporter over `store` for `settings`' endpoint (not started), and its metrics."""
    if settings.endpoint is None:
        raise ObserveError("live export needs an endpoint")
    sink = OtlpSpanSink(settings.endpoint, timeout_s=settings.timeout_s, compression=settings.compression)
    sent = (
        live_metrics(settings.endpoint, timeout_s=settings.timeout_s, compression=settings.metrics_compression)
        if metrics
        else None
    )
    recorder = SpanMetrics(sent.provider.get_meter("alicorn.observe", __version__)) if sent is not None else None
    exporter = LiveExporter(store, sink, content=settings.content, queue_size=settings.queue, metrics=recorder)
    return exporter, sent
