"""The runtime's sources of non-determinism, injected so that replay can feed recorded values back.

Only three things reach the executor from outside its inputs: clock readings, fresh ids and sleeping. Everything
the executor derives from them is journaled (event `at` fields, run ids, retry times), so replay never asks the
real world.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Protocol

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def format_time(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and a Z: the one form `at` fields take."""
    return moment.astimezone(UTC).strftime(TIME_FORMAT)


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=UTC)


class Clock(Protocol):
    def now(self) -> str:
        """The current time as an `at` string."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (for waiting only, never journaled)."""

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock."""

    def now(self) -> str:
        return format_time(datetime.now(UTC))

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class IdSource(Protocol):
    def run_id(self) -> str: ...


class RandomIds:
    """Run ids like `run-20261130-7f3a9c1e2b4d`: sortable by day, random within it."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()

    def run_id(self) -> str:
        day = self._clock.now()[:10].replace("-", "")
        return f"run-{day}-{secrets.token_hex(6)}"
