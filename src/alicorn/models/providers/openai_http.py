"""Any OpenAI-compatible chat endpoint over HTTP (Ollama, llama.cpp's llama-server, vLLM, LM Studio, hosted APIs).

    complete ─► POST {endpoint}/chat/completions  (response_format json_schema when the profile supports it)
             ├─ connect error / timeout / 429 / 5xx ─► retry with exponential backoff (Retry-After honoured)
             ├─ 400 naming response_format ─► once more without it (recorded: constrained = false), remembered
             ├─ 401/403 ─► ProviderAuthError naming the env var;  404 / "model not found" ─► UnknownModelError
             └─ 200 ─► text, finish reason, usage (estimated when the server reports none)

The API key is read from the environment variable the profile names, at call time; it is sent only in the
Authorization header and appears in no error message, event or log. All sleeping goes through the injected clock.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import httpx

from alicorn.clock import Clock, default_clock
from alicorn.context.redact import scrub_secrets
from alicorn.context.tokens import ESTIMATE
from alicorn.models.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    UnknownModelError,
)
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.profiles import StructuredSupport
from alicorn.models.providers.base import Provider

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


def _excerpt(text: str, limit: int = 200) -> str:
    clean, _ = scrub_secrets(text)
    clean = " ".join(clean.split())
    return clean if len(clean) <= limit else clean[:limit] + "…"


class OpenAICompatibleProvider(Provider):
    """Chat completions from `endpoint` (the base URL, usually ending in /v1)."""

    kind = "openai_compatible"

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
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
        self.model = model
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

    def close(self) -> None:
        self._client.close()

    # ---- the request --------------------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = self._env.get(self.api_key_env)
            if not key:
                raise ProviderAuthError(
                    f"the profile for {self.endpoint} needs an API key in the environment variable "
                    f"{self.api_key_env}, which is not set; export it and try again"
                )
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _body(self, request: ChatRequest, with_schema: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": False,
        }
        if request.seed is not None:
            body["seed"] = request.seed
        if request.json_schema is not None and with_schema:
            if self.structured in ("json_schema", "grammar"):
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": True},
                }
            elif self.structured == "json_object":
                body["response_format"] = {"type": "json_object"}
        return body

    def complete(self, request: ChatRequest) -> ChatResponse:
        headers = self._headers()
        with_schema = self.structured != "none"
        attempt = 0
        while True:
            try:
                response = self._client.post(
                    f"{self.endpoint}/chat/completions", json=self._body(request, with_schema), headers=headers
                )
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                failure: ProviderError = ProviderUnavailableError(
                    f"cannot reach the model server at {self.endpoint} ({type(exc).__name__}); is it running? "
                    "(e.g. `ollama serve`, `llama-server --port 8080`); check the profile's endpoint"
                )
            except httpx.TimeoutException:
                failure = ProviderTimeoutError(
                    f"the model server at {self.endpoint} did not answer within {self.timeout_s:g} s; raise the "
                    "profile's timeout_s, lower max_tokens, or use a faster model"
                )
            except httpx.HTTPError as exc:
                failure = ProviderUnavailableError(f"HTTP error talking to {self.endpoint}: {type(exc).__name__}")
            else:
                if response.status_code == 200:
                    return self._parse(response, request, constrained=with_schema and self.constrains_output)
                if response.status_code == 400 and with_schema and self._schema_refused(response):
                    # The server does not support structured output: ask once more without it, and remember.
                    with_schema = False
                    self.structured = "none"
                    self.constrains_output = False
                    continue
                failure = self._http_failure(response)
                if not failure.retryable:
                    raise failure
                retry_after = self._retry_after(response)
                if retry_after is not None and attempt < self.max_retries:
                    self.clock.sleep(retry_after)
                    attempt += 1
                    continue
            if attempt >= self.max_retries:
                if self.max_retries:
                    raise type(failure)(f"{failure} (after {attempt + 1} attempts)") from None
                raise failure
            self.clock.sleep(min(self.backoff_s * (2**attempt), self.max_backoff_s))
            attempt += 1

    # ---- the response -------------------------------------------------------------------------------------------

    def _parse(self, response: httpx.Response, request: ChatRequest, *, constrained: bool) -> ChatResponse:
        try:
            raw = response.json()
            choice = raw["choices"][0]
            text = choice["message"].get("content") or ""
            if not isinstance(text, str):
                raise TypeError("message content is not a string")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ProviderResponseError(
                f"the model server at {self.endpoint} answered with something that is not a chat completion "
                f"({type(exc).__name__}: {exc}); body starts: {_excerpt(response.text)!r}"
            ) from None
        usage = raw.get("usage") if isinstance(raw.get("usage"), dict) else None
        if usage and isinstance(usage.get("prompt_tokens"), int) and isinstance(usage.get("completion_tokens"), int):
            counted = Usage(prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"])
        else:
            counted = Usage(
                prompt_tokens=sum(ESTIMATE.count(m.content) for m in request.messages),
                completion_tokens=ESTIMATE.count(text),
                estimated=True,
            )
        return ChatResponse(
            text=text,
            usage=counted,
            model=str(raw.get("model") or self.model),
            finish_reason=choice.get("finish_reason"),
            constrained=constrained,
        )

    @staticmethod
    def _schema_refused(response: httpx.Response) -> bool:
        text = response.text.lower()
        return "response_format" in text or "json_schema" in text or "structured" in text

    @staticmethod
    def _retry_after(response: httpx.Response) -> float | None:
        value = response.headers.get("retry-after")
        try:
            return min(max(float(value), 0.0), 60.0) if value is not None else None
        except ValueError:
            return None

    def _http_failure(self, response: httpx.Response) -> ProviderError:
        status = response.status_code
        body = _excerpt(response.text)
        if status in (401, 403):
            hint = f"check the key in {self.api_key_env}" if self.api_key_env else "the profile names no api_key_env"
            return ProviderAuthError(f"the model server at {self.endpoint} refused the credentials ({status}); {hint}")
        lowered = body.lower()
        if status == 404 or ("model" in lowered and ("not found" in lowered or "does not exist" in lowered)):
            served = self.served_models()
            listing = f"; it serves: {', '.join(served)}" if served else ""
            return UnknownModelError(
                f"the model server at {self.endpoint} does not serve model {self.model!r} ({status}: {body}){listing}. "
                "Pull or load it (e.g. `ollama pull NAME`) or fix the profile's `model`"
            )
        error: ProviderError
        if status in _RETRY_STATUS:
            error = ProviderUnavailableError(f"the model server at {self.endpoint} answered {status}: {body}")
        else:
            error = ProviderResponseError(f"the model server at {self.endpoint} answered {status}: {body}")
        return error

    def served_models(self) -> list[str]:
        """The model ids the endpoint lists at /models (empty when it cannot say)."""
        try:
            response = self._client.get(f"{self.endpoint}/models", headers=self._headers(), timeout=5.0)
            data = response.json().get("data", [])
            return sorted(str(item["id"]) for item in data if isinstance(item, dict) and "id" in item)[:20]
        except (httpx.HTTPError, ValueError, AttributeError, KeyError, ProviderError):
            return []
