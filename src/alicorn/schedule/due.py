"""What a schedule should do now: a pure function of its state, the clock's reading and whether its previous firing
is still going.

`next_step` returns one step at a time (skip some slots, then fire, queue or cancel-and-fire one slot); the
scheduler journals it and asks again, so an overlap caused by the firing it just made is seen at the next step.

Due slots are those after the cursor and at or before now. The newest due slot is *on time* when it is at most
`grace_s` old: it fires whatever the catch-up policy. The others were missed (no scheduler ran, the machine slept):
`none` fires none of them, `last` fires only the newest due slot, `all` the newest `max_catch_up` within
`window_s` of now, oldest first. Slots that will not fire are journaled as skipped in one event (a range, never one
event per slot), so waking after a month costs one event, not a storm.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from alicorn.schedule.rules import slots_until, zone_of
from alicorn.schedule.state import ScheduleState, parse_slot, slot_text

#: How old the newest due slot may be and still count as on time (a scheduler woken a little late).
DEFAULT_GRACE_S = 120.0


@dataclass(frozen=True)
class Step:
    """One thing to journal for a schedule now."""

    skip_through: str | None = None
    skip_reason: str = ""
    fire: str | None = None
    #: Whether the firing moves the cursor (a queued slot fires after the cursor has already passed it).
    advances: bool = True
    catch_up: bool = False
    queue: str | None = None
    cancel: str | None = None

    @property
    def empty(self) -> bool:
        return self.skip_through is None and self.fire is None and self.queue is None


def next_step(state: ScheduleState, now: datetime, *, previous_active: bool, grace_s: float = DEFAULT_GRACE_S) -> Step:
    """The next step for `state` at `now` (an empty Step when nothing is due)."""
    spec = state.spec
    if spec is None or state.status != "active":
        return Step()
    if state.queued is not None and not previous_active:
        return Step(fire=state.queued, advances=False)
    cursor = parse_slot(state.cursor)
    zone = zone_of(spec.zone)
    due: list[datetime] = []  # newest first; only as many as a decision needs
    wanted = spec.max_catch_up + 2 if spec.catch_up == "all" else 2
    for slot in slots_until(spec.rule, zone, spec.active_hours, now):
        if slot <= cursor or len(due) >= wanted:
            break
        due.append(slot)
    if not due:
        return Step()
    newest = due[0]
    on_time = (now - newest).total_seconds() <= grace_s
    if spec.catch_up == "none":
        chosen = [newest] if on_time else []
    elif spec.catch_up == "last":
        chosen = [newest]
    else:
        window = now - timedelta(seconds=spec.window_s)
        chosen = [s for s in due[: spec.max_catch_up] if s >= window]
        if on_time and newest not in chosen:
            chosen.insert(0, newest)
    first = chosen[-1] if chosen else None  # the oldest slot that fires: everything due before it is skipped
    older = [s for s in due if first is None or s < first]
    skip = slot_text(older[0]) if older else None
    reason = f"missed while no scheduler ran (catch-up {spec.catch_up})" if skip else ""
    if first is None:
        return Step(skip_through=skip, skip_reason=reason)
    fire = slot_text(first)
    catch_up = not (on_time and first == newest)
    if not previous_active or state.last_firing is None:
        return Step(skip_through=skip, skip_reason=reason, fire=fire, catch_up=catch_up)
    busy = f"the previous firing ({state.last_firing.conversation}) is still going (overlap {spec.overlap})"
    if spec.overlap == "cancel-previous":
        return Step(
            skip_through=skip, skip_reason=reason, fire=fire, catch_up=catch_up, cancel=state.last_firing.conversation
        )
    if spec.overlap == "queue-one" and state.queued is None:
        return Step(skip_through=skip, skip_reason=reason, queue=fire)
    return Step(skip_through=fire, skip_reason=busy)
