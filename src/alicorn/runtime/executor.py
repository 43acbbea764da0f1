"""The executor: drives an approved plan to the end, journaling every decision, input and output.

Each step (an outcome arriving, a start, a resume) is one transaction: the tool result, the node transitions it
causes and the tool calls it unlocks are appended together, and only then are the new calls dispatched. So a crash
at any moment leaves the journal at a step boundary, and `resume` continues from the fold of the journal without
redoing finished nodes. Decisions depend only on the run state (a fold of the journal) and the plan, which is what
makes byte-for-byte replay possible.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from alicorn import canonical
from alicorn.errors import ApprovalRequiredError, RunError, UnknownStreamError
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import OperationContext, Registry
from alicorn.plan.criteria import describe, evaluate
from alicorn.plan.dsl import EffectClass, LiteralInput, Node, Plan
from alicorn.plan.effects import plan_effects
from alicorn.plan.validate import DEFAULT_RESOURCES, validate_plan
from alicorn.runtime.dispatch import Call, Dispatcher, Outcome, ThreadDispatcher
from alicorn.runtime.state import RunState, apply, fold
from alicorn.runtime.world import Clock, IdSource, RandomIds, SystemClock, format_time, parse_time

#: Until Anvil decides, any effect above this class needs a journaled human approval.
APPROVAL_THRESHOLD: EffectClass = "local_write"


@dataclass(frozen=True)
class RunEnvironment:
    """Where runs read data and write files, what they may use, and how many calls run at once."""

    workspace_root: Path
    data_root: Path
    resources: frozenset[str] = DEFAULT_RESOURCES
    max_parallel: int = 4

    def workspace(self, run_id: str) -> Path:
        return self.workspace_root / run_id


@dataclass(frozen=True)
class Approval:
    """A human's decision to let a plan's effects happen; journaled as `approval.granted`."""

    by: str
    comment: str = ""

    def __post_init__(self) -> None:
        if not self.by.strip():
            raise RunError("an approval must name the human who gives it")


DispatcherFactory = Callable[["Executor", str], Dispatcher]
EventListener = Callable[[Sequence[Event]], None]


class Executor:
    """Starts, resumes and drives runs. One executor may drive many runs, one at a time."""

    def __init__(
        self,
        store: JournalStore,
        registry: Registry,
        environment: RunEnvironment,
        *,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        dispatcher_factory: DispatcherFactory | None = None,
        on_events: EventListener | None = None,
    ) -> None:
        self.store = store
        self.registry = registry
        self.environment = environment
        self.clock = clock or SystemClock()
        self.ids = ids or RandomIds(self.clock)
        self._dispatcher_factory = dispatcher_factory or _thread_dispatcher
        self.on_events = on_events

    # ---- public -----------------------------------------------------------------------------------------------

    def start(self, plan: Plan, *, approvals: Iterable[Approval] = (), run_id: str | None = None) -> RunState:
        """Validate `plan`, journal the run's creation, and drive it until it finishes or awaits approval."""
        plan = validate_plan(plan, self.registry, self.environment.resources)
        run_id = run_id or self.ids.run_id()
        if self.store.head(run_id) is not None:
            raise RunError(f"run {run_id!r} already exists; use `alicorn resume {run_id}`")
        effects = plan_effects(plan, self.registry)
        session = _Session(self, run_id, RunState(run_id=run_id), plan, committed=0)
        session.begin()
        session.emit(
            "run.created",
            {
                "plan": plan.model_dump(mode="json"),
                "plan_hash": plan.plan_hash(),
                "registry": self.registry.fingerprint(),
                "effects": effects.to_json(),
                "workspace": str(self.environment.workspace(run_id)),
                "data_root": str(self.environment.data_root),
                "max_parallel": self.environment.max_parallel,
            },
        )
        session.grant(approvals)
        needing = effects.beyond(APPROVAL_THRESHOLD)
        if needing and not session.state.approvals:
            session.emit(
                "run.awaiting_approval",
                {
                    "effects": {c: list(n) for c, n in needing.items()},
                    "reason": f"the plan has effects beyond {APPROVAL_THRESHOLD} "
                    f"({', '.join(needing)}); a human must approve them",
                },
            )
            session.commit()
            return session.state
        return session.drive()

    def resume(self, run_id: str, *, approvals: Iterable[Approval] = ()) -> RunState:
        """Continue a run from the fold of its journal: finished nodes are not redone."""
        events = self.store.read(run_id)
        if not events:
            raise UnknownStreamError(run_id)
        state = fold(events, run_id)
        if state.finished:
            raise RunError(
                f"run {run_id} already finished ({state.status}) at {state.finished_at}; nothing to resume. "
                f"`alicorn show {run_id}` shows its result"
            )
        recorded = events[0].data.get("registry")
        if recorded != self.registry.fingerprint():
            raise RunError(
                f"run {run_id} was started with a different operation registry (fingerprint {recorded}, now "
                f"{self.registry.fingerprint()}); resume it with the Alicorn version and operations that started it"
            )
        plan = Plan.model_validate(state.plan)
        session = _Session(self, run_id, state, plan, committed=events[-1].seq)
        session.begin()
        interrupted = [n.node_id for n in state.in_flight()]
        session.emit(
            "run.resumed",
            {
                "session": state.sessions + 1,
                "interrupted": [{"node": n, "attempt": state.nodes[n].attempt} for n in interrupted],
            },
        )
        session.grant(approvals)
        if state.status == "awaiting_approval":
            effects = ", ".join(state.awaiting["effects"]) if state.awaiting else "effects"
            raise ApprovalRequiredError(
                f"run {run_id} is waiting for a human to approve its {effects}; nothing was done. Approve with "
                f"`alicorn resume {run_id} --approve` (journaled with your name)"
            )
        for node_id in interrupted:
            session.recover(node_id)
        return session.drive()


