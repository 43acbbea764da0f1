"""The clock, at the ground floor: the one place Alicorn reads the wall clock, and the clocks built on it.

Everything that needs the time takes a `Clock` (injected), so replay can feed recorded readings and tests can pin
the day. `wall_now()` is the only function in the package that reads the calendar time; the test suite replaces
it with one that raises, so a test that forgets to inject a clock fails instead of depending on today's date.

`ALICORN_NOW` (an ISO 8601 time) pins the start of `default_clock()` for a whole process: the clock then starts at
that moment and advances with the monotonic clock. It is how a command line run (a demo, a reproduction of a report,
a test driving the CLI in a subprocess) says "as of" without reading the calendar. `ALICORN_NOW=TIME@ORIGIN` also
names the monotonic reading at which it was TIME, so processes started later agree on the same pinned time line
(the monotonic clock is the machine's, shared by its processes).
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Protocol

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
#: The environment variable that pins `default_clock()` to a start time (see the module docstring).
PIN_VARIABLE = "ALICORN_NOW"


class ClockError(ValueError):
    """A pinned time that cannot be read."""


def wall_now() -> datetime:
    """The calendar time in UTC: the only wall-clock read in Alicorn (see the module docstring)."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and a Z: the one form `at` fields take."""
    return moment.astimezone(UTC).strftime(TIME_FORMAT)


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=UTC)


def parse_instant(text: str) -> datetime:
    """An ISO 8601 time (`2026-11-30`, `2026-11-30T08:00`, `…Z`, `…+01:00`) as an aware UTC datetime."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ClockError(f"{text!r} is not an ISO 8601 time; write it like 2026-11-30T08:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


class Clock(Protocol):
    def now(self) -> str:
        """The current time as an `at` string."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (for waiting only, never journaled)."""

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock."""

    def now(self) -> str:
        return format_time(wall_now())

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class PinnedClock(SystemClock):
    """A clock that starts at `start` and advances with the monotonic clock: the day is pinned, durations are real,
    and the calendar is never read."""

    def __init__(self, start: datetime, origin: float | None = None) -> None:
        self._start = start.astimezone(UTC)
        self._origin = time.monotonic() if origin is None else origin

    def now(self) -> str:
        from datetime import timedelta

        return format_time(self._start + timedelta(seconds=time.monotonic() - self._origin))


_PINNED: dict[str, PinnedClock] = {}


def default_clock() -> SystemClock:
    """The clock a component uses when none is injected: pinned by `ALICORN_NOW` when set (one pinned clock per
    process, so readings keep advancing), else the real one."""
    pinned = os.environ.get(PIN_VARIABLE)
    if not pinned:
        return SystemClock()
    if pinned not in _PINNED:
        moment, _, origin = pinned.partition("@")
        try:
            _PINNED[pinned] = PinnedClock(parse_instant(moment), float(origin) if origin else None)
        except ClockError as exc:
            raise ClockError(f"{PIN_VARIABLE}: {exc}") from None
        except ValueError:
            raise ClockError(f"{PIN_VARIABLE}: {origin!r} after @ is not a monotonic clock reading") from None
    return _PINNED[pinned]
