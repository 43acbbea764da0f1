"""Time rules: when a schedule's slots fall, computed in its IANA time zone and returned as UTC instants.

A rule is one of three values, tagged by `kind`:

    cron   a 5-field cron expression (minute hour day-of-month month day-of-week), read by `cronsim`
    every  a fixed interval ("every 15m", "every 2h", "every 1d") counted from an anchor instant
    once   one local time in the zone ("2026-03-29T08:00")

Daylight-saving time, decided once here: a cron slot that falls in a gap (02:30 on the spring-forward day in
Europe/Warsaw) is **moved** to the first instant after the gap (03:00 local), as cron does, so a daily job still runs
that day; a daily slot in a repeated hour (02:30 on the fall-back day) fires **once**, at its first occurrence; an
hourly rule fires once per real hour, so the repeated hour gets both its slots. An interval counts real time and
ignores the zone. A one-off time inside a gap does not exist and is refused (`add` says which times do); one in a
repeated hour means its first occurrence.

Active hours ("08:00-18:00", local; "22:00-06:00" wraps past midnight) keep only the slots that fall inside them.
Everything here is a pure function of its arguments: no clock is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError
from pydantic import BaseModel, ConfigDict, Field

from alicorn.schedule.errors import ScheduleError

_FROZEN = ConfigDict(frozen=True, extra="forbid")
_INTERVAL = re.compile(r"^\s*(?:every\s+)?(-?\d+)\s*(m|min|h|d)\s*$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400}
_HOURS = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")
#: The most digits an interval's number may have: 999,999,999 days already lies past the year 9999.
_MAX_DIGITS = 9
#: How many candidate slots a search looks at before concluding the rule has no slot there (active hours that a
#: rule never meets): enough for an every-minute rule over a week.
SEARCH_LIMIT = 20_000


class CronRule(BaseModel):
    model_config = _FROZEN
    kind: Literal["cron"] = "cron"
    expr: str

    def describe(self) -> str:
        return f"cron {self.expr!r}"


class EveryRule(BaseModel):
    model_config = _FROZEN
    kind: Literal["every"] = "every"
    seconds: Annotated[int, Field(ge=60)]
    #: Slots fall at anchor + k × seconds (k ≥ 1); the anchor is the time the schedule was added, to the minute.
    anchor: str

    def describe(self) -> str:
        amount, unit = next(
            (self.seconds // s, u) for u, s in (("d", 86400), ("h", 3600), ("m", 60)) if not self.seconds % s
        )
        return f"every {amount}{unit}"


class OnceRule(BaseModel):
    model_config = _FROZEN
    kind: Literal["once"] = "once"
    #: The local time in the schedule's zone, ISO 8601 without an offset.
    at: str

    def describe(self) -> str:
        return f"once at {self.at}"


TimeRule = Annotated[CronRule | EveryRule | OnceRule, Field(discriminator="kind")]


class ActiveHours(BaseModel):
    """Local hours in which slots may fire: [start, end), wrapping past midnight when end <= start."""

    model_config = _FROZEN
    start: str
    end: str

    def contains(self, local: datetime) -> bool:
        now = local.time().replace(tzinfo=None)
        start, end = time.fromisoformat(self.start), time.fromisoformat(self.end)
        return start <= now < end if start < end else now >= start or now < end

    def describe(self) -> str:
        return f"{self.start}-{self.end}"


# ---- reading what a person typed ---------------------------------------------------------------------------------


def zone_of(name: str) -> ZoneInfo:
    """The IANA zone `name`, or a ScheduleError naming the field and examples."""
    try:
        if not name or name != name.strip() or name.startswith("/") or ".." in name:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(
            f"--zone {name!r} is not an IANA time zone; give one like Europe/Warsaw, America/New_York or UTC; "
            "nothing was journaled"
        ) from None


def parse_cron(expr: str) -> CronRule:
    fields = expr.split()
    if len(fields) != 5:
        raise ScheduleError(
            f"--cron {expr!r} has {len(fields)} field(s); a cron rule has 5: minute hour day-of-month month "
            "day-of-week, like '0 8 * * 1' (Mondays at 08:00); nothing was journaled"
        )
    normal = " ".join(fields)
    try:
        CronSim(normal, datetime(2000, 1, 1))
    except CronSimError as exc:
        raise ScheduleError(
            f"--cron {expr!r} is not a valid cron rule ({exc}); write 5 fields like '30 7 * * 1-5' (weekdays at "
            "07:30); nothing was journaled"
        ) from None
    return CronRule(expr=normal)


def parse_every(text: str, anchor: datetime) -> EveryRule:
    match = _INTERVAL.match(text)
    if match is None:
        raise ScheduleError(
            f"--every {_shown(text)!r} is not an interval; write a number and a unit, like 15m, 2h or 1d; "
            "nothing was journaled"
        )
    seconds = _amount("--every", text, match.group(1)) * _UNITS[match.group(2).lower()]
    if seconds < 60:
        short = "zero" if seconds == 0 else "negative" if seconds < 0 else "under a minute"
        raise ScheduleError(
            f"--every {_shown(text)!r} is {short}; an interval is at least 1m (like 15m or 1h); nothing was journaled"
        )
    start = anchor.astimezone(UTC).replace(second=0, microsecond=0)
    return EveryRule(seconds=seconds, anchor=start.isoformat())


def _amount(option: str, text: str, number: str) -> int:
    """The interval's number; a positive one with more digits than any slot a calendar holds is refused (Python would
    not even read one of thousands of digits). A shorter one that is still too long finds no slot, as `add` says."""
    if len(number.lstrip("-").lstrip("0")) <= _MAX_DIGITS:
        return int(number)
    if number.startswith("-"):
        return -1  # negative, however long: refused as negative
    raise ScheduleError(
        f"{option} {_shown(text)!r} is too long: its number has more than {_MAX_DIGITS} digits, and no slot that far "
        "away could ever come; write it like 15m, 2h or 30d; nothing was journaled"
    )


def _shown(text: str) -> str:
    """What a person typed, shortened when it is too long to quote whole."""
    return text if len(text) <= 40 else f"{text[:20]}…{text[-5:]}"


def parse_duration(option: str, text: str) -> int:
    """A duration like 30m, 6h or 2d, in seconds (at least a minute)."""
    match = _INTERVAL.match(text)
    seconds = _amount(option, text, match.group(1)) * _UNITS[match.group(2).lower()] if match else 0
    if seconds < 60:
        raise ScheduleError(
            f"{option} {_shown(text)!r} is not a duration of at least a minute; write it like 30m, 6h or 2d; "
            "nothing was journaled"
        )
    return seconds


def parse_once(text: str, zone: ZoneInfo) -> OnceRule:
    try:
        local = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ScheduleError(
            f"--at {text!r} is not a local time; write it like 2026-03-29T08:00 (in the schedule's --zone); "
            "nothing was journaled"
        ) from None
    if local.tzinfo is not None:
        raise ScheduleError(
            f"--at {text!r} carries an offset; give the local time without one (2026-03-29T08:00) and the zone "
            "with --zone; nothing was journaled"
        )
    if not exists_in(local, zone):
        raise ScheduleError(
            f"--at {text!r} does not exist in {zone.key}: the clocks skip it (daylight-saving time starts); "
            f"choose a time before or after the gap, like {_after_gap(local, zone)}; nothing was journaled"
        )
    return OnceRule(at=local.replace(microsecond=0).isoformat())


def parse_hours(text: str) -> ActiveHours:
    match = _HOURS.match(text)
    if match is None or not all(int(h) < 24 and int(m) < 60 for h, m in (match.group(1, 2), match.group(3, 4))):
        raise ScheduleError(
            f"--active-hours {text!r} is not a range of local hours; write it like 08:00-18:00 (or 22:00-06:00 over "
            "midnight); nothing was journaled"
        )
    start = f"{int(match.group(1)):02d}:{match.group(2)}"
    end = f"{int(match.group(3)):02d}:{match.group(4)}"
    if start == end:
        raise ScheduleError(
            f"--active-hours {text!r} is empty (it starts where it ends); give a range like 08:00-18:00, or leave "
            "the option out for all hours; nothing was journaled"
        )
    return ActiveHours(start=start, end=end)


def exists_in(local: datetime, zone: ZoneInfo) -> bool:
    """Whether the naive local time `local` is shown by the zone's clocks (False inside a DST gap)."""
    aware = local.replace(tzinfo=zone, fold=0)
    return aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == local


