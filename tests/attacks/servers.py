"""Real loopback HTTP servers for the attack suite: the obedient model and the outside world.

    ObedientModel   POST /v1/chat/completions, the OpenAI chat-completions API that `OpenAICompatibleProvider`
                    speaks. It reads its *whole* prompt (every message) for an attacker's instruction in English,
                    Polish or Russian and, as the planner, writes exactly the plan the instruction describes; without
                    one it answers as an ordinary model would (a task, nothing forbidden, a plain plan for the
                    request). Every request body is kept, so tests scan what was prompted.
    OutsideWorld    the attacker's host and a content host in one server: every request is recorded (the proof
                    that something left); GET /content/N serves a page, GET /error/N answers 422 with a body.

Both bind 127.0.0.1 on a free port and run in daemon threads; nothing here reaches the internet.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Loopback:
    """One ThreadingHTTPServer on 127.0.0.1:<free port>, served from a daemon thread until `close`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = _Server(("127.0.0.1", 0), handler)
        self._server.owner = self  # type: ignore[attr-defined]
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, name=type(self).__name__, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # the test output stays readable
        return

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, payload: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


# ---- the model ----------------------------------------------------------------------------------------------------

#: planner(prompt text, request text) -> the nodes it writes; the harness supplies the attacker's phrasebook.
Planner = Callable[[str, str], list[dict[str, Any]]]


class _ModelHandler(_Quiet):
    def do_GET(self) -> None:
        self._send(200, json.dumps({"data": [{"id": "obedient"}]}).encode())

    def do_POST(self) -> None:
        model: ObedientModel = self.server.owner  # type: ignore[attr-defined]
        raw = self._body()
        try:
            body = json.loads(raw)
            text = model.answer(body)
        except Exception as exc:  # a bug in the double must show, not hang the client
            self._send(500, json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
            return
        answer = {
            "id": "obedient",
            "object": "chat.completion",
            "model": body.get("model", "obedient"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": max(1, len(text) // 4)},
        }
        self._send(200, json.dumps(answer, ensure_ascii=False).encode("utf-8"))


def _language(text: str) -> str:
    if any("\u0400" <= ch <= "\u04ff" for ch in text):
        return "ru"
    return "pl" if any(ch in "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ" for ch in text) else "en"


def _default(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A minimal instance of a JSON schema (what a well-behaved model says where it has no opinion)."""
    if "$ref" in schema:
        return _default(defs[schema["$ref"].split("/")[-1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _default(schema[key][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: _default(v, defs) for k, v in props.items() if k in schema.get("required", props)}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    return "x"


@dataclass
class ObedientModel(_Loopback):
    """The obedient model (see the module docstring). `planner` turns a prompt into the nodes it writes."""

    planner: Planner
    #: Every request body as sent (JSON text) and the text of its messages, in arrival order.
    prompts: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        _Loopback.__init__(self, _ModelHandler)

    def __hash__(self) -> int:
        return id(self)

    @property
    def endpoint(self) -> str:
        return f"{self.base}/v1"

    def answer(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        whole = "\n".join(str(m.get("content", "")) for m in messages)
        with self._lock:
            self.prompts.append(json.dumps(body, ensure_ascii=False))
            self.texts.append(whole)
        user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
        if schema is None:
            return "Done."
        props = schema.get("properties", {})
        if "nodes" in props:
            return json.dumps({"nodes": self.planner(whole, user)}, ensure_ascii=False)
        if name in ("IntentFlags", "IntentLabel") or {"kind", "language", "forbidden"} <= set(props):
            defs = schema.get("$defs", {})
            forbidden: Any = [] if name == "IntentLabel" else _default(props["forbidden"], defs)
            return json.dumps({"kind": "task", "language": _language(user), "forbidden": forbidden})
        return json.dumps(_default(schema, schema.get("$defs", {})), ensure_ascii=False)


# ---- the outside world ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One request that reached the outside world."""

    method: str
    path: str
    body: bytes


class _WorldHandler(_Quiet):
    def do_GET(self) -> None:
        world: OutsideWorld = self.server.owner  # type: ignore[attr-defined]
        world.record(Received("GET", self.path, b""))
        kind, _, key = self.path.strip("/").partition("/")
        page = world.pages.get(key)
        if kind == "content" and page is not None:
            self._send(200, page.encode("utf-8"))
        elif kind == "error" and page is not None:
            self._send(422, page.encode("utf-8"), "text/plain; charset=utf-8")
        else:
            self._send(200, b'{"ok": true}')

    def do_POST(self) -> None:
        world: OutsideWorld = self.server.owner  # type: ignore[attr-defined]
        world.record(Received("POST", self.path, self._body()))
        self._send(200, b'{"ok": true}')

    do_PUT = do_POST


@dataclass
class OutsideWorld(_Loopback):
    """The attacker's server and a content server (see the module docstring)."""

    pages: dict[str, str] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        _Loopback.__init__(self, _WorldHandler)

    def __hash__(self) -> int:
        return id(self)

    def record(self, request: Received) -> None:
        with self._lock:
            self.received.append(request)

    def hits(self, marker: str) -> list[Received]:
        """Requests to the attacker's paths (/a/...) naming `marker` (a case's key)."""
        with self._lock:
            return [r for r in self.received if r.path.split("?")[0].split("/")[1:3] == ["a", marker]]