def _thread_dispatcher(executor: Executor, run_id: str) -> Dispatcher:
    env = executor.environment
    workspace = env.workspace(run_id)

    def make_context(call: Call, cancel: threading.Event) -> OperationContext:
        workspace.mkdir(parents=True, exist_ok=True)
        return OperationContext(run_id, call.node, call.attempt, call.key, workspace, env.data_root, cancel)

    return ThreadDispatcher(executor.registry, make_context, executor.clock)


@dataclass
class _Session:
    """One process driving one run: it folds what it appends, so its state always equals the journal's."""

    executor: Executor
    run_id: str
    state: RunState
    plan: Plan
    committed: int
    drafts: list[Draft] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    now: str = ""

    def __post_init__(self) -> None:
        self.nodes = {n.node_id: n for n in self.plan.nodes}
        self.index = {n.node_id: i for i, n in enumerate(self.plan.nodes)}
        self.upstream_of = {n.node_id: sorted(n.upstream()) for n in self.plan.nodes}
        self.dependents: dict[str, list[str]] = {n.node_id: [] for n in self.plan.nodes}
        for n in self.plan.nodes:
            for up in self.upstream_of[n.node_id]:
                self.dependents[up].append(n.node_id)
        self.primary_of = {n.alternative: n.node_id for n in self.plan.nodes if n.alternative}
        self.dirty: set[str] = set(self.nodes)
        self.registry = self.executor.registry
        self.dispatcher: Dispatcher | None = None

    # ---- journaling -------------------------------------------------------------------------------------------

    def begin(self) -> None:
        self.now = self.executor.clock.now()

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        apply(self.state, kind, self.now, data)
        self.drafts.append(Draft(kind, self.now, data))

    def commit(self) -> None:
        if not self.drafts:
            return
        events = self.executor.store.append(self.run_id, self.drafts, expect=self.committed)
        self.committed = events[-1].seq
        self.drafts = []
        if self.executor.on_events is not None:
            self.executor.on_events(events)
        if self.calls:
            if self.dispatcher is None:
                self.dispatcher = self.executor._dispatcher_factory(self.executor, self.run_id)
            for call in self.calls:
                self.dispatcher.submit(call)
            self.calls = []

    def grant(self, approvals: Iterable[Approval]) -> None:
        for approval in approvals:
            self.emit(
                "approval.granted",
                {
                    "by": approval.by,
                    "comment": approval.comment,
                    "plan_hash": self.state.plan_hash,
                    "effects": sorted(self.state.effects),
                },
            )

    # ---- driving ----------------------------------------------------------------------------------------------

    def drive(self) -> RunState:
        try:
            self.schedule()
            self.commit()
            while not self.state.finished:
                if self.state.running == 0:
                    raise RunError(f"run {self.run_id} has nothing running and cannot progress (internal error)")
                assert self.dispatcher is not None
                outcome = self.dispatcher.next_outcome()
                self.begin()
                self.handle(outcome)
                self.schedule()
                self.commit()
            return self.state
        finally:
            if self.dispatcher is not None:
                self.dispatcher.close()

    def handle(self, outcome: Outcome) -> None:
        ns = self.state.nodes.get(outcome.node)
        if ns is None or ns.status != "running" or ns.attempt != outcome.attempt:
            raise RunError(f"outcome for {outcome.node}#{outcome.attempt} matches no call in flight")
        self.emit("tool.result", outcome.to_event())
        node = self.nodes[outcome.node]
        if not outcome.ok:
            err = outcome.error or {}
            self.fail(node, f"{err.get('type')}: {err.get('message')}", bool(err.get("retryable")))
            return
        output = outcome.output or {}
        if node.completion is not None and not evaluate(node.completion, output):
            self.fail(node, f"completion criterion not met: {describe(node.completion)}", retryable=True)
            return
        self.emit("node.succeeded", {"node": node.node_id, "attempt": outcome.attempt})
        self.touch(node.node_id)
        if node.stop is not None and node.stop.when is not None and evaluate(node.stop.when, output):
            self.emit("run.stopped", {"node": node.node_id, "reason": node.stop.reason, "cause": "condition"})

    def fail(self, node: Node, reason: str, retryable: bool, *, counts: bool = True, unknown: bool = False) -> None:
        ns = self.state.nodes[node.node_id]
        policy = node.retry or self.registry.get(node.operation).retry
        failures = ns.failures + (1 if counts else 0)
        data: dict[str, Any] = {"node": node.node_id, "attempt": ns.attempt, "reason": reason}
        if not counts:
            data["counts"] = False
        if unknown:
            data["unknown_outcome"] = True
        if retryable and failures < policy.max_attempts and not self.state.stopping:
            delay = policy.delay_after(failures)
            self.emit("node.failed", {**data, "final": False, "retry_in_s": delay})
            not_before = format_time(parse_time(self.now) + timedelta(seconds=delay)) if delay > 0 else None
            self.call(node, not_before)
            return
        self.emit("node.failed", {**data, "final": True})
        self.touch(node.node_id)
        if node.alternative is not None:
            self.emit("node.activated", {"node": node.alternative, "instead_of": node.node_id})
            self.dirty.add(node.alternative)
            return
        current: str | None = node.node_id
        while current is not None:
            stop = self.nodes[current].stop
            if stop is not None:
                self.emit("run.stopped", {"node": node.node_id, "reason": stop.reason, "cause": "failure"})
                return
            self.touch(current)
            current = self.primary_of.get(current)

    def touch(self, node_id: str) -> None:
        self.dirty.update(self.dependents[node_id])
        primary = self.primary_of.get(node_id)
        while primary is not None:
            self.dirty.update(self.dependents[primary])
            primary = self.primary_of.get(primary)

    def recover(self, node_id: str) -> None:
        """A node was running when the previous session died: repeat it only if that is safe."""
        node = self.nodes[node_id]
        op = self.registry.get(node.operation)
        idempotency = node.idempotency or op.idempotency
        if idempotency == "unsafe":
            self.fail(
                node,
                "outcome unknown: the process stopped while this unsafe operation ran; a human must check "
                "whether its effect happened before anything repeats it",
                retryable=False,
                counts=False,
                unknown=True,
            )
        self.dirty.add(node_id)

    def schedule(self) -> None:
        state = self.state
        if state.stopping:
            for node_id in state.order:
                ns = state.nodes[node_id]
                if ns.status in ("pending", "standby"):
                    self.emit("node.skipped", {"node": node_id, "reason": f"run stopped: {state.stop_reason}"})
            if state.running == 0:
                self.finish("stopped")
            return
        limit = self.executor.environment.max_parallel
        skipped_any = True
        while skipped_any:  # a skip can settle nodes further down: repeat until nothing changes
            skipped_any = False
            for node_id in sorted(self.dirty, key=self.index.__getitem__):
                ns = state.nodes[node_id]
                if ns.status != "pending":
                    self.dirty.discard(node_id)
                    continue
                verdict, culprit = self.upstream(node_id)
                if verdict == "failed":
                    self.emit("node.skipped", {"node": node_id, "reason": f"upstream {culprit!r} did not succeed"})
                    self.dirty.discard(node_id)
                    self.touch(node_id)
                    skipped_any = True
                elif verdict == "ready" and state.running < limit:
                    self.call(self.nodes[node_id], None)
                    self.dirty.discard(node_id)
                elif verdict == "wait":
                    self.dirty.discard(node_id)  # re-examined when an upstream node changes
        if state.open_nodes == 0:
            self.finish(None)

    def upstream(self, node_id: str) -> tuple[str, str | None]:
        waiting = False
        for up in self.upstream_of[node_id]:
            status = self.effective_status(up)
            if status == "failed":
                return "failed", up
            if status == "wait":
                waiting = True
        return ("wait", None) if waiting else ("ready", None)

    def effective_status(self, node_id: str) -> str:
        ns = self.state.nodes[node_id]
        for _ in range(len(self.nodes)):
            if ns.status == "succeeded":
                return "ok"
            if ns.status == "failed" and ns.substitute is not None:
                ns = self.state.nodes[ns.substitute]
                continue
            return "failed" if ns.status in ("failed", "skipped") else "wait"
        return "failed"

    def call(self, node: Node, not_before: str | None) -> None:
        ns = self.state.nodes[node.node_id]
        op = self.registry.get(node.operation)
        resolved: dict[str, Any] = {}
        journaled: dict[str, Any] = {}
        for name, binding in sorted(node.inputs.items()):
            if isinstance(binding, LiteralInput):
                resolved[name] = journaled[name] = binding.value
                continue
            ref = binding.ref
            source = self.state.effective_output(ref.node) or {}
            value = source.get(ref.output)
            resolved[name] = value
            journaled[name] = {"ref": f"{ref.node}.{ref.output}", "sha256": canonical.digest(value)}
        key = canonical.digest({"run": self.run_id, "node": node.node_id, "inputs": journaled})
        timeout = node.timeout_s or op.timeout_s
        attempt = ns.attempt + 1
        self.emit(
            "tool.call",
            {
                "node": node.node_id,
                "attempt": attempt,
                "op": op.name,
                "effect": op.effect,
                "inputs": journaled,
                "key": key,
                "timeout_s": timeout,
                "not_before": not_before,
            },
        )
        self.calls.append(Call(node.node_id, attempt, op.name, resolved, key, timeout, not_before))

    def finish(self, forced: str | None) -> None:
        state = self.state
        for node_id in state.order:
            ns = state.nodes[node_id]
            if ns.status == "standby":
                primary = self.primary_of.get(node_id)
                self.emit(
                    "node.skipped",
                    {"node": node_id, "reason": f"alternative not needed: {primary} succeeded"},
                )
        standby = set(self.primary_of)
        failed = [n for n in state.order if n not in standby and self.effective_status(n) == "failed"]
        succeeded = [n for n in state.order if state.nodes[n].status == "succeeded"]
        if forced is not None:
            status = forced
        elif not failed:
            status = "succeeded"
        elif succeeded:
            status = "partial"
        else:
            status = "failed"
        counts: dict[str, int] = {}
        for n in state.order:
            counts[state.nodes[n].status] = counts.get(state.nodes[n].status, 0) + 1
        data: dict[str, Any] = {"status": status, "nodes": dict(sorted(counts.items()))}
        if state.stop_reason is not None:
            data["reason"] = state.stop_reason
        self.emit("run.finished", data)
