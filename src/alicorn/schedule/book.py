"""The schedule book: adding, reading, pausing, resuming and removing schedules on the journal.

This is the API the command line, the service and Core (a recurring request proposed as a schedule) call:
`add_schedule(store, spec, clock)` validates and journals; nothing is journaled when a check fails (a schedule that
allows sending data out must name the hosts it may send to). Each schedule
is its own stream `schedule:<id>`; the `schedules` stream indexes them so a scheduler finds new ones by reading only
what it has not seen. Changes append with the stream's expected seq, so a change made on a stale view is refused
rather than lost.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import datetime

from alicorn.clock import Clock, parse_time
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft
from alicorn.journal.store import JournalStore
from alicorn.schedule.authority import Authority
from alicorn.schedule.errors import ScheduleError, UnknownScheduleError
from alicorn.schedule.rules import next_slot, zone_of
from alicorn.schedule.spec import ScheduleSpec
from alicorn.schedule.state import INDEX_STREAM, ScheduleState, fold, slot_text, stream_of

#: How far ahead `add` looks for a first slot: a rule with none in this time (active hours it never meets, a date
#: in the past) is refused.
HORIZON_DAYS = 400


def new_schedule_id() -> str:
    return f"sch-{secrets.token_hex(5)}"


def add_schedule(
    store: JournalStore,
    spec: ScheduleSpec,
    clock: Clock,
    *,
    authority: Authority | None = None,
    schedule_id: str | None = None,
) -> ScheduleState:
    """Validate `spec` (zone, first slot, the author's authority) and journal it as a new schedule."""
    zone = zone_of(spec.zone)
    (authority or Authority()).check(spec)
    if spec.needs_hosts:
        raise ScheduleError(
            f"--host is missing: a schedule that allows {', '.join(spec.needs_hosts)} is a standing approval to send "
            "data out, so it must say where to: add --host HOST for each host its firings may send to (a pattern "
            "like *.example.com covers a domain); a firing's plan reaching any other host waits for a human; nothing "
            "was journaled"
        )
    now = parse_time(clock.now())
    first = next_slot(spec.rule, zone, spec.active_hours, now)
    if first is None or (first - now).days > HORIZON_DAYS:
        raise ScheduleError(
            f"{spec.describe_when()} has no slot in the next {HORIZON_DAYS} days "
            f"({'its time has passed' if spec.rule.kind == 'once' else 'check the rule and the active hours'}); "
            "nothing was journaled"
        )
    sid = schedule_id or new_schedule_id()
    stream = stream_of(sid)
    if store.head(stream) is not None:
        raise ScheduleError(f"a schedule {sid!r} exists already; choose another id; nothing was journaled")
    at = clock.now()
    _append_index(store, sid, spec.project, at)
    store.append(
        stream,
        [
            Draft(
                "schedule.added",
                at,
                {"id": sid, "spec": spec.model_dump(mode="json"), "by": spec.author, "cursor": slot_text(now)},
            )
        ],
        expect=0,
    )
    return load(store, sid)


def _append_index(store: JournalStore, sid: str, project: str, at: str) -> None:
    for _ in range(20):
        try:
            store.append(
                INDEX_STREAM,
                [Draft("schedule.created", at, {"id": sid, "project": project})],
                expect=store.last_seq(INDEX_STREAM),
            )
            return
        except ConcurrentAppendError:
            continue
    raise ScheduleError("the schedule index is busy (other schedules are being added); try again")


def load(store: JournalStore, schedule_id: str) -> ScheduleState:
    """The schedule's state; UnknownScheduleError when there is none."""
    events = store.read(stream_of(schedule_id)) if _valid_id(schedule_id) else []
    if not events or events[0].kind != "schedule.added":
        raise UnknownScheduleError(schedule_id)
    return fold(events)


def _valid_id(schedule_id: str) -> bool:
    return bool(schedule_id) and all(c.isalnum() or c in "_.-" for c in schedule_id) and len(schedule_id) <= 100


def schedule_ids(store: JournalStore, after: int = 0) -> tuple[list[str], int]:
    """Ids added after index event #`after`, and the index's last seq (to read only what is new next time)."""
    events = store.read(INDEX_STREAM, after=after)
    return [str(e.data["id"]) for e in events], (events[-1].seq if events else after)


def all_schedules(store: JournalStore) -> Iterator[ScheduleState]:
    """Every schedule whose stream exists, in the order they were added."""
    ids, _ = schedule_ids(store)
    for sid in ids:
        try:
            yield load(store, sid)
        except UnknownScheduleError:  # indexed, then the add crashed before its stream: never a schedule
            continue


def _change(store: JournalStore, schedule_id: str, kind: str, data: dict[str, str], clock: Clock) -> ScheduleState:
    state = load(store, schedule_id)
    if state.status == "removed":
        raise ScheduleError(f"schedule {schedule_id} was removed; nothing can change it (add a new one)")
    if kind == "schedule.paused" and state.status == "paused":
        raise ScheduleError(f"schedule {schedule_id} is already paused; `alicorn schedule resume {schedule_id}`")
    if kind == "schedule.resumed" and state.status == "active":
        raise ScheduleError(f"schedule {schedule_id} is not paused; nothing was changed")
    store.append(stream_of(schedule_id), [Draft(kind, clock.now(), data)], expect=state.seq)
    return load(store, schedule_id)


def pause(store: JournalStore, schedule_id: str, clock: Clock, *, by: str, reason: str = "") -> ScheduleState:
    """Stop firing until resumed; slots while paused are never caught up."""
    return _change(store, schedule_id, "schedule.paused", {"by": by, "reason": reason}, clock)


def resume(store: JournalStore, schedule_id: str, clock: Clock, *, by: str) -> ScheduleState:
    """Fire again, from now on."""
    now = slot_text(parse_time(clock.now()))
    return _change(store, schedule_id, "schedule.resumed", {"by": by, "cursor": now}, clock)


def remove(store: JournalStore, schedule_id: str, clock: Clock, *, by: str, reason: str = "") -> ScheduleState:
    """End the schedule for good (its stream and firings stay in the journal)."""
    return _change(store, schedule_id, "schedule.removed", {"by": by, "reason": reason}, clock)


def upcoming(state: ScheduleState, after: datetime, count: int = 5) -> list[datetime]:
    """The next `count` slots after `after` (UTC), as a person would see them coming."""
    spec = state.require_spec()
    zone = zone_of(spec.zone)
    out: list[datetime] = []
    cursor = after
    while len(out) < count and (slot := next_slot(spec.rule, zone, spec.active_hours, cursor)) is not None:
        out.append(slot)
        cursor = slot
    return out
