"""`schedule.present`: a plain-text document comparing the variants, with their conflicts, metrics and rosters.

Pure formatting (effect none): the builtin `workspace.write_file` saves it. One roster grid per variant shows each
person's month at a glance: a letter per shift type, `v` for a vacation day, `.` for a day off.
"""

from __future__ import annotations

from datetime import date

from pydantic import Field

from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.schedule.checks import VariantCost, VariantCoverage, Violation
from alicorn.packs.schedule.models import (
    MAX_EMPLOYEES,
    MAX_ISSUES,
    MAX_VACATIONS,
    MAX_VARIANTS,
    Employee,
    Month,
    Rules,
    Vacation,
    Variant,
    month_days,
)

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
MAX_LISTED = 40


class PresentInputs(Model):
    month: Month
    rules: Rules
    employees: list[Employee] = Field(max_length=MAX_EMPLOYEES)
    vacations: list[Vacation] = Field(default_factory=list, max_length=MAX_VACATIONS)
    variants: list[Variant] = Field(min_length=1, max_length=MAX_VARIANTS)
    violations: list[Violation] = Field(default_factory=list, max_length=2500)
    coverage: list[VariantCoverage] = Field(max_length=MAX_VARIANTS)
    costs: list[VariantCost] = Field(max_length=MAX_VARIANTS)
    issues: list[str] = Field(default_factory=list, max_length=MAX_ISSUES)
    notes: list[str] = Field(default_factory=list, max_length=20)
    closed: list[date] = Field(default_factory=list, max_length=31)
    publication: str = Field("", max_length=300, description="one sentence on whether anything is published")


class PresentOutputs(Model):
    text: str
    lines: int = Field(ge=0)


def _codes(rules: Rules) -> dict[str, str]:
    """One letter per shift type (its first letter; digits when two share one)."""
    firsts = [s.id[0].upper() for s in rules.shifts]
    if len(set(firsts)) == len(firsts):
        return {s.id: f for s, f in zip(rules.shifts, firsts, strict=True)}
    return {s.id: str(i + 1) for i, s in enumerate(rules.shifts)}


def _roster(inputs: PresentInputs, variant: Variant, codes: dict[str, str]) -> list[str]:
    days = month_days(inputs.month)
    away = {(v.employee, d) for v in inputs.vacations for d in v.days()}
    grid = {(a.employee, a.date): codes.get(a.shift, "?") for a in variant.assignments}
    width = max((len(f"{e.id} {e.name}") for e in inputs.employees), default=10)
    out = [" " * width + "  " + "".join(f"{d.day:>3}" for d in days)]
    out.append(" " * width + "  " + "".join(f"{'MTWTFSS'[d.weekday()]:>3}" for d in days))
    for e in sorted(inputs.employees, key=lambda e: e.id):
        cells = [grid.get((e.id, d), "v" if (e.id, d) in away else ".") for d in days]
        out.append(f"{e.id} {e.name}".ljust(width) + "  " + "".join(f"{c:>3}" for c in cells))
    return out


def _listed(items: list[str]) -> list[str]:
    shown = [f"  - {item}" for item in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        shown.append(f"  ... and {len(items) - MAX_LISTED} more")
    return shown or ["  (none)"]


def present(inputs: PresentInputs, ctx: OperationContext) -> PresentOutputs:
    """Render the comparison document: rules, comparison table, conflicts, data problems, one roster per variant."""
    rules = inputs.rules
    year, number = (int(p) for p in inputs.month.split("-"))
    cost = {c.variant: c for c in inputs.costs}
    cover = {c.variant: c for c in inputs.coverage}
    violations: dict[int, list[Violation]] = {}
    for v in inputs.violations:
        violations.setdefault(v.variant, []).append(v)
    lines = [
        f"Work schedule: {len(inputs.variants)} variant(s) for {MONTHS[number - 1]} {year}",
        "=" * 60,
        f"Rules: {rules.name or 'shift rules'}; at least {rules.min_rest_hours:g} h rest between shifts, at most "
        f"{rules.max_weekly_hours:g} h a week and {rules.max_consecutive_days} days in a row.",
        "Shifts: " + ", ".join(f"{s.label or s.id} {s.start}-{s.end}" for s in rules.shifts) + ".",
        f"Staff: {len(inputs.employees)} people; closed days: "
        + (", ".join(d.isoformat() for d in inputs.closed) or "none")
        + ".",
    ]
    if inputs.publication:
        lines.append(inputs.publication)
    lines += ["", "Comparison", "-" * 10]
    header = f"{'#':>2}  {'objective':<34}{'cost (' + rules.currency + ')':>14}{'overtime h':>12}"
    lines.append(header + f"{'coverage':>10}{'spread h':>10}{'changes':>9}{'violations':>12}")
    for variant in inputs.variants:
        c, k = cost.get(variant.id), cover.get(variant.id)
        lines.append(
            f"{variant.id:>2}  {variant.label[:33]:<34}"
            + (f"{c.total_cost:>14,.2f}{c.overtime_hours:>12g}" if c else f"{'n/a':>14}{'n/a':>12}")
            + (f"{k.coverage_pct:>9.2f}%" if k else f"{'n/a':>10}")
            + (f"{c.hours_spread:>10g}{c.shift_changes:>9}" if c else f"{'n/a':>10}{'n/a':>9}")
            + f"{len(violations.get(variant.id, [])):>12}"
        )
    if inputs.costs:
        lines.append(f"Cheapest: variant {min(inputs.costs, key=lambda c: (c.total_cost, c.variant)).variant}.")
    lines += ["", "Conflicts", "-" * 9]
    conflicts = [f"variant {v.variant}: {v.detail}" for v in inputs.violations]
    for k in inputs.coverage:
        conflicts += [
            f"variant {k.variant}: {s.date} {s.shift} {s.competence}: {s.assigned} of {s.required} staffed"
            for s in k.shortfalls
        ]
    lines += _listed(conflicts)
    lines += ["", "Notes and data problems", "-" * 23, *_listed([*inputs.notes, *inputs.issues])]
    codes = _codes(rules)
    legend = ", ".join(f"{code} {s.label or s.id}" for s, code in zip(rules.shifts, codes.values(), strict=True))
    for variant in inputs.variants:
        lines += ["", f"Variant {variant.id}: {variant.label}", "-" * 40, f"Legend: {legend}, v vacation, . off"]
        lines += _roster(inputs, variant, codes)
    text = "\n".join(line.rstrip() for line in lines) + "\n"
    return PresentOutputs(text=text, lines=len(lines))


PRESENT = Operation(
    "schedule.present",
    "Render a plain-text comparison of the schedule variants with their conflicts, metrics and rosters.",
    PresentInputs,
    PresentOutputs,
    "none",
    "repeatable",
    present,
)
