"""The executor: starts and resumes runs of approved plans, each driven by a Session to its end.

Each step (an outcome arriving, a start, a resume) is one transaction: the result, the node transitions it causes
and the calls it unlocks are appended together, and only then are the new calls dispatched. So a crash at any
moment leaves the journal at a step boundary, and `resume` continues from the fold of the journal without redoing
finished nodes. Decisions depend only on the run state (a fold of the journal) and the plan, which is what makes
byte-for-byte replay possible. One process at a time drives a run: the store's lock says who.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from alicorn.crashpoints import DISARMED, CrashPoints
from alicorn.errors import ApprovalRequiredError, RunError, UnknownStreamError
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import OperationContext, Registry
from alicorn.plan.dsl import EffectClass, Plan
from alicorn.plan.effects import plan_effects
from alicorn.plan.validate import DEFAULT_RESOURCES, validate_plan
from alicorn.runtime import saga
from alicorn.runtime.dispatch import Call, Dispatcher, ThreadDispatcher
from alicorn.runtime.session import Session
from alicorn.runtime.state import RunState, fold
from alicorn.runtime.world import Clock, IdSource, RandomIds, SystemClock

#: Until Anvil decides, any effect above this class needs a journaled human approval.
APPROVAL_THRESHOLD: EffectClass = "local_write"


def control_stream(run_id: str) -> str:
    """The stream where requests about a run (cancellation) are written by other processes."""
    return f"control:{run_id}"


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


@dataclass(frozen=True)
class Resolution:
    """A human's answer about an effect whose outcome was unknown: applied (with its output) or not applied."""

    node: str
    applied: bool
    by: str
    output: dict[str, Any] | None = None


class Controls(Protocol):
    def cancel_request(self, run_id: str, next_seq: int) -> dict[str, Any] | None:
        """A pending cancellation {by, reason}, or None. `next_seq` is where its event would go (for replay)."""


class StoreControls:
    """Reads cancellation requests from the run's control stream in the journal."""

    def __init__(self, store: JournalStore) -> None:
        self._store = store

    def cancel_request(self, run_id: str, next_seq: int) -> dict[str, Any] | None:
        stream = control_stream(run_id)
        if self._store.head(stream) is None:
            return None
        requests = [e.data for e in self._store.read(stream) if e.kind == "cancel.requested"]
        return requests[-1] if requests else None


def request_cancel(store: JournalStore, run_id: str, by: str, reason: str, at: str) -> None:
    """Ask whoever drives `run_id` to cancel it: no new effects, then compensation of completed ones."""
    store.require(run_id)
    stream = control_stream(run_id)
    store.append(stream, [Draft("cancel.requested", at, {"by": by, "reason": reason})], expect=store.last_seq(stream))


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
        controls: Controls | None = None,
        on_events: EventListener | None = None,
        crash: CrashPoints = DISARMED,
        poll_s: float = 0.1,
    ) -> None:
        registry.check()
        self.store = store
        self.registry = registry
        self.environment = environment
        self.clock = clock or SystemClock()
        self.ids = ids or RandomIds(self.clock)
        self._dispatcher_factory = dispatcher_factory or _thread_dispatcher
        self.controls: Controls = controls or StoreControls(store)
        self.on_events = on_events
        self.crash = crash
        self.poll_s = poll_s

    def make_dispatcher(self, run_id: str) -> Dispatcher:
        return self._dispatcher_factory(self, run_id)

    # ---- public -----------------------------------------------------------------------------------------------

    def start(self, plan: Plan, *, approvals: Iterable[Approval] = (), run_id: str | None = None) -> RunState:
        """Validate `plan`, journal the run's creation, and drive it until it finishes, blocks or awaits approval."""
        plan = validate_plan(plan, self.registry, self.environment.resources)
        run_id = run_id or self.ids.run_id()
        if self.store.head(run_id) is not None:
            raise RunError(f"run {run_id!r} already exists; use `alicorn resume {run_id}`")
        effects = plan_effects(plan, self.registry)
        with self.store.lock(run_id):
            session = Session(self, run_id, RunState(run_id=run_id), plan, committed=0)
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
            _grant(session, approvals)
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

    def resume(
        self, run_id: str, *, approvals: Iterable[Approval] = (), resolutions: Iterable[Resolution] = ()
    ) -> RunState:
        """Continue a run from the fold of its journal: finished nodes are not redone, unsafe effects not repeated."""
        with self.store.lock(run_id):
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
                    f"{self.registry.fingerprint()}); resume it with the Alicorn version and operations that "
                    "started it"
                )
            plan = Plan.model_validate(state.plan)
            was_blocked = state.status == "blocked"
            session = Session(self, run_id, state, plan, committed=events[-1].seq)
            session.begin()
            interrupted = _interrupted(state)
            session.emit("run.resumed", {"session": state.sessions + 1, "interrupted": interrupted})
            _grant(session, approvals)
            if state.status == "awaiting_approval":
                effects = ", ".join(state.awaiting["effects"]) if state.awaiting else "effects"
                raise ApprovalRequiredError(
                    f"run {run_id} is waiting for a human to approve its {effects}; nothing was done. Approve with "
                    f"`alicorn resume {run_id} --approve` (journaled with your name)"
                )
            resolutions = list(resolutions)
            if was_blocked and not resolutions:
                raise RunError(
                    f"run {run_id} waits for a human to say whether these effects happened: "
                    + ", ".join(f"{n} (key {state.nodes[n].key})" for n in state.blocked())
                    + f". Check the target system, then `alicorn resume {run_id} --resolve NODE=applied` (or "
                    "=not-applied); nothing was done"
                )
            _resolve(session, resolutions)
            for item in interrupted:
                if item["purpose"] == "compensate":
                    saga.recover(session, item["node"])
                else:
                    session.recover(item["node"])
            return session.drive()


