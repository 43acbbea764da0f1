"""Where a run's Anvil inputs come from: the live journal and config, or (in replay) the recording.

Before it decides, a session journals `anvil.inputs`: the policy set in force (its digest, where it came from, and
its text the first time the run sees it), the proposer's snapshot (identity, registration, reputation, tier,
rights) and, when the run has project budgets, what the project's other runs have used. Everything Anvil then
decides is a pure function of those inputs and the run's terms, so replay feeds the recorded inputs back through a
`ReplayGate` and regenerates every decision byte for byte. A resume decides again what the run may still call
(`runtime.admission.recheck`); replay does so exactly where the recording did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from alicorn.anvil.agents import PermissionRegistry
from alicorn.anvil.budget import Usage, usage_of
from alicorn.anvil.identity import parse_principal
from alicorn.anvil.policy import Policies, load_policies
from alicorn.anvil.rights import HUMAN_RIGHTS, Rights, Subject
from alicorn.anvil.terms import RunTerms
from alicorn.errors import NonDeterminismError
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore


class Gate(Protocol):
    def inputs(self, run_id: str, terms: RunTerms, *, next_seq: int, usage: bool) -> dict[str, Any]:
        """The data of the `anvil.inputs` event that will be journaled at `next_seq`."""

    def rechecks(self, next_seq: int) -> bool:
        """Whether a resuming session decides again, at `next_seq`, what the run may still call (live: always)."""


def project_usage(store: JournalStore, project: str, *, exclude: str) -> Usage:
    """What the project's runs (except `exclude`) have used, summed from their journals."""
    total = Usage()
    for info in store.streams():
        if info.stream == exclude or info.stream.startswith(("agent:", "control:")):
            continue
        events = store.read(info.stream)
        if events and events[0].kind == "run.created" and events[0].data.get("project", "default") == project:
            total = total.plus(usage_of(events))
    return total


#: Reads what the schedule a triggered run's terms name allows it (`alicorn.schedule.allowance`, handed in by the
#: app layer, which sits above the schedules) for the run of that id: a dict
#: `{schedule, effects, hosts, approved_by, reason}`.
TriggerAllowance = Callable[[RunTerms, str], dict[str, Any]]


class LiveGate:
    """Inputs from the journal (agents' streams, other runs, schedules) and the operator's policy and rights."""

    def __init__(
        self,
        store: JournalStore,
        policies: Policies,
        agents: PermissionRegistry,
        human_rights: Rights = HUMAN_RIGHTS,
        trigger_allowance: TriggerAllowance | None = None,
    ) -> None:
        self.store = store
        self.policies = policies
        self.agents = agents
        self.human_rights = human_rights
        self.trigger_allowance = trigger_allowance

    @classmethod
    def default(cls, store: JournalStore, operations: list[str]) -> LiveGate:
        """The shipped policy set (validated against `operations`) and the journal's agents."""
        return cls(store, load_policies(None, operations), PermissionRegistry(store))

    def subject(self, principal_id: str) -> Subject:
        principal = parse_principal(principal_id)
        if principal.is_human:
            return Subject(principal.id, "human", True, self.human_rights, tier="human")
        return self.agents.record(principal.id).subject()

    def inputs(self, run_id: str, terms: RunTerms, *, next_seq: int, usage: bool) -> dict[str, Any]:
        policies = self.policies
        data: dict[str, Any] = {
            "policy": {"digest": policies.digest, "source": policies.source, "text": policies.text},
            "principal": self.subject(terms.proposed_by).to_json(),
        }
        if usage:
            data["project_usage"] = project_usage(self.store, terms.project, exclude=run_id).to_json()
        if terms.trigger is not None:  # a schedule's firing: what the schedule's stream allows (never the claim)
            unread = {
                "schedule": terms.trigger.schedule,
                "effects": [],
                "hosts": [],
                "approved_by": "",
                "reason": "this gate reads no schedules",
            }
            data["trigger_allowance"] = self.trigger_allowance(terms, run_id) if self.trigger_allowance else unread
        return data

    def rechecks(self, next_seq: int) -> bool:
        return True


class ReplayGate:
    """Hands back the recorded `anvil.inputs` exactly where the recording has them."""

    def __init__(self, recorded: Sequence[Event]) -> None:
        self._recorded = recorded

    def inputs(self, run_id: str, terms: RunTerms, *, next_seq: int, usage: bool) -> dict[str, Any]:
        event = self._recorded[next_seq - 1] if next_seq <= len(self._recorded) else None
        if event is None or event.kind != "anvil.inputs":
            raise NonDeterminismError(
                run_id, next_seq, event.line if event else None, "(anvil.inputs: the executor asked for Anvil's inputs)"
            )
        return dict(event.data)

    def rechecks(self, next_seq: int) -> bool:
        """As the recording did: it decided again where its `anvil.inputs` at `next_seq` is followed by checks (a
        journal written before resumes re-checked the policy has none there, and replays as it ran)."""
        recorded = self._recorded
        return (
            next_seq < len(recorded)
            and recorded[next_seq - 1].kind == "anvil.inputs"
            and recorded[next_seq].kind == "anvil.check"
        )
