"""The schedule pack's data types, shared by its operations: rules, employees, vacations, demand and variants.

Dates are ISO dates; a shift belongs to the date it starts on (a night shift from 22:00 to 06:00 counts for the day it
begins). Every list is bounded so that an operation's inputs and outputs stay small enough to journal.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated

from pydantic import Field, model_validator

from alicorn.ops._common import Model

#: "YYYY-MM": the month a schedule is for.
Month = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="the month, YYYY-MM")]
Key = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
ClockTime = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="HH:MM, 24-hour clock")]

MAX_EMPLOYEES = 200
MAX_VACATIONS = 2000
MAX_DEMAND = 5000
MAX_ASSIGNMENTS = 8000
MAX_VARIANTS = 5
MAX_ISSUES = 200


class Shift(Model):
    """A shift type: it ends on the next day when its end is not after its start (e.g. 22:00-06:00)."""

    id: Key
    label: str = Field("", max_length=80)
    start: ClockTime
    end: ClockTime

    def start_minutes(self) -> int:
        hours, minutes = self.start.split(":")
        return int(hours) * 60 + int(minutes)

    def minutes(self) -> int:
        """The shift's length in minutes (a shift that ends at or before its start runs past midnight)."""
        hours, minutes = self.end.split(":")
        end = int(hours) * 60 + int(minutes)
        length = end - self.start_minutes()
        return length if length > 0 else length + 24 * 60

    def hours(self) -> float:
        return self.minutes() / 60


class Rules(Model):
    """The approved shift rules: shift types and the labour-law limits every schedule must keep."""

    name: str = Field("", max_length=200)
    currency: str = Field("PLN", min_length=1, max_length=8)
    shifts: list[Shift] = Field(min_length=1, max_length=8)
    min_rest_hours: float = Field(ge=0, le=48, description="minimum rest between the end of a shift and the next")
    max_weekly_hours: float = Field(gt=0, le=168, description="most hours in one Monday-Sunday week")
    max_consecutive_days: int = Field(ge=1, le=31, description="most working days in a row")
    overtime_premium: float = Field(0.5, ge=0, le=3, description="extra pay per overtime hour, as a share of the rate")

    @model_validator(mode="after")
    def _unique_shifts(self) -> Rules:
        ids = [s.id for s in self.shifts]
        if len(set(ids)) != len(ids):
            raise ValueError(f"shift ids must be unique; got {ids}")
        return self

    def shift(self, shift_id: str) -> Shift | None:
        return next((s for s in self.shifts if s.id == shift_id), None)


class Employee(Model):
    """A person who can be scheduled, with the competences (roles) they may work in and their contract."""

    id: Key
    name: str = Field(max_length=120)
    competences: list[Key] = Field(max_length=16)
    contract_hours: float = Field(ge=0, le=80, description="weekly contract hours")
    hourly_cost: float = Field(ge=0, le=10_000, description="cost of one hour, in the rules' currency")
    target_hours: float = Field(0, ge=0, le=744, description="the month's working-time norm under the contract")


class Vacation(Model):
    """A vacation, first and last day included."""

    employee: Key
    start: date
    end: date

    @model_validator(mode="after")
    def _ordered(self) -> Vacation:
        if self.end < self.start:
            raise ValueError(f"vacation of {self.employee} ends ({self.end}) before it starts ({self.start})")
        return self

    def days(self) -> list[date]:
        return [self.start + timedelta(days=i) for i in range((self.end - self.start).days + 1)]


class DemandCell(Model):
    """How many people with `competence` are needed on `shift` of `date`."""

    date: date
    shift: Key
    competence: Key
    required: int = Field(ge=0, le=100)


class Assignment(Model):
    """One person working one shift on one date, in one of their competences."""

    employee: Key
    date: date
    shift: Key
    competence: Key


class Shortfall(Model):
    """A demand cell the variant leaves short by `missing` people."""

    date: date
    shift: Key
    competence: Key
    required: int = Field(ge=0)
    assigned: int = Field(ge=0)
    missing: int = Field(ge=1)


class Variant(Model):
    """One candidate schedule: what it optimises, how the solver finished, and its assignments."""

    id: int = Field(ge=1, le=MAX_VARIANTS)
    objective: Key
    label: str = Field(max_length=120)
    solver_status: str = Field(max_length=20, description="OPTIMAL or FEASIBLE")
    shortfall: int = Field(ge=0, description="people missing over all demand cells")
    assignments: list[Assignment] = Field(max_length=MAX_ASSIGNMENTS)


def month_days(month: str) -> list[date]:
    """Every date of `month` ("YYYY-MM"), in order."""
    year, number = (int(part) for part in month.split("-"))
    first = date(year, number, 1)
    following = date(year + number // 12, number % 12 + 1, 1)
    return [first + timedelta(days=i) for i in range((following - first).days)]
