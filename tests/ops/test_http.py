"""http.post_json against a real HTTP server on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from alicorn.errors import OperationError
from alicorn.ops.http import PostJsonInputs, post_json
from alicorn.ops.registry import OperationContext


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, Any]] = []
    status = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Handler.seen.append(
            {
                "key": self.headers["Idempotency-Key"],
                "body": json.loads(body),
                "type": self.headers["Content-Type"],
                "extra": self.headers.get("X-Trace"),
            }
        )
        self.send_response(_Handler.status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps({"ok": _Handler.status < 400}).encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def url() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    _Handler.seen, _Handler.status = [], 200
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()
    server.server_close()


def _ctx(tmp_path: Path) -> OperationContext:
    return OperationContext("run-1", "send", 1, "k" * 64, tmp_path, tmp_path)


def test_posts_json_with_the_idempotency_key(url: str, tmp_path: Path) -> None:
    out = post_json(PostJsonInputs(url=url, payload={"żółw": [1, 2]}, headers={"X-Trace": "t1"}), _ctx(tmp_path))
    assert (out.status, out.body, out.idempotency_key) == (200, {"ok": True}, "k" * 64)
    assert _Handler.seen == [
        {"key": "k" * 64, "body": {"żółw": [1, 2]}, "type": "application/json; charset=utf-8", "extra": "t1"}
    ]


@pytest.mark.parametrize(("status", "retryable"), [(400, False), (404, False), (500, True), (503, True)])
def test_http_errors_say_whether_a_retry_helps(url: str, tmp_path: Path, status: int, retryable: bool) -> None:
    _Handler.status = status
    with pytest.raises(OperationError) as caught:
        post_json(PostJsonInputs(url=url, payload={}), _ctx(tmp_path))
    assert caught.value.retryable is retryable and str(status) in str(caught.value)


def test_unreachable_host_is_retryable(tmp_path: Path) -> None:
    with pytest.raises(OperationError, match="cannot reach") as caught:
        post_json(PostJsonInputs(url="http://127.0.0.1:9/none", payload={}, timeout_s=2), _ctx(tmp_path))
    assert caught.value.retryable


@pytest.mark.parametrize(
    "inputs",
    [
        {"url": "file:///etc/passwd", "payload": {}},
        {"url": "ftp://example.org/x", "payload": {}},
        {"url": "http://user:pw@127.0.0.1/x", "payload": {}},
        {"url": "http://127.0.0.1/x", "payload": {}, "headers": {"Authorization": "Bearer x"}},
        {"url": "http://127.0.0.1/x", "payload": {}, "headers": {"idempotency-key": "mine"}},
    ],
)
def test_refuses_non_http_urls_and_credentials(inputs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        PostJsonInputs.model_validate(inputs)
