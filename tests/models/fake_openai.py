"""A small OpenAI-compatible server on a real loopback socket, answering from a script.

Each POST to /v1/chat/completions takes the next scripted `Reply` (status, JSON body or raw text, headers, an
optional hold that waits on an event so a client times out). GET /v1/models lists `models`. Every request body
and its headers are kept in `requests` for the test to inspect. No mocks: httpx talks to it over TCP.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    raw: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False


def completion(text: str, *, finish: str = "stop", usage: dict[str, int] | None = None, model: str = "fake") -> Reply:
    """A 200 chat completion with `text`."""
    body: dict[str, Any] = {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    return Reply(body=body)


class FakeOpenAI:
    """The server's state, shared with the handler threads."""

    def __init__(self, script: list[Reply], models: list[str]) -> None:
        self.script = list(script)
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.url = ""

    def next_reply(self) -> Reply:
        with self.lock:
            if not self.script:
                return Reply(status=500, body={"error": {"message": "the fake server's script is exhausted"}})
            return self.script.pop(0)


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, reply: Reply) -> None:
            payload = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(payload)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(Reply(body={"object": "list", "data": [{"id": m} for m in state.models]}))
            else:
                self._send(Reply(status=404, body={"error": {"message": "not found"}}))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.requests.append(body)
                state.headers.append({k.lower(): v for k, v in self.headers.items()})
            reply = state.next_reply()
            if reply.hold:
                state.release.wait(10)
            self._send(reply)

    return Handler


@contextmanager
def serve(script: list[Reply], models: list[str] | None = None) -> Iterator[FakeOpenAI]:
    """Run the server on 127.0.0.1 (a free port) for the duration of the block."""
    state = FakeOpenAI(script, models or ["fake-model"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
