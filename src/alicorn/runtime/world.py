"""The runtime's sources of non-determinism, injected so that replay can feed recorded values back (the clock
itself lives at the ground floor, `alicorn.clock`; it is re-exported here for the runtime's modules).

Only three things reach the executor from outside its inputs: clock readings, fresh ids and sleeping. Everything
the executor derives from them is journaled (event `at` fields, run ids, retry times), so replay never asks the
real world.
"""

from __future__ import annotations

import secrets
from typing import Protocol

from alicorn.clock import (
    TIME_FORMAT,
    Clock,
    PinnedClock,
    SystemClock,
    default_clock,
    format_time,
    parse_time,
)

__all__ = ["TIME_FORMAT", "Clock", "IdSource", "PinnedClock", "RandomIds", "SystemClock", "default_clock",
           "format_time", "parse_time"]  # fmt: skip


class IdSource(Protocol):
    def run_id(self) -> str: ...


class RandomIds:
    """Run ids like `run-20261130-7f3a9c1e2b4d`: sortable by day, random within it."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or default_clock()

    def run_id(self) -> str:
        day = self._clock.now()[:10].replace("-", "")
        return f"run-{day}-{secrets.token_hex(6)}"
