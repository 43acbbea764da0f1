"""The schedule validator: recomputes coverage, time limits, competences and conflicts from the artifact alone.

It trusts nothing the pack's operations computed (their metrics in the artifact are ignored): from the rules, the
people, their vacations, the demand and each variant's assignments it checks, by name,

    month         every assignment falls in the month the contract asked for
    variants      as many variants as asked, each non-empty and no two identical
    coverage      every demand cell (date, shift, competence) has its people; total shortfall <= max_shortfall
    time_limits   minimum rest between shifts, hours per Monday-Sunday week, working days in a row
    competences   everyone works only in a competence they hold
    conflicts     nobody is booked twice on a day or in overlapping shifts, nor during a vacation (when respected)
    data          (warning) the data problems reported while loading

A schedule with a shortfall is *partial*. A malformed artifact or criteria give *failed*, never an exception.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alicorn.i18n import N_
from alicorn.validate.base import ArtifactType, CheckResult, ValidationReport, check, joined, parse_artifact, phrase
from alicorn.validate.schedule_issues import as_phrase

KIND: ArtifactType = "schedule"
SHOWN = 3  # offenders named in a failed check's detail
_LOOSE = ConfigDict(frozen=True, extra="ignore")
Text = Annotated[str, Field(min_length=1, max_length=200)]


class _Shift(BaseModel):
    model_config = _LOOSE
    id: Text
    start: str = Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    end: str = Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")

    def span(self, day: date) -> tuple[datetime, datetime]:
        """When the shift starting on `day` begins and ends (the next day if it ends at or before its start)."""
        begin = datetime.combine(day, datetime.strptime(self.start, "%H:%M").time())
        end = datetime.combine(day, datetime.strptime(self.end, "%H:%M").time())
        return begin, end if end > begin else end + timedelta(days=1)


class _Rules(BaseModel):
    model_config = _LOOSE
    shifts: list[_Shift] = Field(min_length=1, max_length=50)
    min_rest_hours: float = Field(ge=0, le=168)
    max_weekly_hours: float = Field(gt=0, le=168)
    max_consecutive_days: int = Field(ge=1, le=366)


class _Employee(BaseModel):
    model_config = _LOOSE
    id: Text
    name: str = ""
    competences: list[str] = Field(max_length=100)


class _Vacation(BaseModel):
    model_config = _LOOSE
    employee: Text
    start: date
    end: date


class _Cell(BaseModel):
    model_config = _LOOSE
    date: date
    shift: Text
    competence: Text
    required: int = Field(ge=0)


class _Assignment(BaseModel):
    model_config = _LOOSE
    employee: Text
    date: date
    shift: Text
    competence: Text


class _Variant(BaseModel):
    model_config = _LOOSE
    id: int
    label: str = ""
    assignments: list[_Assignment] = Field(max_length=50_000)


class _Schedule(BaseModel):
    model_config = _LOOSE
    month: str = Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")
    rules: _Rules
    employees: list[_Employee] = Field(max_length=10_000)
    vacations: list[_Vacation] = Field(default_factory=list, max_length=100_000)
    demand: list[_Cell] = Field(max_length=100_000)
    variants: list[_Variant] = Field(max_length=100)
    issues: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _known_shifts(self) -> _Schedule:
        shifts = {s.id for s in self.rules.shifts}
        if len(shifts) != len(self.rules.shifts):
            raise ValueError("the rules define a shift id twice")
        used = {c.shift for c in self.demand} | {a.shift for v in self.variants for a in v.assignments}
        unknown = sorted(used - shifts)
        if unknown:
            raise ValueError(f"shift(s) {', '.join(unknown)} are used but the rules do not define them")
        return self


class _Criteria(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    month: str | None = Field(None, pattern=r"^\d{4}-(0[1-9]|1[0-2])$")
    variants: int | None = Field(None, ge=1, le=100)
    respect_vacations: bool = True
    max_shortfall: int = Field(0, ge=0)
    #: The period the request named when it is not the one month planned ("the week of 7-13 December", "January
    #: and February"): the result covers its month only, and says so.
    asked_period: str | None = Field(None, max_length=200)


Phrase = dict[str, Any]


def _check(name: str, problems: list[Phrase], ok: Phrase, failed: str) -> CheckResult:
    """Passed with the sentence `ok`, or failed with `failed` ({count} and {problems}: the first SHOWN of them)."""
    if not problems:
        return check(name, True, ok["message"], **ok["values"])
    shown: Any = problems[:SHOWN]
    if len(problems) > SHOWN:
        shown = phrase(N_("{shown} (and {more} more)"), shown=shown, more=len(problems) - SHOWN)
    return check(name, False, failed, count=len(problems), problems=shown)


def _month(s: _Schedule, wanted: str | None) -> CheckResult:
    problems = (
        []
        if wanted in (None, s.month)
        else [phrase(N_("the schedule is for {month}, the request asked for {wanted}"), month=s.month, wanted=wanted)]
    )
    for v in s.variants:
        outside = sorted({a.date for a in v.assignments if a.date.strftime("%Y-%m") != s.month})
        problems += [
            phrase(N_("variant {variant} schedules {day}, outside {month}"), variant=v.id, day=str(d), month=s.month)
            for d in outside
        ]
    ok = phrase(N_("every assignment falls in {month}"), month=s.month)
    return _check("month", problems, ok, N_("{count} month problem(s): {problems}"))


def _variants(s: _Schedule, wanted: int | None) -> CheckResult:
    problems = []
    if wanted is not None and len(s.variants) != wanted:
        problems.append(
            phrase(N_("{count} variant(s) where {wanted} were asked for"), count=len(s.variants), wanted=wanted)
        )
    if not s.variants:
        problems.append(phrase(N_("there is no variant at all")))
    ids = Counter(v.id for v in s.variants)
    problems += [
        phrase(N_("variant id {variant} is used {times} times"), variant=i, times=n)
        for i, n in sorted(ids.items())
        if n > 1
    ]
    needed = sum(c.required for c in s.demand)
    seen: dict[frozenset[tuple[str, date, str, str]], int] = {}
    for v in s.variants:
        key = frozenset((a.employee, a.date, a.shift, a.competence) for a in v.assignments)
        if not key and needed:
            problems.append(phrase(N_("variant {variant} assigns nobody"), variant=v.id))
        if key in seen:
            problems.append(
                phrase(N_("variant {variant} is identical to variant {other}"), variant=v.id, other=seen[key])
            )
        seen.setdefault(key, v.id)
    ok = phrase(N_("{count} distinct variant(s), as asked"), count=len(s.variants))
    return _check("variants", problems, ok, N_("{count} variant problem(s): {problems}"))


def _coverage(s: _Schedule, allowed: int) -> CheckResult:
    required: Counter[tuple[date, str, str]] = Counter()
    for c in s.demand:
        required[(c.date, c.shift, c.competence)] += c.required
    problems, worst = [], 0
    for v in s.variants:
        staffed = Counter((a.date, a.shift, a.competence) for a in v.assignments)
        gaps = [(k, n, staffed[k]) for k, n in sorted(required.items()) if staffed[k] < n]
        missing = sum(n - got for _, n, got in gaps)
        worst = max(worst, missing)
        if missing > allowed:
            first = [
                phrase(
                    N_("{day} {shift} {competence} {got} of {required}"),
                    day=str(d),
                    shift=sh,
                    competence=c,
                    got=got,
                    required=n,
                )
                for (d, sh, c), n, got in gaps[:SHOWN]
            ]
            problems.append(
                phrase(
                    N_("variant {variant} leaves {missing} person-shift(s) unstaffed ({first})"),
                    variant=v.id,
                    missing=missing,
                    first=joined(first, ", "),
                )
            )
    total = sum(required.values())
    ok = (
        phrase(N_("every variant staffs all {total} person-shift(s) the demand asks for"), total=total)
        if not worst
        else phrase(N_("shortfall of at most {worst} person-shift(s), within {allowed}"), worst=worst, allowed=allowed)
    )
    return _check("coverage", problems, ok, N_("{count} variant(s) short of staff: {problems}"))


def _spans(s: _Schedule, v: _Variant) -> dict[str, list[tuple[datetime, datetime, _Assignment]]]:
    shifts = {sh.id: sh for sh in s.rules.shifts}
    out: dict[str, list[tuple[datetime, datetime, _Assignment]]] = defaultdict(list)
    for a in v.assignments:
        out[a.employee].append((*shifts[a.shift].span(a.date), a))
    for spans in out.values():
        spans.sort(key=lambda t: (t[0], t[1], t[2].shift))
    return out


def _time_limits(s: _Schedule) -> CheckResult:
    r, problems = s.rules, []
    for v in s.variants:
        for who, spans in sorted(_spans(s, v).items()):
            for (_, end, a), (start, _, b) in itertools.pairwise(spans):
                rest = (start - end).total_seconds() / 3600
                if a.date != b.date and 0 <= rest < r.min_rest_hours:
                    problems.append(
                        phrase(
                            N_(
                                "variant {variant}: {who} rests {rest:g} h before {shift} on {day} "
                                "(minimum {minimum:g} h)"
                            ),
                            variant=v.id,
                            who=who,
                            rest=rest,
                            shift=b.shift,
                            day=str(b.date),
                            minimum=r.min_rest_hours,
                        )
                    )
            weeks: dict[tuple[int, int], float] = defaultdict(float)
            for start, end, a in spans:
                weeks[a.date.isocalendar()[:2]] += (end - start).total_seconds() / 3600
            for (year, week), hours in sorted(weeks.items()):
                if hours > r.max_weekly_hours:
                    problems.append(
                        phrase(
                            N_(
                                "variant {variant}: {who} works {hours:g} h in ISO week {year}-W{week:02d} "
                                "(maximum {maximum:g} h)"
                            ),
                            variant=v.id,
                            who=who,
                            hours=hours,
                            year=year,
                            week=week,
                            maximum=r.max_weekly_hours,
                        )
                    )
            days, run = sorted({a.date for _, _, a in spans}), 1
            for before, day in itertools.pairwise(days):
                run = run + 1 if (day - before).days == 1 else 1
                if run == r.max_consecutive_days + 1:
                    problems.append(
                        phrase(
                            N_("variant {variant}: {who} works more than {days} days in a row up to {day}"),
                            variant=v.id,
                            who=who,
                            days=r.max_consecutive_days,
                            day=str(day),
                        )
                    )
    ok = phrase(
        N_(
            "rest of at least {rest:g} h, at most {hours:g} h a week and {days} days in a row for everyone in every "
            "variant"
        ),
        rest=r.min_rest_hours,
        hours=r.max_weekly_hours,
        days=r.max_consecutive_days,
    )
    return _check("time_limits", problems, ok, N_("{count} time-limit violation(s): {problems}"))


def _competences(s: _Schedule) -> CheckResult:
    held = {e.id: set(e.competences) for e in s.employees}
    problems = []
    for v in s.variants:
        for a in v.assignments:
            if a.employee not in held:
                problems.append(
                    phrase(
                        N_("variant {variant}: {employee} on {day} is not among the employees"),
                        variant=v.id,
                        employee=a.employee,
                        day=str(a.date),
                    )
                )
            elif a.competence not in held[a.employee]:
                problems.append(
                    phrase(
                        N_(
                            "variant {variant}: {employee} works as {competence} on {day} {shift} "
                            "without that competence"
                        ),
                        variant=v.id,
                        employee=a.employee,
                        competence=a.competence,
                        day=str(a.date),
                        shift=a.shift,
                    )
                )
    ok = phrase(N_("everyone works only in a competence they hold"))
    return _check("competences", problems, ok, N_("{count} competence violation(s): {problems}"))


def _conflicts(s: _Schedule, respect_vacations: bool) -> CheckResult:
    away: dict[str, list[_Vacation]] = defaultdict(list)
    for vac in s.vacations:
        away[vac.employee].append(vac)
    problems = []
    for v in s.variants:
        for who, spans in sorted(_spans(s, v).items()):
            for (_, end, a), (start, _, b) in itertools.pairwise(spans):
                if a.date == b.date or start < end:
                    problems.append(
                        phrase(
                            N_(
                                "variant {variant}: {who} is booked for {shift} on {day} "
                                "and {other_shift} on {other_day}"
                            ),
                            variant=v.id,
                            who=who,
                            shift=a.shift,
                            day=str(a.date),
                            other_shift=b.shift,
                            other_day=str(b.date),
                        )
                    )
            if respect_vacations:
                problems += [
                    phrase(
                        N_("variant {variant}: {who} works {shift} on {day} during a vacation ({start}..{end})"),
                        variant=v.id,
                        who=who,
                        shift=a.shift,
                        day=str(a.date),
                        start=str(vac.start),
                        end=str(vac.end),
                    )
                    for _, _, a in spans
                    for vac in away[who]
                    if vac.start <= a.date <= vac.end
                ]
    ok = (
        phrase(N_("nobody is double-booked or scheduled during a vacation"))
        if respect_vacations
        else phrase(N_("nobody is double-booked"))
    )
    return _check("conflicts", problems, ok, N_("{count} conflict(s): {problems}"))


def validate_schedule(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    """Check a schedule artifact against the outcome contract's criteria (see the module docstring)."""
    try:
        wanted = _Criteria.model_validate(dict(criteria))
    except (ValidationError, TypeError, ValueError) as exc:
        return ValidationReport.of(KIND, [check("criteria", False, N_("unusable criteria: {error}"), error=str(exc))])
    parsed = parse_artifact(_Schedule, artifact, KIND)
    if isinstance(parsed, ValidationReport):
        return parsed
    try:
        checks = [
            _month(parsed, wanted.month),
            _variants(parsed, wanted.variants),
            _coverage(parsed, wanted.max_shortfall),
            _time_limits(parsed),
            _competences(parsed),
            _conflicts(parsed, wanted.respect_vacations),
        ]
    except (OverflowError, ValueError) as exc:  # dates at the very end of the calendar
        return ValidationReport.unreadable_because(KIND, N_("the artifact cannot be checked: {error}"), error=str(exc))
    if wanted.asked_period:
        checks.append(
            check(
                "asked",
                False,
                N_("the request names {asked}, but this template plans one whole month: the result covers {month}, "
                   "all of it and nothing else; ask again for another month"),
                "warning",
                asked=wanted.asked_period,
                month=parsed.month,
            )
        )  # fmt: skip
    issues = parsed.issues
    checks.append(
        check("data", True, N_("the data loaded without problems"), "warning")
        if not issues
        else check(
            "data",
            False,
            N_("{count} data problem(s) reported: {issues}"),
            "warning",
            count=len(issues),
            issues=[as_phrase(issue) for issue in issues[:SHOWN]],
        )
    )
    return ValidationReport.of(KIND, checks)
