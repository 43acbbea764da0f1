"""The executor: ordering, data flow, retries, timeouts, criteria, alternatives, stop conditions, approvals."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from alicorn.clock import PinnedClock
from alicorn.errors import ApprovalRequiredError, ConcurrentAppendError, PlanError, RunError, UnknownStreamError
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Registry
from alicorn.runtime.executor import DEFAULT_DURABILITY, Approval
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold
from tests.runtime.support import Behaviour, executor, kinds, make_plan, ref, val


def finish(store: JournalStore, registry: Registry, run_id: str) -> None:
    """Every test run must also replay byte for byte and fold to the same state."""
    report = replay_run(store, run_id, registry)
    assert report.events == len(store.read(run_id))


def test_linear_chain_journals_every_step_and_folds_to_the_same_state(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {"node_id": "a", "operation": "t.inc", "inputs": {"x": val(1)}},
            {"node_id": "b", "operation": "t.inc", "inputs": {"x": ref("a", "x")}},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "succeeded"
    assert state.nodes["b"].output == {"x": 3}
    assert kinds(store, state.run_id) == [
        "run.created",
        "anvil.inputs",  # Anvil's inputs and its decision for the plan's one operation (t.inc)
        "anvil.check",
        "tool.call",
        "tool.result",
        "node.succeeded",
        "tool.call",
        "tool.result",
        "node.succeeded",
        "run.finished",
    ]
    assert asdict(fold(store.read(state.run_id))) == asdict(state)
    call_b = next(e for e in store.read(state.run_id) if e.kind == "tool.call" and e.data["node"] == "b")
    assert call_b.data["inputs"]["x"]["ref"] == "a.x"  # the value itself is journaled once, as a's output
    assert len(call_b.data["inputs"]["x"]["sha256"]) == 64
    finish(store, reg, state.run_id)


def test_one_transaction_per_step(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    """The result of a node, its transition and the next node's call share one append (one `at`)."""
    reg = behaviour.registry()
    plan = make_plan(
        [{"node_id": f"n{i}", "operation": "t.inc", "depends_on": [f"n{i - 1}"] if i else []} for i in range(5)]
    )
    batches: list[list[str]] = []
    on_events = lambda evs: batches.append([e.kind for e in evs])  # noqa: E731
    state = executor(store, reg, tmp_path, on_events=on_events, durability="step").start(plan)
    assert state.status == "succeeded"
    assert batches[0] == ["run.created", "anvil.inputs", "anvil.check", "tool.call"]
    assert batches[1] == ["tool.result", "node.succeeded", "tool.call"]
    assert batches[-1] == ["tool.result", "node.succeeded", "run.finished"]
    assert len(batches) == 6


