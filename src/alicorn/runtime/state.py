"""Run state as a pure fold of the run's events. No run state lives anywhere else.

`fold(events)` rebuilds a RunState from scratch; the executor keeps one up to date by calling `apply` on every event
it appends, so the state it decides from is, by construction, the state any reader can rebuild from the journal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from alicorn.anvil.origin import ORIGIN_FIELDS, ORIGIN_KEPT
from alicorn.anvil.usage import UsageTally
from alicorn.errors import RunError, UnknownStreamError
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore

#: denied: the policy refused the plan; rejected: a human refused it; replaced: a replan took its place;
#: withdrawn: its proposer closed it before any decision (Norbi Core's safe stop).
TERMINAL_RUN = frozenset(
    {"succeeded", "partial", "failed", "stopped", "cancelled", "denied", "rejected", "replaced", "withdrawn"}
)
TERMINAL_NODE = frozenset({"succeeded", "failed", "skipped"})


@dataclass
class NodeState:
    """One node's progress. `standby` nodes are alternatives that run only if their primary fails for good."""

    node_id: str
    status: str = "pending"  # pending | standby | running | blocked | succeeded | failed | skipped
    attempt: int = 0  # number of the latest attempt started
    failures: int = 0  # failed attempts (interrupted attempts are not failures)
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    reason: str | None = None
    key: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    substitute: str | None = None  # the alternative whose output stands in for this node's
    unknown_outcome: bool = False
    not_before: str | None = None  # the latest call's earliest start (a retry's backoff)


@dataclass
class EffectState:
    """The life of one node's effect, keyed by its idempotency key (the same for every attempt).

    status: intended | done | failed (certainly not applied) | uncertain (may have happened; safe to repeat) |
    checking (a lookup is asking the target) | unknown (a human must say) | compensating | compensated |
    compensation_failed | compensation_unknown
    """

    node: str
    key: str
    operation: str
    effect: str
    status: str = "intended"
    attempt: int = 0
    done_order: int | None = None  # order in which effects completed: compensation runs in reverse
    compensation_attempt: int = 0
    note: str | None = None
    interrupted: bool = False  # the pending lookup was started by a recovery, not by a failure
    #: An attempt's outcome was not known (it may have applied the effect: a failure that was not certain, an
    #: interruption, an unknown outcome) and nothing since has said it was not applied (the target asked by key, a
    #: human). A later attempt that certainly failed says nothing about the earlier one, so this outlives it.
    maybe_applied: bool = False

    @property
    def outcome_unknown(self) -> bool:
        """Whether it is not known if this effect happened (or, for a compensation, was undone): it may be pending."""
        return self.status in UNSETTLED_EFFECTS or (self.status == "failed" and self.maybe_applied)


#: Effect states whose outcome is not known: intended and never resolved, may have happened (uncertain), being
#: looked up, unknown (a human must say), being compensated, or compensated with an unknown outcome.
UNSETTLED_EFFECTS = frozenset({"intended", "uncertain", "checking", "unknown", "compensating", "compensation_unknown"})


def pending_effects(state: RunState) -> list[str]:
    """The nodes whose effect's outcome is not known (see EffectState.outcome_unknown), in journal order."""
    return [e.node for e in state.effects_log.values() if e.outcome_unknown]


