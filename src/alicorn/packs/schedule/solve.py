"""`schedule.generate_variants`: N candidate schedules from one CP-SAT model, each optimising something else.

Hard constraints: a person works only in a competence they hold, never on a vacation day (when vacations are
respected), at most one shift a day, with the minimum rest between shifts (night -> morning included), at most the
weekly hours and the consecutive working days the rules allow. Coverage: the first solve finds the smallest total
shortfall it can (zero when the data allows full coverage); every variant must then match it, so coverage is hard
whenever it is feasible and the unavoidable shortfall is reported otherwise. Each later variant must differ from the
earlier ones in at least one assignment. The solver is deterministic: one worker, a fixed seed and a deterministic
time limit (the wall-clock limit is only a safety net), so the same inputs give the same schedules.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from pydantic import Field, model_validator

from alicorn.errors import OperationError
from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.schedule.models import (
    MAX_DEMAND,
    MAX_EMPLOYEES,
    MAX_VACATIONS,
    MAX_VARIANTS,
    Assignment,
    DemandCell,
    Employee,
    Month,
    Rules,
    Vacation,
    Variant,
    month_days,
)

Objective = Literal["lowest_cost", "balanced_hours", "stable_shifts", "fair_nights", "fair_weekends"]
#: Variant k optimises OBJECTIVES[k - 1].
OBJECTIVES: tuple[tuple[Objective, str], ...] = (
    ("lowest_cost", "Lowest cost"),
    ("balanced_hours", "Hours closest to each contract"),
    ("stable_shifts", "Fewest changes of shift type"),
    ("fair_nights", "Night shifts shared evenly"),
    ("fair_weekends", "Weekend shifts shared evenly"),
)
SEED = 20261201
#: Deterministic time (CP-SAT's machine-independent work measure) per solve; about a second of wall time here.
DETERMINISTIC_LIMIT = 1.5
WALL_LIMIT_S = 20.0


class GenerateInputs(Model):
    month: Month
    rules: Rules
    employees: list[Employee] = Field(min_length=1, max_length=MAX_EMPLOYEES)
    vacations: list[Vacation] = Field(default_factory=list, max_length=MAX_VACATIONS)
    demand: list[DemandCell] = Field(min_length=1, max_length=MAX_DEMAND)
    variants: int = Field(3, ge=1, le=MAX_VARIANTS)
    respect_vacations: bool = True

    @model_validator(mode="after")
    def _consistent(self) -> GenerateInputs:
        ids = [e.id for e in self.employees]
        if len(set(ids)) != len(ids):
            raise ValueError("employee ids must be unique")
        shifts = {s.id for s in self.rules.shifts}
        days = set(month_days(self.month))
        seen: set[tuple[date, str, str]] = set()
        for cell in self.demand:
            if cell.shift not in shifts:
                raise ValueError(f"demand names shift {cell.shift!r}, which the rules do not define")
            if cell.date not in days:
                raise ValueError(f"demand for {cell.date} is outside the month {self.month}")
            key = (cell.date, cell.shift, cell.competence)
            if key in seen:
                raise ValueError(f"demand for {cell.date} {cell.shift} {cell.competence} is given twice")
            seen.add(key)
        return self


class GenerateOutputs(Model):
    variants: list[Variant] = Field(max_length=MAX_VARIANTS)
    count: int = Field(ge=0)
    coverage: Literal["full", "short"] = Field(description="full: every demand cell is staffed in every variant")
    shortfall: int = Field(ge=0, description="the least total shortfall the solver could reach")
    notes: list[str] = Field(max_length=20)


@dataclass
class _Problem:
    """The CP-SAT model of one month and the handles an objective needs."""

    model: Any
    x: dict[tuple[str, int, str, str], Any]  # (employee, day index, shift, competence) -> bool var
    short: list[Any]
    minutes: dict[str, Any] = field(default_factory=dict)  # employee -> worked minutes (linear expression)
    on: dict[tuple[str, int, str], list[Any]] = field(default_factory=dict)  # (employee, day, shift) -> vars


def _forbidden_pairs(rules: Rules) -> list[tuple[str, str, int]]:
    """(shift, later shift, days later) pairs that leave less than the minimum rest between them."""
    longest = max(s.minutes() for s in rules.shifts)
    reach = math.ceil((longest + rules.min_rest_hours * 60) / 1440) + 1
    pairs = []
    for first in rules.shifts:
        ends = first.start_minutes() + first.minutes()
        for later in rules.shifts:
            for gap in range(1, reach + 1):
                if gap * 1440 + later.start_minutes() - ends < rules.min_rest_hours * 60:
                    pairs.append((first.id, later.id, gap))
    return pairs


def _build(inputs: GenerateInputs) -> _Problem:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    days = month_days(inputs.month)
    index = {d: i for i, d in enumerate(days)}
    away: dict[str, set[int]] = defaultdict(set)
    if inputs.respect_vacations:
        for vacation in inputs.vacations:
            away[vacation.employee].update(index[d] for d in vacation.days() if d in index)
    problem = _Problem(model, {}, [])
    # Every demand cell gets its list of candidates, even one nobody can staff (it then shows as a shortfall).
    cells: dict[tuple[int, str, str], list[Any]] = {(index[c.date], c.shift, c.competence): [] for c in inputs.demand}
    for e in inputs.employees:
        for d, shift, competence in cells:
            if competence in e.competences and d not in away[e.id]:
                var = model.new_bool_var(f"x_{e.id}_{d}_{shift}_{competence}")
                problem.x[(e.id, d, shift, competence)] = var
                cells[(d, shift, competence)].append(var)
                problem.on.setdefault((e.id, d, shift), []).append(var)
    for cell in inputs.demand:
        people = cells[(index[cell.date], cell.shift, cell.competence)]
        missing = model.new_int_var(0, cell.required, f"short_{cell.date}_{cell.shift}_{cell.competence}")
        model.add(sum(people) + missing == cell.required)
        problem.short.append(missing)
    length = {s.id: s.minutes() for s in inputs.rules.shifts}
    pairs = _forbidden_pairs(inputs.rules)
    weeks: dict[tuple[int, int], list[int]] = defaultdict(list)
    for d, day in enumerate(days):
        weeks[day.isocalendar()[:2]].append(d)
    limit = inputs.rules.max_consecutive_days
    for e in inputs.employees:
        daily = [[v for s in length for v in problem.on.get((e.id, d, s), [])] for d in range(len(days))]
        if not any(daily):
            continue
        for work in daily:
            if len(work) > 1:
                model.add_at_most_one(work)
        for first, later, gap in pairs:
            for d in range(len(days) - gap):
                a, b = problem.on.get((e.id, d, first), []), problem.on.get((e.id, d + gap, later), [])
                if a and b:
                    model.add(sum(a) + sum(b) <= 1)
        for week in weeks.values():
            worked = [length[s] * v for d in week for s in length for v in problem.on.get((e.id, d, s), [])]
            if worked:
                model.add(sum(worked) <= math.floor(inputs.rules.max_weekly_hours * 60))
        for start in range(len(days) - limit):
            window = [v for d in range(start, start + limit + 1) for v in daily[d]]
            if len(window) > limit:
                model.add(sum(window) <= limit)
        problem.minutes[e.id] = sum(length[s] * v for (who, _, s, _), v in problem.x.items() if who == e.id)
    return problem


def _objective(problem: _Problem, inputs: GenerateInputs, objective: Objective) -> Any:
    model = problem.model
    staff = [e for e in inputs.employees if e.id in problem.minutes]
    horizon = 31 * 24 * 60
    if objective == "lowest_cost":
        # Contract hours are paid whether worked or not, so what a schedule changes is its overtime (hours past
        # the month's norm), paid at the rate plus the premium.
        premium = 100 + round(inputs.rules.overtime_premium * 100)
        terms = []
        for e in staff:
            over = model.new_int_var(0, horizon, f"over_{e.id}")
            model.add(over >= problem.minutes[e.id] - round(e.target_hours * 60))
            terms.append(premium * round(e.hourly_cost * 100) * over)
        return sum(terms)
    if objective == "balanced_hours":
        worst = model.new_int_var(0, horizon, "worst")
        deviations = []
        for e in staff:
            dev = model.new_int_var(0, horizon, f"dev_{e.id}")
            model.add(dev >= problem.minutes[e.id] - round(e.target_hours * 60))
            model.add(dev >= round(e.target_hours * 60) - problem.minutes[e.id])
            model.add(worst >= dev)
            deviations.append(dev)
        return (len(staff) + 1) * worst + sum(deviations)
    if objective == "stable_shifts":
        changes = []
        shifts = [s.id for s in inputs.rules.shifts]
        for (who, d, shift), today in problem.on.items():
            for other in shifts:
                tomorrow = problem.on.get((who, d + 1, other), [])
                if other != shift and tomorrow:
                    change = model.new_bool_var(f"chg_{who}_{d}_{shift}_{other}")
                    model.add(sum(today) + sum(tomorrow) - 1 <= change)
                    changes.append(change)
        return sum(changes)
    return _fair_share(problem, inputs, objective, staff)


def _fair_share(problem: _Problem, inputs: GenerateInputs, objective: Objective, staff: list[Employee]) -> Any:
    """Spread night (or weekend) shifts evenly over the people who can take them: max - min, then max."""
    model = problem.model
    days = month_days(inputs.month)
    if objective == "fair_nights":
        nights = {s.id for s in inputs.rules.shifts if s.start_minutes() + s.minutes() > 1440}
        if not nights:  # no shift crosses midnight: the latest-starting one counts as the night shift
            nights = {max(inputs.rules.shifts, key=lambda s: s.start_minutes()).id}
        chosen = [(d, s) for d in range(len(days)) for s in nights]
    else:
        chosen = [(d, s.id) for d, day in enumerate(days) if day.weekday() >= 5 for s in inputs.rules.shifts]
    most = model.new_int_var(0, len(days), "most")
    least = model.new_int_var(0, len(days), "least")
    counted = 0
    for e in staff:
        taken = [v for d, s in chosen for v in problem.on.get((e.id, d, s), [])]
        if taken:
            model.add(most >= sum(taken))
            model.add(least <= sum(taken))
            counted += 1
    if not counted:
        return most
    return 100 * (most - least) + most


def _parameters(solver: Any) -> None:
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SEED
    solver.parameters.max_deterministic_time = DETERMINISTIC_LIMIT
    solver.parameters.max_time_in_seconds = WALL_LIMIT_S


Solution = dict[tuple[str, int, str, str], int]
#: A later variant must move at least this share of an earlier variant's assignments, so variants really differ.
MIN_DIFFERENCE = 0.05


def _min_difference(assignments: int) -> int:
    return max(1, math.ceil(assignments * MIN_DIFFERENCE))


def _solve(
    inputs: GenerateInputs, objective: Objective | None, bound: int | None, avoid: list[set[Any]], hint: Solution
) -> tuple[str, Solution | None, int]:
    """(solver status, values of the assignment variables or None if nothing was found, total shortfall)."""
    from ortools.sat.python import cp_model

    problem = _build(inputs)
    model = problem.model
    if bound is not None:
        model.add(sum(problem.short) <= bound)
    for earlier in filter(None, avoid):  # an empty schedule cannot be avoided by leaving something out
        model.add(sum(problem.x[k] for k in earlier) <= len(earlier) - _min_difference(len(earlier)))
    model.minimize(sum(problem.short) if objective is None else _objective(problem, inputs, objective))
    for key, var in sorted(problem.x.items()):
        model.add_hint(var, hint.get(key, 0))
    solver = cp_model.CpSolver()
    _parameters(solver)
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return solver.status_name(status), None, 0
    values = {k: int(solver.value(v)) for k, v in problem.x.items()}
    return solver.status_name(status), values, int(sum(solver.value(s) for s in problem.short))


def generate_variants(inputs: GenerateInputs, ctx: OperationContext) -> GenerateOutputs:
    """Solve for the least shortfall, then for each variant's objective under it; see the module docstring."""
    status, first, shortfall = _solve(inputs, None, None, [], {})
    if first is None:
        raise OperationError(
            f"the solver found no schedule for {inputs.month} ({status}); the rules may contradict each other"
        )
    days = month_days(inputs.month)
    order = {s.id: i for i, s in enumerate(inputs.rules.shifts)}
    variants: list[Variant] = []
    taken: list[set[Any]] = []
    for number in range(1, inputs.variants + 1):
        if ctx.cancelled.is_set():
            raise OperationError("cancelled while generating schedule variants", retryable=True)
        objective, label = OBJECTIVES[number - 1]
        status, values, short = _solve(inputs, objective, shortfall, taken, first)
        if values is None:
            raise OperationError(
                f"variant {number} ({label}) could not be found within the time limit ({status}); ask for fewer "
                "variants or loosen the data"
            )
        chosen = {k for k, v in values.items() if v}
        taken.append(chosen)
        assignments = sorted(
            (Assignment(employee=e, date=days[d], shift=s, competence=c) for e, d, s, c in chosen),
            key=lambda a: (a.date, order[a.shift], a.competence, a.employee),
        )
        variants.append(
            Variant(
                id=number,
                objective=objective,
                label=label,
                solver_status=status,
                shortfall=short,
                assignments=assignments,
            )
        )
    notes = []
    if shortfall:
        notes.append(
            f"full coverage is not possible with these people and rules: at least {shortfall} person-shift(s) "
            "stay unstaffed in every variant"
        )
    if not inputs.respect_vacations:
        notes.append("vacations were not taken into account, as asked")
    return GenerateOutputs(
        variants=variants,
        count=len(variants),
        coverage="short" if shortfall else "full",
        shortfall=shortfall,
        notes=notes,
    )


GENERATE_VARIANTS = Operation(
    "schedule.generate_variants",
    "Generate N candidate shift schedules (CP-SAT), each optimising a different objective, under the rules.",
    GenerateInputs,
    GenerateOutputs,
    "none",
    "repeatable",
    generate_variants,
    timeout_s=180.0,
    resources=("cpu",),
)
