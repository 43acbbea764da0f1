"""Model profiles: what each configured model is, can do, costs and may see; loaded from TOML or JSON.

A profile file holds ``[[profiles]]`` tables (TOML) or ``{"profiles": [...]}`` (JSON), and optionally a ``[roles]``
table pinning a role to one of them and a ``[consultants]`` table (how many profiles a hard task is asked of).
Each is validated by `ModelProfile`; a file with errors raises `ProfileError` listing every problem with its
location (never the value, which could be a key pasted in by mistake). API keys are never stored:
`api_key_env` names the environment variable that holds one.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from alicorn.models.errors import ProfileError

ProviderKind = Literal["openai_compatible", "llama_cpp", "scripted"]
StructuredSupport = Literal["json_schema", "grammar", "json_object", "none"]
Privacy = Literal["on_device", "self_hosted", "third_party"]

_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,63}$")
_LANG = Annotated[str, Field(pattern=r"^[a-z]{2,3}$")]


class ModelProfile(BaseModel):
    """One model as the router sees it. Abilities are levels 0 (none) to 3 (strong), set by the operator."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$")]
    description: str = ""
    provider: ProviderKind
    model: Annotated[str, Field(min_length=1, max_length=256)]
    endpoint: str | None = None
    api_key_env: str | None = None
    location: Literal["local", "external"]
    languages: tuple[_LANG, ...] = Field(min_length=1)
    reasoning: Annotated[int, Field(ge=0, le=3)] = 0
    code: Annotated[int, Field(ge=0, le=3)] = 0
    vision: bool = False
    structured_output: StructuredSupport = "none"
    context_length: Annotated[int, Field(ge=256, le=10_000_000)]
    seed: bool = False
    temperature: bool = True
    cost_input_per_1k: Annotated[float, Field(ge=0)] = 0.0
    cost_output_per_1k: Annotated[float, Field(ge=0)] = 0.0
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "USD"
    latency_ms: Annotated[int, Field(ge=0)] = 1000
    tokens_per_s: Annotated[float, Field(gt=0)] = 20.0
    privacy: Privacy
    licence: Annotated[str, Field(min_length=1)]
    min_ram_gb: Annotated[float, Field(ge=0)] = 0.0
    gpu: bool = False
    timeout_s: Annotated[float, Field(gt=0, le=3600)] = 60.0
    max_retries: Annotated[int, Field(ge=0, le=10)] = 2

    @field_validator("api_key_env")
    @classmethod
    def _env_name_only(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.fullmatch(value):
            raise ValueError(
                "must be the NAME of an environment variable (like OPENAI_API_KEY), never the key itself; "
                "put the key in that variable"
            )
        return value

    @field_validator("endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
            raise ValueError("must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1")
        return value.rstrip("/") if value else value

    @model_validator(mode="after")
    def _consistent(self) -> ModelProfile:
        if self.provider == "openai_compatible" and not self.endpoint:
            raise ValueError("an openai_compatible profile needs `endpoint` (the base URL ending in /v1)")
        if self.provider == "llama_cpp" and self.location != "local":
            raise ValueError("an in-process llama_cpp profile is always location = 'local'")
        if self.location == "local" and self.privacy == "third_party":
            raise ValueError("a local profile cannot have privacy 'third_party'; use on_device or self_hosted")
        if self.location == "external" and self.privacy != "third_party":
            raise ValueError("an external profile has privacy 'third_party' (data leaves this project's machines)")
        return self

    @property
    def external(self) -> bool:
        return self.location == "external"

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The price of a call, in `currency`."""
        return round(
            prompt_tokens / 1000 * self.cost_input_per_1k + completion_tokens / 1000 * self.cost_output_per_1k, 8
        )

    def summary(self) -> dict[str, Any]:
        """What is journaled about the profile with each call (no endpoint credentials exist to leak)."""
        return {"id": self.id, "provider": self.provider, "model": self.model, "location": self.location}


class ConsultantSettings(BaseModel):
    """`[consultants]`: how many distinct profiles a hard task is asked of (alicorn.core.consulting): a free plan,
    an ambiguous question. `count = 1` asks one model only; a role pinned in `[roles]` is never consulted on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: int = Field(default=3, ge=1, le=5)


class ProfileSet(BaseModel):
    """The profiles of one file, ids unique."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profiles: tuple[ModelProfile, ...]
    #: `[roles]`: a role pinned to a profile (`planner = "ollama-qwen2.5-7b"`), used for that role instead of the
    #: router's pick. Role names are checked where roles are known (alicorn.core.access), not here.
    roles: dict[str, str] = Field(default_factory=dict)
    consultants: ConsultantSettings = Field(default_factory=ConsultantSettings)

    @model_validator(mode="after")
    def _unique(self) -> ProfileSet:
        ids = [p.id for p in self.profiles]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"profile ids must be unique; repeated: {', '.join(repeated)}")
        unknown = sorted(f"{role} = {pid!r}" for role, pid in self.roles.items() if pid not in ids)
        if unknown:
            raise ValueError(
                f"[roles] names profiles that are not defined: {', '.join(unknown)}; known profiles: {', '.join(ids)}"
            )
        return self

    def get(self, profile_id: str) -> ModelProfile:
        for profile in self.profiles:
            if profile.id == profile_id:
                return profile
        known = ", ".join(p.id for p in self.profiles)
        raise ProfileError("the profile set", [f"no profile {profile_id!r}; known profiles: {known}"])


def _problems(exc: ValidationError, raw: Any) -> list[str]:
    """Pydantic's errors as 'profiles[2] (id 'x').endpoint: message' lines, without the offending values."""
    out: list[str] = []
    for error in exc.errors(include_input=False, include_url=False):
        loc = list(error["loc"])
        where = ""
        if len(loc) >= 2 and loc[0] == "profiles" and isinstance(loc[1], int):
            index = loc[1]
            name = None
            if isinstance(raw, dict) and isinstance(raw.get("profiles"), list) and index < len(raw["profiles"]):
                entry = raw["profiles"][index]
                name = entry.get("id") if isinstance(entry, dict) else None
            where = f"profiles[{index}]" + (f" (id {name!r})" if isinstance(name, str) else "")
            loc = loc[2:]
        path = ".".join(str(p) for p in loc)
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown field (remove it; docs/models.md lists the fields)"
        out.append(f"{where}{'.' if where and path else ''}{path}: {message}" if where or path else message)
    return out


def parse_profiles(raw: Any, source: str = "profiles") -> ProfileSet:
    """Validate already-decoded profile data (a dict with a `profiles` list)."""
    try:
        return ProfileSet.model_validate(raw)
    except ValidationError as exc:
        raise ProfileError(source, _problems(exc, raw)) from None


def load_profiles(path: Path) -> ProfileSet:
    """Read a TOML (`.toml`) or JSON profile file; every problem is reported at once."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(str(path), [f"cannot read the file: {exc.strerror}"]) from None
    except UnicodeDecodeError:
        raise ProfileError(str(path), ["the file is not UTF-8 text"]) from None
    try:
        raw = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
        raise ProfileError(str(path), [f"not valid {kind}: {exc}"]) from None
    return parse_profiles(raw, str(path))
