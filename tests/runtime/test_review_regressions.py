"""Regressions found by review: each reproduced a real failure before its fix."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.builtin import builtin_operations
from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Approval, Executor, Resolution, RunEnvironment, request_cancel
from alicorn.runtime.replay import replay_run
from alicorn.testing import ledger
from alicorn.testing.ledger import ledger_operations
from tests.runtime.support import Behaviour, executor, make_plan, val, wait_for

AT = "2030-01-01T00:00:00.000000Z"


class _X(BaseModel):
    x: int = 0


def _probe(inputs: _X, ctx: OperationContext) -> _X:
    ctx.cancelled.wait(30)
    return _X(x=0)  # returns normally once cancelled


def test_a_condition_stop_after_a_cancellation_keeps_the_cancellation_and_its_saga(tmp_path: Path) -> None:
    registry = Registry(
        (
            *builtin_operations(),
            *ledger_operations(),
            Operation("t.probe", "probe", _X, _X, "none", "repeatable", _probe, timeout_s=60),
        )
    )
    post: dict[str, Any] = {
        "node_id": "paid",
        "operation": "ledger.post",
        "inputs": {"ledger": {"value": "ledger.db"}, "account": {"value": "a"}, "amount": {"value": 5}},
    }
    probe = {
        "node_id": "probe",
        "operation": "t.probe",
        "depends_on": ["paid"],
        "stop": {"reason": "nothing found", "when": {"kind": "check", "path": "x", "op": "lt", "value": 1}},
    }
    plan = Plan.model_validate({"goal": "g", "goal_hash": goal_digest("g"), "nodes": [post, probe]})
    with SQLiteStore(tmp_path / "j.db") as store:
        ex = Executor(store, registry, RunEnvironment(tmp_path / "ws", tmp_path), poll_s=0.02)
        out: dict[str, Any] = {}
        worker = threading.Thread(
            target=lambda: out.update(s=ex.start(plan, approvals=[Approval("human:t")], run_id="r1"))
        )
        worker.start()
        wait_for(lambda: "probe" in {e.data.get("node") for e in store.read("r1") if e.kind == "tool.call"})
        with SQLiteStore(tmp_path / "j.db") as other:
            request_cancel(other, "r1", "human:bob", "wrong", AT)
        worker.join(20)
        state = out["s"]
        assert (state.status, state.stop_cause) == ("cancelled", "cancelled")
        assert ledger.reverted_keys(tmp_path / "ledger.db") == set(ledger.applied_keys(tmp_path / "ledger.db"))
        assert replay_run(store, "r1", registry).status == "cancelled"


def test_a_resume_keeps_the_runs_own_parallel_limit(tmp_path: Path) -> None:
    behaviour = Behaviour()
    reg = behaviour.registry()
    nodes = [{"node_id": "u", "operation": "t.unsafe", "inputs": {"seconds": val(5)}, "timeout_s": 0.2}]
    nodes += [
        {"node_id": f"n{i}", "operation": "t.sleep", "inputs": {"seconds": val(0.1)}, "depends_on": ["u"]}
        for i in range(3)
    ]
    with SQLiteStore(tmp_path / "j.db") as store:
        state = executor(store, reg, tmp_path, max_parallel=1).start(
            make_plan(nodes), approvals=[Approval("human:t")], run_id="r2"
        )
        assert state.status == "blocked"
        state = executor(store, reg, tmp_path, max_parallel=4).resume(
            "r2", resolutions=[Resolution("u", True, "human:t", {"slept": 0})]
        )
        assert state.status == "succeeded" and behaviour.max_concurrent == 1
        assert replay_run(store, "r2", reg).sessions == 2


def test_cancelling_a_blocked_run_that_nobody_drives(tmp_path: Path) -> None:
    reg = Behaviour().registry()
    plan = make_plan(
        [
            {"node_id": "u", "operation": "t.unsafe", "inputs": {"seconds": val(5)}, "timeout_s": 0.2},
            {"node_id": "after", "operation": "t.inc", "depends_on": ["u"]},
        ]
    )
    with SQLiteStore(tmp_path / "j.db") as store:
        assert executor(store, reg, tmp_path).start(plan, approvals=[Approval("human:t")], run_id="r3").status == (
            "blocked"
        )
        request_cancel(store, "r3", "human:bob", "stop it", AT)
        state = executor(store, reg, tmp_path).resume("r3")  # what `alicorn cancel` does when nobody drives it
        assert state.status == "cancelled"
        finished = store.read("r3")[-1].data
        assert finished["effects"]["may_be_pending"] == ["u"]
        assert replay_run(store, "r3", reg).status == "cancelled"


def test_a_resume_writes_into_the_runs_own_workspace(tmp_path: Path) -> None:
    from alicorn.testing.ledger import testing_registry

    registry = testing_registry()
    write = {
        "node_id": "note",
        "operation": "workspace.write_file",
        "inputs": {"path": {"value": "note.txt"}, "content": {"value": "kept where the run started\n"}},
    }
    post = {
        "node_id": "paid",
        "operation": "ledger.post",
        "depends_on": ["note"],
        "inputs": {"ledger": {"value": "ledger.db"}, "account": {"value": "a"}, "amount": {"value": 5}},
    }
    plan = Plan.model_validate({"goal": "g", "goal_hash": goal_digest("g"), "nodes": [write, post]})
    with SQLiteStore(tmp_path / "j.db") as store:
        first = Executor(store, registry, RunEnvironment(tmp_path / "ws-first", tmp_path))
        assert first.start(plan, run_id="r4").status == "awaiting_approval"
        elsewhere = Executor(store, registry, RunEnvironment(tmp_path / "ws-other", tmp_path))
        assert elsewhere.resume("r4", approvals=[Approval("human:reviewer")]).status == "succeeded"
    assert (tmp_path / "ws-first" / "r4" / "note.txt").read_text() == "kept where the run started\n"
    assert not (tmp_path / "ws-other").exists()


def test_a_crash_during_a_retry_wait_does_not_cut_the_wait_short(tmp_path: Path) -> None:
    from alicorn.journal.transfer import import_lines
    from alicorn.testing.ledger import testing_registry

    registry = testing_registry()
    node = {
        "node_id": "fetch",
        "operation": "http.get_json",
        "inputs": {"url": {"value": "http://127.0.0.1:9/x"}},
        "retry": {"max_attempts": 3, "backoff_s": 30},
    }
    plan = Plan.model_validate({"goal": "g", "goal_hash": goal_digest("g"), "nodes": [node]})

    def calls(store: SQLiteStore) -> list[Any]:
        return [e for e in store.read("r5") if e.kind == "tool.call"] if store.head("r5") else []

    def run_in_thread(store: SQLiteStore, action: Any) -> threading.Thread:
        thread = threading.Thread(target=action, daemon=True)
        thread.start()
        return thread

    with SQLiteStore(tmp_path / "live.db") as live:
        # Nothing listens on port 9: the first attempt fails at once and a retry is journaled, due 30 s later.
        ex = Executor(live, registry, RunEnvironment(tmp_path / "ws", tmp_path), poll_s=0.02)
        first = run_in_thread(live, lambda: ex.start(plan, run_id="r5"))
        wait_for(lambda: len(calls(live)) == 2)
        due = calls(live)[1].data["not_before"]
        assert due is not None
        # A crash at this moment leaves exactly these events: copy them to a journal of their own and resume it.
        with SQLiteStore(tmp_path / "crashed.db") as crashed:
            import_lines(crashed, [e.line for e in live.read("r5")])
            resumed = Executor(crashed, registry, RunEnvironment(tmp_path / "ws", tmp_path), poll_s=0.02)
            second = run_in_thread(crashed, lambda: resumed.resume("r5"))
            wait_for(lambda: len(calls(crashed)) == 3)
            assert calls(crashed)[2].data["not_before"] == due  # the wait goes on; it does not restart at once
            request_cancel(crashed, "r5", "human:t", "end of test", AT)
            second.join(10)
        request_cancel(live, "r5", "human:t", "end of test", AT)
        first.join(10)
