"""Any OpenAI-compatible chat endpoint over HTTP (Ollama, llama.cpp's server, llama-cpp-python, vLLM, LM Studio).

Structured output is negotiated with what the server takes, once per provider (so once per profile):

    json_schema    response_format {type: json_schema, json_schema: {name, schema, strict}}    constrained
    json_object    response_format {type: json_object, schema}  (llama-cpp-python decodes by `schema`; others
                   only promise JSON) + the schema in the system prompt; validated after           not constrained
    grammar        a GBNF `grammar` made from the schema (models/grammar.py); not on Ollama        constrained
    ollama_format  Ollama's native POST /api/chat with the schema in `format`; only on Ollama      constrained
    none           plain text + the schema in the system prompt; validated after                  not constrained

A mode is refused by any 4xx/5xx whose body names the field (response_format, json_schema, schema, grammar,
format...): the next mode is tried at once and the refused one never again. The mode that worked is kept, and every
answer says which mode produced it and why (`ChatResponse.structured_mode` / `structured_reason`, journaled).
Other failures:

    connect error / timeout / 429 / 5xx not naming the field ─► retry with backoff (Retry-After honoured)
    401/403 ─► ProviderAuthError naming the env var;  404 / "model not found" ─► UnknownModelError
    200 that is no completion (HTML, garbage, cut off, empty choices) ─► ProviderResponseError with the body's start

Every error names the profile and the URL; body excerpts are 200 characters with secrets (and the key) scrubbed.
The API key is read from the environment variable the profile names, at call time, and sent only in the
Authorization header. All sleeping goes through the injected clock.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, Literal

import httpx

from alicorn.clock import Clock, default_clock
from alicorn.context.redact import scrub_secrets
from alicorn.context.tokens import ESTIMATE
from alicorn.models.decodable import decodable_schema
from alicorn.models.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    UnknownModelError,
)
from alicorn.models.grammar import GrammarError, schema_to_gbnf
from alicorn.models.messages import ChatMessage, ChatRequest, ChatResponse, Usage
from alicorn.models.profiles import StructuredSupport
from alicorn.models.providers.base import Provider
from alicorn.models.providers.openai_answers import Answer, AnswerProblem, chat_completion, ollama_chat

Mode = Literal["json_schema", "json_object", "grammar", "ollama_format", "none"]
LADDER: tuple[Mode, ...] = ("json_schema", "json_object", "grammar", "ollama_format", "none")
CONSTRAINED: dict[Mode, bool] = {
    "json_schema": True,
    "json_object": False,
    "grammar": True,
    "ollama_format": True,
    "none": False,
}
_START: dict[StructuredSupport, int] = {"json_schema": 0, "json_object": 1, "grammar": 2, "none": 4}
#: Words in an error body that say the server refused the structured-output field of that mode.
_NAMES: dict[Mode, tuple[str, ...]] = {
    "json_schema": ("response_format", "json_schema", "schema", "structured", "format"),
    "json_object": ("response_format", "json_object", "schema", "structured", "format"),
    "grammar": ("grammar", "gbnf"),
    "ollama_format": ("format", "schema", "404 page not found"),
    "none": (),
}
_WHY: dict[Mode, str] = {
    "json_schema": "decoded by the JSON schema (response_format json_schema)",
    "json_object": "JSON mode (response_format json_object, the schema sent along and in the prompt; "
    "llama.cpp's server decodes by it, others only promise JSON); validated after",
    "grammar": "decoded by a GBNF grammar made from the schema",
    "ollama_format": "decoded by the schema in Ollama's `format` (POST /api/chat)",
    "none": "plain text with the schema in the prompt; validated after",
}
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _Refused(Exception):
    """The server refused the structured-output field of the mode tried."""


class _NotHere(Exception):
    """The mode cannot be used for this request or on this server (the reason is the message)."""


class OpenAICompatibleProvider(Provider):
    """Chat completions from `endpoint` (the base URL, usually ending in /v1) for the profile named `profile`."""

    kind = "openai_compatible"

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        profile: str | None = None,
        api_key_env: str | None = None,
        structured: StructuredSupport = "json_schema",
        timeout_s: float = 60.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        clock: Clock | None = None,
        env: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.root = self.endpoint.removesuffix("/v1")
        self.model = model
        self.profile = profile
        self.api_key_env = api_key_env
        self.structured = structured
        self.constrains_output = structured in ("json_schema", "grammar")
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.clock: Clock = clock or default_clock()
        self._env = env if env is not None else os.environ
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)), transport=transport, trust_env=False
        )
        #: What negotiation learned: refused modes with the reason, the mode that worked, whether this is Ollama.
        self.refused: dict[Mode, str] = {}
        self.learned: Mode | None = None
        self._ollama: bool | None = None

    def close(self) -> None:
        self._client.close()

    @property
    def who(self) -> str:
        """How errors name this provider: the profile (when known) and the URL."""
        return f"profile {self.profile!r} ({self.endpoint})" if self.profile else f"the model server at {self.endpoint}"

    def _excerpt(self, text: str, limit: int = 200) -> str:
        clean, _ = scrub_secrets(text)
        key = self._env.get(self.api_key_env) if self.api_key_env else None
        if key:
            clean = clean.replace(key, "[SECRET:api_key]")
        clean = " ".join(clean.split())
        return clean if len(clean) <= limit else clean[:limit] + "…"

    # ---- negotiation --------------------------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatResponse:
        headers = self._headers()
        if request.json_schema is None:
            return self._send(self._openai_body(request, "none", with_hint=False), headers, None, request)
        skipped: list[str] = []
        for mode in LADDER[_START[self.structured] :]:
            if mode in self.refused:
                continue
            try:
                body = self._mode_body(request, mode)
                response = self._send(body, headers, mode, request)
            except _NotHere as exc:
                skipped.append(f"{mode} not used: {exc}")
                continue
            except _Refused as exc:
                self.refused[mode] = str(exc)
                continue
            self.learned = mode
            self.constrains_output = CONSTRAINED[mode]
            notes = [f"{m} refused ({why})" for m, why in self.refused.items()] + skipped
            reason = f"{mode}: {_WHY[mode]}" + (f"; {'; '.join(notes)}" if notes else "")
            return response.model_copy(update={"structured_mode": mode, "structured_reason": reason})
        raise AssertionError("the plain mode is never refused")  # pragma: no cover - `none` has no field to refuse

    def _mode_body(self, request: ChatRequest, mode: Mode) -> dict[str, Any]:
        schema = decodable_schema(request.json_schema or {})  # a `\d` in a pattern kills a llama.cpp server
        if mode == "json_schema":
            body = self._openai_body(request, mode, with_hint=False)
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": schema, "strict": True},
            }
        elif mode == "json_object":
            body = self._openai_body(request, mode, with_hint=True)
            body["response_format"] = {"type": "json_object", "schema": schema}
        elif mode == "grammar":
            if self.is_ollama():
                self.refused[mode] = "Ollama ignores a grammar field"
                raise _NotHere(self.refused[mode])
            try:
                grammar = schema_to_gbnf(schema)
            except GrammarError as exc:
                raise _NotHere(f"the schema has no grammar here ({exc})") from None
            body = self._openai_body(request, mode, with_hint=False)
            body["grammar"] = grammar
        elif mode == "ollama_format":
            if not self.is_ollama():
                self.refused[mode] = "not an Ollama server (no /api/version)"
                raise _NotHere(self.refused[mode])
            options: dict[str, Any] = {"temperature": request.temperature, "num_predict": request.max_tokens}
            if request.seed is not None:
                options["seed"] = request.seed
            body = {
                "model": self.model,
                "messages": [m.model_dump() for m in request.messages],
                "stream": False,
                "format": schema,
                "options": options,
            }
        else:
            body = self._openai_body(request, mode, with_hint=True)
        return body

    def is_ollama(self) -> bool:
        """Whether the server is Ollama (it answers GET /api/version), asked once."""
        if self._ollama is None:
            try:
                answer = self._client.get(f"{self.root}/api/version", headers=self._headers(), timeout=5.0)
                self._ollama = answer.status_code == 200 and "version" in answer.json()
            except (httpx.HTTPError, ValueError, TypeError):
                self._ollama = False
        return self._ollama

    # ---- the request --------------------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = self._env.get(self.api_key_env)
            if not key:
                raise ProviderAuthError(
                    f"{self.who} needs an API key in the environment variable {self.api_key_env}, which is not "
                    "set; export it and try again",
                    profile=self.profile,
                )
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _openai_body(self, request: ChatRequest, mode: Mode, *, with_hint: bool) -> dict[str, Any]:
        messages = list(request.messages)
        if with_hint and request.json_schema is not None:
            hint = "Answer with one JSON object, and nothing else, that matches this JSON schema: " + json.dumps(
                request.json_schema, ensure_ascii=False, separators=(",", ":")
            )
            if messages[0].role == "system":
                messages[0] = ChatMessage(role="system", content=f"{messages[0].content}\n\n{hint}")
            else:
                messages.insert(0, ChatMessage(role="system", content=hint))
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": False,
        }
        if request.seed is not None:
            body["seed"] = request.seed
        return body

    def _send(
        self, body: dict[str, Any], headers: dict[str, str], mode: Mode | None, request: ChatRequest
    ) -> ChatResponse:
        """POST `body` (retrying what may pass), parse a 200, raise _Refused when the server refuses `mode`."""
        native = mode == "ollama_format"
        url = f"{self.root}/api/chat" if native else f"{self.endpoint}/chat/completions"
        attempt = 0
        while True:
            try:
                response = self._client.post(url, json=body, headers=headers)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                failure: ProviderError = ProviderUnavailableError(
                    f"{self.who}: cannot reach the model server at {url} ({type(exc).__name__}); is it running? "
                    "(e.g. `ollama serve`, `llama-server --port 8080`); check the profile's endpoint",
                    profile=self.profile,
                )
            except httpx.TimeoutException:
                failure = ProviderTimeoutError(
                    f"{self.who}: the model server at {url} did not answer within {self.timeout_s:g} s; raise the "
                    "profile's timeout_s, lower max_tokens, or use a faster model",
                    profile=self.profile,
                )
            except httpx.RemoteProtocolError as exc:
                failure = ProviderUnavailableError(
                    f"{self.who}: the model server at {url} closed the connection before its whole answer arrived "
                    f"(a truncated body: {self._excerpt(str(exc))}); check the server's log and any proxy in between",
                    profile=self.profile,
                )
            except httpx.HTTPError as exc:
                failure = ProviderUnavailableError(
                    f"{self.who}: HTTP error talking to {url}: {type(exc).__name__}", profile=self.profile
                )
            else:
                if response.status_code == 200:
                    parse = ollama_chat if native else chat_completion
                    return self._answer(response, url, parse, request, mode)
                if mode not in (None, "none") and self._refuses(response, mode):
                    raise _Refused(f"{response.status_code}: {self._excerpt(response.text, 120)}")
                failure = self._http_failure(response, url)
                if not failure.retryable:
                    raise failure
                retry_after = self._retry_after(response)
                if retry_after is not None and attempt < self.max_retries:
                    self.clock.sleep(retry_after)
                    attempt += 1
                    continue
            if attempt >= self.max_retries:
                if self.max_retries:
                    raise type(failure)(f"{failure} (after {attempt + 1} attempts)", profile=self.profile) from None
                raise failure
            self.clock.sleep(min(self.backoff_s * (2**attempt), self.max_backoff_s))
            attempt += 1

    # ---- the response -------------------------------------------------------------------------------------------

    def _answer(
        self,
        response: httpx.Response,
        url: str,
        parse: Callable[[str, str], Answer],
        request: ChatRequest,
        mode: Mode | None,
    ) -> ChatResponse:
        try:
            answer = parse(response.text, response.headers.get("content-type", ""))
        except AnswerProblem as problem:
            raise ProviderResponseError(
                f"{self.who}: the model server at {url} answered 200 with something that is not a chat completion: "
                f"{problem}; body starts: {self._excerpt(response.text)!r}. Check that the profile's endpoint is "
                "the server's OpenAI-compatible base URL (usually ending in /v1) and nothing in between rewrites it",
                profile=self.profile,
            ) from None
        if answer.prompt_tokens is not None and answer.completion_tokens is not None:
            usage = Usage(prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens)
        else:
            usage = Usage(
                prompt_tokens=sum(ESTIMATE.count(m.content) for m in request.messages),
                completion_tokens=ESTIMATE.count(answer.text),
                estimated=True,
            )
        return ChatResponse(
            text=answer.text,
            usage=usage,
            model=answer.model or self.model,
            finish_reason=answer.finish_reason,
            constrained=mode is not None and CONSTRAINED[mode],
        )

    def _refuses(self, response: httpx.Response, mode: Mode) -> bool:
        if response.status_code in (401, 403) or response.status_code < 400:
            return False
        text = response.text.lower()
        if mode == "ollama_format" and response.status_code in (404, 405) and "model" not in text:
            return True
        return any(word in text for word in _NAMES[mode])

    @staticmethod
    def _retry_after(response: httpx.Response) -> float | None:
        value = response.headers.get("retry-after")
        try:
            return min(max(float(value), 0.0), 60.0) if value is not None else None
        except ValueError:
            return None

    def _http_failure(self, response: httpx.Response, url: str) -> ProviderError:
        status = response.status_code
        body = self._excerpt(response.text)
        if status in (401, 403):
            hint = f"check the key in {self.api_key_env}" if self.api_key_env else "the profile names no api_key_env"
            return ProviderAuthError(
                f"{self.who}: the model server at {url} refused the credentials ({status}); {hint}",
                profile=self.profile,
            )
        lowered = body.lower()
        if status == 404 or ("model" in lowered and ("not found" in lowered or "does not exist" in lowered)):
            served = self.served_models()
            listing = f"; it serves: {', '.join(served)}" if served else ""
            return UnknownModelError(
                f"{self.who}: the model server at {url} does not serve model {self.model!r} ({status}: {body})"
                f"{listing}. Pull or load it (e.g. `ollama pull NAME`) or fix the profile's `model`",
                profile=self.profile,
            )
        if status in _RETRY_STATUS:
            return ProviderUnavailableError(
                f"{self.who}: the model server at {url} failed with {status} (a server error, not about the "
                f"request's format): {body}; check the server's log",
                profile=self.profile,
            )
        return ProviderResponseError(
            f"{self.who}: the model server at {url} refused the request with {status}: {body}", profile=self.profile
        )

    def served_models(self) -> list[str]:
        """The model ids the endpoint lists at /models (empty when it cannot say)."""
        try:
            response = self._client.get(f"{self.endpoint}/models", headers=self._headers(), timeout=5.0)
            data = response.json().get("data", [])
            return sorted(str(item["id"]) for item in data if isinstance(item, dict) and "id" in item)[:20]
        except (httpx.HTTPError, ValueError, AttributeError, KeyError, ProviderError):
            return []
