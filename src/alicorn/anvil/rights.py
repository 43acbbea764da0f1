"""Rights: which effect classes and operations an agent may use, in which projects, and how far it may reach.

Rights are values: a grant or a revocation returns new Rights. `gaps` compares them with a plan's whole-plan risk
and names each thing the plan needs beyond them (`effect:external_transmission`, `host:api.example.com`, ...), in
the form the policy sees (`context.rights_gaps`). A `Subject` is the snapshot of a principal a decision used: it is
journaled with every decision so the decision can be explained, and replayed, without the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alicorn.anvil.labels import glob_match
from alicorn.anvil.risk import UNKNOWN, PlanRisk
from alicorn.anvil.words import effect_class, host_said, path_said
from alicorn.i18n import tr
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass

_FROZEN = ConfigDict(frozen=True, extra="forbid")


def _sorted_effects(effects: tuple[EffectClass, ...]) -> tuple[EffectClass, ...]:
    return tuple(c for c in EFFECT_ORDER if c in set(effects))


class Rights(BaseModel):
    """What a principal may do without anybody's approval (policy permitting)."""

    model_config = _FROZEN
    effects: tuple[EffectClass, ...] = ()
    operations: tuple[str, ...] = Field((), description="operation names or patterns ('http.*', '*')")
    projects: tuple[str, ...] = Field((), description="projects it may act in ('*' for all)")
    hosts: tuple[str, ...] = Field((), description="hosts it may reach ('*.example.com')")
    paths: tuple[str, ...] = Field((), description="workspace paths it may write ('reports/**')")
    max_amount: float = Field(0.0, ge=0, description="money a plan may move in total")

    @field_validator("effects")
    @classmethod
    def _order_effects(cls, effects: tuple[EffectClass, ...]) -> tuple[EffectClass, ...]:
        return _sorted_effects(effects)

    @field_validator("operations", "projects", "hosts", "paths")
    @classmethod
    def _unique(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        for value in values:
            if not value.strip():
                raise ValueError("an empty name or pattern grants nothing; remove it")
        return tuple(sorted(set(values)))

    def describe(self) -> str:
        parts = [
            f"effects {', '.join(self.effects) or 'none at all'}",
            f"operations {', '.join(self.operations) or 'none'}",
            f"projects {', '.join(self.projects) or 'none'}",
            f"hosts {', '.join(self.hosts) or 'none'}",
            f"paths {', '.join(self.paths) or 'none'}",
        ]
        if self.max_amount:
            parts.append(f"amounts up to {self.max_amount:g}")
        return "; ".join(parts)


class RightsChange(BaseModel):
    """Rights added by a grant or removed by a revocation. `max_amount` is set by a grant and zeroed by a revoke."""

    model_config = _FROZEN
    effects: tuple[EffectClass, ...] = ()
    operations: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    max_amount: float | None = Field(None, ge=0)

    @property
    def empty(self) -> bool:
        return not (self.effects or self.operations or self.projects or self.hosts or self.paths) and (
            self.max_amount is None
        )

    def describe(self) -> str:
        parts = [f"{name} {', '.join(getattr(self, name))}" for name in _LISTS if getattr(self, name)]
        if self.max_amount is not None:
            parts.append(f"max_amount {self.max_amount:g}")
        return "; ".join(parts) or "nothing"


_LISTS = ("effects", "operations", "projects", "hosts", "paths")


def granted(rights: Rights, change: RightsChange) -> Rights:
    values: dict[str, Any] = {name: (*getattr(rights, name), *getattr(change, name)) for name in _LISTS}
    values["max_amount"] = rights.max_amount if change.max_amount is None else change.max_amount
    return Rights.model_validate(values)


def revoked(rights: Rights, change: RightsChange) -> Rights:
    values: dict[str, Any] = {
        name: tuple(v for v in getattr(rights, name) if v not in getattr(change, name)) for name in _LISTS
    }
    values["max_amount"] = 0.0 if change.max_amount is not None else rights.max_amount
    return Rights.model_validate(values)


#: What a new agent may do: no effect beyond local writes (which operations confine to its run's workspace), no
#: outside host, no money.
MINIMAL_AGENT_RIGHTS = Rights(
    effects=("none", "read", "local_write"), operations=("*",), projects=("*",), hosts=(), paths=("**",)
)
#: What a human proposer may do without somebody else's approval (the default policy still asks a second human
#: for anything above code_execution, which runs sandboxed without network).
HUMAN_RIGHTS = Rights(
    effects=("none", "read", "local_write", "code_execution"),
    operations=("*",),
    projects=("*",),
    hosts=("*",),
    paths=("**",),
)


def _allowed(patterns: tuple[str, ...], value: str) -> bool:
    return any(p == "*" or glob_match(p, value) for p in patterns)


def gaps(rights: Rights, risk: PlanRisk, project: str) -> tuple[str, ...]:
    """Everything the plan needs beyond `rights`, as `kind:value` tokens, sorted."""
    found: set[str] = set()
    found.update(f"effect:{c}" for c in risk.classes if c not in rights.effects)
    found.update(f"operation:{op}" for op in risk.operations if not _allowed(rights.operations, op))
    if not _allowed(rights.projects, project):
        found.add(f"project:{project}")
    found.update(f"host:{h}" for h in risk.hosts if h == UNKNOWN or not _allowed(rights.hosts, h))
    found.update(f"path:{p}" for p in risk.paths if p == UNKNOWN or not _allowed(rights.paths, p))
    if risk.amount_unknown and rights.max_amount <= 0:
        found.add("amount:?")
    elif risk.amount > rights.max_amount:
        found.add(f"amount:{risk.amount:g}")
    return tuple(sorted(found))


def describe_gap(token: str, language: str = "en") -> str:
    """A gap token in words (English: what the journaled sentences say)."""
    kind, _, value = token.partition(":")
    if value == UNKNOWN:
        if kind == "host":
            return host_said(value, language)
        if kind == "path":
            return path_said(value, language)
        return tr(language, "an {kind} computed at run time", kind=kind)
    if kind == "effect":
        return tr(language, "the effect class {effect}", effect=effect_class(value, language))
    if kind == "operation":
        return tr(language, "the operation {operation}", operation=value)
    if kind == "project":
        return tr(language, "the project {project!r}", project=value)
    if kind == "host":
        return tr(language, "the host {host}", host=value)
    if kind == "path":
        return tr(language, "writing {path}", path=value)
    if kind == "amount":
        return tr(language, "moving an amount of {amount}", amount=value)
    return token


@dataclass(frozen=True)
class Subject:
    """The principal as a decision saw it: identity, standing and rights (journaled with each decision)."""

    id: str
    kind: str
    registered: bool
    rights: Rights
    roles: tuple[str, ...] = ()
    reputation: int = 0
    tier: str = ""
    as_of: int = 0  # the last event of the agent's stream the snapshot includes (0: none)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "registered": self.registered,
            "roles": list(self.roles),
            "reputation": self.reputation,
            "tier": self.tier,
            "rights": self.rights.model_dump(mode="json"),
            "as_of": self.as_of,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Subject:
        return cls(
            data["id"],
            data["kind"],
            bool(data["registered"]),
            Rights.model_validate(data["rights"]),
            tuple(data.get("roles", ())),
            int(data.get("reputation", 0)),
            str(data.get("tier", "")),
            int(data.get("as_of", 0)),
        )
