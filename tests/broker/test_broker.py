"""The job broker on both engines: submission in the run's own transaction, claims, leases, fencing, fairness,
limits, versions and waiting runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.broker.jobs import BrokerError, LeaseLost, Limits
from alicorn.broker.submit import broker_for, submit
from alicorn.broker.worker import Worker
from alicorn.errors import PlanError
from alicorn.journal.events import Draft
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Operation, Registry
from alicorn.runtime.executor import Approval
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold
from tests.broker.conftest import FakeSeconds
from tests.runtime.support import Behaviour, Number, executor, make_plan, ref, val


def chain(n: int = 3, op: str = "t.inc"):
    nodes = [{"node_id": "n0", "operation": op, "inputs": {"x": val(0)}}]
    nodes += [{"node_id": f"n{i}", "operation": op, "inputs": {"x": ref(f"n{i - 1}", "x")}} for i in range(1, n)]
    return make_plan(nodes)


def test_a_submitted_run_is_journaled_with_its_job_and_a_worker_finishes_it(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path)
    broker = broker_for(store, clock=seconds)
    state = submit(ex, broker, chain(3))
    assert state.status == "running" and behaviour.calls["inc"] == 0  # nothing called yet
    assert [e.kind for e in store.read(state.run_id)] == ["run.created", "anvil.inputs", "anvil.check"]
    (job,) = broker.jobs()
    assert (job.run, job.state, job.epoch, job.operations) == (state.run_id, "ready", 0, ("t.inc",))

    outcome = Worker(broker, ex, name="worker:a").step()
    assert outcome is not None and outcome.result == "done"
    assert behaviour.calls["inc"] == 3
    final = fold(store.read(state.run_id), state.run_id)
    assert final.status == "succeeded" and final.nodes["n2"].output == {"x": 3}
    (job,) = broker.jobs()
    assert (job.state, job.epoch, job.worker) == ("done", 1, "worker:a")
    assert Worker(broker, ex, name="worker:b").step() is None  # nothing left to claim
    replay_run(store, state.run_id, reg)
    broker.close()


def test_a_refused_plan_leaves_neither_a_run_nor_a_job(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store, clock=seconds)
    with pytest.raises(PlanError):
        submit(ex, broker, chain(2, op="t.nowhere"), run_id="run-refused")
    assert store.head("run-refused") is None and broker.jobs() == []
    broker.close()


def test_an_expired_lease_is_taken_over_and_the_old_worker_is_fenced_out(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path)
    broker = broker_for(store, clock=seconds)
    run = submit(ex, broker, chain(2)).run_id
    old = broker.claim("worker:old", lease_s=10)
    assert old is not None and old.epoch == 1
    assert broker.claim("worker:new", lease_s=10) is None  # held: nobody else may take it
    seconds.advance(11)  # the old worker stalls past its lease
    new = broker.claim("worker:new", lease_s=10)
    assert new is not None and (new.epoch, new.taken_from) == (2, "worker:old")
    head = store.head(run)
    assert head is not None
    # The stalled worker comes back and tries to append: the database refuses it, nothing is written.
    with store.guard_appends(run, broker.fence(old)), pytest.raises(LeaseLost, match="worker:new"):
        store.append(run, [Draft("node.note", "2026-01-01T00:00:00.000000Z", {"x": 1})], expect=head.seq)
    assert store.head(run) == head
    assert not broker.renew(old, 10) and not broker.finish(old, "late")  # its renewals and results are refused too
    # The new holder's appends pass the same fence.
    with store.guard_appends(run, broker.fence(new)):
        state = ex.resume(run)
    assert state.status == "succeeded" and behaviour.calls["inc"] == 2
    assert broker.finish(new, "succeeded")
    broker.close()


def test_a_worker_whose_run_was_taken_over_mid_drive_stops_at_its_next_append(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    """The take-over happens while the first worker is driving (inside its first operation): its next append (the
    operation's result) is refused, the run is not finished by it, and the new holder finishes it."""
    taken: list[object] = []

    def stall(i: Number, ctx: object) -> Number:
        if not taken:
            seconds.advance(100)
            taken.append(broker.claim("worker:new", lease_s=10))
        return Number(x=i.x + 1)

    reg = Registry([Operation("t.stall", "stall once", Number, Number, "none", "repeatable", stall)])
    ex = executor(store, reg, tmp_path)
    broker = broker_for(store, clock=seconds)
    run = submit(ex, broker, chain(2, op="t.stall")).run_id
    outcome = Worker(broker, ex, name="worker:old", lease_s=10).step()
    assert outcome is not None and outcome.result == "lost" and "worker:new" in outcome.note
    assert not fold(store.read(run), run).finished
    (job,) = broker.jobs()
    assert (job.state, job.worker, job.epoch) == ("claimed", "worker:new", 2)
    seconds.advance(11)  # the new holder's lease lapses too (it never drove): a third worker takes it and finishes
    finisher = Worker(broker, ex, name="worker:third", lease_s=10).step()
    assert finisher is not None and finisher.result == "done" and finisher.taken_from == "worker:new"
    assert fold(store.read(run), run).status == "succeeded"
    broker.close()


def test_claims_are_fair_across_projects_and_keep_to_the_limits(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store, clock=seconds, limits=Limits(per_project={"big": 2}, per_operation={"t.sleep": 1}))

    def queued(plan: object, project: str) -> str:
        seconds.advance(1)  # one job a second: the order of submission is the order of the queue
        return submit(ex, broker, plan, terms=ex.default_terms.model_copy(update={"project": project})).run_id

    big = [queued(chain(1), "big") for _ in range(4)]
    small = queued(chain(1), "small")
    sleep = make_plan([{"node_id": "s", "operation": "t.sleep", "inputs": {"seconds": val(0)}}])
    sleepy = [queued(sleep, "default") for _ in range(2)]
    claims = [broker.claim(f"worker:{i}", lease_s=30) for i in range(6)]
    # The oldest first; then each project with nothing claimed before the older backlog of one that has; then big
    # again up to its limit of 2. Beyond the limits nothing: big's third and fourth, and a second t.sleep run.
    assert [c.run if c else None for c in claims] == [big[0], small, sleepy[0], big[1], None, None]
    broker.close()


def test_a_worker_with_other_operations_leaves_the_run_to_one_that_has_them(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store, clock=seconds)
    run = submit(ex, broker, chain(2)).run_id

    def other_inc(i: Number, ctx: object) -> Number:
        return Number(x=i.x + 2)

    other = Registry([Operation("t.inc", "add two", Number, Number, "local_write", "repeatable", other_inc)])
    stranger = Worker(broker, executor(store, other, tmp_path), name="worker:other-version")
    assert stranger.step() is None  # its t.inc has another contract: it claims nothing
    assert "t.inc (another contract)" in stranger.refused[run]
    (job,) = broker.jobs()
    assert (job.state, job.epoch) == ("ready", 0)
    outcome = Worker(broker, ex, name="worker:same").step()
    assert outcome is not None and outcome.result == "done"
    broker.close()


def test_a_run_waiting_for_a_person_sleeps_until_its_journal_moves_on(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path)
    broker = broker_for(store, clock=seconds)
    state = submit(ex, broker, make_plan([{"node_id": "send", "operation": "t.send", "inputs": {"x": val(5)}}]))
    assert state.status == "awaiting_approval"
    worker = Worker(broker, ex, name="worker:a")
    outcome = worker.step()
    assert outcome is not None and outcome.result == "waiting" and "alicorn show" in outcome.note
    assert worker.step() is None and behaviour.calls["send"] == 0  # parked: not claimed again while nothing moved
    ex.resume(state.run_id, approvals=[Approval("human:alice", "ok")])  # the approver's command drives it
    assert behaviour.calls["send"] == 1
    outcome = worker.step()  # the journal moved on: the job wakes, finds the run finished and is done
    assert outcome is not None and outcome.result == "done" and behaviour.calls["send"] == 1
    assert [j.state for j in broker.jobs()] == ["done"]
    broker.close()


def test_a_run_a_person_is_driving_is_given_back_without_counting_a_failure(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    broker = broker_for(store, clock=seconds)
    run = submit(ex, broker, chain(1)).run_id
    with store.lock(run):  # someone's command drives the run: the worker gives it back without counting a failure
        outcome = Worker(broker, ex, name="worker:a").step()
    assert outcome is not None and outcome.result == "released"
    (job,) = broker.jobs()
    assert (job.state, job.attempts) == ("ready", 0) and job.not_before > seconds()
    seconds.advance(job.not_before - seconds())
    outcome = Worker(broker, ex, name="worker:a").step()
    assert outcome is not None and outcome.result == "done"
    broker.close()


def test_limits_stored_in_the_journal_bind_every_worker(
    store: JournalStore, behaviour: Behaviour, seconds: FakeSeconds, tmp_path: Path
) -> None:
    ex = executor(store, behaviour.registry(), tmp_path)
    setter = broker_for(store, clock=seconds)
    setter.set_limit("project", "default", 1)
    with pytest.raises(BrokerError, match="at least 1"):
        setter.set_limit("operation", "t.inc", 0)
    with pytest.raises(BrokerError, match="per project or per operation"):
        setter.set_limit("team", "x", 1)
    for _ in range(3):
        seconds.advance(1)
        submit(ex, setter, chain(1))
    other = broker_for(store, clock=seconds)  # another worker's broker, started without limits of its own
    assert other.stored_limits().per_project == {"default": 1}
    first = other.claim("worker:a", lease_s=30)
    assert first is not None and other.claim("worker:b", lease_s=30) is None
    setter.set_limit("project", "default", None)
    assert other.claim("worker:b", lease_s=30) is not None
    setter.close()
    other.close()
