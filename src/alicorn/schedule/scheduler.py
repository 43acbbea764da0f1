"""The scheduler: wakes at the next due slot (or after `max_poll_s`), fires what is due, exactly once, and sleeps.

Firing a slot is two journal facts and one hand-off:

1. `schedule.fired` with the slot's deterministic id, appended with the stream's expected seq. Of any number of
   schedulers on one journal, one wins; the others get ConcurrentAppendError, re-read, and see the slot fired.
2. the hand-off: the schedule's request is submitted to Core as provenance "trigger" (`Submitter.submit`), into the
   conversation derived from the slot id, so submitting it twice finds the same conversation;
3. `schedule.started`, once the conversation exists.

A crash after (1) and before (3) leaves a firing without `started`: every scheduler's next tick submits those again
(idempotent by the conversation id), so the firing is neither lost nor repeated. A crash before (1) leaves nothing:
the slot is still due and fires at the next tick, under the catch-up policy if that is much later.

State is folded incrementally: each tick reads only the events appended since the last one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from alicorn.clock import Clock
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft
from alicorn.journal.store import JournalStore
from alicorn.schedule.book import load, schedule_ids
from alicorn.schedule.due import DEFAULT_GRACE_S, Step, next_step
from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.rules import next_slot, zone_of
from alicorn.schedule.state import (
    Firing,
    ScheduleState,
    conversation_for,
    fold,
    parse_slot,
    slot_id,
    slot_text,
    stream_of,
)

#: The scheduler never sleeps longer than this, so a schedule added meanwhile is seen within it.
DEFAULT_MAX_POLL_S = 60.0


class Submitter(Protocol):
    """Where a firing's request goes (Core, in `alicorn scheduler`; `alicorn.core.triggered.CoreSubmitter`)."""

    def submit(self, state: ScheduleState, firing: Firing) -> None:
        """Hand the firing's request over; idempotent: a second call for the same firing changes nothing."""

    def active(self, conversation: str) -> bool:
        """Whether a firing's conversation is still going (for the overlap policy)."""

    def cancel(self, conversation: str, reason: str) -> None:
        """Stop a firing's conversation safely (overlap policy cancel-previous)."""


@dataclass
class TickReport:
    """What one tick did, and when the next slot is due (None: no schedule has one)."""

    fired: list[str] = field(default_factory=list)
    resubmitted: list[str] = field(default_factory=list)
    skipped: int = 0
    queued: int = 0
    lost_races: int = 0
    next_due: datetime | None = None
    problems: list[str] = field(default_factory=list)


