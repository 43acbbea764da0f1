"""Shared helpers for the schedule tests: a clock that jumps, a hand-off that records, schedules to add."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from alicorn.clock import format_time
from alicorn.journal.store import JournalStore
from alicorn.schedule.book import add_schedule
from alicorn.schedule.rules import parse_cron, parse_every
from alicorn.schedule.spec import ScheduleSpec
from alicorn.schedule.state import Firing, ScheduleState

START = datetime(2026, 11, 30, 8, 0, 30, tzinfo=UTC)


class JumpClock:
    """A fake clock: `now()` stands still; `sleep` and `jump` move it (a suspend is one big jump)."""

    def __init__(self, start: datetime = START) -> None:
        self.moment = start
        self.slept: list[float] = []

    def now(self) -> str:
        return format_time(self.moment)

    def monotonic(self) -> float:
        return self.moment.timestamp()

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.moment += timedelta(seconds=seconds)

    def jump(self, **delta: float) -> None:
        self.moment += timedelta(**delta)

    def set(self, moment: datetime) -> None:
        self.moment = moment


class RecordingSubmitter:
    """The hand-off as Core does it, without Core: one conversation per firing, created once whatever the number of
    submissions (`created` counts creations per conversation, so a duplicate firing would show as a second slot
    mapped to one conversation or a conversation created twice). `busy` conversations count as still going."""

    def __init__(self) -> None:
        self.created: dict[str, str] = {}
        self.creations = 0
        self.submissions = 0
        self.busy: set[str] = set()
        self.cancelled: list[str] = []
        self.envelopes: dict[str, Any] = {}
        self._lock = threading.Lock()

    def submit(self, state: ScheduleState, firing: Firing) -> None:
        from alicorn.core.triggered import trigger_envelope

        with self._lock:
            self.submissions += 1
            if firing.conversation not in self.created:
                self.created[firing.conversation] = firing.slot_id
                self.creations += 1
                self.envelopes[firing.conversation] = trigger_envelope(state, firing)

    def active(self, conversation: str) -> bool:
        return conversation in self.busy

    def cancel(self, conversation: str, reason: str) -> None:
        self.cancelled.append(conversation)
        self.busy.discard(conversation)


def spec(**fields: Any) -> ScheduleSpec:
    """A schedule: every minute unless a rule is given."""
    base: dict[str, Any] = {
        "request": "summarise yesterday's camera alarms",
        "author": "human:ann",
        "rule": parse_cron("* * * * *"),
    }
    base.update(fields)
    return ScheduleSpec(**base)


def every(text: str, clock: JumpClock) -> Any:
    return parse_every(text, clock.moment)


def added(store: JournalStore, clock: JumpClock, sid: str = "sch-test", **fields: Any) -> ScheduleState:
    return add_schedule(store, spec(**fields), clock, schedule_id=sid)


def fired_events(store: JournalStore, sid: str = "sch-test") -> list[Any]:
    return [e for e in store.read(f"schedule:{sid}") if e.kind == "schedule.fired"]
