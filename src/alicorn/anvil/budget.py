"""Budgets: limits per run and per project on model tokens, money, wall time, steps (calls) and effects.

Usage is a fold of journal events (`UsageTally`), the same code for the run the executor drives and for the other
runs of a project, so a check is a few comparisons. A budget is exceeded when the use, with the next step (one call,
one effect, a model call's estimate), would be above the limit; then no new work starts, and the journal says which
budget, its limit, the use and by how much. Wall time is the time a run has been active: waits for a human
(approval, a blocked effect) do not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.anvil.errors import BudgetError

BudgetName = Literal["steps", "effects", "tokens", "money", "wall_s"]
#: Budgets in the order they are checked and shown.
BUDGETS: tuple[BudgetName, ...] = ("steps", "effects", "tokens", "money", "wall_s")
_UNITS = {"steps": "calls", "effects": "effects", "tokens": "tokens", "money": "", "wall_s": "s"}


class Budget(BaseModel):
    """Limits; a missing one is no limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    steps: int | None = Field(None, ge=0, description="node calls, retries included")
    effects: int | None = Field(None, ge=0, description="effects started (write or more)")
    tokens: int | None = Field(None, ge=0, description="model tokens, prompt and completion")
    money: float | None = Field(None, ge=0, description="model cost, in the profiles' currency")
    wall_s: float | None = Field(None, ge=0, description="seconds of activity (waits for humans excluded)")

    def limits(self) -> dict[str, float]:
        return {name: float(getattr(self, name)) for name in BUDGETS if getattr(self, name) is not None}

    def merged(self, override: Budget) -> Budget:
        """These limits with every limit `override` sets replacing ours."""
        return Budget.model_validate({**self.model_dump(exclude_none=True), **override.model_dump(exclude_none=True)})

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)

    @property
    def empty(self) -> bool:
        return not self.limits()


def parse_budget(specs: list[str]) -> Budget:
    """`["steps=50", "money=2.5"]` as a Budget; BudgetError naming the bad spec and the known budgets."""
    values: dict[str, str] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        name = name.strip()
        if not sep or name not in BUDGETS:
            raise BudgetError(f"--budget {spec!r}: write NAME=LIMIT with NAME one of {', '.join(BUDGETS)}")
        values[name] = value.strip()
    try:
        return Budget.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise BudgetError(f"--budget {err['loc'][0]}={values[str(err['loc'][0])]!r}: {err['msg']}") from None


def _seconds(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


@dataclass(frozen=True)
class Usage:
    """What a run (or a project) has used."""

    steps: int = 0
    effects: int = 0
    tokens: int = 0
    money: float = 0.0
    wall_s: float = 0.0

    def plus(self, other: Usage) -> Usage:
        return Usage(
            self.steps + other.steps,
            self.effects + other.effects,
            self.tokens + other.tokens,
            round(self.money + other.money, 9),
            round(self.wall_s + other.wall_s, 6),
        )

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in BUDGETS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Usage:
        return cls(**{name: data[name] for name in BUDGETS if name in data})


@dataclass
class UsageTally:
    """The usage fold: feed it a run's events in order (the run state embeds one)."""

    steps: int = 0
    effects: int = 0
    tokens: int = 0
    money: float = 0.0
    started: str | None = None
    last_at: str | None = None
    waited_s: float = 0.0
    waiting_since: str | None = None

    def apply(self, kind: str, at: str, data: dict[str, Any]) -> None:
        if self.started is None:
            self.started = at
        if self.waiting_since is not None and kind not in ("run.awaiting_approval", "run.blocked"):
            self.waited_s += _seconds(self.waiting_since, at)
            self.waiting_since = None
        if kind == "tool.call":
            self.steps += 1
        elif kind == "effect.intended":
            self.effects += 1
        elif kind == "llm.response":
            usage = data.get("usage") or {}
            self.tokens += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
            self.money = round(self.money + float(data.get("cost") or 0.0), 9)
        elif kind in ("run.awaiting_approval", "run.blocked") and self.waiting_since is None:
            self.waiting_since = at
        self.last_at = at

    def usage(self, now: str | None = None) -> Usage:
        """The usage at `now` (default: the last event's time)."""
        end = now or self.last_at
        wall = 0.0
        if self.started is not None and end is not None:
            wall = _seconds(self.started, end) - self.waited_s
            if self.waiting_since is not None:
                wall -= max(0.0, _seconds(self.waiting_since, end))
        return Usage(self.steps, self.effects, self.tokens, self.money, round(max(wall, 0.0), 6))


def usage_of(events: Any) -> Usage:
    """The usage recorded by a run's events."""
    tally = UsageTally()
    for event in events:
        tally.apply(event.kind, event.at, event.data)
    return tally.usage()


@dataclass(frozen=True)
class Exceeded:
    """A budget that the next step would exceed."""

    budget: str
    scope: str  # run | project
    project: str
    limit: float
    used: float
    needed: float  # the use the next step would reach

    @property
    def over(self) -> float:
        return round(self.needed - self.limit, 9)

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "scope": self.scope,
            "project": self.project,
            "limit": self.limit,
            "used": self.used,
            "needed": self.needed,
            "over": self.over,
            "sentence": self.sentence(),
        }

    def sentence(self) -> str:
        unit = _UNITS[self.budget]
        whose = "this run" if self.scope == "run" else f"project {self.project!r}"
        tail = f" {unit}" if unit else ""
        step = f"; the next step needs {self.needed:g}{tail}" if self.needed != self.used else ""
        return (
            f"the {self.budget} budget of {whose} is exceeded: limit {self.limit:g}{tail}, used {self.used:g}{tail}"
            f"{step}, over by {self.over:g}{tail}. No new work starts; calls already running finish"
        )


def check(
    limits: Budget, usage: Usage, *, next_step: Usage = Usage(), scope: str = "run", project: str = "default"
) -> Exceeded | None:
    """The first budget of `limits` that `usage` plus `next_step` goes above, or None."""
    for name, limit in limits.limits().items():
        used = float(getattr(usage, name))
        needed = used + float(getattr(next_step, name))
        if needed > limit:
            return Exceeded(name, scope, project, limit, used, needed)
    return None


def check_step(
    run_limits: Budget,
    project_limits: Budget,
    run_usage: Usage,
    project_others: Usage,
    project: str,
    next_step: Usage = Usage(),
) -> Exceeded | None:
    """Check the run's budgets, then the project's (its other runs' usage plus this run's)."""
    found = check(run_limits, run_usage, next_step=next_step, scope="run", project=project)
    if found is not None or project_limits.empty:
        return found
    return check(project_limits, project_others.plus(run_usage), next_step=next_step, scope="project", project=project)


def check_model_call(
    events: Any,
    run_limits: Budget,
    project_limits: Budget,
    project: str,
    *,
    tokens: int = 0,
    money: float = 0.0,
    project_others: Usage = Usage(),
) -> Exceeded | None:
    """Whether a model call of about `tokens` and `money` would exceed a budget of the run whose `events` are given
    (pure: the models package can call it with the run's events; `Anvil.before_model_call` reads them for it)."""
    return check_step(
        run_limits, project_limits, usage_of(events), project_others, project, Usage(tokens=tokens, money=money)
    )
