"""Structured-output negotiation against emulations of real servers on loopback sockets (no mocks: httpx talks TCP).

The emulations answer what those servers answer:
* vLLM: takes `response_format: json_schema`.
* llama-cpp-python 0.3 (checked in abetlen/llama-cpp-python at 0.3.35: llama_cpp/llama_types.py types
  `ChatCompletionRequestResponseFormat.type` as Literal["text", "json_object"] with an optional `schema`; the server's
  `RouteErrorHandler` (llama_cpp/server/errors.py) wraps the FastAPI validation error of any other type into a 500
  `{"error": {"message": str(error), "type": "internal_server_error", ...}}`, and str() of FastAPI's
  RequestValidationError is "1 validation error:\\n  {'type': 'literal_error', 'loc': ('body', 'response_format',
  'type'), ...}"; `json_object` with `schema` is decoded by that schema (llama_chat_format.py
  `_grammar_for_response_format`); `grammar` is a request field (server/types.py), parsed by LlamaGrammar).
* a llama.cpp-like server that refuses both response formats but takes `grammar`.
* Ollama: the native POST /api/chat with the schema in `format`, GET /api/version; its Go JSON decoding ignores
  unknown fields such as `grammar`. (Its /v1 here refuses response_format, so that `format` is what is left.)
* a plain server that rejects every structured field as OpenAI does ("Unrecognized request argument supplied").
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from alicorn.context.tap import JournalTap
from alicorn.journal.memory import InMemoryStore
from alicorn.models.errors import ProviderResponseError, ProviderUnavailableError
from alicorn.models.messages import ChatRequest
from alicorn.models.providers import provider_for
from alicorn.models.providers.openai_http import OpenAICompatibleProvider
from alicorn.models.recorder import ModelCallRecorder, ModelClient
from alicorn.models.structured import ask_structured, schema_of
from tests.models.support import FakeClock, profile
from tests.models.test_grammar import Grammar


class Label(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    urgent: bool


ANSWER = '{"kind": "task", "urgent": false}'
ASK = ChatRequest.chat("You label requests.", "Publish the schedule", json_schema=schema_of(Label), schema_name="Label")

_LLAMA_CPP_VALIDATION = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input "
    "should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}"
    '\n  File "/usr/lib/python3/site-packages/llama_cpp/server/app.py", line 485, in create_chat_completion\n'
    "    POST /v1/chat/completions"
)


@dataclass
class Seen:
    method: str
    path: str
    body: dict[str, Any] | None


@dataclass
class Reply:
    status: int
    body: str
    content_type: str = "application/json"
    declared_length: int | None = None  # a Content-Length larger than the body: the connection closes early


def _json(status: int, body: Any) -> Reply:
    return Reply(status, json.dumps(body))


def openai_completion(text: str, model: str = "served-model") -> Reply:
    return _json(
        200,
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1764590000,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 31, "completion_tokens": 9, "total_tokens": 40},
        },
    )


def openai_error(status: int, message: str, kind: str = "invalid_request_error") -> Reply:
    return _json(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})


Behaviour = Callable[[str, str, dict[str, Any] | None], Reply]


def vllm(method: str, path: str, body: dict[str, Any] | None) -> Reply:
    if method == "POST" and path == "/v1/chat/completions":
        return openai_completion(ANSWER)
    return _json(404, {"detail": "Not Found"})


def llama_cpp_python(method: str, path: str, body: dict[str, Any] | None) -> Reply:
    if method == "POST" and path == "/v1/chat/completions" and body is not None:
        response_format = body.get("response_format")
        if response_format is not None and response_format.get("type") not in ("text", "json_object"):
            return openai_error(500, _LLAMA_CPP_VALIDATION, "internal_server_error")
        return openai_completion(ANSWER)
    return _json(404, {"detail": "Not Found"})  # FastAPI's 404 (no /api/version)


def grammar_only(method: str, path: str, body: dict[str, Any] | None) -> Reply:
    if method == "POST" and path == "/v1/chat/completions" and body is not None:
        if "response_format" in body:
            return openai_error(400, "response_format is not supported by this server; use grammar")
        return openai_completion(ANSWER)
    return Reply(404, "File Not Found", "text/plain")


def ollama(method: str, path: str, body: dict[str, Any] | None) -> Reply:
    if method == "GET" and path == "/api/version":
        return _json(200, {"version": "0.4.7"})
    if method == "POST" and path == "/v1/chat/completions" and body is not None:
        if "response_format" in body:
            return openai_error(400, "invalid response_format: only the native format field is supported")
        return openai_completion("Sure! The kind is task.")  # a `grammar` field is silently ignored
    if method == "POST" and path == "/api/chat" and body is not None:
        return _json(
            200,
            {
                "model": body["model"],
                "created_at": "2026-12-01T12:00:00Z",
                "message": {"role": "assistant", "content": ANSWER},
                "done_reason": "stop",
                "done": True,
                "prompt_eval_count": 28,
                "eval_count": 12,
            },
        )
    return Reply(404, "404 page not found", "text/plain")


def plain(method: str, path: str, body: dict[str, Any] | None) -> Reply:
    if method == "POST" and path == "/v1/chat/completions" and body is not None:
        for name in ("response_format", "grammar"):
            if name in body:
                return openai_error(400, f"Unrecognized request argument supplied: {name}")
        return openai_completion(f"Here you go:\n```json\n{ANSWER}\n```")
    return Reply(404, "Not Found", "text/plain")


@dataclass
class Emulated:
    behaviour: Behaviour
    seen: list[Seen] = field(default_factory=list)
    url: str = ""

    def posts(self, path: str = "") -> list[dict[str, Any]]:
        return [s.body or {} for s in self.seen if s.method == "POST" and s.path.endswith(path)]


def _handler(state: Emulated, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self, method: str, body: dict[str, Any] | None) -> None:
            with lock:
                state.seen.append(Seen(method, self.path, body))
            reply = state.behaviour(method, self.path, body)
            payload = reply.body.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(reply.declared_length or len(payload)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(payload)
            if reply.declared_length:
                self.close_connection = True

        def do_GET(self) -> None:
            self._answer("GET", None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            self._answer("POST", json.loads(self.rfile.read(length) or b"{}"))

    return Handler


@contextmanager
def emulate(behaviour: Behaviour) -> Iterator[Emulated]:
    state = Emulated(behaviour)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state, threading.Lock()))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def provider(url: str, **options: Any) -> OpenAICompatibleProvider:
    options.setdefault("clock", FakeClock())
    return OpenAICompatibleProvider(url, "served-model", profile="local-llm", **options)


# ---- each server's mode, learned once --------------------------------------------------------------------------


def test_vllm_takes_json_schema_at_once() -> None:
    with emulate(vllm) as server, provider(server.url) as p:
        first, second = p.complete(ASK), p.complete(ASK)
    assert [b["response_format"]["type"] for b in server.posts()] == ["json_schema", "json_schema"]
    assert server.posts()[0]["response_format"]["json_schema"]["schema"] == schema_of(Label)
    assert first.constrained and second.constrained and first.structured_mode == "json_schema"
    assert first.structured_reason.startswith("json_schema: decoded by the JSON schema")
    assert [s.method for s in server.seen] == ["POST", "POST"]  # no probing of a server that takes the schema


def test_llama_cpp_python_500_on_json_schema_falls_to_json_object_with_the_schema() -> None:
    clock = FakeClock()
    with emulate(llama_cpp_python) as server, provider(server.url, clock=clock) as p:
        first, second = p.complete(ASK), p.complete(ASK)
    sent = server.posts()
    assert [b["response_format"]["type"] for b in sent] == ["json_schema", "json_object", "json_object"]
    assert sent[1]["response_format"]["schema"] == schema_of(Label)  # llama-cpp-python decodes by it
    assert '"urgent"' in sent[1]["messages"][0]["content"]  # and the prompt names the schema too
    assert clock.slept == []  # a 500 that names response_format is a refusal, not an outage to retry
    assert first.structured_mode == second.structured_mode == "json_object"
    assert not first.constrained and not p.constrains_output
    assert "json_schema refused (500: " in first.structured_reason and "response_format" in first.structured_reason
    assert Label.model_validate_json(first.text).kind == "task"


def test_grammar_server_gets_a_gbnf_grammar_that_admits_the_answer() -> None:
    with emulate(grammar_only) as server, provider(server.url) as p:
        first, second = p.complete(ASK), p.complete(ASK)
    posts = server.posts()
    assert ["response_format" in b for b in posts] == [True, True, False, False]
    assert [s.path for s in server.seen if s.method == "GET"] == ["/api/version"]  # asked once: not Ollama
    grammar = Grammar(posts[2]["grammar"])
    assert grammar.accepts(ANSWER) and not grammar.accepts('{"kind": "task"}')
    assert first.constrained and first.structured_mode == second.structured_mode == "grammar"
    assert (
        "json_schema refused (400" in first.structured_reason and "json_object refused (400" in first.structured_reason
    )


def test_ollama_gets_the_schema_in_format_on_the_native_api_and_never_a_grammar() -> None:
    request = ASK.model_copy(update={"max_tokens": 99, "seed": 7})
    with emulate(ollama) as server, provider(server.url) as p:
        first, _ = p.complete(request), p.complete(request)
    assert not any("grammar" in b for b in server.posts())  # Ollama would ignore it and answer unconstrained
    native = server.posts("/api/chat")
    assert len(native) == 2 and len(server.posts("/v1/chat/completions")) == 2  # the refusals, once
    assert native[0]["format"] == schema_of(Label) and native[0]["stream"] is False
    assert native[0]["options"] == {"temperature": 0.0, "num_predict": 99, "seed": 7}
    assert first.text == ANSWER and first.constrained and first.structured_mode == "ollama_format"
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (28, 12)
    assert "grammar refused (Ollama ignores a grammar field)" in first.structured_reason


def test_plain_server_gets_plain_text_with_the_schema_in_the_prompt_and_validation_after() -> None:
    with emulate(plain) as server, provider(server.url) as p:
        client = ModelClient(profile(provider="openai_compatible", endpoint=server.url, model="m"), p)
        result = ask_structured(client, ASK, Label)
        again = p.complete(ASK)
    posts = server.posts()
    assert len(posts) == 3 + 1 + 1  # json_schema, json_object, grammar refused; plain; then plain again at once
    assert all("response_format" not in b and "grammar" not in b for b in posts[3:])
    assert '"urgent"' in posts[3]["messages"][0]["content"]
    assert result.value == Label(kind="task", urgent=False) and not result.constrained
    assert again.structured_mode == "none" and "ollama_format refused (not an Ollama server" in again.structured_reason


def test_profile_declaring_json_object_starts_there_and_none_sends_nothing() -> None:
    with emulate(llama_cpp_python) as server, provider(server.url, structured="json_object") as p:
        assert p.complete(ASK).structured_mode == "json_object"
    assert [b["response_format"]["type"] for b in server.posts()] == ["json_object"]
    with emulate(vllm) as server, provider(server.url, structured="none") as p:
        answer = p.complete(ASK)
    assert answer.structured_mode == "none" and "response_format" not in server.posts()[0]


def test_the_learned_mode_and_its_reason_are_journaled() -> None:
    store = InMemoryStore()
    with emulate(llama_cpp_python) as server:
        prof = profile(id="llama-server", provider="openai_compatible", endpoint=server.url, model="smollm2")
        with provider_for(prof, clock=FakeClock()) as p:
            client = ModelClient(prof, p, ModelCallRecorder(JournalTap(store, "run-1:models", FakeClock())))
            ask_structured(client, ASK, Label)
    response = next(e for e in store.read("run-1:models") if e.kind == "llm.response")
    assert response.data["constrained"] is False
    assert response.data["structured"]["mode"] == "json_object"
    assert "json_schema refused (500" in response.data["structured"]["reason"]


# ---- failures that are not about the format -------------------------------------------------------------------


def test_a_500_that_does_not_name_the_format_stays_a_server_error() -> None:
    def broken(method: str, path: str, body: dict[str, Any] | None) -> Reply:
        return openai_error(500, "CUDA error: out of memory", "internal_server_error")

    clock = FakeClock()
    with (
        emulate(broken) as server,
        provider(server.url, clock=clock, max_retries=1) as p,
        pytest.raises(ProviderUnavailableError) as info,
    ):
        p.complete(ASK)
    message = str(info.value)
    assert message.startswith(f"profile 'local-llm' ({server.url}): the model server at {server.url}/chat/completions")
    assert "failed with 500 (a server error, not about the request's format): " in message
    assert "CUDA error: out of memory" in message and "(after 2 attempts)" in message
    assert [b["response_format"]["type"] for b in server.posts()] == ["json_schema", "json_schema"]
    assert clock.slept == [0.5] and p.refused == {}


KEY = "sk-live-0123456789abcdefghij"
SSE_CUT = 'data: {"choices": [{"delta": {"content": "{\\"kind\\""}}]}\n\ndata: {"choices": [{"delta": {"con'


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(200, "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>nginx</body></html>", "text/html"), "HTML"),
        (Reply(200, "\x00\x17garbage ~~~ not json", "application/octet-stream"), "not JSON"),
        (Reply(200, '{"id": "chatcmpl-1", "choices": [{"message": {"content": "{\\"kind'), "cut off after"),
        (_json(200, {"id": "chatcmpl-1", "object": "chat.completion", "choices": []}), "empty `choices` list"),
        (Reply(200, SSE_CUT, "text/event-stream"), "event stream cut off before its end"),
        (Reply(200, f"<html>invalid key {KEY} for org</html>" + "x" * 400, "text/html"), "HTML"),
        (_json(200, {"error": {"message": "model is loading"}}), "an error object with status 200"),
    ],
    ids=["html", "garbage", "truncated-json", "empty-choices", "truncated-stream", "secret-in-body", "error-200"],
)
def test_bad_answers_are_clear_errors_naming_profile_url_and_what_came_back(reply: Reply, said: str) -> None:
    with (
        emulate(lambda method, path, body: reply) as server,
        provider(server.url, api_key_env="LLM_KEY", env={"LLM_KEY": KEY}) as p,
        pytest.raises(ProviderResponseError) as info,
    ):
        p.complete(ASK)
    message = str(info.value)
    assert message.startswith(f"profile 'local-llm' ({server.url}): the model server at {server.url}/chat/completions")
    assert "answered 200 with something that is not a chat completion: " in message and said in message
    assert KEY not in message and info.value.profile == "local-llm"
    start = message.split("body starts: ", 1)[1].split("'. Check", 1)[0].strip("'\"")
    assert 0 < len(start) <= 201 and (len(reply.body) <= 200 or start.endswith("…"))
    assert len(server.posts()) == 1  # a 200 is not retried in another mode


def test_a_body_cut_off_by_the_connection_is_a_clear_error() -> None:
    whole = openai_completion(ANSWER)
    cut = Reply(200, whole.body[:40], declared_length=len(whole.body))
    with (
        emulate(lambda method, path, body: cut) as server,
        provider(server.url, max_retries=0) as p,
        pytest.raises(ProviderUnavailableError) as info,
    ):
        p.complete(ASK)
    message = str(info.value)
    assert message.startswith("profile 'local-llm' (") and f"{server.url}/chat/completions" in message
    assert "closed the connection before its whole answer arrived (a truncated body" in message


def test_a_complete_event_stream_is_read_even_when_not_asked_for() -> None:
    pieces = ['{"kind": ', '"task", "urgent": ', "true}"]
    chunks = [json.dumps({"model": "m", "choices": [{"delta": {"content": piece}}]}) for piece in pieces]
    chunks.append(json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}]}))
    stream = "".join(f"data: {chunk}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
    with (
        emulate(lambda method, path, body: Reply(200, stream, "text/event-stream")) as server,
        provider(server.url) as p,
    ):
        answer = p.complete(ASK)
    assert answer.text == '{"kind": "task", "urgent": true}' and answer.finish_reason == "stop"
