"""What `alicorn schedule list|show` print (and `--json` gives): views of a schedule's fold, computed, never stored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from alicorn.schedule.book import upcoming
from alicorn.schedule.rules import zone_of
from alicorn.schedule.state import ScheduleState, parse_slot

#: How many of the latest firings `show` lists.
RECENT = 5


def summary(state: ScheduleState) -> dict[str, Any]:
    spec = state.require_spec()
    return {
        "id": state.id,
        "status": state.status,
        "project": spec.project,
        "when": spec.describe_when(),
        "request": spec.request,
        "fired": len(state.fired),
    }


def _catch_up_text(state: ScheduleState) -> str:
    spec = state.require_spec()
    if spec.catch_up != "all":
        return spec.catch_up
    return f"all within {spec.window_s // 60} min, at most {spec.max_catch_up}"


def detail(state: ScheduleState, now: datetime) -> dict[str, Any]:
    """Everything `show` says: the spec, the state, recent firings, and the next 5 slots (local and UTC)."""
    spec = state.require_spec()
    zone = zone_of(spec.zone)
    after = max(now, parse_slot(state.cursor))
    coming = upcoming(state, after) if state.status == "active" else []
    firings = sorted(state.fired.values(), key=lambda f: f.seq)[-RECENT:]
    return {
        **summary(state),
        "author": state.added_by,
        "added_at": state.added_at,
        "language": spec.language,
        "rule": spec.rule.model_dump(mode="json"),
        "zone": spec.zone,
        "active_hours": spec.active_hours.describe() if spec.active_hours else None,
        "overlap": spec.overlap,
        "catch_up": spec.catch_up,
        "catch_up_text": _catch_up_text(state),
        "window_s": spec.window_s,
        "max_catch_up": spec.max_catch_up,
        "allow": list(spec.allow),
        "hosts": list(spec.hosts),
        "forbidden": list(spec.forbidden),
        "cursor": state.cursor,
        "queued": state.queued,
        "skipped_events": len(state.skipped),
        "history": state.history,
        "recent": [
            {
                "slot_id": f.slot_id,
                "slot": f.slot,
                "fired_at": f.fired_at,
                "conversation": f.conversation,
                "by": f.by,
                "started": f.slot_id in state.started,
                "trigger": f.trigger(state.id),
            }
            for f in reversed(firings)
        ],
        "next": [
            {"utc": slot.strftime("%Y-%m-%dT%H:%M:%SZ"), "local": slot.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")}
            for slot in coming
        ],
    }
