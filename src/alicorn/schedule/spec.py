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
  for what the policy does with the allowed ones);
* `hosts`: the hosts (or patterns like `*.example.com`, as the rights' `hosts`) each firing's plans may reach
  without a human. A schedule that allows an outbound class (`SENDING`) must name them (`needs_hosts`, checked when
  it is added); a plan reaching any other host, or sending private data anywhere, waits for a human. A schedule
  journaled before hosts existed has none: its firings reach no host without a human.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alicorn.anvil.risk import EXTERNAL, UNKNOWN
from alicorn.anvil.terms import ProjectName
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass
from alicorn.schedule.rules import ActiveHours, TimeRule

Overlap = Literal["skip", "queue-one", "cancel-previous"]
CatchUp = Literal["none", "last", "all"]
OVERLAPS: tuple[str, ...] = ("skip", "queue-one", "cancel-previous")
CATCH_UPS: tuple[str, ...] = ("none", "last", "all")
#: The effect classes every firing may have: looking is never an effect a person must approve for a schedule.
ALWAYS_ALLOWED: tuple[EffectClass, ...] = ("none", "read")
#: The effect classes that send data to a host (`alicorn.anvil.risk`: a node that reaches a host with private data,
#: or is granted hosts, counts as an external transmission): a schedule allowing one must say where to.
SENDING: tuple[EffectClass, ...] = (EXTERNAL,)
#: What a host pattern may hold: a name's letters, digits, dots and hyphens, `*` for a label, `:` for an IPv6 address.
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-_*:")


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
    hosts: tuple[str, ...] = ()

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

    @field_validator("hosts")
    @classmethod
    def _host_patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({host_pattern(h) for h in value}))

    @property
    def needs_hosts(self) -> tuple[EffectClass, ...]:
        """The sending classes it allows while naming no host (refused when it is added; empty: fine)."""
        return () if self.hosts else tuple(c for c in self.allow if c in SENDING)

    @property
    def forbidden(self) -> tuple[EffectClass, ...]:
        """The effect classes a firing's request forbids: everything the schedule did not allow."""
        return tuple(c for c in EFFECT_ORDER if c not in self.allow)

    def describe_when(self) -> str:
        hours = f", active {self.active_hours.describe()}" if self.active_hours else ""
        return f"{self.rule.describe()} in {self.zone}{hours}"


def host_pattern(text: str) -> str:
    """A host a schedule's firings may reach, as `--host` gives it: a name or pattern, lowercased (ValueError saying
    what to give instead for a URL, an empty name, or a pattern that matches every host)."""
    host = text.strip().lower()
    if not host or host == UNKNOWN:
        raise ValueError(f"{text!r} names no host; give one like api.example.com")
    if "/" in host or "@" in host or not set(host) <= _HOST_CHARS:
        raise ValueError(f"{text!r} is not a host name; give the host alone, like api.example.com (not a URL)")
    if not any(c.isalnum() for c in host):
        raise ValueError(
            f"{text!r} would let the firings send to every host; name the hosts, like api.example.com or *.example.com"
        )
    return host
