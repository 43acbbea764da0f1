"""A real OTLP/HTTP receiver on loopback: decodes what arrives with opentelemetry-proto, as a collector would."""

from __future__ import annotations

import gzip
import http.server
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass
class Received:
    """What the receiver decoded: spans (with their resource's attributes) and metric names."""

    spans: list[Any] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    requests: int = 0
    encodings: list[tuple[str, str]] = field(default_factory=list)  # each request's path, Content-Encoding or ""
    delay_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def by_name(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for span in self.spans:
            out.setdefault(span.name, []).append(span)
        return out


def value(any_value: AnyValue) -> Any:
    """A decoded attribute value as Python (arrays as lists)."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def attributes(span: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in span.attributes}


@contextmanager
def receiving(delay_s: float = 0.0, refuse: frozenset[str] = frozenset()) -> Iterator[tuple[str, Received]]:
    """A collector on 127.0.0.1 (a free port) while the block runs; yields its base URL and what it received.
    `delay_s`: how long it sleeps before answering each request (a slow collector); `refuse`: the paths it answers
    with 404 (a collector without that signal's receiver)."""
    received = Received(delay_s=delay_s)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            encoding = self.headers.get("Content-Encoding", "")
            if encoding == "gzip":  # what a collector must accept (the OTLP specification)
                body = gzip.decompress(body)
            elif encoding == "deflate":
                body = zlib.decompress(body)
            with received.lock:
                received.encodings.append((self.path, encoding))
            if received.delay_s:
                time.sleep(received.delay_s)
            with received.lock:
                received.requests += 1
                if self.path in refuse:
                    answer = None
                elif self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    for rs in request.resource_spans:
                        res = {kv.key: value(kv.value) for kv in rs.resource.attributes}
                        for ss in rs.scope_spans:
                            for span in ss.spans:
                                received.spans.append(span)
                                received.resources.append(res)
                    answer = ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    request = ExportMetricsServiceRequest.FromString(body)
                    for rm in request.resource_metrics:
                        for sm in rm.scope_metrics:
                            for metric in sm.metrics:
                                received.metrics.setdefault(metric.name, []).append(metric)
                    answer = b""
                else:
                    answer = None
                if answer is None:
                    self.send_response(404)
                    self.end_headers()
                    return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    finally:
        httpd.shutdown()
        httpd.server_close()
