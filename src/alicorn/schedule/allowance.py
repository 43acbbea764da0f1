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
from alicorn.i18n import N_
from alicorn.journal.store import JournalStore
from alicorn.runtime.world import conversation_of_run
from alicorn.schedule.authority import Authority
from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.state import fold, stream_of


@dataclass(frozen=True)
class Allowance:
    """The effect classes a triggered run may have without a human (empty: none), the hosts its plans may reach
    without one (empty: none), and why: `message` (a msgid marked with N_) and its `values`, so a decision's sentence
    can say it in a person's language; `reason` is the same in English, as the journal has always held it."""

    schedule: str
    effects: tuple[str, ...]
    message: str
    values: tuple[tuple[str, str], ...] = ()
    approved_by: str = ""
    hosts: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        return self.message.format(**dict(self.values))

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule,
            "effects": list(self.effects),
            "hosts": list(self.hosts),
            "approved_by": self.approved_by,
            "reason": self.reason,
            "reason_said": {"message": self.message, "values": dict(self.values)},
        }


def allowance_of(
    store: JournalStore, trigger: TriggerRecord, project: str, authority: Authority, run_id: str
) -> Allowance:
    """The allowance of the schedule `trigger` names, for run `run_id` in `project` (see the module docstring)."""
    sid = trigger.schedule

    def none(message: str, /, **values: str) -> Allowance:
        return Allowance(sid, (), message, tuple({"schedule": sid, **values}.items()))

    valid = all(c.isalnum() or c in "_.-" for c in sid)
    events = store.read(stream_of(sid)) if valid else []
    if not events or events[0].kind != "schedule.added":
        return none(N_("no schedule {schedule} exists in this journal"))
    state = fold(events)
    spec = state.require_spec()
    if state.status != "active":
        return none(N_("schedule {schedule} is {status}"), status=state.status)
    if spec.project != project:
        return none(
            N_("schedule {schedule} belongs to project {its}, not {project}"), its=spec.project, project=project
        )
    firing = next((f for f in state.fired.values() if (f.slot, f.fired_at) == (trigger.slot, trigger.fired_at)), None)
    if firing is None:
        return none(N_("schedule {schedule} never fired the slot {slot} at {fired_at}"), slot=trigger.slot,
                    fired_at=trigger.fired_at)  # fmt: skip
    if not started_by(firing.conversation, run_id):
        return none(
            N_("run {run} was not started by schedule {schedule}'s firing of {slot} (that firing's requests are in "
               "conversation {conversation})"),
            run=run_id, slot=trigger.slot, conversation=firing.conversation,
        )  # fmt: skip
    try:
        authority.check(spec)
    except ScheduleError as exc:
        return none(N_("schedule {schedule}'s approval no longer holds: {error}"), error=str(exc))
    active = N_("schedule {schedule} is active")
    return Allowance(
        sid, tuple(spec.allow), active, (("schedule", sid),), approved_by=spec.author, hosts=tuple(spec.hosts)
    )


def started_by(conversation: str, run_id: str) -> bool:
    """Whether `run_id` is one of `conversation`'s runs (named by `alicorn.runtime.world.run_id_for`)."""
    return conversation_of_run(run_id) == conversation
