"""A worker that drives several claimed runs together from one thread (`Worker(runs_at_once=K)`), on both engines:
the runs end as they would one at a time, their steps share commits, and each run keeps its own fence."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.broker.submit import broker_for, submit
from alicorn.broker.worker import Worker
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Operation, Registry
from alicorn.runtime.executor import Approval, Executor
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import RunState, fold
from alicorn.testing.commits import count_commits
from tests.broker.conftest import FakeSeconds
from tests.broker.test_broker import chain
from tests.runtime.support import Behaviour, Number, executor, make_plan, val


def test_runs_claimed_together_end_as_alone_and_share_their_commits(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path, durability="step")  # every step durable before the next: one commit each
    broker = broker_for(store, clock=seconds)
    runs = [submit(ex, broker, chain(5)).run_id for _ in range(6)]
    worker = Worker(broker, ex, name="worker:a", runs_at_once=4)
    commits = count_commits(store)
    first = worker.step_together()
    assert len(first) == 4 and {o.result for o in first} == {"done"}
    # 4 runs x 5 steps driven together: at most two commits per step of the chain (the operations run on worker
    # threads, so their outcomes may come in two rounds), where a run at a time commits 6 times per run: 24
    assert commits[0] <= 12
    second = worker.step_together()
    assert len(second) == 2 and {o.run for o in first + second} == set(runs) and worker.step_together() == []
    assert behaviour.calls["inc"] == 6 * 5
    for run in runs:
        final = fold(store.read(run), run)
        assert final.status == "succeeded" and final.nodes["n4"].output == {"x": 5}
        replay_run(store, run, reg)  # each run's events are what its own session writes
    assert {j.state for j in broker.jobs()} == {"done"}
    broker.close()


def test_a_run_taken_over_mid_drive_is_lost_alone_and_the_others_finish(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    """While three runs are driven together, one of them is taken over by another worker (its lease lapsed): that
    run's next append is refused by the database and it alone ends "lost"; the other two finish."""
    taken: list[object] = []

    def stall(i: Number, ctx: object) -> Number:
        if not taken:
            seconds.advance(100)  # every lease lapses; the other worker takes only the stalling run
            taken.append(broker.claim("worker:new", lease_s=10, accepts=lambda job: None if job.run == slow else "x"))
        return Number(x=i.x + 1)

    reg = Registry(
        [
            Operation("t.stall", "stall once", Number, Number, "none", "repeatable", stall),
            *behaviour.registry().operations(),
        ]
    )
    ex = executor(store, reg, tmp_path)
    broker = broker_for(store, clock=seconds)
    fast_a = submit(ex, broker, chain(3)).run_id
    slow = submit(ex, broker, chain(2, op="t.stall")).run_id
    fast_b = submit(ex, broker, chain(3)).run_id
    outcomes = {o.run: o for o in Worker(broker, ex, name="worker:old", lease_s=10, runs_at_once=3).step_together()}
    assert taken and taken[0] is not None
    assert outcomes[slow].result == "lost" and "worker:new" in outcomes[slow].note
    assert not fold(store.read(slow), slow).finished
    # the others' leases lapsed too but nobody took them: their appends still pass their own fences
    assert outcomes[fast_a].result == outcomes[fast_b].result == "done"
    assert fold(store.read(fast_a), fast_a).status == fold(store.read(fast_b), fast_b).status == "succeeded"
    broker.close()


def test_finished_waiting_and_locked_runs_are_settled_each_on_its_own(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store, clock=seconds)
    waiting = submit(ex, broker, make_plan([{"node_id": "send", "operation": "t.send", "inputs": {"x": val(5)}}]))
    assert waiting.status == "awaiting_approval"
    locked = submit(ex, broker, chain(1)).run_id
    plain = submit(ex, broker, chain(2)).run_id
    worker = Worker(broker, ex, name="worker:a", runs_at_once=5)
    with store.lock(locked):  # a person's command is driving it: given back, no failure counted
        outcomes = {o.run: o for o in worker.step_together()}
    assert outcomes[waiting.run_id].result == "waiting" and behaviour.calls["send"] == 0
    assert outcomes[locked].result == "released"
    assert outcomes[plain].result == "done"
    ex.resume(waiting.run_id, approvals=[Approval("human:alice", "ok")])
    seconds.advance(3600)  # the released run's back-off is over
    later = {o.run: o.result for o in worker.step_together()}
    assert later == {waiting.run_id: "done", locked: "done"} and behaviour.calls["send"] == 1
    broker.close()


def test_runs_at_once_must_be_positive(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store)
    try:
        Worker(broker, ex, runs_at_once=0)
    except ValueError as exc:
        assert "at least 1" in str(exc)
    else:
        raise AssertionError("runs_at_once=0 was accepted")
    finally:
        broker.close()


def test_a_bug_in_one_run_is_raised_after_the_others_are_settled(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store, clock=seconds)
    runs = [submit(ex, broker, chain(2)).run_id for _ in range(3)]

    def executor_for(state: RunState) -> Executor:
        if state.run_id == runs[1]:
            raise RuntimeError("a bug while choosing this run's executor")
        return ex

    worker = Worker(broker, ex, name="worker:a", runs_at_once=3, executor_for=executor_for)
    with pytest.raises(RuntimeError, match="a bug"):
        worker.step_together()
    jobs = {j.run: j.state for j in broker.jobs()}
    assert jobs[runs[0]] == jobs[runs[2]] == "done" and jobs[runs[1]] == "claimed"  # its lease lapses later
    assert fold(store.read(runs[0]), runs[0]).status == "succeeded"
    broker.close()
