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

__all__ = [
    "CONVERSATION_PREFIX",
    "TIME_FORMAT",
    "Clock",
    "IdSource",
    "PinnedClock",
    "RandomIds",
    "SystemClock",
    "conversation_of_run",
    "default_clock",
    "format_time",
    "parse_time",
    "run_id_for",
]  # fmt: skip


#: Core's conversation streams are `conv-YYYYMMDD-<12 hex>`; the runs one starts are named from it (`run_id_for`).
CONVERSATION_PREFIX = "conv-"


def run_id_for(conversation: str, number: int) -> str:
    """The id of the conversation's `number`-th run: fixed in advance, so a resumed conversation finds (never
    duplicates) a run it started before a crash."""
    return f"run-{conversation.removeprefix(CONVERSATION_PREFIX)}-{number}"


def conversation_of_run(run_id: str) -> str | None:
    """The conversation whose run `run_id` is (the inverse of `run_id_for`); None for a run no conversation named."""
    head, _, number = run_id.rpartition("-")
    if not (head.startswith("run-") and number.isdigit()):
        return None
    return CONVERSATION_PREFIX + head.removeprefix("run-")


class IdSource(Protocol):
    def run_id(self) -> str: ...


class RandomIds:
    """Run ids like `run-20261130-7f3a9c1e2b4d`: sortable by day, random within it."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or default_clock()

    def run_id(self) -> str:
        day = self._clock.now()[:10].replace("-", "")
        return f"run-{day}-{secrets.token_hex(6)}"
