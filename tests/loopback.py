"""A real HTTP server on the host's loopback, for tests that check who can (and cannot) reach it."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def serving(body: bytes) -> Iterator[int]:
    """Serve `body` to every GET on 127.0.0.1 (a free port) while the block runs; yields the port."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


class Recorded:
    """What a recording server was asked (each GET's path, in order) and the URL a plan points at it."""

    def __init__(self, port: int) -> None:
        self.requests: list[str] = []
        self.url = f"http://127.0.0.1:{port}/x"


@contextmanager
def recording(body: bytes) -> Iterator[Recorded]:
    """Serve `body` as JSON to every GET on 127.0.0.1 (a free port) while the block runs, recording each path: what
    left the machine, for tests that check a run sent nothing."""
    recorded: list[Recorded] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            recorded[0].requests.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    recorded.append(Recorded(httpd.server_address[1]))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield recorded[0]
    finally:
        httpd.shutdown()
        httpd.server_close()
