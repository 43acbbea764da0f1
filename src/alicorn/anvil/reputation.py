"""The ReputationOracle and the CuriosityReward: how a run's end moves its proposer's reputation.

Reputation is earned by diverse, novel, validated work, never by repetition. A validated success (the run succeeded:
every node met its completion criterion; a result that then fails validation is taken back) earns credit only for
work that is new for the agent: a plan *shape* (the sorted operations and effect classes of the plan, not its literal
values or its goal text) it was never credited for. A repeat of a credited shape earns nothing, journaled as such.
Credit scales with what the work risked (read-only work earns less than local writes), and the points an agent may
gain within any period (`period_s`, measured on journaled times only) are capped. A failure (failed, partial,
stopped) lowers reputation; a denial (the policy denied the plan, or a human rejected it) lowers it more; an incident
(an effect left with an unknown or uncompensated outcome) lowers it most. The CuriosityReward adds a small bonus for
the first successful use of an operation the agent never used before, capped in total and within the period cap.

Tiers rank agents. Crossing a threshold grants or revokes the tiers' effect classes up to `local_write`; a class
above `local_write` is never granted by reputation alone: the tier only makes the agent *eligible*, and a human
grant gives it (see agents.py). All numbers are operator settings (`[anvil.reputation]` in alicorn.toml); this
module only computes, the PermissionRegistry journals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from alicorn import canonical
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass, effect_rank

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Tier(BaseModel):
    """From `min` reputation on, an agent holds (at least) these effect classes."""

    model_config = _FROZEN
    name: str = Field(min_length=1, max_length=40)
    min: int
    effects: tuple[EffectClass, ...]


DEFAULT_TIERS = (
    Tier(name="restricted", min=-1_000_000, effects=("none", "read")),
    Tier(name="standard", min=-10, effects=("none", "read", "local_write", "code_execution")),
    Tier(name="trusted", min=20, effects=("none", "read", "local_write", "code_execution", "external_transmission")),
)


def needs_grant(effect: EffectClass) -> bool:
    """Whether holding `effect` takes a human grant: everything above local writes (reputation never widens it)."""
    return effect_rank(effect) > effect_rank("local_write")


def eligible_effects(tier: Tier) -> tuple[EffectClass, ...]:
    """The classes a tier makes an agent eligible for but never grants by itself (those above local_write)."""
    return tuple(c for c in tier.effects if needs_grant(c))


class ReputationSettings(BaseModel):
    """Points per outcome, the credit for new work by what it risked, the period cap, the curiosity bonus and its
    cap, and the tiers (sorted by `min`)."""

    model_config = _FROZEN
    success: int = Field(2, ge=0, description="a validated run of a new shape that writes locally (or more)")
    read_success: int = Field(1, ge=0, description="a validated run of a new shape with no effect beyond read")
    period_s: int = Field(86_400, gt=0, description="the period the cap counts over (journaled times)")
    period_cap: int = Field(10, ge=0, description="the most points an agent gains within any period")
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
    shape: str = ""  # the plan's shape (plan_shape): what "new work" means
    effects: tuple[EffectClass, ...] = ()  # the plan's effect classes (whole-plan risk, data flow included)
    plan_operations: tuple[str, ...] = ()  # every operation of the plan, sorted

    @property
    def strongest(self) -> EffectClass:
        """The strongest effect class the plan risked ("none" for a plan without effects)."""
        return max(self.effects, key=effect_rank, default="none")

    def describe_shape(self) -> str:
        return (
            f"shape {self.shape[:12]} (operations {', '.join(self.plan_operations) or 'none'}; effects "
            + (", ".join(self.effects) or "none")
            + ")"
        )


def plan_shape(operations: tuple[str, ...] | list[str], effects: tuple[str, ...] | list[str]) -> str:
    """The digest of a plan's sorted set of operations and effect classes. Literal values, node ids and the goal
    text are left out on purpose: changing a file name or a word of the goal does not make work new."""
    return canonical.digest({"operations": sorted(set(operations)), "effects": sorted(set(effects))})


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
    risked = set((created.get("risk") or {}).get("classes") or ()) | set((created.get("effects") or {}).keys())
    classes = tuple(c for c in EFFECT_ORDER if c in risked)
    every = tuple(sorted(set(ops.values())))
    return RunOutcome(
        events[0].stream,
        str(created.get("proposed_by", "")),
        str(finished["status"]),
        tuple(succeeded),
        tuple(sorted(troubled)),
        plan_shape(every, classes),
        classes,
        every,
    )


@dataclass(frozen=True)
class Change:
    """One reputation change with its cause."""

    kind: str  # success | repeat | capped | failure | denial | incident | curiosity
    delta: int
    cause: str
    operation: str | None = None
    shape: str | None = None  # set on a success: the shape it credited


@dataclass(frozen=True)
class Standing:
    """What an agent was already credited for: the part of its record `changes` reads."""

    used: frozenset[str] = frozenset()  # operations it used successfully
    curiosity: int = 0  # curiosity points so far
    shapes: Mapping[str, str] = field(default_factory=dict)  # credited shape -> the run that earned the credit
    earned: int = 0  # points gained within the current period


def changes(outcome: RunOutcome, standing: Standing, settings: ReputationSettings) -> list[Change]:
    """The reputation changes a run's outcome causes, in order (pure). A success that earns nothing is still
    listed (delta 0), so the journal says why it did not count."""
    run, status = outcome.run, outcome.status
    out: list[Change] = []
    room = max(0, settings.period_cap - standing.earned)
    cap = f"the cap of {settings.period_cap} points per {settings.period_s} s"
    if status == "succeeded":
        first = standing.shapes.get(outcome.shape)
        if first is not None:
            cause = f"run {run} succeeded, but it is a repeat of a credited shape (credited in run {first}): "
            out.append(Change("repeat", 0, cause + f"{outcome.describe_shape()}; repetition earns nothing"))
        else:
            writes = effect_rank(outcome.strongest) >= effect_rank("local_write")
            base = settings.success if writes else settings.read_success
            risked = f"work up to {outcome.strongest} earns {base}"
            credit = min(base, room)
            room -= credit
            what = f"run {run} succeeded with work new for {outcome.proposed_by}: {outcome.describe_shape()}; {risked}"
            if credit < base:
                kind = "success" if credit else "capped"
                out.append(Change(kind, credit, f"{what}, but {cap} leaves {credit}", shape=outcome.shape))
            else:
                out.append(Change("success", credit, what, shape=outcome.shape))
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
    left = min(room, max(0, settings.curiosity_cap - standing.curiosity))
    for op in outcome.operations:
        if op in standing.used or left <= 0 or settings.curiosity <= 0:
            continue
        bonus = min(settings.curiosity, left)
        left -= bonus
        out.append(Change("curiosity", bonus, f"first successful use of {op} (run {run})", op))
    return [c for c in out if c.delta != 0 or c.kind in ("repeat", "capped")]
