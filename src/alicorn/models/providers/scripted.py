"""A provider that answers from a script of recorded responses: for tests, demos and the journal's replay.

A script item is a text, a `Scripted` answer (text plus finish reason and token counts), a `ProviderError` to raise
(an endpoint that is down, a timeout) or a function of the request. `from_events` rebuilds the script from a
journal's `llm.response` / `llm.error` events, so a recorded run can be replayed without any model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from alicorn.context.tokens import ESTIMATE, TokenCounter
from alicorn.journal.events import Event
from alicorn.models.errors import (
    ProviderError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    ScriptExhaustedError,
    UnknownModelError,
)
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.providers.base import Provider


@dataclass(frozen=True, slots=True)
class Scripted:
    """One recorded answer. Token counts default to the estimate."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


ScriptItem = str | Scripted | ProviderError | Callable[[ChatRequest], "str | Scripted"]

_ERRORS: dict[str, type[ProviderError]] = {
    "ProviderUnavailableError": ProviderUnavailableError,
    "ProviderTimeoutError": ProviderTimeoutError,
    "UnknownModelError": UnknownModelError,
    "ProviderResponseError": ProviderResponseError,
}


class ScriptedProvider(Provider):
    """Answers in script order; `requests` keeps what was asked. Raises ScriptExhaustedError past the end."""

    kind = "scripted"

    def __init__(
        self,
        script: Iterable[ScriptItem],
        *,
        model: str = "scripted",
        constrained: bool = False,
        counter: TokenCounter = ESTIMATE,
    ) -> None:
        self._script = list(script)
        self._lock = threading.Lock()
        self.model = model
        self.constrains_output = constrained
        self.counter = counter
        self.requests: list[ChatRequest] = []

    @property
    def remaining(self) -> int:
        return len(self._script) - len(self.requests)

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            position = len(self.requests)
            self.requests.append(request)
            if position >= len(self._script):
                raise ScriptExhaustedError(
                    f"the scripted provider has {len(self._script)} recorded answer(s) and was asked for answer "
                    f"#{position + 1}; record more answers or check that the caller asks the same questions"
                )
            item = self._script[position]
        if isinstance(item, ProviderError):
            raise item
        if callable(item):
            item = item(request)
        answer = item if isinstance(item, Scripted) else Scripted(item)
        prompt = sum(self.counter.count(m.content) for m in request.messages)
        usage = Usage(
            prompt_tokens=answer.prompt_tokens if answer.prompt_tokens is not None else prompt,
            completion_tokens=(
                answer.completion_tokens if answer.completion_tokens is not None else self.counter.count(answer.text)
            ),
            estimated=answer.prompt_tokens is None,
        )
        return ChatResponse(
            text=answer.text,
            usage=usage,
            model=self.model,
            finish_reason=answer.finish_reason,
            constrained=self.constrains_output and request.json_schema is not None,
        )

    def token_counter(self) -> TokenCounter | None:
        return self.counter

    @classmethod
    def from_events(cls, events: Iterable[Event], *, profile: str | None = None) -> ScriptedProvider:
        """A provider that gives back a journal's recorded answers (and errors), in order."""
        script: list[ScriptItem] = []
        constrained = False
        for event in events:
            data = event.data
            if profile is not None and data.get("profile", {}).get("id") != profile:
                continue
            if event.kind == "llm.response":
                usage = data.get("usage", {})
                script.append(
                    Scripted(
                        str(data["text"]),
                        data.get("finish_reason") or "stop",
                        usage.get("prompt_tokens"),
                        usage.get("completion_tokens"),
                    )
                )
                constrained = constrained or bool(data.get("constrained"))
            elif event.kind == "llm.error":
                error_type = _ERRORS.get(str(data.get("error")), ProviderError)
                script.append(error_type(str(data.get("message", "recorded provider error"))))
        return cls(script, model="replay", constrained=constrained)