def _after_gap(local: datetime, zone: ZoneInfo) -> str:
    probe = local
    for _ in range(24 * 60):
        probe += timedelta(minutes=1)
        if exists_in(probe, zone):
            return probe.strftime("%Y-%m-%dT%H:%M")
    return "a time outside the gap"


# ---- slots -----------------------------------------------------------------------------------------------------


def _raw_after(rule: CronRule | EveryRule | OnceRule, zone: ZoneInfo, after: datetime) -> Iterator[datetime]:
    """Slots strictly after `after`, ascending, before active hours."""
    if isinstance(rule, CronRule):
        for local in CronSim(rule.expr, after.astimezone(zone)):
            yield local.astimezone(UTC)
    elif isinstance(rule, EveryRule):
        anchor, step = datetime.fromisoformat(rule.anchor), _step(rule)
        if step is None:
            return
        k = max(1, (after - anchor) // step + 1)
        while (slot := _nth(anchor, k, step)) is not None:
            yield slot
            k += 1
    else:
        slot = datetime.fromisoformat(rule.at).replace(tzinfo=zone, fold=0).astimezone(UTC)
        if slot > after:
            yield slot


def _raw_until(rule: CronRule | EveryRule | OnceRule, zone: ZoneInfo, until: datetime) -> Iterator[datetime]:
    """Slots at or before `until`, descending, before active hours."""
    if isinstance(rule, CronRule):
        for local in CronSim(rule.expr, (until + timedelta(seconds=1)).astimezone(zone), reverse=True):
            yield local.astimezone(UTC)
    elif isinstance(rule, EveryRule):
        anchor, step = datetime.fromisoformat(rule.anchor), _step(rule)
        if step is None:
            return
        k = (until - anchor) // step
        while k >= 1 and (slot := _nth(anchor, k, step)) is not None:
            yield slot
            k -= 1
    else:
        slot = datetime.fromisoformat(rule.at).replace(tzinfo=zone, fold=0).astimezone(UTC)
        if slot <= until:
            yield slot


def _step(rule: EveryRule) -> timedelta | None:
    """The rule's interval, or None when it is longer than a date can count (so it has no slot at all)."""
    try:
        return timedelta(seconds=rule.seconds)
    except OverflowError:
        return None


def _nth(anchor: datetime, k: int, step: timedelta) -> datetime | None:
    """The k-th slot after the anchor, or None past the last date Python can hold (year 9999): no slot is there."""
    try:
        return anchor + k * step
    except OverflowError:
        return None


def _kept(slots: Iterator[datetime], zone: ZoneInfo, hours: ActiveHours | None) -> Iterator[datetime]:
    for looked, slot in enumerate(slots):
        if looked >= SEARCH_LIMIT:
            return
        if hours is None or hours.contains(slot.astimezone(zone)):
            yield slot


def slots_after(
    rule: CronRule | EveryRule | OnceRule, zone: ZoneInfo, hours: ActiveHours | None, after: datetime
) -> Iterator[datetime]:
    """The rule's slots strictly after `after` (UTC, ascending), inside the active hours."""
    return _kept(_raw_after(rule, zone, after), zone, hours)


def slots_until(
    rule: CronRule | EveryRule | OnceRule, zone: ZoneInfo, hours: ActiveHours | None, until: datetime
) -> Iterator[datetime]:
    """The rule's slots at or before `until` (UTC, descending), inside the active hours."""
    return _kept(_raw_until(rule, zone, until), zone, hours)


def next_slot(
    rule: CronRule | EveryRule | OnceRule, zone: ZoneInfo, hours: ActiveHours | None, after: datetime
) -> datetime | None:
    return next(slots_after(rule, zone, hours, after), None)
