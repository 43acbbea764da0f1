"""A schedule's state: a pure fold of its `schedule:<id>` stream.

    schedule.added     the ScheduleSpec a human approved, and who
    schedule.paused    no slot fires until it is resumed (slots while paused are not caught up later)
    schedule.resumed   slots after this moment fire again
    schedule.removed   the schedule is over; nothing fires again
    schedule.fired     one slot, by its deterministic id (schedule id + the slot's UTC time), with the conversation
                       its request goes to (derived from the slot id) and when it fired: at most once per slot id
    schedule.started   the firing's request is in Core (its conversation exists): recovery has nothing left to do
    schedule.skipped   slots up to `through` that will not fire, and why (catch-up policy, overlap, pause)
    schedule.queued    a slot waiting for the previous firing to end (overlap policy queue-one)

`cursor` is the newest slot the schedule has dealt with (fired, skipped or queued; on resume, the resume time):
only slots after it can be due. Every scheduler folds the same events, so they all agree on it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from alicorn.journal.events import Event
from alicorn.schedule.spec import ScheduleSpec

STREAM_PREFIX = "schedule:"
#: The index of every schedule ever added (`schedule.created {id}`): schedulers read it incrementally.
INDEX_STREAM = "schedules"
Status = Literal["active", "paused", "removed"]
KINDS = frozenset(
    {
        "schedule.added",
        "schedule.paused",
        "schedule.resumed",
        "schedule.removed",
        "schedule.fired",
        "schedule.started",
        "schedule.skipped",
        "schedule.queued",
    }
)


def stream_of(schedule_id: str) -> str:
    return STREAM_PREFIX + schedule_id


def slot_text(slot: datetime) -> str:
    """A slot's UTC time as journaled: ISO 8601, seconds, Z."""
    return slot.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_slot(text: str) -> datetime:
    """A journaled slot (or any `at` reading) as an aware UTC datetime."""
    return datetime.fromisoformat(text).astimezone(UTC)


def slot_id(schedule_id: str, slot: datetime) -> str:
    """The slot's deterministic id: every scheduler computes the same one, so the journal can refuse a second."""
    return f"{schedule_id}@{slot.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def conversation_for(slot_identity: str, slot: datetime) -> str:
    """The Core conversation a slot's firing submits to: derived from the slot id (the `conv-YYYYMMDD-<12 hex>`
    form Core uses), so submitting it again after a crash finds the same conversation instead of a new one."""
    digest = hashlib.sha256(slot_identity.encode("utf-8")).hexdigest()[:12]
    return f"conv-{slot.astimezone(UTC):%Y%m%d}-{digest}"


@dataclass(frozen=True)
class Firing:
    """One slot that fired."""

    slot_id: str
    slot: str
    fired_at: str
    conversation: str
    by: str
    seq: int

    def trigger(self, schedule_id: str) -> dict[str, str]:
        """The trigger record its request carries: which schedule, which slot, when it fired."""
        return {"schedule": schedule_id, "slot": self.slot, "fired_at": self.fired_at}


@dataclass
class ScheduleState:
    """Everything known about one schedule, derived only from its events."""

    id: str = ""
    spec: ScheduleSpec | None = None
    added_by: str = ""
    added_at: str = ""
    status: Status = "active"
    cursor: str = ""
    seq: int = 0
    fired: dict[str, Firing] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)
    pending: dict[str, Firing] = field(default_factory=dict)
    queued: str | None = None
    skipped: list[dict[str, Any]] = field(default_factory=list)
    last_firing: Firing | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def unstarted(self) -> list[Firing]:
        """Firings journaled whose request may not have reached Core (a crash in between): to submit again."""
        return list(self.pending.values())

    def require_spec(self) -> ScheduleSpec:
        assert self.spec is not None, "a schedule stream starts with schedule.added"
        return self.spec


def apply(state: ScheduleState, event: Event) -> ScheduleState:
    """One event's change to `state` (in place; returns it). Unknown kinds change nothing but the seq."""
    data = event.data
    state.seq = event.seq
    kind = event.kind
    if kind == "schedule.added":
        state.id = str(data["id"])
        state.spec = ScheduleSpec.model_validate(data["spec"])
        state.added_by = str(data.get("by", state.spec.author))
        state.added_at = event.at
        state.cursor = str(data["cursor"])
    elif kind == "schedule.paused":
        state.status = "paused"
    elif kind == "schedule.resumed":
        state.status = "active"
        state.cursor = max(state.cursor, str(data["cursor"]))
    elif kind == "schedule.removed":
        state.status = "removed"
    elif kind == "schedule.fired":
        firing = Firing(
            str(data["slot_id"]), str(data["slot"]), str(data["fired_at"]), str(data["conversation"]),
            str(data.get("by", "scheduler")), event.seq,
        )  # fmt: skip
        state.fired[firing.slot_id] = firing
        if firing.slot_id not in state.started:
            state.pending[firing.slot_id] = firing
        state.last_firing = firing
        if data.get("advances", True):
            state.cursor = max(state.cursor, firing.slot)
        if state.queued == firing.slot:
            state.queued = None
    elif kind == "schedule.started":
        state.started.add(str(data["slot_id"]))
        state.pending.pop(str(data["slot_id"]), None)
    elif kind == "schedule.skipped":
        state.cursor = max(state.cursor, str(data["through"]))
        state.skipped.append(dict(data))
    elif kind == "schedule.queued":
        state.queued = str(data["slot"])
        state.cursor = max(state.cursor, state.queued)
    if kind in ("schedule.paused", "schedule.resumed", "schedule.removed"):
        state.history.append({"kind": kind, "at": event.at, **data})
    return state


def fold(events: list[Event], state: ScheduleState | None = None) -> ScheduleState:
    """The state after `events` (continuing from `state`, whose events they follow, when given)."""
    out = state if state is not None else ScheduleState()
    for event in events:
        apply(out, event)
    return out
