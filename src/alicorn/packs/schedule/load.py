"""`schedule.load_inputs`: read the shift rules, contracts, competences, vacations and demand, and validate them.

A file that is missing or unreadable, or rules that do not parse, stop the run (OperationError naming the file and
the fix). A bad *row* does not: it is left out or repaired, and the reason goes into `issues`, so the planner can show
the person what the data got wrong (a vacation of an unknown employee, overlapping vacations, demand for a competence
nobody has, a person without competences). Weekday demand is expanded over the month; a dated row replaces its
weekday's rows for that date, and `*,*,0` on a date marks it closed.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import defaultdict
from datetime import date

from pydantic import Field, ValidationError

from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.paths import read_path
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.schedule.models import (
    MAX_DEMAND,
    MAX_EMPLOYEES,
    MAX_ISSUES,
    MAX_VACATIONS,
    DemandCell,
    Employee,
    Month,
    Rules,
    Vacation,
    month_days,
)
from alicorn.validate.schedule_issues import (
    COMPETENCE_UNHELD,
    COMPETENCES_UNREADABLE,
    DAY_UNREADABLE,
    DEMAND_TWICE,
    EMPLOYEE_AGAIN,
    EMPLOYEE_ID_UNREADABLE,
    EMPLOYEE_TERMS_INVALID,
    MORE_PROBLEMS,
    NO_COMPETENCES,
    REQUIRED_UNREADABLE,
    SHIFT_UNKNOWN,
    VACATION_BACKWARDS,
    VACATION_DATES_UNREADABLE,
    VACATION_OF_STRANGER,
    VACATIONS_OVERLAP,
    data_issue,
)

MAX_FILE_BYTES = 2 * 1024 * 1024
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class LoadInputs(Model):
    month: Month
    employees: RelativePath = "employees.csv"
    vacations: RelativePath = "vacations.csv"
    demand: RelativePath = "demand.csv"
    rules: RelativePath = "rules.json"


class LoadOutputs(Model):
    month: Month
    rules: Rules
    employees: list[Employee] = Field(max_length=MAX_EMPLOYEES)
    vacations: list[Vacation] = Field(max_length=MAX_VACATIONS, description="vacations touching the month, merged")
    demand: list[DemandCell] = Field(max_length=MAX_DEMAND, description="cells of the month with required > 0")
    closed: list[date] = Field(max_length=31, description="dates of the month with no demand at all")
    issues: list[str] = Field(max_length=MAX_ISSUES, description="problems found in the data, in file order")
    employee_count: int = Field(ge=0)
    demand_total: int = Field(ge=0, description="person-shifts the month needs")


def _read_text(ctx: OperationContext, relative: str) -> str:
    path = read_path(ctx, relative)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise OperationError(f"{relative!r} is larger than {MAX_FILE_BYTES} bytes; a month's HR data is smaller")
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise OperationError(
            f"no file {relative!r} under the data root {str(ctx.data_root)!r}; check the path"
        ) from None
    except IsADirectoryError:
        raise OperationError(f"{relative!r} under the data root is a directory, not a file") from None
    except UnicodeDecodeError:
        raise OperationError(f"{relative!r} is not UTF-8 text; re-encode it as UTF-8") from None
    except OSError as exc:
        raise OperationError(f"cannot read {relative!r}: {exc.strerror or exc}", retryable=True) from None


def _rows(ctx: OperationContext, relative: str, needed: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) of a CSV whose header holds `needed`; cells stripped, missing cells empty."""
    reader = csv.DictReader(io.StringIO(_read_text(ctx, relative)))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in needed if c not in header]
    if missing:
        raise OperationError(
            f"{relative!r} lacks the column(s) {', '.join(missing)}; its header must name {', '.join(needed)}"
        )
    reader.fieldnames = header
    out = []
    for row in reader:
        out.append((reader.line_num, {k: (v or "").strip() for k, v in row.items() if isinstance(k, str)}))
    return out


