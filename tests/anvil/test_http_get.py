"""http.get_json against a real HTTP server on loopback; it declares the URL it reaches (url_input)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import ValidationError

from alicorn.errors import OperationError
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.http import GET_JSON, GetJsonInputs, get_json
from alicorn.ops.registry import OperationContext


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, Any]] = []
    status = 200

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        _Handler.seen.append({"path": parts.path, "query": parse_qs(parts.query), "trace": self.headers.get("X-Trace")})
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
    yield f"http://127.0.0.1:{server.server_address[1]}/lookup"
    server.shutdown()
    server.server_close()


def _ctx(tmp_path: Path) -> OperationContext:
    return OperationContext("run-1", "ask", 1, "k" * 64, tmp_path, tmp_path)


def test_gets_json_with_query_parameters(url: str, tmp_path: Path) -> None:
    inputs = GetJsonInputs(url=url + "?fixed=1", params={"name": "żółw", "ids": [1, 2]}, headers={"X-Trace": "t"})
    out = get_json(inputs, _ctx(tmp_path))
    assert (out.status, out.body) == (200, {"ok": True})
    assert _Handler.seen == [
        {"path": "/lookup", "query": {"fixed": ["1"], "ids": ["[1, 2]"], "name": ["żółw"]}, "trace": "t"}
    ]


def test_server_errors_are_retryable_and_client_errors_are_not(url: str, tmp_path: Path) -> None:
    for status, retryable in ((503, True), (404, False)):
        _Handler.status = status
        with pytest.raises(OperationError) as caught:
            get_json(GetJsonInputs(url=url), _ctx(tmp_path))
        assert caught.value.retryable is retryable and str(status) in str(caught.value)


def test_credentials_and_odd_urls_are_refused() -> None:
    for bad in (
        {"url": "ftp://x.io/a"},
        {"url": "https://u:p@x.io/"},
        {"url": "https://x.io", "headers": {"Cookie": "a"}},
    ):
        with pytest.raises(ValidationError):
            GetJsonInputs.model_validate(bad)


def test_it_is_a_read_that_declares_where_it_reaches() -> None:
    assert GET_JSON.effect == "read" and GET_JSON.url_input == "url"
    assert "http.get_json" in builtin_registry()
    assert builtin_registry().get("http.post_json").url_input == "url"
    assert builtin_registry().get("data.read_csv").path_input == "path"
    assert GET_JSON.describe()["reaches"] == {"url": "url", "path": None, "amount": None}


def test_a_declared_input_must_exist() -> None:
    import dataclasses

    from alicorn.ops.registry import Registry

    with pytest.raises(ValueError, match="url_input='link'"):
        Registry([dataclasses.replace(GET_JSON, url_input="link")])
