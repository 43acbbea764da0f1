"""Replay regenerates every event byte for byte, and names the first event that differs."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.errors import NonDeterminismError, RunError, UnknownStreamError
from alicorn.journal.events import Draft, Event
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import JournalStore
from alicorn.runtime.replay import VerifyingStore, replay_run
from tests.runtime.support import Behaviour, executor, make_plan, ref, val


def _recorded_run(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> str:
    plan = make_plan(
        [
            {"node_id": "a", "operation": "t.inc", "inputs": {"x": val(1)}},
            {"node_id": "f", "operation": "t.flaky", "inputs": {"fail_times": val(1)}, "retry": {"max_attempts": 2}},
            {"node_id": "b", "operation": "t.inc", "inputs": {"x": ref("a", "x")}, "depends_on": ["f"]},
        ]
    )
    return executor(store, behaviour.registry(), tmp_path).start(plan).run_id


def _forge(events: list[Event], change: dict[int, Draft | None]) -> InMemoryStore:
    """A journal whose chain is valid but whose content was rewritten (as a forger with the whole file would)."""
    drafts = []
    for e in events:
        replacement = change.get(e.seq, Draft(e.kind, e.at, e.data))
        if replacement is not None:
            drafts.append(replacement)
    forged = InMemoryStore()
    forged.append(events[0].stream, drafts, expect=0)
    return forged


def test_replay_reproduces_every_byte_and_calls_no_operation(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    calls_before = dict(behaviour.calls)
    report = replay_run(store, run_id, behaviour.registry())
    assert report.events == len(store.read(run_id)) and report.status == "succeeded"
    assert dict(behaviour.calls) == calls_before


def test_a_changed_tool_result_is_caught_where_it_changes_a_decision(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    events = store.read(run_id)
    result_a = next(e for e in events if e.kind == "tool.result" and e.data["node"] == "a")
    call_b = next(e for e in events if e.kind == "tool.call" and e.data["node"] == "b")
    forged = _forge(events, {result_a.seq: Draft(result_a.kind, result_a.at, {**result_a.data, "output": {"x": 99}})})
    with pytest.raises(NonDeterminismError) as caught:
        replay_run(forged, run_id, behaviour.registry())
    assert caught.value.seq == call_b.seq  # b's call carries the digest of a's output: it no longer matches
    assert f"event #{call_b.seq}" in str(caught.value)


def test_a_dropped_decision_is_caught(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    events = store.read(run_id)
    retry = next(e for e in events if e.kind == "node.failed")
    forged = _forge(events, {retry.seq: None})
    with pytest.raises(NonDeterminismError) as caught:
        replay_run(forged, run_id, behaviour.registry())
    assert caught.value.seq == retry.seq


def test_a_different_registry_is_caught_at_the_first_event(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    registry = behaviour.registry()
    op = registry.get("t.inc")
    changed = Behaviour().registry()
    changed._ops["t.inc"] = op.__class__(**{**op.__dict__, "timeout_s": op.timeout_s + 1})
    with pytest.raises(NonDeterminismError) as caught:
        replay_run(store, run_id, changed)
    assert caught.value.seq == 1
    assert "registry" in (caught.value.actual or "")


def test_an_operation_added_after_the_run_does_not_stop_its_replay(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    grown = behaviour.registry()
    op = grown.get("t.inc")
    grown.register(op.__class__(**{**op.__dict__, "name": "t.added_later"}))
    assert grown.fingerprint() != behaviour.registry().fingerprint()
    report = replay_run(store, run_id, grown)
    assert report.events == len(store.read(run_id))


def test_extra_recorded_events_are_caught(store: JournalStore, behaviour: Behaviour, tmp_path: Path) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    events = store.read(run_id)
    last = events[-1]
    forged = InMemoryStore()
    forged.append(
        run_id, [Draft(e.kind, e.at, e.data) for e in events] + [Draft("run.finished", last.at, last.data)], expect=0
    )
    with pytest.raises(NonDeterminismError) as caught:
        replay_run(forged, run_id, behaviour.registry())
    assert caught.value.seq == last.seq + 1


def test_replay_of_archived_run(tmp_path: Path, behaviour: Behaviour) -> None:
    from alicorn.journal.sqlite import SQLiteStore

    with SQLiteStore(tmp_path / "j.db") as store:
        run_id = _recorded_run(store, behaviour, tmp_path)
        lines = [e.line for e in store.read(run_id)]
        store.archive(run_id)
        assert store.is_archived(run_id)
        assert [e.line for e in store.read(run_id)] == lines
        assert replay_run(store, run_id, behaviour.registry()).events == len(lines)


def test_replay_refuses_what_is_not_a_run(behaviour: Behaviour) -> None:
    store = InMemoryStore()
    with pytest.raises(UnknownStreamError):
        replay_run(store, "run-missing", behaviour.registry())
    store.append("agent:planner", [Draft("reputation.changed", "2026-01-01T00:00:00.000000Z", {})], expect=0)
    with pytest.raises(RunError, match="not a run"):
        replay_run(store, "agent:planner", behaviour.registry())


def test_the_verifying_store_keeps_no_differing_event_and_stores_the_recorded_ones(
    store: JournalStore, behaviour: Behaviour, tmp_path: Path
) -> None:
    run_id = _recorded_run(store, behaviour, tmp_path)
    recorded = store.read(run_id)
    target = VerifyingStore(recorded)
    first = recorded[0]
    with pytest.raises(NonDeterminismError) as caught:
        target.append(run_id, [Draft(first.kind, first.at, {**first.data, "goal": "another"})], expect=0)
    assert caught.value.seq == 1 and target.read(run_id) == []  # refused inside the append: nothing stored
    again = target.append(run_id, [Draft(e.kind, e.at, e.data) for e in recorded[:2]], expect=0)
    assert [e.line for e in again] == [e.line for e in recorded[:2]]
    assert target.position == 2 and target.read(run_id) == recorded[:2]
    beyond = Draft(first.kind, first.at, first.data)
    whole = VerifyingStore(recorded[:1])
    whole.append(run_id, [beyond], expect=0)
    with pytest.raises(NonDeterminismError):  # an event the recording does not have
        whole.append(run_id, [beyond], expect=1)
    assert whole.position == 1
