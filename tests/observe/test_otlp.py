"""The direct OTLP encoder writes exactly what the SDK's exporter would for the same records, and the sender
honours the endpoint, headers, compression and timeout, counting a refusal as a failure, never raising it."""

from __future__ import annotations

import gzip
import http.server
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from alicorn.observe.errors import ObserveError
from alicorn.observe.export import trace
from alicorn.observe.otlp import OtlpEncoder, OtlpSpanSink
from alicorn.observe.spans import SpanEvent, SpanLink, SpanRecord, span_id_of, trace_id_of
from tests.observe.conftest import Journal
from tests.observe.receiver import receiving
from tests.observe.sdk_reference import sdk_encoded

T0 = 1_764_000_000_000_000_000


def _record(**changes: Any) -> SpanRecord:
    base: dict[str, Any] = {
        "trace_id": trace_id_of("run-x"),
        "span_id": span_id_of("run-x", "7"),
        "parent_id": span_id_of("run-x", "run"),
        "name": "execute_tool util.noop",
        "kind": "internal",
        "start_ns": T0,
        "end_ns": T0 + 1234,
        "attributes": {"alicorn.run": "run-x", "alicorn.event.seq": 7},
    }
    return SpanRecord(**{**base, **changes})


EDGES = [
    _record(),
    _record(parent_id=None, kind="client", status="ok", name="chat smollm2 ✓"),
    _record(status="error", status_message="ToolError"),
    _record(status="error", status_message=""),
    _record(status="unset", status_message="ignored unless an error"),
    _record(
        attributes={
            "s": "",
            "long": "x" * 300,
            "unicode": "zażółć гусь",
            "t": True,
            "f": False,
            "zero": 0,
            "neg": -5,
            "big": 2**62,
            "pi": 3.25,
            "nzero": -0.0,
            "strs": ["a", "b"],
            "ints": [1, -2, 3],
            "floats": (0.5, 1.5),
            "bools": [True, False],
            "empty": [],
        }
    ),
    _record(
        events=(SpanEvent("effect.intended", T0 + 5, {"alicorn.event.seq": 8}), SpanEvent("approval", T0 + 6)),
        links=(SpanLink(trace_id_of("run-y"), span_id_of("run-y", "run"), {"alicorn.run": "run-y"}),),
    ),
    _record(name="", attributes={}),
    _record(  # the same pair on the span, its event and its link: each encoded under its own field
        attributes={"alicorn.run": "run-y", "alicorn.event.seq": 7},
        events=(SpanEvent("e", T0, {"alicorn.event.seq": 7}),),
        links=(SpanLink(trace_id_of("run-y"), span_id_of("run-y", "run"), {"alicorn.run": "run-y"}),),
    ),
]


def _decoded(body: bytes) -> ExportTraceServiceRequest:
    return ExportTraceServiceRequest.FromString(body)


@pytest.mark.parametrize("record", EDGES, ids=range(len(EDGES)))
def test_every_kind_of_record_encodes_as_the_sdk_would(record: SpanRecord) -> None:
    ours, sdk = OtlpEncoder().encode([record]), sdk_encoded([record])
    assert _decoded(ours) == _decoded(sdk)
    assert ours == sdk  # the same fields in the same order: byte for byte


def test_one_encoder_over_many_records_matches_the_sdk() -> None:
    encoder = OtlpEncoder()  # its caches warm across records
    assert encoder.encode(EDGES) == sdk_encoded(EDGES) and encoder.encode(EDGES[::-1]) == sdk_encoded(EDGES[::-1])
    # Values Python calls equal that OTLP tells apart: a cache keyed on the value alone would mix them up.
    alike = [_record(attributes={"a": v}) for v in (1, True, 1.0, [1], [True], 0.0, -0.0, 0, False)]
    assert encoder.encode(alike) == sdk_encoded(alike)


def test_a_real_trace_encodes_as_the_sdk_would_in_one_request(journal: Journal) -> None:
    spans = [s for stream in (journal.ran.conversation, journal.ran.run) for s in trace(journal.store, stream).spans]
    assert len(spans) > 40 and any(s.links for s in spans) and any(s.events for s in spans)
    encoder = OtlpEncoder()
    first = encoder.encode(spans)
    assert _decoded(first) == _decoded(sdk_encoded(spans))
    assert encoder.encode(spans) == first  # the caches change nothing
    request = _decoded(first)
    assert len(request.resource_spans) == 1 and len(request.resource_spans[0].scope_spans) == 1
    assert len(request.resource_spans[0].scope_spans[0].spans) == len(spans)


