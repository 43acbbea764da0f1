"""The ReputationOracle and the CuriosityReward: how a run's end moves its proposer's reputation.

A run proposed by an agent changes the agent's reputation when it ends: a validated success (the run succeeded:
every node met its completion criterion) raises it; a failure (failed, partial, stopped) lowers it; a denial (the
policy denied the plan, or a human rejected it) lowers it more; an incident (an effect left with an unknown or
uncompensated outcome) lowers it most. The CuriosityReward adds a small bonus for the first successful use of an
operation the agent never used before, capped in total. Tiers turn reputation into rights: crossing a threshold
grants or revokes effect classes, each change journaled with its cause. All numbers are operator settings
(`[anvil.reputation]` in alicorn.toml); this module only computes, the PermissionRegistry journals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from alicorn.plan.dsl import EffectClass

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Tier(BaseModel):
    """From `min` reputation on, an agent holds (at least) these effect classes."""

    model_config = _FROZEN
    name: str = Field(min_length=1, max_length=40)
    min: int
    effects: tuple[EffectClass, ...]


DEFAULT_TIERS = (
    Tier(name="restricted", min=-1_000_000, effects=("none", "read")),
    Tier(name="standard", min=-10, effects=("none", "read", "local_write")),
    Tier(name="trusted", min=20, effects=("none", "read", "local_write", "external_transmission")),
)


class ReputationSettings(BaseModel):
    """Points per outcome, the curiosity bonus and its cap, and the tiers (sorted by `min`)."""

    model_config = _FROZEN
    success: int = Field(2, ge=0)
    failure: int = Field(-3, le=0)
    denial: int = Field(-5, le=0)
    incident: int = Field(-10, le=0)
    curiosity: int = Field(1, ge=0)
    curiosity_cap: int = Field(5, ge=0)
    tiers: tuple[Tier, ...] = DEFAULT_TIERS

    @model_validator(mode="after")
    def _ordered(self) -> ReputationSettings:
        if not self.tiers:
            raise ValueError("at least one tier is needed (the lowest one holds a new agent's floor)")
        mins = [t.min for t in self.tiers]
        if mins != sorted(mins) or len(set(mins)) != len(mins):
            raise ValueError("tiers must be listed with strictly increasing `min`")
        if len({t.name for t in self.tiers}) != len(self.tiers):
            raise ValueError("every tier needs its own name")
        return self

    def tier_for(self, reputation: int) -> Tier:
        found = self.tiers[0]
        for tier in self.tiers:
            if reputation >= tier.min:
                found = tier
        return found


@dataclass(frozen=True)
class RunOutcome:
    """How a finished run ended, as far as reputation is concerned."""

    run: str
    proposed_by: str
    status: str
    operations: tuple[str, ...]  # operations of the nodes that succeeded
    incidents: tuple[str, ...]  # nodes whose effects were left unknown or uncompensated


def run_outcome(events: list[Any]) -> RunOutcome | None:
    """The outcome of a finished run's events (None while the run is not finished)."""
    if not events or events[0].kind != "run.created" or events[-1].kind != "run.finished":
        return None
    created = events[0].data
    ops = {n["node_id"]: n["operation"] for n in created["plan"]["nodes"]}
    succeeded = sorted({ops[e.data["node"]] for e in events if e.kind == "node.succeeded"})
    finished = events[-1].data
    effects = finished.get("effects") or {}
    troubled = set(effects.get("may_be_pending", []))
    troubled |= {e["node"] for e in effects.get("left_undone", []) if e.get("state") != "done"}
    return RunOutcome(
        events[0].stream,
        str(created.get("proposed_by", "")),
        str(finished["status"]),
        tuple(succeeded),
        tuple(sorted(troubled)),
    )


@dataclass(frozen=True)
class Change:
    """One reputation change with its cause."""

    kind: str  # success | failure | denial | incident | curiosity
    delta: int
    cause: str
    operation: str | None = None


def changes(
    outcome: RunOutcome, used: frozenset[str], curiosity_so_far: int, settings: ReputationSettings
) -> list[Change]:
    """The reputation changes a run's outcome causes, in order (pure)."""
    run, status = outcome.run, outcome.status
    out: list[Change] = []
    if status == "succeeded":
        out.append(Change("success", settings.success, f"run {run} succeeded: every node met its completion criterion"))
    elif status in ("failed", "partial", "stopped"):
        out.append(Change("failure", settings.failure, f"run {run} ended {status}"))
    elif status in ("denied", "rejected"):
        who = "the policy" if status == "denied" else "a human"
        out.append(Change("denial", settings.denial, f"run {run} was {status} by {who}"))
    if outcome.incidents:
        out.append(
            Change(
                "incident",
                settings.incident,
                f"run {run} left effects with an unknown or uncompensated outcome ({', '.join(outcome.incidents)})",
            )
        )
    room = max(0, settings.curiosity_cap - curiosity_so_far)
    for op in outcome.operations:
        if op in used or room <= 0 or settings.curiosity <= 0:
            continue
        bonus = min(settings.curiosity, room)
        room -= bonus
        out.append(Change("curiosity", bonus, f"first successful use of {op} (run {run})", op))
    return [c for c in out if c.delta != 0]
