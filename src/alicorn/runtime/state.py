"""Run state as a pure fold of the run's events. No run state lives anywhere else.

`fold(events)` rebuilds a RunState from scratch; the executor keeps one up to date by calling `apply` on every event
it appends, so the state it decides from is, by construction, the state any reader can rebuild from the journal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from alicorn.journal.events import Event

TERMINAL_RUN = frozenset({"succeeded", "partial", "failed", "stopped", "cancelled"})
TERMINAL_NODE = frozenset({"succeeded", "failed", "skipped"})


@dataclass
class NodeState:
    """One node's progress. `standby` nodes are alternatives that run only if their primary fails for good."""

    node_id: str
    status: str = "pending"  # pending | standby | running | succeeded | failed | skipped
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


@dataclass
class RunState:
    """Everything known about a run, derived only from its events."""

    run_id: str = ""
    status: str = "new"  # new | awaiting_approval | running | succeeded | partial | failed | stopped | cancelled
    plan: dict[str, Any] = field(default_factory=dict)
    plan_hash: str = ""
    goal_hash: str = ""
    effects: dict[str, list[str]] = field(default_factory=dict)
    workspace: str = ""
    data_root: str = ""
    nodes: dict[str, NodeState] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    approvals: list[dict[str, Any]] = field(default_factory=list)
    awaiting: dict[str, Any] | None = None
    stop_reason: str | None = None
    stopping: bool = False
    created_at: str = ""
    finished_at: str | None = None
    sessions: int = 0
    last_seq: int = 0
    running: int = 0
    open_nodes: int = 0  # nodes not yet terminal (standby nodes excluded)

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_RUN

    def node(self, node_id: str) -> NodeState:
        return self.nodes[node_id]

    def in_flight(self) -> list[NodeState]:
        return [n for n in (self.nodes[i] for i in self.order) if n.status == "running"]

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
    state.data_root = data.get("data_root", "")
    state.created_at = at
    state.status = "running"
    state.sessions = 1
    standby = {n["alternative"] for n in plan["nodes"] if n.get("alternative")}
    for n in plan["nodes"]:
        node_id = n["node_id"]
        state.order.append(node_id)
        status = "standby" if node_id in standby else "pending"
        state.nodes[node_id] = NodeState(node_id, status)
        if status == "pending":
            state.open_nodes += 1


def _awaiting(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.status = "awaiting_approval"
    state.awaiting = data


def _approval(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.approvals.append({**data, "at": at})
    if state.status == "awaiting_approval":
        state.status = "running"
        state.awaiting = None


def _resumed(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.sessions += 1
    for item in data.get("interrupted", []):
        ns = state.nodes[item["node"]]
        _set_status(state, ns, "pending")


def _tool_call(state: RunState, at: str, data: dict[str, Any]) -> None:
    ns = state.nodes[data["node"]]
    ns.attempt = data["attempt"]
    ns.key = data.get("key")
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
    state.stopping = True
    state.stop_reason = data["reason"]


def _run_finished(state: RunState, at: str, data: dict[str, Any]) -> None:
    state.status = data["status"]
    state.finished_at = at


_HANDLERS = {
    "run.created": _run_created,
    "run.awaiting_approval": _awaiting,
    "approval.granted": _approval,
    "run.resumed": _resumed,
    "tool.call": _tool_call,
    "tool.result": _tool_result,
    "node.succeeded": _node_succeeded,
    "node.failed": _node_failed,
    "node.skipped": _node_skipped,
    "node.activated": _node_activated,
    "run.stopped": _run_stopped,
    "run.finished": _run_finished,
}

#: Every event kind a run stream may contain.
RUN_EVENT_KINDS = frozenset(_HANDLERS)


def apply(state: RunState, kind: str, at: str, data: dict[str, Any]) -> None:
    """Fold one event into `state` (in place). Unknown kinds are ignored: later parts add their own events."""
    handler = _HANDLERS.get(kind)
    if handler is not None:
        handler(state, at, data)
    state.last_seq += 1


def fold(events: Iterable[Event], run_id: str | None = None) -> RunState:
    """The state of a run after `events` (its whole stream, or any prefix of it)."""
    state = RunState(run_id=run_id or "")
    for event in events:
        if not state.run_id:
            state.run_id = event.stream
        apply(state, event.kind, event.at, event.data)
    return state