def _number(text: str) -> float | None:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _rules(ctx: OperationContext, relative: str) -> Rules:
    try:
        return Rules.model_validate(json.loads(_read_text(ctx, relative)))
    except json.JSONDecodeError as exc:
        raise OperationError(f"{relative!r} is not valid JSON: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(the document)"
        raise OperationError(f"{relative!r} are not valid shift rules: {where}: {first['msg']}") from None


def _employees(ctx: OperationContext, relative: str, issues: list[str]) -> dict[str, Employee]:
    found: dict[str, Employee] = {}
    for line, row in _rows(ctx, relative, ("id", "name", "competences", "contract_hours", "hourly_cost")):
        ident = row["id"]
        if not _KEY.match(ident):
            issues.append(data_issue(EMPLOYEE_ID_UNREADABLE, file=relative, line=line, ident=repr(ident)))
            continue
        if ident in found:
            issues.append(data_issue(EMPLOYEE_AGAIN, file=relative, line=line, ident=ident))
            continue
        hours, cost = _number(row["contract_hours"]), _number(row["hourly_cost"])
        if hours is None or not 0 <= hours <= 80 or cost is None or not 0 <= cost <= 10_000:
            issues.append(data_issue(EMPLOYEE_TERMS_INVALID, file=relative, line=line, ident=ident))
            continue
        tokens = sorted({t.strip().lower() for t in row["competences"].split(";") if t.strip()})
        bad = [t for t in tokens if not _KEY.match(t)]
        if bad:
            issues.append(data_issue(COMPETENCES_UNREADABLE, file=relative, line=line, ident=ident, bad=bad))
        competences = [t for t in tokens if t not in bad]
        if not competences:
            issues.append(data_issue(NO_COMPETENCES, file=relative, line=line, ident=ident))
        name = row["name"] or ident
        found[ident] = Employee(
            id=ident, name=name[:120], competences=competences, contract_hours=hours, hourly_cost=cost
        )
    if not found:
        raise OperationError(f"{relative!r} holds no usable employee; check its rows")
    if len(found) > MAX_EMPLOYEES:
        raise OperationError(f"{relative!r} holds {len(found)} employees; at most {MAX_EMPLOYEES} can be scheduled")
    return found


def _vacations(ctx: OperationContext, relative: str, known: dict[str, Employee], issues: list[str]) -> list[Vacation]:
    spans: dict[str, list[tuple[date, date, int]]] = defaultdict(list)
    for line, row in _rows(ctx, relative, ("employee", "from", "to")):
        who = row["employee"]
        if who not in known:
            issues.append(data_issue(VACATION_OF_STRANGER, file=relative, line=line, ident=who or "(empty)"))
            continue
        try:
            first, last = date.fromisoformat(row["from"]), date.fromisoformat(row["to"])
        except ValueError:
            issues.append(
                data_issue(
                    VACATION_DATES_UNREADABLE,
                    file=relative,
                    line=line,
                    ident=who,
                    first=repr(row["from"]),
                    last=repr(row["to"]),
                )
            )
            continue
        if last < first:
            issues.append(data_issue(VACATION_BACKWARDS, file=relative, line=line, ident=who, first=first, last=last))
            continue
        spans[who].append((first, last, line))
    merged: list[Vacation] = []
    for who in sorted(spans):
        current: tuple[date, date, int] | None = None
        for first, last, line in sorted(spans[who]):
            if current is not None and first <= current[1]:
                issues.append(
                    data_issue(
                        VACATIONS_OVERLAP,
                        file=relative,
                        line=line,
                        ident=who,
                        first=first,
                        last=last,
                        earlier_line=current[2],
                        earlier_first=current[0],
                        earlier_last=current[1],
                    )
                )
                current = (current[0], max(current[1], last), current[2])
                continue
            if current is not None:
                merged.append(Vacation(employee=who, start=current[0], end=current[1]))
            current = (first, last, line)
        if current is not None:
            merged.append(Vacation(employee=who, start=current[0], end=current[1]))
    return merged


def _day_spec(text: str) -> list[str] | date | None:
    """The weekdays a `day` cell names (mon, mon-fri), the date it names, or None if it names neither."""
    token = text.strip().lower()
    if token in WEEKDAYS:
        return [token]
    if "-" in token and all(part in WEEKDAYS for part in token.split("-", 1)):
        first, last = (WEEKDAYS.index(part) for part in token.split("-", 1))
        return list(WEEKDAYS[first : last + 1]) if first <= last else None
    try:
        return date.fromisoformat(token)
    except ValueError:
        return None


def _demand(
    ctx: OperationContext, relative: str, month: str, rules: Rules, issues: list[str]
) -> tuple[list[DemandCell], list[date]]:
    weekly: dict[tuple[str, str, str], int] = {}
    dated: dict[tuple[date, str, str], int] = {}
    closed_dates: set[date] = set()
    shifts = {s.id for s in rules.shifts}
    for line, row in _rows(ctx, relative, ("day", "shift", "competence", "required")):
        spec, shift, competence = _day_spec(row["day"]), row["shift"], row["competence"].lower()
        number = _number(row["required"])
        if spec is None:
            issues.append(data_issue(DAY_UNREADABLE, file=relative, line=line, day=repr(row["day"])))
            continue
        if number is None or number < 0 or number != int(number) or number > 100:
            issues.append(data_issue(REQUIRED_UNREADABLE, file=relative, line=line, required=repr(row["required"])))
            continue
        if shift == "*" and competence == "*" and number == 0 and isinstance(spec, date):
            closed_dates.add(spec)
            continue
        if shift not in shifts or not _KEY.match(competence):
            issues.append(
                data_issue(SHIFT_UNKNOWN, file=relative, line=line, shift=repr(shift), competence=repr(competence))
            )
            continue
        if isinstance(spec, date):
            fresh = (spec, shift, competence) not in dated
            dated.setdefault((spec, shift, competence), int(number))
        else:
            fresh = all((d, shift, competence) not in weekly for d in spec)
            for weekday in spec:
                weekly.setdefault((weekday, shift, competence), int(number))
        if not fresh:
            issues.append(
                data_issue(DEMAND_TWICE, file=relative, line=line, day=row["day"], shift=shift, competence=competence)
            )
    cells: list[DemandCell] = []
    closed: list[date] = []
    overridden = {d for d, _, _ in dated} | closed_dates
    for day in month_days(month):
        if day in overridden:
            rows = {(s, c): n for (d, s, c), n in dated.items() if d == day}
        else:
            weekday = WEEKDAYS[day.weekday()]
            rows = {(s, c): n for (w, s, c), n in weekly.items() if w == weekday}
        wanted = [(s, c, n) for (s, c), n in sorted(rows.items()) if n > 0]
        if not wanted:
            closed.append(day)
        cells.extend(DemandCell(date=day, shift=s, competence=c, required=n) for s, c, n in wanted)
    return cells, closed


def _target(employee: Employee, month: str, closed: set[date], away: set[date]) -> float:
    """The working-time norm: contract hours / 5 for each Monday-Friday that is neither closed nor a vacation day."""
    workdays = [d for d in month_days(month) if d.weekday() < 5 and d not in closed and d not in away]
    return round(employee.contract_hours / 5 * len(workdays), 1)


def load_inputs(inputs: LoadInputs, ctx: OperationContext) -> LoadOutputs:
    """Read and check the month's HR data; data problems become `issues`, unreadable files an OperationError."""
    issues: list[str] = []
    rules = _rules(ctx, inputs.rules)
    employees = _employees(ctx, inputs.employees, issues)
    vacations = _vacations(ctx, inputs.vacations, employees, issues)
    demand, closed = _demand(ctx, inputs.demand, inputs.month, rules, issues)
    if len(demand) > MAX_DEMAND:
        raise OperationError(f"the month has {len(demand)} demand cells; at most {MAX_DEMAND} can be planned")
    days = month_days(inputs.month)
    vacations = [v for v in vacations if v.end >= days[0] and v.start <= days[-1]]
    held = {c for e in employees.values() for c in e.competences}
    for competence in sorted({c.competence for c in demand} - held):
        issues.append(data_issue(COMPETENCE_UNHELD, file=inputs.demand, competence=repr(competence)))
    away: dict[str, set[date]] = defaultdict(set)
    for vacation in vacations:
        away[vacation.employee].update(vacation.days())
    staff = [
        e.model_copy(update={"target_hours": _target(e, inputs.month, set(closed), away[e.id])})
        for _, e in sorted(employees.items())
    ]
    if len(issues) > MAX_ISSUES:
        issues = [*issues[: MAX_ISSUES - 1], data_issue(MORE_PROBLEMS, count=len(issues) - MAX_ISSUES + 1)]
    return LoadOutputs(
        month=inputs.month,
        rules=rules,
        employees=staff,
        vacations=vacations,
        demand=demand,
        closed=closed,
        issues=issues,
        employee_count=len(staff),
        demand_total=sum(c.required for c in demand),
    )


LOAD_INPUTS = Operation(
    "schedule.load_inputs",
    "Read the shift rules, contracts, competences, vacations and demand for a month, and report data problems.",
    LoadInputs,
    LoadOutputs,
    "read",
    "repeatable",
    load_inputs,
    timeout_s=30.0,
    path_input="employees",
    read_inputs=("vacations", "demand", "rules"),
)
