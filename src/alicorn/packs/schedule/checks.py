"""`schedule.check_labour_law`, `schedule.simulate_coverage`, `schedule.compare_costs`: judge candidate schedules.

These recompute everything from the assignments, never trusting the generator: the labour-law check finds every
rest, weekly-hours, consecutive-days, vacation, competence and double-booking violation; the coverage simulation
compares each demand cell with the people assigned to it; the cost comparison prices each variant. Contract hours are
paid whether worked or not; hours past the month's norm (`target_hours`) are overtime, paid with the premium.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from datetime import date, datetime, time, timedelta
from typing import Literal

from pydantic import Field

from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.schedule.models import (
    MAX_DEMAND,
    MAX_EMPLOYEES,
    MAX_VACATIONS,
    MAX_VARIANTS,
    DemandCell,
    Employee,
    Rules,
    Shortfall,
    Vacation,
    Variant,
)

MAX_VIOLATIONS = 500
Kind = Literal["rest", "weekly_hours", "consecutive_days", "vacation", "competence", "double_booking", "unknown"]


class Violation(Model):
    """One broken rule in one variant."""

    variant: int = Field(ge=1)
    kind: Kind
    employee: str
    date: date
    detail: str = Field(max_length=300)


class LabourInputs(Model):
    rules: Rules
    employees: list[Employee] = Field(max_length=MAX_EMPLOYEES)
    vacations: list[Vacation] = Field(default_factory=list, max_length=MAX_VACATIONS)
    variants: list[Variant] = Field(min_length=1, max_length=MAX_VARIANTS)
    respect_vacations: bool = True


class LabourOutputs(Model):
    violations: list[Violation] = Field(max_length=MAX_VIOLATIONS * MAX_VARIANTS)
    counts: list[int] = Field(max_length=MAX_VARIANTS, description="violations per variant, in variant order")
    total: int = Field(ge=0)


def _interval(day: date, start: str, minutes: int) -> tuple[datetime, datetime]:
    hours, mins = (int(p) for p in start.split(":"))
    begin = datetime.combine(day, time(hours, mins))
    return begin, begin + timedelta(minutes=minutes)


def _check_variant(inputs: LabourInputs, variant: Variant) -> list[Violation]:
    rules = inputs.rules
    staff = {e.id: e for e in inputs.employees}
    away: dict[str, set[date]] = defaultdict(set)
    for vacation in inputs.vacations if inputs.respect_vacations else []:
        away[vacation.employee].update(vacation.days())
    found: list[Violation] = []

    def add(kind: Kind, who: str, day: date, detail: str) -> None:
        found.append(Violation(variant=variant.id, kind=kind, employee=who, date=day, detail=detail))

    shifts: dict[str, list[tuple[datetime, datetime, date, str]]] = defaultdict(list)
    for a in variant.assignments:
        shift, person = rules.shift(a.shift), staff.get(a.employee)
        if shift is None or person is None:
            add("unknown", a.employee, a.date, f"{a.employee} on {a.date}: unknown employee or shift {a.shift!r}")
            continue
        if a.competence not in person.competences:
            add("competence", a.employee, a.date, f"{a.employee} works as {a.competence} without that competence")
        if a.date in away[a.employee]:
            add("vacation", a.employee, a.date, f"{a.employee} is scheduled on {a.date} during a vacation")
        shifts[a.employee].append((*_interval(a.date, shift.start, shift.minutes()), a.date, a.shift))
    for who, worked in sorted(shifts.items()):
        worked.sort()
        for (_, end, day, first), (start, _, next_day, following) in itertools.pairwise(worked):
            rest = (start - end).total_seconds() / 3600
            if day == next_day or rest < 0:
                add("double_booking", who, next_day, f"{who} has {first} and {following} on {day}..{next_day}")
            elif rest < rules.min_rest_hours:
                add(
                    "rest",
                    who,
                    next_day,
                    f"{who} rests {rest:g} h before {following} on {next_day} (minimum {rules.min_rest_hours:g} h)",
                )
        weekly: dict[tuple[int, int], float] = defaultdict(float)
        for start, end, day, _ in worked:
            weekly[day.isocalendar()[:2]] += (end - start).total_seconds() / 3600
        for (year, week), hours in sorted(weekly.items()):
            if hours > rules.max_weekly_hours:
                monday = date.fromisocalendar(year, week, 1)
                add(
                    "weekly_hours",
                    who,
                    monday,
                    f"{who} works {hours:g} h in the week of {monday} (maximum {rules.max_weekly_hours:g} h)",
                )
        days = sorted({day for _, _, day, _ in worked})
        run = 1
        for previous, current in itertools.pairwise(days):
            run = run + 1 if current - previous == timedelta(days=1) else 1
            if run == rules.max_consecutive_days + 1:
                add(
                    "consecutive_days",
                    who,
                    current,
                    f"{who} works more than {rules.max_consecutive_days} days in a row up to {current}",
                )
    found.sort(key=lambda v: (v.date, v.employee, v.kind, v.detail))
    return found[:MAX_VIOLATIONS]


def check_labour_law(inputs: LabourInputs, ctx: OperationContext) -> LabourOutputs:
    """Every labour-law violation of every variant (an empty list means the variant keeps all rules)."""
    per_variant = [_check_variant(inputs, v) for v in inputs.variants]
    flat = [v for found in per_variant for v in found]
    return LabourOutputs(violations=flat, counts=[len(f) for f in per_variant], total=len(flat))


class CoverageInputs(Model):
    demand: list[DemandCell] = Field(max_length=MAX_DEMAND)
    variants: list[Variant] = Field(min_length=1, max_length=MAX_VARIANTS)


class CellCoverage(Model):
    date: date
    shift: str
    competence: str
    required: int = Field(ge=0)
    assigned: list[int] = Field(max_length=MAX_VARIANTS, description="people assigned, per variant")


class VariantCoverage(Model):
    variant: int
    required: int = Field(ge=0, description="person-shifts the demand asks for")
    covered: int = Field(ge=0, description="of those, staffed")
    coverage_pct: float = Field(ge=0, le=100)
    extra: int = Field(ge=0, description="people assigned beyond the demand")
    shortfalls: list[Shortfall] = Field(max_length=MAX_DEMAND)


class CoverageOutputs(Model):
    cells: list[CellCoverage] = Field(max_length=MAX_DEMAND)
    variants: list[VariantCoverage] = Field(max_length=MAX_VARIANTS)
    shortfalls: list[int] = Field(max_length=MAX_VARIANTS, description="missing person-shifts per variant")


def simulate_coverage(inputs: CoverageInputs, ctx: OperationContext) -> CoverageOutputs:
    """Required against assigned for every demand cell and every variant: coverage %, shortfalls, extras."""
    counts = []
    for variant in inputs.variants:
        tally: dict[tuple[date, str, str], int] = defaultdict(int)
        for a in variant.assignments:
            tally[(a.date, a.shift, a.competence)] += 1
        counts.append(tally)
    cells = [
        CellCoverage(
            date=c.date,
            shift=c.shift,
            competence=c.competence,
            required=c.required,
            assigned=[t.get((c.date, c.shift, c.competence), 0) for t in counts],
        )
        for c in sorted(inputs.demand, key=lambda c: (c.date, c.shift, c.competence))
    ]
    wanted = {(c.date, c.shift, c.competence): c.required for c in inputs.demand}
    summaries = []
    for i, variant in enumerate(inputs.variants):
        required = sum(c.required for c in cells)
        covered = sum(min(c.required, c.assigned[i]) for c in cells)
        short = [
            Shortfall(
                date=c.date,
                shift=c.shift,
                competence=c.competence,
                required=c.required,
                assigned=c.assigned[i],
                missing=c.required - c.assigned[i],
            )
            for c in cells
            if c.assigned[i] < c.required
        ]
        extra = sum(max(0, n - wanted.get(k, 0)) for k, n in counts[i].items())
        pct = round(100 * covered / required, 2) if required else 100.0
        summaries.append(
            VariantCoverage(
                variant=variant.id, required=required, covered=covered, coverage_pct=pct, extra=extra, shortfalls=short
            )
        )
    return CoverageOutputs(
        cells=cells, variants=summaries, shortfalls=[sum(s.missing for s in v.shortfalls) for v in summaries]
    )


class CostInputs(Model):
    rules: Rules
    employees: list[Employee] = Field(max_length=MAX_EMPLOYEES)
    variants: list[Variant] = Field(min_length=1, max_length=MAX_VARIANTS)


class VariantCost(Model):
    variant: int
    objective: str
    total_cost: float = Field(description="contract pay plus overtime with its premium")
    overtime_cost: float
    worked_hours: float
    overtime_hours: float
    hours_spread: float = Field(description="largest minus smallest (hours - norm) among schedulable people")
    most_nights: int = Field(ge=0, description="night shifts of the person with the most")
    most_weekend_shifts: int = Field(ge=0)
    most_weekly_hours: float = Field(
        0.0, ge=0, description="the most hours anyone works in one calendar week (Monday to Sunday) of the month"
    )
    shift_changes: int = Field(ge=0, description="next-day switches of shift type, over everyone")
    differs_from_first: int = Field(ge=0, description="(person, day) cells that differ from variant 1")


class PersonHours(Model):
    employee: str
    name: str
    target_hours: float
    hours: list[float] = Field(max_length=MAX_VARIANTS, description="hours worked, per variant")


class CostOutputs(Model):
    currency: str
    variants: list[VariantCost] = Field(max_length=MAX_VARIANTS)
    people: list[PersonHours] = Field(max_length=MAX_EMPLOYEES)
    cheapest: int = Field(ge=1, description="the id of the cheapest variant")


def compare_costs(inputs: CostInputs, ctx: OperationContext) -> CostOutputs:
    """Price every variant and measure how it spreads hours, nights and weekends."""
    rules = inputs.rules
    hours_of = {s.id: s.hours() for s in rules.shifts}
    nights = {s.id for s in rules.shifts if s.start_minutes() + s.minutes() > 24 * 60}
    cells: list[dict[tuple[str, date], str]] = []
    summaries = []
    worked: list[dict[str, float]] = []
    for variant in inputs.variants:
        hours: dict[str, float] = defaultdict(float)
        night: dict[str, int] = defaultdict(int)
        weekend: dict[str, int] = defaultdict(int)
        weekly: dict[tuple[str, int, int], float] = defaultdict(float)
        grid = {}
        for a in variant.assignments:
            hours[a.employee] += hours_of.get(a.shift, 0.0)
            weekly[(a.employee, *a.date.isocalendar()[:2])] += hours_of.get(a.shift, 0.0)
            night[a.employee] += a.shift in nights
            weekend[a.employee] += a.date.weekday() >= 5
            grid[(a.employee, a.date)] = a.shift
        cells.append(grid)
        worked.append(hours)
        total = over_cost = over_hours = 0.0
        for e in inputs.employees:
            extra = max(0.0, hours[e.id] - e.target_hours)
            total += e.hourly_cost * max(hours[e.id], e.target_hours) + rules.overtime_premium * e.hourly_cost * extra
            over_cost += (1 + rules.overtime_premium) * e.hourly_cost * extra
            over_hours += extra
        deviations = [hours[e.id] - e.target_hours for e in inputs.employees if e.competences]
        changes = sum(
            1 for (who, day), shift in grid.items() if grid.get((who, day + timedelta(days=1)), shift) != shift
        )
        differs = len({k for k in grid.keys() | cells[0].keys() if grid.get(k) != cells[0].get(k)})
        summaries.append(
            VariantCost(
                variant=variant.id,
                objective=variant.objective,
                total_cost=round(total, 2),
                overtime_cost=round(over_cost, 2),
                worked_hours=round(sum(hours.values()), 2),
                overtime_hours=round(over_hours, 2),
                hours_spread=round(max(deviations) - min(deviations), 2) if deviations else 0.0,
                most_nights=max(night.values(), default=0),
                most_weekend_shifts=max(weekend.values(), default=0),
                most_weekly_hours=round(max(weekly.values(), default=0.0), 2),
                shift_changes=changes,
                differs_from_first=differs,
            )
        )
    people = [
        PersonHours(
            employee=e.id, name=e.name, target_hours=e.target_hours, hours=[round(w.get(e.id, 0.0), 2) for w in worked]
        )
        for e in sorted(inputs.employees, key=lambda e: e.id)
    ]
    cheapest = min(summaries, key=lambda s: (s.total_cost, s.variant)).variant
    return CostOutputs(currency=rules.currency, variants=summaries, people=people, cheapest=cheapest)


CHECK_LABOUR_LAW = Operation(
    "schedule.check_labour_law",
    "Check every schedule variant against the labour-law rules: rest, weekly hours, days in a row, vacations.",
    LabourInputs,
    LabourOutputs,
    "none",
    "repeatable",
    check_labour_law,
)
SIMULATE_COVERAGE = Operation(
    "schedule.simulate_coverage",
    "Compare each variant's staffing with the demand for every date, shift and competence.",
    CoverageInputs,
    CoverageOutputs,
    "none",
    "repeatable",
    simulate_coverage,
)
COMPARE_COSTS = Operation(
    "schedule.compare_costs",
    "Price each schedule variant (contract pay plus overtime) and measure how evenly it spreads the work.",
    CostInputs,
    CostOutputs,
    "none",
    "repeatable",
    compare_costs,
)
