"""The parts of live export, built from the settings: the span sink, the metrics' provider, the exporter.

Both ways of running live export use them: a thread of the run's process (alicorn.observe.export.start_live) and
the exporter child process (alicorn.observe.process), which imports this module and not the one that starts it.
"""

from __future__ import annotations

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

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


def meter_provider(
    endpoint: str, *, timeout_s: float = 5.0, interval_s: float = 30.0, compression: str | None = None
) -> MeterProvider:
    """A meter provider that sends to `endpoint`'s /v1/metrics every `interval_s` and when shut down."""
    exporter = metric_exporter(endpoint, timeout_s=timeout_s, compression=compression)
    reader = PeriodicExportingMetricReader(exporter, export_interval_millis=interval_s * 1000)
    return MeterProvider(metric_readers=[reader], resource=resource())


def live_parts(
    settings: ObserveSettings, store: JournalStore, *, metrics: bool = True
) -> tuple[LiveExporter, MeterProvider | None]:
    """An exporter over `store` for `settings`' endpoint (not started), and its metrics' provider."""
    if settings.endpoint is None:
        raise ObserveError("live export needs an endpoint")
    sink = OtlpSpanSink(settings.endpoint, timeout_s=settings.timeout_s, compression=settings.compression)
    provider = (
        meter_provider(settings.endpoint, timeout_s=settings.timeout_s, compression=settings.metrics_compression)
        if metrics
        else None
    )
    recorder = SpanMetrics(provider.get_meter("alicorn.observe", __version__)) if provider is not None else None
    exporter = LiveExporter(store, sink, content=settings.content, queue_size=settings.queue, metrics=recorder)
    return exporter, provider