@dataclass
class RunState:
    """Everything known about a run, derived only from its events."""

    run_id: str = ""
    # new | awaiting_approval | running | blocked | succeeded | partial | failed | stopped | cancelled | denied |
    # rejected | replaced
    status: str = "new"
    plan: dict[str, Any] = field(default_factory=dict)
    plan_hash: str = ""
    goal_hash: str = ""
    effects: dict[str, list[str]] = field(default_factory=dict)
    workspace: str = ""
    max_parallel: int = 0  # as recorded at creation; resumes keep it
    data_root: str = ""
    nodes: dict[str, NodeState] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    approvals: list[dict[str, Any]] = field(default_factory=list)
    awaiting: dict[str, Any] | None = None
    stop_reason: str | None = None
    stop_cause: str | None = None  # failure | condition | cancelled
    stopping: bool = False
    effects_log: dict[str, EffectState] = field(default_factory=dict)
    effects_done: int = 0
    saga: dict[str, Any] | None = None
    created_at: str = ""
    finished_at: str | None = None
    sessions: int = 0
    last_seq: int = 0
    running: int = 0
    open_nodes: int = 0  # nodes not yet terminal (standby nodes excluded)
    # ---- Anvil: the run's terms and what was decided (see alicorn.anvil) -----------------------------------------
    proposed_by: str = ""
    project: str = "default"
    terms: dict[str, Any] = field(default_factory=dict)  # the run.created fields RunTerms.from_created reads
    risk: dict[str, Any] = field(default_factory=dict)
    policies: dict[str, str] = field(default_factory=dict)  # policy digest -> text, as journaled
    project_usage: dict[str, Any] | None = None  # the project's other runs' usage at the last anvil.inputs
    decision: str | None = None  # the strictest decision of the latest checks
    checks: list[int] = field(default_factory=list)  # seqs of anvil.check events
    budget_exceeded: dict[str, Any] | None = None
    rejection: dict[str, Any] | None = None
    replaced_by: str | None = None
    usage: UsageTally = field(default_factory=UsageTally)

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_RUN

    def node(self, node_id: str) -> NodeState:
        return self.nodes[node_id]

    def in_flight(self) -> list[NodeState]:
        return [n for n in (self.nodes[i] for i in self.order) if n.status == "running"]

    @property
    def busy(self) -> bool:
        """Whether any call (a node attempt, a lookup, a compensation) is in flight."""
        return self.running > 0 or any(e.status == "compensating" for e in self.effects_log.values())

    def blocked(self) -> list[str]:
        return [i for i in self.order if self.nodes[i].status == "blocked"]

    def effective_output(self, node_id: str) -> dict[str, Any] | None:
        """A node's output, or that of the alternative standing in for it."""
        ns = self.nodes[node_id]
        seen = 0
        while ns.substitute is not None and seen < len(self.nodes):
            ns = self.nodes[ns.substitute]
            seen += 1
        return ns.output


def _set_status(state: RunState, ns: NodeState, status: str) -> None:
    before = ns.status
    if before == status:
        return
    if before == "running":
        state.running -= 1
    if status == "running":
        state.running += 1
    was_open = before not in TERMINAL_NODE and before != "standby"
    is_open = status not in TERMINAL_NODE and status != "standby"
    state.open_nodes += int(is_open) - int(was_open)
    ns.status = status


def _run_created(state: RunState, at: str, data: dict[str, Any]) -> None:
    plan = data["plan"]
    state.plan = plan
    state.plan_hash = data["plan_hash"]
    state.goal_hash = plan["goal_hash"]
    state.effects = data.get("effects", {})
    state.workspace = data.get("workspace", "")
    state.max_parallel = int(data.get("max_parallel", 0))
    state.data_root = data.get("data_root", "")
    state.created_at = at
    state.status = "running"
    state.sessions = 1
    state.proposed_by = data.get("proposed_by", "human:operator")
    state.project = data.get("project", "default")
    state.terms = {k: data[k] for k in _TERM_FIELDS if k in data}
    if data.get(ORIGIN_KEPT):  # a resumed session is judged with the run's origin, not as a person's (RunTerms)
        state.terms.update({k: data[k] for k in (*ORIGIN_FIELDS, ORIGIN_KEPT) if k in data})
    state.risk = data.get("risk", {})
    standby = {n["alternative"] for n in plan["nodes"] if n.get("alternative")}
    for n in plan["nodes"]:
        node_id = n["node_id"]
        state.order.append(node_id)
        status = "standby" if node_id in standby else "pending"
        state.nodes[node_id] = NodeState(node_id, status)
        if status == "pending":
            state.open_nodes += 1


_TERM_FIELDS = ("proposed_by", "project", "budget", "forbidden", "labels", "replan_of", "secret_reads")


def _anvil_inputs(state: RunState, at: str, data: dict[str, Any]) -> None:
    policy = data["policy"]
    if "text" in policy:
        state.policies[policy["digest"]] = policy["text"]
    if "project_usage" in data:
        state.project_usage = data["project_usage"]


_DECISION_ORDER = ("allow", "needs_approval", "deny")


