"""A session: one process driving one run, from a start or a resume until it finishes, blocks or waits.

It folds every event it appends, so the state it decides from is the journal's state. Each step is one append:
an outcome's result events, the transitions they cause, and the calls they unlock; calls are dispatched only after
that append commits. Effects follow the outbox rule: `effect.intended` (with the idempotency key) is committed
with the call before the operation runs, and `effect.done` / `effect.failed` / `effect.unknown` after.
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import Any

from alicorn import canonical
from alicorn.anvil.risk import PlanRisk
from alicorn.anvil.terms import RunTerms
from alicorn.errors import RunError
from alicorn.journal.events import Draft, Event
from alicorn.ops.registry import Operation
from alicorn.plan.criteria import describe, evaluate
from alicorn.plan.dsl import IdempotencyClass, LiteralInput, Node, Plan
from alicorn.runtime import admission, saga
from alicorn.runtime.dispatch import CERTAIN_FAILURES, Call, CancelSignal, Dispatcher, Outcome
from alicorn.runtime.needs import SessionNeeds
from alicorn.runtime.plan_decisions import SessionDecisions, plan_risk
from alicorn.runtime.state import RunState, apply
from alicorn.runtime.world import format_time, parse_time

#: Limits of a group of deferred effect-free events (durability "grouped").
GROUP_DELAY_S = 0.05
GROUP_MAX_EVENTS = 2048
_EFFECT_FREE_KINDS = frozenset(
    {"tool.call", "tool.result", "node.succeeded", "node.failed", "node.skipped", "node.requeued", "node.activated"}
)

#: Idempotency classes whose operations may simply run again after an interruption or an uncertain failure.
REPEATABLE: frozenset[IdempotencyClass] = frozenset({"repeatable", "idempotent", "keyed"})


@dataclass
class Session:
    needs: SessionNeeds
    run_id: str
    state: RunState
    plan: Plan
    committed: int
    drafts: list[Draft] = field(default_factory=list)
    deferred: list[Draft] = field(default_factory=list)  # effect-free events not yet durable ("grouped" runs)
    deferred_since: float = 0.0
    calls: list[Call] = field(default_factory=list)
    now: str = ""
    given_terms: InitVar[RunTerms | None] = None  # at start; a resumed run's terms come from its run.created

    def __post_init__(self, given_terms: RunTerms | None) -> None:
        self.terms: RunTerms = given_terms or RunTerms.from_created(self.state.terms)
        self.nodes = {n.node_id: n for n in self.plan.nodes}
        self.index = {n.node_id: i for i, n in enumerate(self.plan.nodes)}
        self.upstream_of = {n.node_id: sorted(n.upstream()) for n in self.plan.nodes}
        self.dependents: dict[str, list[str]] = {n.node_id: [] for n in self.plan.nodes}
        for n in self.plan.nodes:
            for up in self.upstream_of[n.node_id]:
                self.dependents[up].append(n.node_id)
        self.primary_of = {n.alternative: n.node_id for n in self.plan.nodes if n.alternative}
        self.dirty: set[str] = set(self.nodes)
        self.registry = self.needs.registry
        self.crash = self.needs.crash
        self.dispatcher: Dispatcher | None = None
        self._next_control_check = 0.0
        self.backoff: dict[str, str] = {}  # nodes requeued after a crash in the middle of a retry's wait
        self.decided = SessionDecisions()  # what every call's gate reads, once (runtime.plan_decisions)

    @cached_property
    def risk(self) -> PlanRisk:
        """The plan's whole-plan risk under the run's data labels (what Anvil decides on), assessed once per plan."""
        return plan_risk(self.plan, self.state.plan_hash, self.registry, self.terms.labels)

    @property
    def next_seq(self) -> int:
        """The seq the next emitted event will get."""
        return self.committed + len(self.deferred) + len(self.drafts) + 1

    # ---- journaling -------------------------------------------------------------------------------------------

    def begin(self) -> None:
        self.now = self.needs.clock.now()

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        apply(self.state, kind, self.now, data)
        self.drafts.append(Draft(kind, self.now, data))

    def commit(self) -> None:
        batch = self.take_batch()
        if batch:
            self.committed_batch(batch, self.needs.store.append(self.run_id, batch, expect=self.committed))

    def take_batch(self) -> list[Draft]:
        """The events this step must make durable now (with any deferred before them), or [] when there are none
        or they may wait (effect-free work of a grouped run, dispatched now). What `commit` appends; a driver of
        many sessions appends the batches of several in one transaction, then hands each its `committed_batch`."""
        if not self.drafts:
            return []
        if self._may_defer():
            # Effect-free work: dispatch now, make durable with a later batch (see Durability in needs.py).
            if not self.deferred:
                self.deferred_since = self.needs.clock.monotonic()
            self.deferred.extend(self.drafts)
            self.drafts = []
            self._dispatch()
            return []
        batch, self.deferred = self.deferred + self.drafts, []
        self.drafts = []
        kinds = {d.kind for d in batch}
        if "effect.intended" in kinds:
            self.crash.hit("before_intent_commit")
        if kinds & {"effect.done", "effect.failed", "effect.unknown", "effect.compensated", "compensation.failed"}:
            self.crash.hit("before_result_commit")
        return batch

    def committed_batch(self, batch: list[Draft], events: list[Event]) -> None:
        """`batch` (from `take_batch`) is durable as `events`: only now are its calls dispatched."""
        self.committed = events[-1].seq
        kinds = {d.kind for d in batch}
        if "effect.intended" in kinds:
            self.crash.hit("after_intent_commit")
        if "compensation.call" in kinds:
            self.crash.hit("mid_compensation")
        if self.needs.on_events is not None:
            self.needs.on_events(events)
        self._dispatch()

    def _dispatch(self) -> None:
        if self.calls:
            if self.dispatcher is None:
                self.dispatcher = self.needs.make_dispatcher(self.state)
            for call in self.calls:
                self.dispatcher.submit(call)
            self.calls = []

    def _may_defer(self) -> bool:
        """Whether this batch may wait for a later one to become durable: only grouped runs, only effect-free work."""
        if self.needs.durability != "grouped":
            return False
        if self.deferred and (
            len(self.deferred) >= GROUP_MAX_EVENTS
            or self.needs.clock.monotonic() - self.deferred_since >= GROUP_DELAY_S
        ):
            return False
        return all(
            d.kind in _EFFECT_FREE_KINDS and (d.kind != "tool.call" or d.data.get("effect") in ("none", "read"))
            for d in self.drafts
        )

    def flush(self) -> None:
        """Make deferred effect-free steps durable now."""
        if self.deferred:
            batch, self.deferred = self.deferred, []
            events = self.needs.store.append(self.run_id, batch, expect=self.committed)
            self.committed = events[-1].seq
            if self.needs.on_events is not None:
                self.needs.on_events(events)

    def op(self, node_id: str) -> Operation:
        return self.registry.get(self.nodes[node_id].operation)

    def idempotency(self, node_id: str) -> IdempotencyClass:
        return self.nodes[node_id].idempotency or self.op(node_id).idempotency

    # ---- driving ----------------------------------------------------------------------------------------------

    def drive(self) -> RunState:
        try:
            self.open()
            self.commit()
            while self.state.status == "running":
                if self.step(self.needs.poll_s):
                    self.commit()
            return self.state
        finally:
            if self.dispatcher is not None:
                self.dispatcher.close()

    def open(self) -> None:
        """The session's first move, before its first commit: a cancellation asked meanwhile, then what is ready."""
        self.check_controls(force=True)
        self.schedule()

    def step(self, wait: float) -> bool:
        """One move of a running session, up to its commit: a cancellation request, or the next outcome (waiting at
        most `wait` seconds for one) handled and what it unlocks scheduled. True when it emitted events to commit;
        False when no outcome came (deferred effect-free events that are due are made durable then)."""
        if not self.state.busy:
            raise RunError(f"run {self.run_id} has nothing running and cannot progress (internal error)")
        assert self.dispatcher is not None
        if self.check_controls():
            self.schedule()
            return True
        if self.deferred:
            wait = min(wait, max(0.0, self.deferred_since + GROUP_DELAY_S - self.needs.clock.monotonic()))
        outcome = self.dispatcher.next_outcome(wait)
        if outcome is None:
            if self.deferred and self.needs.clock.monotonic() - self.deferred_since >= GROUP_DELAY_S:
                self.flush()
            return False
        self.begin()
        if isinstance(outcome, CancelSignal):
            self.cancel(outcome.by, outcome.reason)
        else:
            self.handle(outcome)
        self.schedule()
        return True

    def check_controls(self, *, force: bool = False) -> bool:
        """Look for a cancellation request (at most every poll interval); journal it if there is one."""
        if self.state.stopping or self.state.finished:
            return False
        clock = self.needs.clock
        if not force and clock.monotonic() < self._next_control_check:
            return False
        self._next_control_check = clock.monotonic() + self.needs.poll_s
        request = self.needs.controls.cancel_request(self.run_id, self.next_seq)
        if request is None:
            return False
        if not self.drafts:
            self.begin()
        self.cancel(request["by"], request["reason"])
        return True

    def cancel(self, by: str, reason: str) -> None:
        self.emit("run.cancelled", {"by": by, "reason": reason})
        if self.dispatcher is not None:
            self.dispatcher.cancel_all()

    def handle(self, outcome: Outcome) -> None:
        if outcome.purpose == "compensate":
            saga.on_outcome(self, outcome)
            return
        ns = self.state.nodes.get(outcome.node)
        if ns is None or ns.status != "running" or ns.attempt != outcome.attempt:
            raise RunError(f"outcome for {outcome.node}#{outcome.attempt} matches no call in flight")
        if outcome.purpose == "lookup":
            self.on_lookup(outcome)
            return
        self.emit("tool.result", outcome.to_event())
        node = self.nodes[outcome.node]
        op = self.op(node.node_id)
        if outcome.ok:
            if op.has_effect:
                self.emit("effect.done", {"node": node.node_id, "attempt": outcome.attempt, "key": ns.key})
            self.succeed(node, outcome.attempt, outcome.output or {})
            return
        err = outcome.error or {}
        reason = f"{err.get('type')}: {err.get('message')}"
        if op.has_effect and not self.settle_failed_effect(node, outcome.attempt, str(err.get("type")), reason):
            return
        self.fail(node, reason, bool(err.get("retryable")))

    def settle_failed_effect(self, node: Node, attempt: int, error_type: str, reason: str) -> bool:
        """Journal what a failed effect's outcome is. True when the node may be failed and retried as usual."""
        base = {"node": node.node_id, "attempt": attempt, "key": self.state.nodes[node.node_id].key}
        if error_type in CERTAIN_FAILURES:
            self.emit("effect.failed", {**base, "certain": True, "reason": reason})
            return True
        if self.idempotency(node.node_id) in REPEATABLE:
            self.emit("effect.failed", {**base, "certain": False, "reason": reason})
            return True
        self.uncertain(node.node_id, attempt, reason)
        return False

    def uncertain(self, node_id: str, attempt: int, reason: str, *, interrupted: bool = False) -> None:
        """An unsafe effect may or may not have happened: ask the target if it can say, else ask a human."""
        key = self.state.nodes[node_id].key or ""
        base = {"node": node_id, "attempt": attempt, "key": key}
        if self.op(node_id).lookup is not None:
            # An interruption (a crash) is not the operation's failure: if the target says "not applied", the
            # attempt is simply made again without using up the retry policy.
            self.emit("effect.check", {**base, "reason": reason, **({"interrupted": True} if interrupted else {})})
            self.calls.append(
                Call(
                    node_id,
                    attempt,
                    self.op(node_id).name,
                    self.resolve(self.nodes[node_id])[0],
                    key,
                    self.op(node_id).timeout_s,
                    purpose="lookup",
                )
            )
            return
        self.emit(
            "effect.unknown",
            {
                **base,
                "reason": f"{reason}; the effect may have happened and {self.op(node_id).name} cannot be asked. "
                f"Check the target, then `alicorn resume {self.run_id} --resolve {node_id}=applied|not-applied`",
            },
        )
        self.touch(node_id)

    def on_lookup(self, outcome: Outcome) -> None:
        node = self.nodes[outcome.node]
        key = self.state.nodes[node.node_id].key
        base = {"node": node.node_id, "attempt": outcome.attempt, "key": key}
        if not outcome.ok:
            err = outcome.error or {}
            self.emit("effect.checked", {**base, "ok": False, "error": err})
            self.emit(
                "effect.unknown",
                {
                    **base,
                    "reason": f"the lookup failed ({err.get('message')}); the effect "
                    f"may have happened. Check the target, then `alicorn resume {self.run_id} "
                    f"--resolve {node.node_id}=applied|not-applied`",
                },
            )
            self.touch(node.node_id)
            return
        found = outcome.output or {}
        self.emit("effect.checked", {**base, "ok": True, "applied": found.get("applied", False)})
        if found.get("applied"):
            output = found.get("output") or {}
            self.emit(
                "tool.result",
                {"node": node.node_id, "attempt": outcome.attempt, "ok": True, "output": output, "via": "lookup"},
            )
            self.emit("effect.done", base)
            self.succeed(node, outcome.attempt, output)
            return
        reason = "the target says the effect was not applied"
        self.emit("effect.failed", {**base, "certain": True, "reason": reason})
        if self.state.effects_log[node.node_id].interrupted:
            self.emit("node.requeued", {"node": node.node_id, "attempt": outcome.attempt, "reason": reason})
            self.dirty.add(node.node_id)
            return
        self.fail(node, reason, retryable=True)

    def succeed(self, node: Node, attempt: int, output: dict[str, Any]) -> None:
        if node.completion is not None and not evaluate(node.completion, output):
            # Repeating an effect to get a better answer would repeat the effect: only effect-free nodes retry.
            self.fail(
                node,
                f"completion criterion not met: {describe(node.completion)}",
                retryable=not self.op(node.node_id).has_effect,
            )
            return
        self.emit("node.succeeded", {"node": node.node_id, "attempt": attempt})
        self.touch(node.node_id)
        stop = node.stop
        # A run already stopping (cancelled, or stopped by a failure) keeps that cause: a later condition-stop
        # must not turn a cancellation into a plain stop and so skip the compensation it is owed.
        if stop is not None and stop.when is not None and not self.state.stopping and evaluate(stop.when, output):
            self.emit("run.stopped", {"node": node.node_id, "reason": stop.reason, "cause": "condition"})

    def fail(self, node: Node, reason: str, retryable: bool) -> None:
        ns = self.state.nodes[node.node_id]
        policy = node.retry or self.op(node.node_id).retry
        data: dict[str, Any] = {"node": node.node_id, "attempt": ns.attempt, "reason": reason}
        if retryable and ns.failures + 1 < policy.max_attempts and not self.state.stopping:
            delay = policy.delay_after(ns.failures + 1)
            self.emit("node.failed", {**data, "final": False, "retry_in_s": delay})
            self.call(node, format_time(parse_time(self.now) + timedelta(seconds=delay)) if delay > 0 else None)
            return
        self.emit("node.failed", {**data, "final": True})
        self.touch(node.node_id)
        if node.alternative is not None and not self.state.stopping:
            self.emit("node.activated", {"node": node.alternative, "instead_of": node.node_id})
            self.dirty.add(node.alternative)
            return
        current: str | None = node.node_id
        while current is not None:
            stop = self.nodes[current].stop
            if stop is not None and not self.state.stopping:
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

    # ---- recovery ---------------------------------------------------------------------------------------------

    def recover(self, node_id: str) -> None:
        """A node was in flight when the previous session died: continue it only in ways that are safe."""
        ns = self.state.nodes[node_id]
        op = self.op(node_id)
        effect = self.state.effects_log.get(node_id)
        if op.has_effect and effect is not None and effect.status in ("intended", "checking"):
            reason = "the process stopped while it ran"
            if effect.status == "checking" or self.idempotency(node_id) not in REPEATABLE:
                self.uncertain(node_id, ns.attempt, reason, interrupted=True)
                return
            self.emit(
                "effect.failed",
                {
                    "node": node_id,
                    "attempt": ns.attempt,
                    "key": effect.key,
                    "certain": False,
                    "reason": f"{reason}; repeating it is safe ({self.idempotency(node_id)})",
                },
            )
        if ns.not_before is not None and ns.not_before > self.now:
            self.backoff[node_id] = ns.not_before  # a crash does not cut a retry's wait short
        self.emit("node.requeued", {"node": node_id, "attempt": ns.attempt, "reason": "interrupted"})
        self.dirty.add(node_id)

    # ---- scheduling -------------------------------------------------------------------------------------------

    def schedule(self) -> None:
        state = self.state
        if state.finished or state.status == "blocked":
            return
        if not state.stopping:
            self._schedule_ready()
        if state.stopping:  # stopped before, or a budget ran out while scheduling
            for node_id in state.order:
                if state.nodes[node_id].status in ("pending", "standby"):
                    self.emit("node.skipped", {"node": node_id, "reason": f"run stopped: {state.stop_reason}"})
            if not state.busy:
                saga.conclude(self)
            return
        if state.open_nodes == 0:
            saga.conclude(self)
        elif state.running == 0 and state.blocked():
            self.emit(
                "run.blocked",
                {
                    "nodes": state.blocked(),
                    "reason": "effects with unknown outcomes need a human decision before the run can go on",
                },
            )

    def _schedule_ready(self) -> None:
        state = self.state
        limit = self.state.max_parallel or self.needs.max_parallel  # the run's own, as recorded
        skipped_any = True
        while skipped_any and not state.stopping:  # a skip can settle nodes further down: repeat until no change
            skipped_any = False
            for node_id in sorted(self.dirty, key=self.index.__getitem__):
                if state.stopping:
                    break
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
                    self.call(self.nodes[node_id], self.backoff.pop(node_id, None))
                    self.dirty.discard(node_id)
                elif verdict == "wait":
                    self.dirty.discard(node_id)  # re-examined when an upstream node changes

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

    def resolve(self, node: Node) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the values the operation receives, what the journal records: literals, and references by digest)."""
        resolved: dict[str, Any] = {}
        journaled: dict[str, Any] = {}
        for name, binding in sorted(node.inputs.items()):
            if isinstance(binding, LiteralInput):
                resolved[name] = journaled[name] = binding.value
                continue
            ref = binding.ref
            value = (self.state.effective_output(ref.node) or {}).get(ref.output)
            resolved[name] = value
            # The digest of the value as the journal stores it (secrets redacted): never a secret's hash, and the
            # same digest when a replay reads the value back from the journal.
            digest = canonical.sha256_text(self.needs.store.secrets.redact_encoded(value)[1])
            journaled[name] = {"ref": f"{ref.node}.{ref.output}", "sha256": digest}
        return resolved, journaled

    def call(self, node: Node, not_before: str | None) -> None:
        ns = self.state.nodes[node.node_id]
        op = self.op(node.node_id)
        if admission.over_budget(self, node.node_id, op):
            return  # the run is stopping: the node stays pending and is skipped
        resolved, journaled = self.resolve(node)
        refused = admission.refused(self, node.node_id, op, resolved)
        if refused is not None:  # the resolved source is secret and the terms do not allow it: nothing is called
            self.fail(node, refused, retryable=False)
            return
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
        if op.has_effect:
            self.emit(
                "effect.intended",
                {
                    "node": node.node_id,
                    "attempt": attempt,
                    "key": key,
                    "op": op.name,
                    "effect": op.effect,
                },
            )
        self.calls.append(Call(node.node_id, attempt, op.name, resolved, key, timeout, not_before))
