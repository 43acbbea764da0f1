"""What a schedule is: the request it submits, when, in which zone, and what each firing may do.

A `ScheduleSpec` is what a human approves when a schedule is added, journaled whole in `schedule.added`:

* the request (words, project, language) that each firing submits to Norbi Core as provenance "trigger";
* the time rule (`alicorn.schedule.rules`), its IANA zone and optional active hours;
* the overlap policy: when a slot is due while the previous firing's conversation is still going,
  `skip` the new slot, `queue-one` (keep one waiting, fire it when the previous ends; more are skipped) or
  `cancel-previous` (close the previous conversation safely, then fire);
* the catch-up policy for slots missed while no scheduler ran (downtime, a suspended laptop): `none` fires none of
  them, `last` only the newest, `all` those within `window_s` of waking, at most `max_catch_up` (the newest);
* `allow`: the effect classes each firing's plans may have (none and read always). Every class above them is
  forbidden in the firing's request, so Core refuses a plan with more and Anvil denies it (see docs/schedules.md
  for what the policy does with the allowed ones).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alicorn.anvil.terms import ProjectName
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass
from alicorn.schedule.rules import ActiveHours, TimeRule

Overlap = Literal["skip", "queue-one", "cancel-previous"]
CatchUp = Literal["none", "last", "all"]
OVERLAPS: tuple[str, ...] = ("skip", "queue-one", "cancel-previous")
CATCH_UPS: tuple[str, ...] = ("none", "last", "all")
#: The effect classes every firing may have: looking is never an effect a person must approve for a schedule.
ALWAYS_ALLOWED: tuple[EffectClass, ...] = ("none", "read")


class ScheduleSpec(BaseModel):
    """A schedule as a human approved it (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request: Annotated[str, Field(min_length=1, max_length=4000)]
    author: Annotated[str, Field(min_length=1, max_length=200)]
    project: ProjectName = "default"
    language: Literal["en", "pl", "ru"] | None = None
    rule: TimeRule
    zone: str = "UTC"
    active_hours: ActiveHours | None = None
    overlap: Overlap = "skip"
    catch_up: CatchUp = "last"
    window_s: Annotated[int, Field(ge=60, le=366 * 86400)] = 6 * 3600
    max_catch_up: Annotated[int, Field(ge=1, le=100)] = 5
    allow: tuple[EffectClass, ...] = ALWAYS_ALLOWED

    @field_validator("request")
    @classmethod
    def _words(cls, value: str) -> str:
        text = " ".join(value.split())
        if not text:
            raise ValueError("the request is empty; say what each firing should do")
        return text

    @field_validator("allow")
    @classmethod
    def _ordered(cls, value: tuple[EffectClass, ...]) -> tuple[EffectClass, ...]:
        wanted = {*value, *ALWAYS_ALLOWED}
        return tuple(c for c in EFFECT_ORDER if c in wanted)

    @property
    def forbidden(self) -> tuple[EffectClass, ...]:
        """The effect classes a firing's request forbids: everything the schedule did not allow."""
        return tuple(c for c in EFFECT_ORDER if c not in self.allow)

    def describe_when(self) -> str:
        hours = f", active {self.active_hours.describe()}" if self.active_hours else ""
        return f"{self.rule.describe()} in {self.zone}{hours}"