def test_effect_free_steps_are_made_durable_in_groups_by_default(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    """Issue 17's decision: an executor not told otherwise groups effect-free steps; an effect's intent makes them
    durable with it, before the effect runs. The clock's monotonic reading stands still, so no group times out."""

    class StillClock(PinnedClock):
        def monotonic(self) -> float:
            return 0.0

    reg = behaviour.registry()
    nodes = [{"node_id": f"n{i}", "operation": "t.inc", "depends_on": [f"n{i - 1}"] if i else []} for i in range(5)]
    nodes.append({"node_id": "send", "operation": "t.send", "depends_on": ["n4"]})
    batches: list[list[str]] = []
    clock = StillClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
    ex = executor(store, reg, tmp_path, on_events=lambda evs: batches.append([e.kind for e in evs]), clock=clock)
    assert ex.durability == DEFAULT_DURABILITY == "grouped"
    state = ex.start(make_plan(nodes), approvals=[Approval("human:reviewer")])
    assert state.status == "succeeded"
    # The opening batch (the run, its approval, Anvil's decision, the first call) is durable at once; then the five
    # effect-free nodes wait, and become durable in one append with the send's intent.
    assert batches[0][0] == "run.created" and batches[0][-1] == "tool.call" and "node.succeeded" not in batches[0]
    assert batches[1].count("node.succeeded") == 5 and batches[1][-2:] == ["tool.call", "effect.intended"]
    assert batches[2] == ["tool.result", "effect.done", "node.succeeded", "run.finished"] and len(batches) == 3
    assert [k for b in batches for k in b] == kinds(store, state.run_id)
    finish(store, reg, state.run_id)


def test_independent_nodes_run_in_parallel(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    gate = {"name": val("g"), "parties": val(3)}
    plan = make_plan([{"node_id": f"p{i}", "operation": "t.gate", "inputs": gate} for i in range(3)])
    state = executor(store, reg, tmp_path).start(plan)  # a barrier of 3 only opens if all three run at once
    assert state.status == "succeeded"
    finish(store, reg, state.run_id)


def test_parallelism_is_bounded(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan([{"node_id": f"s{i}", "operation": "t.sleep", "inputs": {"seconds": val(0.05)}} for i in range(8)])
    state = executor(store, reg, tmp_path, max_parallel=2).start(plan)
    assert state.status == "succeeded"
    assert behaviour.max_concurrent == 2
    finish(store, reg, state.run_id)


def test_retry_with_backoff_until_success(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "f",
                "operation": "t.flaky",
                "inputs": {"fail_times": val(2)},
                "retry": {"max_attempts": 3, "backoff_s": 0.01, "multiplier": 3},
            }
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "succeeded"
    assert (state.nodes["f"].attempt, state.nodes["f"].failures) == (3, 2)
    failed = [e.data for e in store.read(state.run_id) if e.kind == "node.failed"]
    assert [f["retry_in_s"] for f in failed] == [0.01, 0.03]
    calls = [e.data for e in store.read(state.run_id) if e.kind == "tool.call"]
    assert calls[0]["not_before"] is None and calls[1]["not_before"] is not None
    assert len({c["key"] for c in calls}) == 1  # the idempotency key does not depend on the attempt
    finish(store, reg, state.run_id)


def test_retries_exhausted_fail_the_node_and_skip_downstream(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {"node_id": "ok", "operation": "t.inc"},
            {"node_id": "f", "operation": "t.flaky", "inputs": {"fail_times": val(9)}, "retry": {"max_attempts": 2}},
            {"node_id": "after", "operation": "t.inc", "inputs": {"x": ref("f", "x")}},
            {"node_id": "later", "operation": "t.inc", "depends_on": ["after"]},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "partial"
    assert state.nodes["f"].status == "failed" and state.nodes["f"].attempt == 2
    assert state.nodes["after"].status == "skipped" and "'f'" in (state.nodes["after"].reason or "")
    assert state.nodes["later"].status == "skipped"
    assert behaviour.calls["flaky"] == 2 and behaviour.calls["inc"] == 1
    finish(store, reg, state.run_id)


def test_non_retryable_errors_and_bugs(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "final",
                "operation": "t.flaky",
                "inputs": {"retryable": val(False)},
                "retry": {"max_attempts": 5},
            },
            {"node_id": "bug", "operation": "t.crash", "retry": {"max_attempts": 2}},
            {"node_id": "garbage", "operation": "t.bad", "retry": {"max_attempts": 3}},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "failed"
    assert state.nodes["final"].attempt == 1
    assert state.nodes["bug"].attempt == 2  # an operation's bug is retried under the policy
    assert "ZeroDivisionError: boom" in (state.nodes["bug"].reason or "")
    assert state.nodes["garbage"].attempt == 1  # output not matching the schema is not retried
    assert "invalid_output" in (state.nodes["garbage"].reason or "")
    finish(store, reg, state.run_id)


def test_timeout_abandons_the_call_and_retries(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "slow",
                "operation": "t.sleep",
                "inputs": {"seconds": val(30)},
                "timeout_s": 0.1,
                "retry": {"max_attempts": 2},
            }
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "failed"
    results = [e.data for e in store.read(state.run_id) if e.kind == "tool.result"]
    assert [r["error"]["type"] for r in results] == ["timeout", "timeout"]
    assert "within 0.1 s" in results[0]["error"]["message"]
    finish(store, reg, state.run_id)


def test_completion_criterion_not_met_is_a_failure(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "a",
                "operation": "t.inc",
                "inputs": {"x": val(1)},
                "completion": {"kind": "check", "path": "x", "op": "gte", "value": 10},
            }
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.nodes["a"].status == "failed"
    assert state.nodes["a"].reason == "completion criterion not met: x gte 10"
    finish(store, reg, state.run_id)


def test_alternative_replaces_a_failed_node(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "primary",
                "operation": "t.flaky",
                "inputs": {"fail_times": val(5), "x": val(7)},
                "critical": True,
                "alternative": "backup",
            },
            {"node_id": "backup", "operation": "t.inc", "inputs": {"x": val(40)}},
            {"node_id": "use", "operation": "t.inc", "inputs": {"x": ref("primary", "x")}},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "succeeded"
    assert state.nodes["primary"].status == "failed" and state.nodes["primary"].substitute == "backup"
    assert state.nodes["use"].output == {"x": 42}
    assert "node.activated" in kinds(store, state.run_id)
    finish(store, reg, state.run_id)


def test_unused_alternative_is_skipped(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {"node_id": "primary", "operation": "t.inc", "critical": True, "alternative": "backup"},
            {"node_id": "backup", "operation": "t.inc"},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "succeeded"
    assert state.nodes["backup"].status == "skipped"
    assert behaviour.calls["inc"] == 1
    finish(store, reg, state.run_id)


def test_stop_condition_on_failure_stops_the_run(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "load",
                "operation": "t.flaky",
                "inputs": {"fail_times": val(1)},
                "critical": True,
                "stop": {"reason": "no data: nothing to do"},
            },
            {"node_id": "independent", "operation": "t.sleep", "inputs": {"seconds": val(0.2)}},
            {"node_id": "next", "operation": "t.inc", "depends_on": ["load"]},
            {"node_id": "after_independent", "operation": "t.inc", "depends_on": ["independent"]},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "stopped" and state.stop_reason == "no data: nothing to do"
    assert state.nodes["next"].status == "skipped"
    assert state.nodes["independent"].status == "succeeded"  # in flight when the stop came: finished, journaled
    assert state.nodes["after_independent"].status == "skipped"  # no new work after a stop
    finish(store, reg, state.run_id)


def test_stop_condition_on_output(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {
                "node_id": "count",
                "operation": "t.inc",
                "inputs": {"x": val(-1)},
                "stop": {"reason": "nothing found", "when": {"kind": "check", "path": "x", "op": "lt", "value": 1}},
            },
            {"node_id": "report", "operation": "t.inc", "depends_on": ["count"]},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    assert state.status == "stopped"
    assert state.nodes["count"].status == "succeeded" and state.nodes["report"].status == "skipped"
    finish(store, reg, state.run_id)


def test_effects_beyond_local_write_wait_for_a_human(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan([{"node_id": "send", "operation": "t.send", "inputs": {"x": val(5)}}])
    ex = executor(store, reg, tmp_path)
    state = ex.start(plan)
    assert state.status == "awaiting_approval"
    assert state.awaiting and state.awaiting["effects"] == {"external_transmission": ["send"]}
    assert behaviour.calls["send"] == 0
    before = [e.line for e in store.read(state.run_id)]
    with pytest.raises(ApprovalRequiredError, match="--approve"):
        ex.resume(state.run_id)
    assert [e.line for e in store.read(state.run_id)] == before  # a refused resume writes nothing
    state = ex.resume(state.run_id, approvals=[Approval("human:alice", "ok for the test")])
    assert state.status == "succeeded" and behaviour.calls["send"] == 1
    granted = [e.data for e in store.read(state.run_id) if e.kind == "approval.granted"]
    assert granted == [
        {
            "by": "human:alice",
            "comment": "ok for the test",
            "plan_hash": plan.plan_hash(),
            "effects": ["external_transmission"],
        }
    ]
    finish(store, reg, state.run_id)


def test_approval_given_at_start(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan([{"node_id": "send", "operation": "t.send"}])
    state = executor(store, reg, tmp_path).start(plan, approvals=[Approval("human:bob")])
    assert state.status == "succeeded"
    assert kinds(store, state.run_id)[:2] == ["run.created", "approval.granted"]
    finish(store, reg, state.run_id)


def test_invalid_plan_journals_nothing(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan([{"node_id": "a", "operation": "t.nope"}])
    with pytest.raises(PlanError, match=r"unknown operation 't\.nope'"):
        executor(store, reg, tmp_path).start(plan)
    assert store.streams() == []


def test_resume_refusals_change_nothing(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path)
    state = ex.start(make_plan([{"node_id": "a", "operation": "t.inc"}]))
    before = [e.line for e in store.read(state.run_id)]
    with pytest.raises(RunError, match="already finished"):
        ex.resume(state.run_id)
    with pytest.raises(UnknownStreamError):
        ex.resume("run-does-not-exist")
    with pytest.raises(RunError, match="already exists"):
        ex.start(make_plan([{"node_id": "a", "operation": "t.inc"}]), run_id=state.run_id)
    assert [e.line for e in store.read(state.run_id)] == before


def test_resume_is_refused_when_an_operation_of_the_plan_changed_and_not_for_an_unrelated_one(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    reg = behaviour.registry()
    started = executor(store, reg, tmp_path).start(make_plan([{"node_id": "s", "operation": "t.send"}]))
    assert started.status == "awaiting_approval"
    created = store.read(started.run_id)[0].data
    assert set(created["contracts"]) == {"t.send"} and "registry" not in created
    send = reg.get("t.send")
    # The plan's own operation with another contract (a longer timeout): refused, naming it; nothing journaled.
    changed = Behaviour().registry()
    changed._ops["t.send"] = send.__class__(**{**send.__dict__, "timeout_s": send.timeout_s + 1})
    before = store.last_seq(started.run_id)
    with pytest.raises(RunError, match=r"contracts differ now \(t.send: its contract changed\)"):
        executor(store, changed, tmp_path).resume(started.run_id, approvals=[Approval("human:x")])
    assert store.last_seq(started.run_id) == before
    # The plan's operation gone: refused too.
    gone = Behaviour().registry()
    del gone._ops["t.send"]
    with pytest.raises(RunError, match=r"t\.send: no longer registered"):
        executor(store, gone, tmp_path).resume(started.run_id, approvals=[Approval("human:x")])
    # An operation the plan does not use added (a new pack, an MCP server's tool): the run resumes.
    other = Behaviour().registry()
    other.register(reg.get("t.inc").__class__(**{**reg.get("t.inc").__dict__, "name": "t.extra"}))
    resumed = executor(store, other, tmp_path).resume(started.run_id, approvals=[Approval("human:x")])
    assert resumed.status == "succeeded"


def test_a_second_writer_on_the_same_run_is_refused(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path)
    state = ex.start(make_plan([{"node_id": "s", "operation": "t.send"}]))
    # Another process appends between our read and our write: simulated by appending from the side.
    from alicorn.journal.events import Draft

    store.append(state.run_id, [Draft("note.other_writer", state.created_at, {})], expect=state.last_seq)
    before = [e.line for e in store.read(state.run_id)]
    stale_fold = fold(store.read(state.run_id)[:-1])
    assert stale_fold.last_seq == state.last_seq
    from alicorn.runtime.session import Session

    session = Session(
        ex.session_needs(),
        state.run_id,
        stale_fold,
        make_plan(stale_fold.plan["nodes"], stale_fold.plan["goal"]),
        committed=stale_fold.last_seq,
    )
    session.begin()
    session.emit("run.resumed", {"session": 2, "interrupted": []})
    with pytest.raises(ConcurrentAppendError, match="another writer"):
        session.commit()
    assert [e.line for e in store.read(state.run_id)] == before


def test_fold_of_any_prefix_is_deterministic(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    reg = behaviour.registry()
    plan = make_plan(
        [
            {"node_id": "f", "operation": "t.flaky", "inputs": {"fail_times": val(1)}, "retry": {"max_attempts": 2}},
            {"node_id": "g", "operation": "t.inc", "inputs": {"x": ref("f", "x")}},
        ]
    )
    state = executor(store, reg, tmp_path).start(plan)
    events = store.read(state.run_id)
    for cut in range(len(events) + 1):
        assert asdict(fold(events[:cut])) == asdict(fold(events[:cut]))
        assert fold(events[:cut]).last_seq == cut
    assert asdict(fold(events)) == asdict(state)


def test_a_run_is_driven_by_one_holder_at_a_time(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    from alicorn.errors import StreamLockedError

    reg = behaviour.registry()
    ex = executor(store, reg, tmp_path)
    state = ex.start(make_plan([{"node_id": "s", "operation": "t.send"}]))
    before = [e.line for e in store.read(state.run_id)]
    with store.lock(state.run_id), pytest.raises(StreamLockedError, match="being driven"):
        ex.resume(state.run_id, approvals=[Approval("human:x")])
    assert [e.line for e in store.read(state.run_id)] == before
    assert ex.resume(state.run_id, approvals=[Approval("human:x")]).status == "succeeded"


def test_grouped_durability_journals_the_same_events(tmp_path: Path, behaviour: Behaviour) -> None:
    """Grouping changes when effect-free steps become durable, never what is journaled."""
    from alicorn.journal.sqlite import SQLiteStore

    reg = behaviour.registry()
    nodes = [{"node_id": f"n{i}", "operation": "t.inc", "depends_on": [f"n{i - 1}"] if i else []} for i in range(30)]
    nodes.append({"node_id": "send", "operation": "t.send", "depends_on": ["n29"]})
    plan = make_plan(nodes)
    seen: dict[str, list[list[str]]] = {}
    for mode in ("step", "grouped"):
        with SQLiteStore(tmp_path / f"{mode}.db") as store:
            batches: list[list[str]] = []
            ex = executor(
                store, reg, tmp_path, on_events=lambda evs, b=batches: b.append([e.kind for e in evs]), durability=mode
            )
            state = ex.start(plan, approvals=[Approval("human:reviewer")])
            assert state.status == "succeeded"
            assert replay_run(store, state.run_id, reg).events == len(store.read(state.run_id))
            seen[mode] = batches
    flat = {mode: [k for b in batches for k in b] for mode, batches in seen.items()}
    assert flat["step"] == flat["grouped"]
    assert len(seen["grouped"]) < len(seen["step"]) / 3  # far fewer durable commits
    intent_batch = next(b for b in seen["grouped"] if "effect.intended" in b)
    assert intent_batch[-1] == "effect.intended"  # the intent is durable before the effect runs