class Scheduler:
    """Fires the journal's schedules (see the module docstring). Safe to run many at once on one journal."""

    def __init__(
        self,
        store: JournalStore,
        submitter: Submitter,
        clock: Clock,
        *,
        name: str = "scheduler",
        grace_s: float = DEFAULT_GRACE_S,
        max_poll_s: float = DEFAULT_MAX_POLL_S,
    ) -> None:
        self.store = store
        self.submitter = submitter
        self.clock = clock
        self.name = name
        self.grace_s = grace_s
        self.max_poll_s = max_poll_s
        self._states: dict[str, ScheduleState] = {}
        self._index_seq = 0
        #: Per schedule: the seq its next due slot was computed at, and that slot. While no event arrives and the
        #: slot is in the future, an idle tick skips the schedule after one read.
        self._due: dict[str, tuple[int, datetime | None]] = {}

    # ---- state ----------------------------------------------------------------------------------------------

    def refresh(self) -> list[ScheduleState]:
        """Every known schedule, brought up to date with only the events appended since the last refresh."""
        ids, self._index_seq = schedule_ids(self.store, self._index_seq)
        for sid in ids:
            self._states.setdefault(sid, ScheduleState())
        for sid in list(self._states):
            self._catch_up(sid)
        return [s for s in self._states.values() if s.spec is not None]

    def _catch_up(self, sid: str) -> ScheduleState:
        state = self._states[sid]
        events = self.store.read(stream_of(sid), after=state.seq)
        if events:
            fold(events, state)
        return state

    # ---- one tick ---------------------------------------------------------------------------------------------

    def tick(self) -> TickReport:
        """Deal with everything due now; never raises for one schedule's trouble (it is reported)."""
        report = TickReport()
        now = parse_slot(self.clock.now())
        for state in self.refresh():
            cached = self._due.get(state.id)
            quiet = cached is not None and cached[0] == state.seq and not state.pending and state.queued is None
            if not (quiet and cached is not None and (cached[1] is None or now < cached[1])):
                try:
                    self._tick_one(state.id, now, report)
                except ConcurrentAppendError:
                    report.lost_races += 1  # somebody else moved it on more than a few times: next tick
                except Exception as exc:  # one schedule's failure must not stop the others
                    report.problems.append(f"schedule {state.id}: {type(exc).__name__}: {exc}")
                current = self._states[state.id]
                cached = (current.seq, self._next_due(current, now))
                self._due[state.id] = cached
            due = cached[1]
            if due is not None and (report.next_due is None or due < report.next_due):
                report.next_due = due
        return report

    def _tick_one(self, sid: str, now: datetime, report: TickReport) -> None:
        state = self._states[sid]
        for pending in state.unstarted:
            self._start(state, pending)
            report.resubmitted.append(pending.slot_id)
        for _ in range(1000):  # each step moves the cursor on, so this ends; the bound guards against a bug
            previous = state.last_firing
            busy = previous is not None and self.submitter.active(previous.conversation)
            step = next_step(state, now, previous_active=busy, grace_s=self.grace_s)
            if step.empty:
                return
            firing = self._journal(state, step, now, report)
            if firing is not None:
                self.store.crash.hit("after_schedule_fired")
                self._start(self._states[sid], firing)
            state = self._states[sid]

    def _journal(self, state: ScheduleState, step: Step, now: datetime, report: TickReport) -> Firing | None:
        """Append the step with the expected seq; on a lost race re-read and let the caller decide again."""
        at = self.clock.now()
        drafts: list[Draft] = []
        if step.skip_through is not None:
            drafts.append(Draft("schedule.skipped", at, {"through": step.skip_through, "reason": step.skip_reason}))
        if step.queue is not None:
            drafts.append(
                Draft("schedule.queued", at, {"slot": step.queue, "slot_id": self._slot_id(state, step.queue)})
            )
        fired: str | None = None
        if step.fire is not None:
            if step.cancel is not None:
                self.submitter.cancel(step.cancel, f"schedule {state.id}: slot {step.fire} is due (cancel-previous)")
            fired = self._slot_id(state, step.fire)
            if fired in state.fired:  # a queued slot that fired meanwhile (the fold clears it)
                return None
            slot = parse_slot(step.fire)
            data: dict[str, object] = {
                "slot_id": fired,
                "slot": step.fire,
                "fired_at": at,
                "conversation": conversation_for(fired, slot),
                "by": self.name,
            }
            if step.catch_up:
                data["catch_up"] = True
            if not step.advances:
                data["advances"] = False
            if step.cancel is not None:
                data["cancelled"] = step.cancel
            drafts.append(Draft("schedule.fired", at, data))
        try:
            appended = self.store.append(stream_of(state.id), drafts, expect=state.seq)
        except ConcurrentAppendError:
            report.lost_races += 1
            self._catch_up(state.id)
            return None
        fold(appended, state)  # our own events follow the state we appended after: no need to read them back
        report.skipped += step.skip_through is not None
        report.queued += step.queue is not None
        if fired is None:
            return None
        report.fired.append(fired)
        return self._states[state.id].fired[fired]

    def _start(self, state: ScheduleState, firing: Firing) -> None:
        """Hand the firing over (idempotent), then journal that it is in Core (unless someone did meanwhile)."""
        self.submitter.submit(state, firing)
        data = {"slot_id": firing.slot_id, "conversation": firing.conversation}
        for _ in range(20):
            if firing.slot_id in state.started:
                return
            try:
                appended = self.store.append(
                    stream_of(state.id), [Draft("schedule.started", self.clock.now(), data)], expect=state.seq
                )
            except ConcurrentAppendError:
                state = self._catch_up(state.id)
                continue
            fold(appended, state)
            return

    @staticmethod
    def _slot_id(state: ScheduleState, slot: str) -> str:
        return slot_id(state.id, parse_slot(slot))

    def _next_due(self, state: ScheduleState, now: datetime) -> datetime | None:
        spec = state.spec
        if spec is None or state.status != "active":
            return None
        after = max(parse_slot(state.cursor), now - timedelta(seconds=1))
        return next_slot(spec.rule, zone_of(spec.zone), spec.active_hours, after)

    # ---- the loop ---------------------------------------------------------------------------------------------

    def run(self, *, ticks: int | None = None, stop: Callable[[], bool] | None = None) -> int:
        """Tick, sleep until the next due slot (at most `max_poll_s`), repeat; `ticks` bounds it (tests), `stop`
        ends it. Returns the number of ticks made."""
        made = 0
        while (ticks is None or made < ticks) and not (stop is not None and stop()):
            report = self.tick()
            made += 1
            for problem in report.problems:
                print(f"alicorn scheduler: {problem}", file=sys.stderr)
            self.clock.sleep(self.wait_after(report))
        return made

    def wait_after(self, report: TickReport) -> float:
        """Seconds to sleep after a tick: until the next due slot, at most `max_poll_s`, at least a moment."""
        if report.next_due is None:
            return self.max_poll_s
        now = parse_slot(self.clock.now())
        return max(0.05, min(self.max_poll_s, (report.next_due - now).total_seconds()))


def run_now(store: JournalStore, schedule_id: str, clock: Clock, submitter: Submitter, *, by: str) -> Firing:
    """Fire a schedule once, now, by hand (`alicorn schedule run-now`): its own slot id, the cursor untouched."""
    state = load(store, schedule_id)
    if state.status == "removed":
        raise ScheduleError(f"schedule {schedule_id} was removed; it cannot run (add a new one); nothing was journaled")
    at = clock.now()
    moment = parse_slot(at)
    sid = f"{slot_id(schedule_id, moment)}-manual"
    data: dict[str, object] = {
        "slot_id": sid,
        "slot": slot_text(moment),
        "fired_at": at,
        "conversation": conversation_for(sid, moment),
        "by": by,
        "advances": False,
        "manual": True,
    }
    store.append(stream_of(schedule_id), [Draft("schedule.fired", at, data)], expect=state.seq)
    state = load(store, schedule_id)
    firing = state.fired[sid]
    scheduler = Scheduler(store, submitter, clock, name=by)
    scheduler._states[schedule_id] = state
    scheduler._start(state, firing)
    return firing