def test_the_resource_follows_the_environment_as_the_sdk_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=lab,host.name=h1")
    record = _record()
    assert _decoded(OtlpEncoder().encode([record])) == _decoded(sdk_encoded([record]))
    resource = _decoded(OtlpEncoder().encode([record])).resource_spans[0].resource
    assert {kv.key for kv in resource.attributes} >= {"deployment.environment", "service.name", "telemetry.sdk.name"}


@contextmanager
def _answering(status: int, seen: list[tuple[dict[str, str], bytes]]) -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a collector does

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            seen.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_headers_and_gzip_from_the_environment_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20t0ken,x-team=obs")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip")
    seen: list[tuple[dict[str, str], bytes]] = []
    with _answering(200, seen) as url:
        sink = OtlpSpanSink(url, timeout_s=2.0)
        assert sink.send(EDGES[:3]) and sink.send(EDGES[3:])  # two requests on one kept-alive connection
        sink.close()
    headers, body = seen[0]
    assert headers["authorization"] == "Bearer t0ken" and headers["x-team"] == "obs"
    assert headers["content-type"] == "application/x-protobuf" and headers["content-encoding"] == "gzip"
    assert len(_decoded(gzip.decompress(body)).resource_spans[0].scope_spans[0].spans) == 3
    assert len(seen) == 2


def _clear_compression(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"):
        monkeypatch.delenv(name, raising=False)


def test_spans_are_gzipped_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_compression(monkeypatch)
    seen: list[tuple[dict[str, str], bytes]] = []
    with _answering(200, seen) as url:
        for compression in (None, "none", "deflate"):
            sink = OtlpSpanSink(url, timeout_s=2.0, compression=compression)
            assert sink.send(EDGES)
            sink.close()
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "none")  # the traces' own variable wins
        sink = OtlpSpanSink(url, timeout_s=2.0)
        assert sink.send(EDGES)
        sink.close()
    plain = OtlpEncoder().encode(EDGES)
    (gzipped, gzipped_body), (none, none_body), (deflated, deflated_body), (told, told_body) = seen
    assert gzipped["content-encoding"] == "gzip" and gzip.decompress(gzipped_body) == plain
    assert len(gzipped_body) < len(plain)
    assert "content-encoding" not in none and none_body == plain
    assert deflated["content-encoding"] == "deflate" and zlib.decompress(deflated_body) == plain
    assert "content-encoding" not in told and told_body == plain


@pytest.mark.parametrize("variable", ["OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"])
def test_a_compression_otlp_does_not_know_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    _clear_compression(monkeypatch)
    monkeypatch.setenv(variable, "brotli")
    with pytest.raises(ObserveError, match=rf"{variable} = 'brotli' .*gzip, deflate, none"):
        OtlpSpanSink("http://127.0.0.1:9", timeout_s=1.0)
    with pytest.raises(ObserveError, match=r"'zstd' .*gzip, deflate, none"):
        OtlpSpanSink("http://127.0.0.1:9", timeout_s=1.0, compression="zstd")


@pytest.mark.parametrize("status", [400, 404, 500])
def test_a_collector_that_answers_an_error_is_a_failed_send(status: int) -> None:
    seen: list[tuple[dict[str, str], bytes]] = []
    with _answering(status, seen) as url:
        sink = OtlpSpanSink(url, timeout_s=1.0)
        assert sink.send(EDGES) is False
        sink.close()
    assert len(seen) == 1  # not retried: only 429/502/503/504 are worth another try


def test_a_busy_collector_is_retried_within_the_timeout_and_then_a_failure() -> None:
    seen: list[tuple[dict[str, str], bytes]] = []
    with _answering(503, seen) as url:
        sink = OtlpSpanSink(url, timeout_s=2.5)
        assert sink.send(EDGES) is False
        sink.close()
    assert len(seen) == 2  # at once, then after a second's backoff; the next (2 s later) would pass the timeout


def test_a_url_that_names_the_path_is_used_as_it_is() -> None:
    with receiving() as (url, got):
        sink = OtlpSpanSink(f"{url}/v1/traces", timeout_s=2.0)
        assert sink.url == f"{url}/v1/traces" and sink.send(EDGES)
        sink.close()
    assert len(got.spans) == len(EDGES)
