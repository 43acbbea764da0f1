"""Budgets: limits per run and per project on model tokens, money, wall time, steps (calls) and effects.

Usage is a fold of journal events (`UsageTally`, in alicorn.anvil.usage), the same code for the run the executor
drives and for the other runs of a project, so a check is a few comparisons. A budget is exceeded when the use, with
the next step (one call, one effect, a model call's estimate), would be above the limit; then no new work starts, and
the journal says which budget, its limit, the use and by how much. Wall time is the time a run has been active: waits
for a human (approval, a blocked effect) do not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.anvil.errors import BudgetError
from alicorn.anvil.usage import BUDGETS as BUDGETS
from alicorn.anvil.usage import BudgetName as BudgetName
from alicorn.anvil.usage import Usage as Usage
from alicorn.anvil.usage import UsageTally as UsageTally
from alicorn.anvil.usage import usage_of as usage_of

#: No usage: the default of a next step or of a project's other runs.
NOTHING_USED = Usage()
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
    limits: Budget, usage: Usage, *, next_step: Usage = NOTHING_USED, scope: str = "run", project: str = "default"
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
    next_step: Usage = NOTHING_USED,
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
    project_others: Usage = NOTHING_USED,
) -> Exceeded | None:
    """Whether a model call of about `tokens` and `money` would exceed a budget of the run whose `events` are given
    (pure: the models package can call it with the run's events; `Anvil.before_model_call` reads them for it)."""
    return check_step(
        run_limits, project_limits, usage_of(events), project_others, project, Usage(tokens=tokens, money=money)
    )
