"""What a session is handed, and what the steps around it see of it.

A session drives one run. It imports no executor: whoever starts it (the executor today, a worker holding a job
lease tomorrow) hands it `SessionNeeds` — the journal, the registry, Anvil's gate, the clock, the dispatcher, the
controls and the approvers. The steps a session takes with Anvil and with humans (`admission`, `saga`, `humans`)
see it as a `RunSession`, so they import no session either, and the arrows inside the runtime run one way:

    executor -> session -> admission, saga -> needs;  executor -> humans -> needs;  needs -> state, dispatch, world
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from alicorn.anvil.gate import Gate
from alicorn.anvil.risk import PlanRisk
from alicorn.anvil.terms import RunTerms
from alicorn.crashpoints import DISARMED, CrashPoints
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Operation, Registry
from alicorn.plan.dsl import Node, Plan
from alicorn.runtime.dispatch import Call, Dispatcher
from alicorn.runtime.plan_decisions import SessionDecisions
from alicorn.runtime.state import RunState
from alicorn.runtime.world import Clock

#: "step": every step is durable before the next call is dispatched. "grouped": steps that touch nothing outside
#: the run (operations with effect none or read) are made durable in groups, at most GROUP_DELAY_S late; a crash
#: loses at most that much effect-free work, which resume simply runs again. Effects are never grouped: an
#: effect's intent is durable before it runs and its result as soon as it returns, and every effect-free step
#: before an intent is durable with it, so nothing outside the run ever follows from a step that was not durable.
Durability = Literal["step", "grouped"]
#: What a run gets unless it asks for "step" (`alicorn run --every-step`): the journaled events are the same, only
#: the commit boundaries of effect-free work differ (issue 17's decision: such steps need no durability of their own).
DEFAULT_DURABILITY: Durability = "grouped"
EventListener = Callable[[Sequence[Event]], None]


class Controls(Protocol):
    def cancel_request(self, run_id: str, next_seq: int) -> dict[str, Any] | None:
        """A pending cancellation {by, reason}, or None. `next_seq` is where its event would go (for replay)."""


class Approvers(Protocol):
    """Who may decide about runs, and the signatures of their decisions (alicorn.anvil.people.People)."""

    def authorize(self, who: str, run_id: str, action: str) -> None:
        """Raise (an ApprovalError naming the rule and the fix) unless `who` may `action` the run and can sign."""

    def seal(self, who: str, body: dict[str, Any]) -> dict[str, Any]:
        """`who`'s signature of a decision: {signer, fingerprint, people_seq, signature}."""


@dataclass(frozen=True)
class SessionNeeds:
    """Everything a session uses beyond its run's own journal: handed in, never looked up.

    `make_dispatcher` makes the dispatcher of the run's calls from its state (its workspace and data root);
    `max_parallel` is used only for a run recorded without its own; `approvers` is None in replay and bare test
    setups (decisions go unsigned, a replayed one keeps its seal)."""

    store: JournalStore
    registry: Registry
    gate: Gate
    clock: Clock
    controls: Controls
    make_dispatcher: Callable[[RunState], Dispatcher]
    max_parallel: int = 4
    durability: Durability = DEFAULT_DURABILITY
    poll_s: float = 0.1
    crash: CrashPoints = DISARMED
    on_events: EventListener | None = None
    approvers: Approvers | None = None


class RunSession(Protocol):
    """A session as `admission`, `saga` and `humans` see it: the run's state and plan, and the ways to change it
    (events emitted into the step's batch, calls queued, nodes marked for scheduling)."""

    @property
    def needs(self) -> SessionNeeds: ...
    @property
    def run_id(self) -> str: ...
    @property
    def state(self) -> RunState: ...
    @property
    def plan(self) -> Plan: ...
    @property
    def terms(self) -> RunTerms: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def nodes(self) -> Mapping[str, Node]: ...
    @property
    def primary_of(self) -> Mapping[str, str]: ...
    @property
    def calls(self) -> list[Call]: ...
    @property
    def dirty(self) -> set[str]: ...
    @property
    def now(self) -> str: ...
    @property
    def risk(self) -> PlanRisk: ...
    @property
    def next_seq(self) -> int: ...
    @property
    def decided(self) -> SessionDecisions: ...

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        """Apply an event to the state and add it to the step's batch."""

    def op(self, node_id: str) -> Operation:
        """The operation a node calls."""

    def resolve(self, node: Node) -> tuple[dict[str, Any], dict[str, Any]]:
        """A node's inputs with its bindings resolved, and their digests."""

    def succeed(self, node: Node, attempt: int, output: dict[str, Any]) -> None:
        """Journal a node's success with its output."""

    def effective_status(self, node_id: str) -> str:
        """A node's status, reading an alternative's outcome as its primary's."""
