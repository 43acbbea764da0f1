"""The outbox rule, effect outcomes, lookups, unknown outcomes and human resolutions (in process)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from alicorn.errors import RunError
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import LookupResult, Operation, OperationContext, Registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Approval, Executor, Resolution, RunEnvironment
from alicorn.runtime.replay import replay_run
from alicorn.testing import ledger
from alicorn.testing.ledger import PostInputs, PostOutputs
from alicorn.testing.ledger import testing_registry as registry_with_ledger

APPROVE = [Approval("human:tester")]


def plan(*nodes: dict[str, Any]) -> Plan:
    return Plan.model_validate({"goal": "effects", "goal_hash": goal_digest("effects"), "nodes": list(nodes)})


def post(node_id: str, op: str = "ledger.post", amount: int = 10, **extra: Any) -> dict[str, Any]:
    inputs = {"ledger": {"value": "ledger.db"}, "account": {"value": f"acct-{node_id}"}, "amount": {"value": amount}}
    return {"node_id": node_id, "operation": op, "inputs": inputs, **extra}


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = SQLiteStore(tmp_path / "journal.db")
    yield s
    s.close()


def make(store: JournalStore, tmp_path: Path, registry: Registry | None = None) -> Executor:
    return Executor(store, registry or registry_with_ledger(), RunEnvironment(tmp_path / "ws", tmp_path), poll_s=0.02)


def kinds(store: JournalStore, run_id: str) -> list[str]:
    return [e.kind for e in store.read(run_id)]


def test_intent_is_committed_with_the_call_and_done_with_the_result(store: JournalStore, tmp_path: Path) -> None:
    batches: list[list[str]] = []
    ex = make(store, tmp_path)
    ex.on_events = lambda evs: batches.append([e.kind for e in evs])
    state = ex.start(plan(post("pay")), approvals=APPROVE)
    assert state.status == "succeeded"
    assert batches[0] == [
        "run.created",
        "approval.granted",
        "anvil.inputs",
        "anvil.check",  # allowed by the approval, journaled before the effect is intended
        "tool.call",
        "effect.intended",
    ]
    assert batches[1] == ["tool.result", "effect.done", "node.succeeded", "run.finished"]
    events = store.read(state.run_id)
    intended = next(e for e in events if e.kind == "effect.intended")
    assert ledger.applied_keys(tmp_path / "ledger.db") == {intended.data["key"]: 1}  # the operation got the key
    assert replay_run(store, state.run_id, registry_with_ledger()).events == len(events)


def _flaky_registry(behaviour: str) -> Registry:
    """The ledger operations plus `flaky.post`, which applies the post and then fails in a chosen way."""
    base = registry_with_ledger()
    calls = {"n": 0}
    real = base.get("ledger.post_once").run

    def flaky(inputs: PostInputs, ctx: OperationContext) -> PostOutputs:
        calls["n"] += 1
        out = real(inputs, ctx)
        if calls["n"] == 1:
            if behaviour == "hang":
                ctx.cancelled.wait(30)
            raise RuntimeError("connection reset after the write")
        return out  # type: ignore[return-value]

    def lookup(inputs: PostInputs, ctx: OperationContext) -> LookupResult:
        return ledger.lookup(inputs, ctx)

    for name, idem, look in (
        ("flaky.keyed", "keyed", None),
        ("flaky.lookup", "unsafe", lookup),
        ("flaky.blind", "unsafe", None),
    ):
        op = base.get("ledger.post_once")
        base.register(
            Operation(
                name,
                "fails after applying",
                PostInputs,
                PostOutputs,
                op.effect,
                idem,  # type: ignore[arg-type]
                flaky,
                timeout_s=0.3,
                retry=op.retry,
                compensation="ledger.revert",
                lookup=look,
            )
        )
    return base


def test_uncertain_failure_of_a_keyed_effect_is_retried_with_the_same_key(store: JournalStore, tmp_path: Path) -> None:
    # flaky.keyed wraps a non-deduplicating write, so a second application would show as a duplicate in the ledger;
    # its declaration says "keyed", and the run retries with the same key — here the ledger sees it twice.
    registry = _flaky_registry("raise")
    state = make(store, tmp_path, registry).start(plan(post("pay", "flaky.keyed")), approvals=APPROVE)
    assert state.status == "succeeded"
    failed = next(e.data for e in store.read(state.run_id) if e.kind == "effect.failed")
    assert failed["certain"] is False
    calls = [e.data["key"] for e in store.read(state.run_id) if e.kind == "tool.call"]
    assert len(calls) == 2 and len(set(calls)) == 1


def test_unsafe_effect_with_lookup_is_resolved_by_asking_the_target(store: JournalStore, tmp_path: Path) -> None:
    for behaviour in ("raise", "hang"):
        registry = _flaky_registry(behaviour)
        state = make(store, tmp_path, registry).start(plan(post(f"pay{behaviour}", "flaky.lookup")), approvals=APPROVE)
        assert state.status == "succeeded", behaviour
        seen = kinds(store, state.run_id)
        assert "effect.check" in seen and "effect.checked" in seen
        assert seen.count("tool.call") == 1  # not repeated: the lookup said it was applied
        assert ledger.duplicates(tmp_path / "ledger.db") == {}
        assert replay_run(store, state.run_id, registry).sessions == 1


def test_unsafe_effect_without_lookup_blocks_for_a_human(store: JournalStore, tmp_path: Path) -> None:
    registry = _flaky_registry("raise")
    ex = make(store, tmp_path, registry)
    state = ex.start(
        plan(
            post("pay", "flaky.blind"),
            {"node_id": "other", "operation": "util.noop"},
            {"node_id": "after", "operation": "util.noop", "depends_on": ["pay"]},
        ),
        approvals=APPROVE,
    )
    assert state.status == "blocked"
    assert state.nodes["other"].status == "succeeded"  # independent work went on
    assert state.nodes["pay"].status == "blocked" and state.nodes["after"].status == "pending"
    unknown = next(e.data for e in store.read(state.run_id) if e.kind == "effect.unknown")
    assert "--resolve pay=applied|not-applied" in unknown["reason"]
    before = [e.line for e in store.read(state.run_id)]
    with pytest.raises(RunError, match="waits for a human"):
        ex.resume(state.run_id)
    with pytest.raises(RunError, match="no effect waiting"):
        ex.resume(state.run_id, resolutions=[Resolution("other", True, "human:x")])
    with pytest.raises(RunError, match="does not match"):
        ex.resume(state.run_id, resolutions=[Resolution("pay", True, "human:x", {"entry": "nope"})])
    assert [e.line for e in store.read(state.run_id)] == before  # refusals write nothing
    row = ledger.applied_keys(tmp_path / "ledger.db")
    assert list(row.values()) == [1]
    state = ex.resume(
        state.run_id,
        resolutions=[Resolution("pay", True, "human:alice", {"entry": 1, "account": "acct-pay", "amount": 10})],
    )
    assert state.status == "succeeded" and state.nodes["after"].status == "succeeded"
    assert ledger.duplicates(tmp_path / "ledger.db") == {}
    assert replay_run(store, state.run_id, registry).sessions == 2


def test_resolving_not_applied_runs_the_effect_again_once(store: JournalStore, tmp_path: Path) -> None:
    registry = _flaky_registry("raise")
    ex = make(store, tmp_path, registry)
    state = ex.start(plan(post("pay", "flaky.blind")), approvals=APPROVE)
    assert state.status == "blocked"
    state = ex.resume(state.run_id, resolutions=[Resolution("pay", False, "human:alice")])
    assert state.status == "succeeded"
    assert kinds(store, state.run_id).count("tool.call") == 2
    assert replay_run(store, state.run_id, registry).sessions == 2


def test_saga_compensates_completed_effects_in_reverse_order(store: JournalStore, tmp_path: Path) -> None:
    p = plan(
        post("first"),
        post("second", "ledger.post_once", depends_on=["first"]),
        post("third", "ledger.post_blind", depends_on=["second"]),
        {
            "node_id": "boom",
            "operation": "testing.fail",
            "depends_on": ["third"],
            "critical": True,
            "stop": {"reason": "the last step failed: undo the posts"},
        },
    )
    state = make(store, tmp_path).start(p, approvals=APPROVE)
    assert state.status == "stopped"
    events = store.read(state.run_id)
    assert next(e.data for e in events if e.kind == "saga.started")["order"] == ["third", "second", "first"]
    assert [e.data["node"] for e in events if e.kind == "effect.compensated"] == ["third", "second", "first"]
    keys = {e.data["node"]: e.data["key"] for e in events if e.kind == "effect.intended"}
    assert ledger.reverted_keys(tmp_path / "ledger.db") == set(keys.values())
    finished = events[-1].data
    assert finished["status"] == "stopped"
    assert finished["effects"]["compensated"] == ["first", "second", "third"]
    assert finished["effects"]["left_undone"] == []
    assert replay_run(store, state.run_id, registry_with_ledger()).events == len(events)


def test_partial_runs_keep_their_effects(store: JournalStore, tmp_path: Path) -> None:
    p = plan(post("kept"), {"node_id": "boom", "operation": "testing.fail"})
    state = make(store, tmp_path).start(p, approvals=APPROVE)
    assert state.status == "partial"
    assert "saga.started" not in kinds(store, state.run_id)
    assert ledger.reverted_keys(tmp_path / "ledger.db") == set()


class _NoUndo(BaseModel):
    pass


def test_a_failed_compensation_is_reported_as_left_undone(store: JournalStore, tmp_path: Path) -> None:
    registry = registry_with_ledger()

    def broken(inputs: Any, ctx: OperationContext) -> Any:
        from alicorn.errors import OperationError

        raise OperationError("the ledger refuses the revert", retryable=False)

    undo = registry.get("ledger.revert")
    registry._ops["ledger.revert"] = Operation(
        undo.name, undo.summary, undo.inputs, undo.outputs, undo.effect, undo.idempotency, broken, retry=undo.retry
    )
    p = plan(
        post("first"),
        {
            "node_id": "boom",
            "operation": "testing.fail",
            "depends_on": ["first"],
            "critical": True,
            "stop": {"reason": "stop and undo"},
        },
    )
    state = make(store, tmp_path, registry).start(p, approvals=APPROVE)
    assert state.status == "stopped"
    finished = store.read(state.run_id)[-1].data
    assert finished["effects"]["compensated"] == []
    [left] = finished["effects"]["left_undone"]
    assert left["node"] == "first" and left["state"] == "compensation_failed"
    assert "refuses the revert" in left["reason"]


def test_cancellation_stops_new_effects_and_compensates(store: JournalStore, tmp_path: Path) -> None:
    from alicorn.runtime.executor import request_cancel

    p = plan(
        post("paid"),
        {"node_id": "wait", "operation": "util.sleep", "inputs": {"seconds": {"value": 30}}, "depends_on": ["paid"]},
        post("never", depends_on=["wait"]),
    )
    ex = make(store, tmp_path)
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.update(state=ex.start(p, approvals=APPROVE, run_id="run-c")))
    worker.start()
    deadline = threading.Event()
    while "wait" not in {e.data.get("node") for e in store.read("run-c") if e.kind == "tool.call"}:
        deadline.wait(0.01)
    other = SQLiteStore(tmp_path / "journal.db")  # another process would open its own store
    request_cancel(other, "run-c", "human:bob", "wrong month", "2026-11-30T00:00:00.000000Z")
    worker.join(20)
    state = result["state"]
    assert state.status == "cancelled"
    seen = kinds(store, "run-c")
    assert "run.cancelled" in seen and seen.index("run.cancelled") < seen.index("effect.compensated")
    assert state.nodes["never"].status == "skipped"
    assert ledger.applied_keys(tmp_path / "ledger.db") and len(ledger.applied_keys(tmp_path / "ledger.db")) == 1
    assert len(ledger.reverted_keys(tmp_path / "ledger.db")) == 1
    assert replay_run(store, "run-c", registry_with_ledger()).events == len(seen)
