"""What an approved schedule lets one of its triggered runs do without asking a human again.

A triggered run's terms carry the trigger record `{schedule, slot, fired_at}` its request's envelope claimed. An
envelope can lie, so the allowance is never taken from it: `allowance_of` reads the schedule's own stream and gives
the effect classes and the hosts it allowed only when all of these hold, else none (with the reason, for
`alicorn why`):

* the schedule exists and is active (not paused, not removed);
* it belongs to the run's project;
* the slot named in the record was fired by a scheduler (`schedule.fired`), so a made-up slot gets nothing;
* the run belongs to that firing's conversation (Core names a conversation's runs `run-<its id>-N`), so a real
  record copied into another request gets nothing;
* the person who approved it may still approve those effects (`alicorn.schedule.authority`, checked as it stands
  now: an approver who lost the role no longer lets the schedule act).

The app layer hands this to Anvil's live gate, which journals the result in the run's `anvil.inputs`; the policy
then decides on it (rule `permit-schedule-allowed` in the built-in policy), so replay reads the recorded allowance.
An allowance always carries `hosts` (a schedule journaled before hosts existed has none), which tells Anvil to
check the plan's hosts and outbound label against it; allowances journaled before that carry no `hosts` key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from alicorn.anvil.terms import TriggerRecord
from alicorn.journal.store import JournalStore
from alicorn.runtime.world import conversation_of_run
from alicorn.schedule.authority import Authority
from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.state import fold, stream_of


@dataclass(frozen=True)
class Allowance:
    """The effect classes a triggered run may have without a human (empty: none), the hosts its plans may reach
    without one (empty: none), and why."""

    schedule: str
    effects: tuple[str, ...]
    approved_by: str = ""
    reason: str = ""
    hosts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule,
            "effects": list(self.effects),
            "hosts": list(self.hosts),
            "approved_by": self.approved_by,
            "reason": self.reason,
        }


def allowance_of(
    store: JournalStore, trigger: TriggerRecord, project: str, authority: Authority, run_id: str
) -> Allowance:
    """The allowance of the schedule `trigger` names, for run `run_id` in `project` (see the module docstring)."""
    sid = trigger.schedule

    def none(reason: str) -> Allowance:
        return Allowance(sid, (), reason=reason)

    valid = all(c.isalnum() or c in "_.-" for c in sid)
    events = store.read(stream_of(sid)) if valid else []
    if not events or events[0].kind != "schedule.added":
        return none(f"no schedule {sid} exists in this journal")
    state = fold(events)
    spec = state.require_spec()
    if state.status != "active":
        return none(f"schedule {sid} is {state.status}")
    if spec.project != project:
        return none(f"schedule {sid} belongs to project {spec.project}, not {project}")
    firing = next((f for f in state.fired.values() if (f.slot, f.fired_at) == (trigger.slot, trigger.fired_at)), None)
    if firing is None:
        return none(f"schedule {sid} never fired the slot {trigger.slot} at {trigger.fired_at}")
    if not started_by(firing.conversation, run_id):
        return none(
            f"run {run_id} was not started by schedule {sid}'s firing of {trigger.slot} (that firing's requests are "
            f"in conversation {firing.conversation})"
        )
    try:
        authority.check(spec)
    except ScheduleError as exc:
        return none(f"schedule {sid}'s approval no longer holds: {exc}")
    return Allowance(
        sid, tuple(spec.allow), approved_by=spec.author, reason=f"schedule {sid} is active", hosts=tuple(spec.hosts)
    )


def started_by(conversation: str, run_id: str) -> bool:
    """Whether `run_id` is one of `conversation`'s runs (named by `alicorn.runtime.world.run_id_for`)."""
    return conversation_of_run(run_id) == conversation
