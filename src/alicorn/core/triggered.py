"""A schedule's firing handed to Norbi Core: its request as provenance "trigger", labelled with its trigger record.

The envelope carries `{schedule, slot, fired_at}` (journaled in `intent.received`, then in the `run.created` of
every run the conversation starts), its author is the schedule (`schedule:<id>`; the person who approved it is in
the schedule's stream), and it forbids every effect class the schedule did not allow, so a plan with more is
refused by Core and denied by Anvil. As for every trigger, a plan with an effect waits for a human's approval.

The conversation's id derives from the slot id (`alicorn.schedule.state.conversation_for`): a second submission,
after a crash or by another scheduler, finds the conversation and starts nothing new.

It lives in Core (not in `alicorn.schedule`, which sits below Core so Core can add schedules) and implements
`alicorn.schedule.scheduler.Submitter`.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

from alicorn.anvil.terms import TriggerRecord
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import CoreError
from alicorn.errors import AlicornError, ConcurrentAppendError
from alicorn.schedule.state import Firing, ScheduleState

if TYPE_CHECKING:
    from alicorn.core.norbi import Norbi

CHANNEL = "schedule"


def trigger_envelope(state: ScheduleState, firing: Firing) -> IntentEnvelope:
    """The request a firing submits (see the module docstring)."""
    spec = state.require_spec()
    return IntentEnvelope(
        utterance=spec.request,
        author=f"schedule:{state.id}",
        provenance="trigger",
        channel=CHANNEL,
        project=spec.project,
        language=spec.language,
        forbid=spec.forbidden,
        trigger=TriggerRecord.model_validate(firing.trigger(state.id)),
    )


class CoreSubmitter:
    """Submits firings to a `Norbi` (alicorn.core.norbi) and advances them as far as they go without a human."""

    def __init__(self, core: Norbi) -> None:
        self.core = core

    def submit(self, state: ScheduleState, firing: Firing) -> None:
        conversation = firing.conversation
        store = self.core.app.store
        if store.head(conversation) is None:
            with contextlib.suppress(ConcurrentAppendError):  # another scheduler took it first: the journal kept one
                self.core.take(trigger_envelope(state, firing), conversation=conversation)
        # The hand-off is done: the conversation holds the request. Advancing it is Core's work, and Core's own
        # optimistic concurrency keeps two advances of one conversation from both writing; if it fails here, the
        # conversation waits, saved, for `alicorn ask -c CONV` (or the service's workers) to continue it.
        try:
            self.core.advance(conversation)
        except AlicornError as exc:
            print(
                f"alicorn scheduler: conversation {conversation} is saved but did not advance ({exc}); "
                f"`alicorn ask -c {conversation}` continues it",
                file=sys.stderr,
            )

    def active(self, conversation: str) -> bool:
        try:
            state = self.core.state(conversation)
        except CoreError:
            return False
        return not state.finished

    def cancel(self, conversation: str, reason: str) -> None:
        if self.active(conversation):
            self.core.close(conversation, reason=reason)
