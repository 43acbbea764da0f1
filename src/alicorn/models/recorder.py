"""Calling a model through the journal: every request and response (or error) becomes an event.

    ModelClient.complete(request)
        ─► secrets scrubbed from the messages: the journal's known secrets (the home's config, the variables it
           references, secret-labelled files) and the detectors; the prompt and the journal both get that text
        ─► llm.request  {call, profile, purpose, messages, schema digest, limits, secrets_scrubbed}
        ─► provider.complete
        ─► llm.response {call, profile, text, finish_reason, usage, latency_ms, cost, constrained}
           or llm.error {call, profile, error, message, retryable}

`call` is ``<stream>#<seq of the llm.request>``. Latency is the difference of the two events' clock readings, so
it comes from journaled values and replays with them. API keys never reach this layer: profiles name env vars.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from alicorn import canonical
from alicorn.clock import parse_time
from alicorn.context.redact import scrub_secrets
from alicorn.context.tap import JournalTap
from alicorn.models.errors import ProviderError
from alicorn.models.messages import ChatMessage, ChatRequest, ChatResponse
from alicorn.models.profiles import ModelProfile
from alicorn.models.providers.base import Provider
from alicorn.secrets import KnownSecrets


def scrub_text(text: str, secrets: KnownSecrets | None = None) -> tuple[str, int]:
    """`text` without the home's known secrets and anything the detectors take for one; also how many."""
    count = 0
    if secrets is not None:
        text, count = secrets.redact_text(text)
    text, found = scrub_secrets(text)
    return text, count + found


def scrub_request(request: ChatRequest, secrets: KnownSecrets | None = None) -> tuple[ChatRequest, int]:
    """The request with every secret in its messages replaced (known values too, given `secrets`); also how many
    were replaced."""
    total = 0
    messages: list[ChatMessage] = []
    for message in request.messages:
        text, count = scrub_text(message.content, secrets)
        total += count
        messages.append(message if not count else ChatMessage(role=message.role, content=text))
    return (request.model_copy(update={"messages": tuple(messages)}) if total else request), total


class ModelCallRecorder:
    """Appends `llm.*` events for each call to the tap's stream."""

    def __init__(self, tap: JournalTap) -> None:
        self.tap = tap

    @property
    def secrets(self) -> KnownSecrets:
        """The known secrets of the journal the calls are recorded in (the home's)."""
        return self.tap.store.secrets

    def complete(
        self, profile: ModelProfile, provider: Provider, request: ChatRequest, *, purpose: str = ""
    ) -> ChatResponse:
        """Call `provider` for `profile`, journaling the request and the response or the error."""
        request, scrubbed = scrub_request(request, self.secrets)
        started = self.tap.append(
            "llm.request",
            {
                "profile": profile.summary(),
                "provider": provider.kind,
                "purpose": purpose,
                "messages": [m.model_dump() for m in request.messages],
                "schema": canonical.digest(request.json_schema) if request.json_schema is not None else None,
                "schema_name": request.schema_name if request.json_schema is not None else None,
                "max_tokens": request.max_tokens,
                "temperature": request.temperature,
                "seed": request.seed,
                "secrets_scrubbed": scrubbed,
            },
        )
        call = f"{started.stream}#{started.seq}"
        try:
            response = provider.complete(request)
        except ProviderError as exc:
            message, _ = scrub_text(str(exc), self.secrets)
            self.tap.append(
                "llm.error",
                {
                    "call": call,
                    "profile": profile.summary(),
                    "error": type(exc).__name__,
                    "message": message,
                    "retryable": exc.retryable,
                },
            )
            raise
        finished = self.tap.now()
        latency = (parse_time(finished) - parse_time(started.at)).total_seconds() * 1000
        text, leaked = scrub_text(response.text, self.secrets)
        self.tap.append(
            "llm.response",
            {
                "call": call,
                "profile": profile.summary(),
                "model": response.model,
                "text": text,
                "secrets_scrubbed": leaked,
                "finish_reason": response.finish_reason,
                "usage": response.usage.model_dump(),
                "latency_ms": round(max(latency, 0.0), 3),
                "cost": profile.cost(response.usage.prompt_tokens, response.usage.completion_tokens),
                "currency": profile.currency,
                "constrained": response.constrained,
                **(
                    {"structured": {"mode": response.structured_mode, "reason": response.structured_reason}}
                    if response.structured_mode is not None
                    else {}
                ),
            },
            at=finished,
        )
        return response if not leaked else response.model_copy(update={"text": text})


@dataclass
class ModelClient:
    """A profile bound to its provider (and, when given, a recorder): what the rest of Alicorn calls."""

    profile: ModelProfile
    provider: Provider
    recorder: ModelCallRecorder | None = None
    #: Known secrets to take out of prompts sent without a recorder (with one, the recorder's journal's are used).
    secrets: KnownSecrets | None = None
    calls: int = field(default=0, init=False)

    def complete(self, request: ChatRequest, *, purpose: str = "") -> ChatResponse:
        """Answer `request`; secrets are scrubbed from the prompt whether or not a recorder is attached."""
        self.calls += 1
        if self.recorder is not None:
            return self.recorder.complete(self.profile, self.provider, request, purpose=purpose)
        scrubbed, _ = scrub_request(request, self.secrets)
        return self.provider.complete(scrubbed)
