"""Many runs driven by one thread (runtime.together, `Executor.start_many`), on each engine.

What must hold is what holds for a run driven alone: every step durable before its calls run, each run's journal
what its own session would write (replay, which drives one session alone, regenerates it byte for byte), a
cancellation, a timeout, a refused plan and a failed append each confined to their own run. And what it is for:
the steps of the runs that moved at once share one commit.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from alicorn.errors import ConcurrentAppendError, PlanError, StreamLockedError
from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.runtime.executor import request_cancel
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import RunState, fold
from alicorn.testing.commits import count_commits
from tests.runtime.support import Behaviour, Number, executor, kinds, make_plan, ref, val


def chain(n: int, operation: str = "t.inc") -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = [{"node_id": "n0", "operation": operation, "inputs": {"x": val(0)}}]
    nodes += [{"node_id": f"n{i}", "operation": operation, "inputs": {"x": ref(f"n{i - 1}", "x")}} for i in range(1, n)]
    return nodes


def states(answers: list[RunState | Exception]) -> list[RunState]:
    assert all(isinstance(a, RunState) for a in answers), answers
    return [a for a in answers if isinstance(a, RunState)]


def test_runs_driven_together_end_as_if_driven_alone_and_replay_verifies_each(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    plans = [make_plan(chain(5), goal=f"chain {i}") for i in range(6)]
    together = states(executor(store, reg, tmp_path, durability="step").start_many(plans))
    alone = executor(store, reg, tmp_path, durability="step").start(plans[0])
    assert [s.status for s in together] == ["succeeded"] * 6
    assert len({s.run_id for s in together}) == 6
    for state in together:
        assert state.nodes["n4"].output == {"x": 5}
        # the same events, in the same order, as the run driven alone
        assert kinds(store, state.run_id) == kinds(store, alone.run_id)
        # replay drives one session alone: it regenerates what the shared driver wrote, byte for byte
        report = replay_run(store, state.run_id, reg)
        assert report.status == "succeeded" and report.events == len(store.read(state.run_id))
        assert fold(store.read(state.run_id), state.run_id).status == "succeeded"


def test_every_call_runs_only_after_its_step_is_committed(tmp_path: Path) -> None:
    """The operation reads the journal through another connection: its own `tool.call` must already be there."""
    store = SQLiteStore(tmp_path / "journal.db")
    reader = SQLiteStore(tmp_path / "journal.db")
    seen: list[bool] = []

    def check(i: Number, ctx: OperationContext) -> Number:
        calls = [e for e in reader.read(ctx.run_id) if e.kind == "tool.call" and e.data["node"] == ctx.node_id]
        seen.append(bool(calls) and calls[-1].data["attempt"] == ctx.attempt)
        return Number(x=i.x + 1)

    reg = Registry([Operation("t.check", "look at the journal", Number, Number, "none", "repeatable", check)])
    plans = [make_plan(chain(4, "t.check"), goal=f"g{i}") for i in range(5)]
    try:
        answers = executor(store, reg, tmp_path, durability="step").start_many(plans)
        assert [s.status for s in states(answers)] == ["succeeded"] * 5
        assert seen == [True] * 20
    finally:
        reader.close()
        store.close()


def test_the_steps_of_runs_that_moved_at_once_share_one_commit(tmp_path: Path) -> None:
    def add(i: Number, ctx: OperationContext) -> Number:
        return Number(x=i.x + 1)

    reg = Registry([Operation("t.add", "add one", Number, Number, "none", "repeatable", add, inline=True)])
    store = SQLiteStore(tmp_path / "journal.db")
    try:
        commits = count_commits(store)
        plans = [make_plan(chain(10, "t.add"), goal=f"g{i}") for i in range(8)]
        answers = executor(store, reg, tmp_path, durability="step").start_many(plans)
        assert [s.status for s in states(answers)] == ["succeeded"] * 8
        # 8 runs x 10 steps, each durable before the next: one commit opens them all, then one per round (an inline
        # operation's outcome is ready for the next round), the last round finishing all eight
        assert commits[0] == 1 + 10, commits[0]
    finally:
        store.close()


def test_a_refused_plan_and_a_run_awaiting_approval_take_their_own_slots(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    bad = make_plan([{"node_id": "a", "operation": "t.inc", "depends_on": ["missing"]}])
    needs_approval = make_plan([{"node_id": "s", "operation": "t.send", "inputs": {"x": val(1)}}], goal="send")
    answers = executor(store, reg, tmp_path).start_many([make_plan(chain(3)), bad, needs_approval])
    assert isinstance(answers[0], RunState) and answers[0].status == "succeeded"
    assert isinstance(answers[1], PlanError)
    assert isinstance(answers[2], RunState) and answers[2].status == "awaiting_approval"
    assert behaviour.calls["send"] == 0


def test_a_run_whose_append_fails_ends_with_its_error_and_the_others_go_on(tmp_path: Path) -> None:
    """Another writer appends to one run's stream while it is driven: that run's next append conflicts."""
    store = SQLiteStore(tmp_path / "journal.db")
    intruder = SQLiteStore(tmp_path / "journal.db")
    hit = threading.Event()

    def step(i: Number, ctx: OperationContext) -> Number:
        if i.x == 1 and ctx.node_id == "n1" and ctx.run_id.endswith("-victim") and not hit.is_set():
            hit.set()
            intruder.append(ctx.run_id, [Draft("note.added", "2026-01-01T00:00:00Z", {})], expect=7)
        return Number(x=i.x + 1)

    reg = Registry([Operation("t.step", "count", Number, Number, "none", "repeatable", step)])
    ex = executor(store, reg, tmp_path, durability="step")
    ids = iter(["run-together-a", "run-together-victim", "run-together-b"])
    ex.ids.run_id = lambda: next(ids)  # type: ignore[method-assign]
    try:
        answers = ex.start_many([make_plan(chain(4, "t.step"), goal=f"g{i}") for i in range(3)])
        assert hit.is_set()
        assert isinstance(answers[1], ConcurrentAppendError), answers[1]
        assert [a.status for a in (answers[0], answers[2]) if isinstance(a, RunState)] == ["succeeded"] * 2
    finally:
        intruder.close()
        store.close()


def test_operations_on_workers_wake_the_driver_and_a_cancellation_stops_only_its_run(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    sleepy = [
        {"node_id": "a", "operation": "t.sleep", "inputs": {"seconds": val(0.05)}},
        {"node_id": "b", "operation": "t.sleep", "inputs": {"seconds": val(0.05)}, "depends_on": ["a"]},
    ]
    long = [{"node_id": "long", "operation": "t.sleep", "inputs": {"seconds": val(5.0)}}]
    ex = executor(store, reg, tmp_path, poll_s=0.02)
    ids = iter(["run-together-1", "run-together-2", "run-together-long"])
    ex.ids.run_id = lambda: next(ids)  # type: ignore[method-assign]

    def cancel_when_sleeping() -> None:
        for _ in range(500):
            if behaviour.calls["sleep"] >= 1 and store.head("run-together-long") is not None:
                break
            threading.Event().wait(0.01)
        request_cancel(store, "run-together-long", "human:ann", "too long", "2026-01-01T00:00:00Z")

    canceller = threading.Thread(target=cancel_when_sleeping)
    canceller.start()
    answers = ex.start_many([make_plan(sleepy, goal="s1"), make_plan(sleepy, goal="s2"), make_plan(long, goal="l")])
    canceller.join()
    done = states(answers)
    assert [s.status for s in done[:2]] == ["succeeded", "succeeded"]
    assert done[2].status == "cancelled"
    assert "run.cancelled" in kinds(store, "run-together-long")


def test_append_together_answers_each_append_in_order(store: JournalStore) -> None:
    first = store.append("run-t-taken", [Draft("x", "2026-01-01T00:00:00Z", {"i": 0})], expect=0)
    answers = store.append_together(
        [
            ("run-t-one", [Draft("x", "2026-01-01T00:00:00Z", {"i": 1})], 0),
            ("run-t-taken", [Draft("x", "2026-01-01T00:00:00Z", {"i": 2})], 0),  # its head is #1: a conflict
            ("run-t-two", [Draft("x", "2026-01-01T00:00:00Z", {"i": 3})] * 2, 0),
            ("run-t-none", [], 0),
        ]
    )
    assert isinstance(answers[0], list) and [e.seq for e in answers[0]] == [1]
    assert isinstance(answers[1], ConcurrentAppendError)
    assert isinstance(answers[2], list) and [e.seq for e in answers[2]] == [1, 2]
    assert answers[3] == []
    assert [e.line for e in store.read("run-t-taken")] == [first[0].line]  # the refused append wrote nothing
    assert store.last_seq("run-t-one") == 1 and store.last_seq("run-t-two") == 2
    with pytest.raises(ValueError, match="one append per stream"):
        store.append_together([("run-t-one", [Draft("x", "t", {})], 1), ("run-t-one", [Draft("x", "t", {})], 1)])


def test_the_run_listing_of_runs_driven_together_is_their_fold(tmp_path: Path, behaviour: Behaviour) -> None:
    """SQLite writes a group's rows in one batch, without savepoints: the summaries it keeps are still the fold's."""
    store = SQLiteStore(tmp_path / "journal.db")
    try:
        plans = [make_plan(chain(4), goal=f"goal {i}") for i in range(5)]
        done = states(executor(store, behaviour.registry(), tmp_path, durability="step").start_many(plans))
        listed = {s.stream: s for s in store.run_summaries(limit=None)}
        for state in done:
            row = listed[state.run_id]
            assert (row.status, row.nodes, row.succeeded) == ("succeeded", 4, 4)
            assert row.events == row.last_seq == len(store.read(state.run_id))
    finally:
        store.close()


def test_resume_many_drives_queued_runs_together_and_answers_a_locked_one_in_its_slot(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path, durability="step")
    queued = [ex.start(make_plan(chain(4), goal=f"queued {i}"), drive=False).run_id for i in range(4)]
    assert behaviour.calls["inc"] == 0
    commits = count_commits(store)
    with store.lock(queued[1]):  # someone else drives this one: it is answered with the error, the rest go on
        answers = ex.resume_many(queued)
    assert isinstance(answers[1], StreamLockedError) and "already being driven" in str(answers[1])
    done = [a for i, a in enumerate(answers) if i != 1]
    assert [s.status for s in states(done)] == ["succeeded"] * 3 and behaviour.calls["inc"] == 3 * 4
    if store.group_commit:  # where the engine groups commits: 3 runs x 5 commits each alone (opening + 4 steps)
        assert commits[0] <= 2 * 5
    for run in (queued[0], queued[2], queued[3]):
        assert replay_run(store, run, reg).status == "succeeded"
    assert fold(store.read(queued[1]), queued[1]).status == "running"  # untouched: still queued