def _anvil_check(state: RunState, at: str, data: dict[str, Any]) -> None:
    seq = state.last_seq + 1
    if not state.checks or state.checks[-1] != seq - 1 or state.decision is None:
        state.decision = data["decision"]  # the first check of a new batch of checks
    elif _DECISION_ORDER.index(data["decision"]) > _DECISION_ORDER.index(state.decision):
        state.decision = data["decision"]
    state.checks.append(seq)


def _budget_exceeded(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.budget_exceeded = data


def _rejected(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.rejection = {**data, "at": at}


def _carried(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.approvals.append({**data, "carried": True, "at": at})


def _awaiting(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.status = "awaiting_approval"
    state.awaiting = data


def _blocked(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.status = "blocked"
    state.awaiting = data


def _approval(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.approvals.append({**data, "at": at})
    if state.status == "awaiting_approval":
        state.status = "running"
        state.awaiting = None


def _resumed(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.sessions += 1
    if state.status == "blocked":
        state.status = "running"
        state.awaiting = None


def _requeued(state: RunState, at: str, data: dict[str, Any]) -> None:
    _set_status(state, state.nodes[data["node"]], "pending")


def _tool_call(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    ns.attempt = data["attempt"]
    ns.key = data.get("key")
    ns.not_before = data.get("not_before")
    if ns.started_at is None:
        ns.started_at = at
    _set_status(state, ns, "running")


def _tool_result(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    if data["ok"]:
        ns.output = data["output"]
        ns.error = None
    else:
        ns.error = data["error"]


def _node_succeeded(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    ns.finished_at = at
    ns.reason = None
    _set_status(state, ns, "succeeded")


def _node_failed(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    ns.reason = data["reason"]
    if data.get("counts", True):
        ns.failures += 1
    ns.unknown_outcome = bool(data.get("unknown_outcome", False))
    if data["final"]:
        ns.finished_at = at
        _set_status(state, ns, "failed")
    else:
        _set_status(state, ns, "pending")


def _node_skipped(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    ns.reason = data["reason"]
    ns.finished_at = at
    _set_status(state, ns, "skipped")


def _node_activated(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    state.nodes[data["instead_of"]].substitute = data["node"]
    _set_status(state, ns, "pending")


def _run_stopped(state: RunState, at: str, data: dict[str, Any]) -> None:
    if state.stopping:  # the first reason to stop stands (a cancellation is not overwritten by a later stop)
        return
    state.stopping = True
    state.stop_reason = data["reason"]
    state.stop_cause = data.get("cause", "failure")


def _run_cancelled(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.stopping = True
    state.stop_reason = f"cancelled by {data['by']}: {data['reason']}"
    state.stop_cause = "cancelled"


def _effect_intended(state: RunState, at: str, data: dict[str, Any]) -> None:
    earlier = state.effects_log.get(data["node"])
    state.effects_log[data["node"]] = EffectState(
        data["node"],
        data["key"],
        data["op"],
        data["effect"],
        "intended",
        data["attempt"],
        maybe_applied=earlier is not None and earlier.maybe_applied,  # a new attempt does not settle an earlier one
    )


def _effect_status(status: str) -> Any:
    def handler(state: RunState, at: str, data: dict[str, Any]) -> None:
        effect = state.effects_log[data["node"]]
        effect.status = status
        if "reason" in data:
            effect.note = data["reason"]
        if status == "done":
            state.effects_done += 1
            effect.done_order = state.effects_done

    return handler


def _effect_check(state: RunState, at: str, data: dict[str, Any]) -> None:
    effect = state.effects_log[data["node"]]
    effect.status = "checking"
    effect.interrupted = bool(data.get("interrupted", False))
    effect.maybe_applied = True


def _effect_checked(state: RunState, at: str, data: dict[str, Any]) -> None:
    if data.get("ok") and not data.get("applied"):
        # The target, asked by the key every attempt shares, says it never applied it: no attempt did.
        state.effects_log[data["node"]].maybe_applied = False


def _effect_failed(state: RunState, at: str, data: dict[str, Any]) -> None:
    effect = state.effects_log[data["node"]]
    effect.status = "failed" if data["certain"] else "uncertain"
    effect.note = data["reason"]
    if not data["certain"]:
        effect.maybe_applied = True


def _effect_unknown(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.effects_log[data["node"]].maybe_applied = True
    _effect_status("unknown")(state, at, data)
    ns = state.nodes[data["node"]]
    ns.unknown_outcome = True
    ns.reason = data["reason"]
    _set_status(state, ns, "blocked")


def _effect_resolved(state: RunState, at: str, data: dict[str, Any]) -> None:
    effect = state.effects_log[data["node"]]
    effect.note = f"resolved by {data['by']}: {'applied' if data['applied'] else 'not applied'}"
    if data.get("note"):
        effect.note += f" ({data['note']})"
    ns = state.nodes[data["node"]]
    ns.unknown_outcome = False
    if not data["applied"]:
        effect.status = "failed"
        effect.maybe_applied = False  # a human checked the target: it did not happen
        _set_status(state, ns, "pending")


def _saga_started(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.saga = data


def _compensation_call(state: RunState, at: str, data: dict[str, Any]) -> None:
    effect = state.effects_log[data["node"]]
    effect.status = "compensating"
    effect.compensation_attempt = data["attempt"]


def _compensation_failed(state: RunState, at: str, data: dict[str, Any]) -> None:
    effect = state.effects_log[data["node"]]
    effect.note = data["reason"]
    if data["final"]:
        effect.status = "compensation_unknown" if data.get("unknown_outcome") else "compensation_failed"


def _run_finished(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.status = data["status"]
    state.finished_at = at
    state.replaced_by = data.get("replaced_by")


_HANDLERS = {
    "run.created": _run_created,
    "run.awaiting_approval": _awaiting,
    "approval.granted": _approval,
    "run.resumed": _resumed,
    "node.requeued": _requeued,
    "tool.call": _tool_call,
    "tool.result": _tool_result,
    "node.succeeded": _node_succeeded,
    "node.failed": _node_failed,
    "node.skipped": _node_skipped,
    "node.activated": _node_activated,
    "run.stopped": _run_stopped,
    "run.cancelled": _run_cancelled,
    "run.blocked": _blocked,
    "run.finished": _run_finished,
    "effect.intended": _effect_intended,
    "effect.done": _effect_status("done"),
    "effect.failed": _effect_failed,
    "effect.check": _effect_check,
    "effect.checked": _effect_checked,  # followed by effect.done or effect.failed
    "effect.unknown": _effect_unknown,
    "effect.resolved": _effect_resolved,
    "saga.started": _saga_started,
    "compensation.call": _compensation_call,
    "compensation.result": lambda state, at, data: None,  # followed by effect.compensated or compensation.failed
    "effect.compensated": _effect_status("compensated"),
    "compensation.failed": _compensation_failed,
    "anvil.inputs": _anvil_inputs,
    "anvil.check": _anvil_check,
    "budget.exceeded": _budget_exceeded,
    "approval.rejected": _rejected,
    "approval.carried": _carried,
    "llm.response": lambda state, at, data: None,  # counted by the usage tally (tokens, money)
}

#: Every event kind a run stream may contain.
RUN_EVENT_KINDS = frozenset(_HANDLERS)


def apply(state: RunState, kind: str, at: str, data: dict[str, Any]) -> None:
    """Fold one event into `state` (in place). Unknown kinds are ignored: later parts add their own events."""
    handler = _HANDLERS.get(kind)
    if handler is not None:
        handler(state, at, data)
    state.usage.apply(kind, at, data)
    state.last_seq += 1


def read_run(store: JournalStore, run_id: str) -> list[Event]:
    """The events of run `run_id`: UnknownStreamError when there is no such stream, RunError when it is a stream of
    something else (a conversation, the home's people, a schedule) given where a run's id is wanted."""
    events = store.read(run_id)
    if not events:
        raise UnknownStreamError(run_id)
    first = events[0].kind
    if first != "run.created":
        hint = f"; `alicorn ask -c {run_id}` shows that conversation" if first == "intent.received" else ""
        raise RunError(
            f"stream {run_id!r} is not a run (its first event is {first!r}){hint}; `alicorn runs` lists the runs"
        )
    return events


def fold(events: Iterable[Event], run_id: str | None = None) -> RunState:
    """The state of a run after `events` (its whole stream, or any prefix of it)."""
    state = RunState(run_id=run_id or "")
    for event in events:
        if not state.run_id:
            state.run_id = event.stream
        apply(state, event.kind, event.at, event.data)
    return state