def _interrupted(state: RunState) -> list[dict[str, Any]]:
    """Calls that were in flight when the previous session ended."""
    items = [{"node": n.node_id, "attempt": n.attempt, "purpose": "run"} for n in state.in_flight()]
    items += [
        {"node": e.node, "attempt": e.compensation_attempt, "purpose": "compensate"}
        for e in state.effects_log.values()
        if e.status == "compensating"
    ]
    return items


def _grant(session: Session, approvals: Iterable[Approval]) -> None:
    for approval in approvals:
        session.emit(
            "approval.granted",
            {
                "by": approval.by,
                "comment": approval.comment,
                "plan_hash": session.state.plan_hash,
                "effects": sorted(session.state.effects),
            },
        )


def _resolve(session: Session, resolutions: Iterable[Resolution]) -> None:
    state = session.state
    for res in resolutions:
        ns = state.nodes.get(res.node)
        effect = state.effects_log.get(res.node)
        if ns is None or effect is None or ns.status != "blocked":
            waiting = ", ".join(state.blocked()) or "none"
            raise RunError(
                f"node {res.node!r} of run {session.run_id} has no effect waiting for a decision (waiting: "
                f"{waiting}); nothing was done"
            )
        output: dict[str, Any] = {}
        if res.applied:
            try:
                output = session.op(res.node).outputs.model_validate(res.output or {}).model_dump(mode="json")
            except ValidationError as exc:
                raise RunError(
                    f"the output given for {res.node!r} does not match {session.op(res.node).name}'s outputs "
                    f"({exc.errors()[0]['msg']}); give it as --output JSON; nothing was done"
                ) from None
        session.emit(
            "effect.resolved",
            {
                "node": res.node,
                "attempt": ns.attempt,
                "key": effect.key,
                "applied": res.applied,
                "by": res.by,
                **({"output": output} if res.applied else {}),
            },
        )
        if res.applied:
            session.emit(
                "tool.result", {"node": res.node, "attempt": ns.attempt, "ok": True, "output": output, "via": "human"}
            )
            session.emit("effect.done", {"node": res.node, "attempt": ns.attempt, "key": effect.key})
            session.succeed(session.nodes[res.node], ns.attempt, output)
        else:
            session.dirty.add(res.node)


def _thread_dispatcher(executor: Executor, run_id: str) -> Dispatcher:
    env = executor.environment
    workspace = env.workspace(run_id)

    def make_context(call: Call, cancel: threading.Event) -> OperationContext:
        workspace.mkdir(parents=True, exist_ok=True)
        return OperationContext(run_id, call.node, call.attempt, call.key, workspace, env.data_root, cancel)

    return ThreadDispatcher(executor.registry, make_context, executor.clock, executor.crash)
