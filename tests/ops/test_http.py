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

from alicorn.errors import EffectUnknown, OperationError
from alicorn.ops.http import GetJsonInputs, PostJsonInputs, get_json, post_json
from alicorn.ops.registry import OperationContext


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, Any]] = []
    status = 200
    behaviour = "answer"  # answer | late (answer after the client gave up) | drop (close without answering)
    released = threading.Event()

    def do_GET(self) -> None:
        self.send_response(_Handler.status)
        self.end_headers()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if _Handler.behaviour == "drop":
            _Handler.seen.append({"dropped": True})
            self.close_connection = True
            return
        if _Handler.behaviour == "late":
            _Handler.released.wait(5)
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
    _Handler.seen, _Handler.status, _Handler.behaviour, _Handler.released = [], 200, "answer", threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    _Handler.released.set()
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
    # A refusal (4xx) was certainly not applied; a server error (5xx) after receiving the request may have been.
    assert caught.value.certain is (status < 500)
    assert isinstance(caught.value, EffectUnknown) is (status >= 500)


def test_unreachable_host_is_retryable_and_certainly_not_applied(tmp_path: Path) -> None:
    with pytest.raises(OperationError, match="cannot reach") as caught:
        post_json(PostJsonInputs(url="http://127.0.0.1:9/none", payload={}, timeout_s=2), _ctx(tmp_path))
    assert caught.value.retryable and caught.value.certain  # connection refused: nothing was sent
    assert "nothing was sent" in str(caught.value)


@pytest.mark.parametrize("behaviour", ["late", "drop"])
def test_no_answer_after_sending_is_an_unknown_outcome(url: str, tmp_path: Path, behaviour: str) -> None:
    """A timeout after the request went out, or a connection closed before the answer: it may have been applied."""
    _Handler.behaviour = behaviour
    with pytest.raises(EffectUnknown, match="may have been applied") as caught:
        post_json(PostJsonInputs(url=url, payload={"n": 1}, timeout_s=0.3), _ctx(tmp_path))
    assert caught.value.retryable and not caught.value.certain
    if behaviour == "late":
        assert "timed out" in str(caught.value)
    else:
        assert _Handler.seen == [{"dropped": True}]


def test_a_read_never_reports_an_unknown_effect(url: str, tmp_path: Path) -> None:
    _Handler.status = 503
    with pytest.raises(OperationError) as caught:
        get_json(GetJsonInputs(url=url), _ctx(tmp_path))
    assert caught.value.retryable and caught.value.certain and not isinstance(caught.value, EffectUnknown)


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
