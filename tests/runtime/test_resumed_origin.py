"""A run keeps its origin for its whole life: a resumed session of a schedule's firing (or of an external channel's
request) is judged as that, never as a person's run. Runs journaled before the origin was kept (no `origin_kept`
mark in their `run.created`) were judged as a person's after a resume, and still replay byte for byte."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil import terms as terms_module
from alicorn.anvil.origin import ORIGIN_KEPT
from alicorn.anvil.terms import RunTerms, TriggerRecord
from alicorn.app import App
from alicorn.core.conversation import run_id_for
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.scheduler import Scheduler
from alicorn.testing.people import enrol
from tests.core.support import make_app
from tests.schedule.support import JumpClock, RecordingSubmitter, added

SID = "sch-night"
PLAN = Plan.model_validate(
    {
        "goal": "a firing's work",
        "goal_hash": goal_digest("a firing's work"),
        "nodes": [
            {
                "node_id": "write",
                "operation": "workspace.write_file",
                "inputs": {"path": {"value": "out/summary.txt"}, "content": {"value": "quiet night\n"}},
            }
        ],
    }
)


def _fired_home(tmp_path: Path) -> tuple[App, TriggerRecord, str]:
    """A home where ann (an approver) added a schedule allowing local writes, and one slot of it fired; the id of
    the firing's first run (as Core names the runs of the firing's conversation: the allowance checks it)."""
    app = make_app(tmp_path / "home")
    enrol(app, "ann")
    clock = JumpClock(datetime(2026, 11, 30, 7, 59, 30, tzinfo=UTC))
    added(app.store, clock, SID, allow=("local_write",), rule=parse_cron("0 8 * * *"))
    clock.jump(seconds=35)
    assert Scheduler(app.store, RecordingSubmitter(), clock).tick().fired == [f"{SID}@20261130T080000Z"]
    firing = next(e for e in app.store.read(f"schedule:{SID}") if e.kind == "schedule.fired")
    record = TriggerRecord(schedule=SID, slot=firing.data["slot"], fired_at=firing.data["fired_at"])
    return app, record, run_id_for(firing.data["conversation"], 1)


def _queued_then_resumed(app: App, tmp_path: Path, terms: RunTerms, run_id: str) -> str:
    """Start a run queued (its first session ends after its creation and decision), then resume it: the resumed
    session decides again (`admission.recheck`) before it calls anything."""
    app.anvil.prepare(terms)
    executor = app.executor(tmp_path)
    executor.start(PLAN, terms=terms, run_id=run_id, drive=False)
    state = executor.resume(run_id)
    assert state.status == "succeeded", state
    return run_id


def _contexts(app: App, run_id: str) -> list[dict[str, Any]]:
    """The Cedar context of every policy check of the run, in order, and the session each was taken in."""
    out, session = [], 0
    for event in app.store.read(run_id):
        if event.kind in ("run.created", "run.resumed"):
            session += 1
        if event.kind == "anvil.check":
            out.append({"session": session, **event.data["request"]["context"]})
    return out


def _journal_as_before_the_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until `monkeypatch.undo()`, runs are created as every run was before ORIGIN_KEPT: without the mark."""
    recorded_before = RunTerms.to_created

    def without_mark(self: RunTerms) -> dict[str, Any]:
        data = recorded_before(self)
        data.pop(ORIGIN_KEPT, None)
        return data

    monkeypatch.setattr(terms_module.RunTerms, "to_created", without_mark)


def test_a_resumed_firing_is_judged_as_the_schedules_not_as_a_persons(tmp_path: Path) -> None:
    app, record, run_id = _fired_home(tmp_path)
    terms = app.anvil.terms("agent:planner", provenance="trigger", channel="schedule")
    terms = terms.model_copy(update={"trigger": record})
    _queued_then_resumed(app, tmp_path, terms, run_id)
    contexts = _contexts(app, run_id)
    assert {c["session"] for c in contexts} == {1, 2}, "the resumed session decided again"
    for context in contexts:
        assert context["trigger"] == record.model_dump()
        assert context["schedule_allows"] == ["local_write", "none", "read"]
    resumed = [e for e in app.store.read(run_id) if e.kind == "anvil.check"][-1]
    assert resumed.data["rules"] == ["permit-schedule-allowed", "permit-within-rights"]
    state = fold(app.store.read(run_id), run_id)
    assert RunTerms.from_created(state.terms).trigger == record
    assert replay_run(app.store, run_id, builtin_registry()).status == "succeeded"


@pytest.mark.parametrize(("provenance", "channel"), [("external", "mail"), ("trigger", "cron")])
def test_a_resumed_run_keeps_the_provenance_of_its_request(tmp_path: Path, provenance: str, channel: str) -> None:
    app = make_app(tmp_path / "home")
    enrol(app, "ann")
    terms = app.anvil.terms("agent:planner", provenance=provenance, channel=channel)
    app.anvil.prepare(terms)
    executor = app.executor(tmp_path)
    noop = Plan.model_validate(
        {"goal": "look", "goal_hash": goal_digest("look"), "nodes": [{"node_id": "look", "operation": "util.noop"}]}
    )
    run_id = "run-20261130-bbbbbbbbbbbb-1"
    executor.start(noop, terms=terms, run_id=run_id, drive=False)
    assert app.store.read(run_id)[0].data[ORIGIN_KEPT] is True
    assert executor.resume(run_id).status == "succeeded"
    # What a resumed session is judged with: the terms its fold gives (`Session` reads them on resume).
    kept = RunTerms.from_created(fold(app.store.read(run_id), run_id).terms)
    assert (kept.provenance, kept.channel) == (provenance, channel)


def test_a_persons_run_is_journaled_as_before(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    terms = app.anvil.terms("human:operator")
    assert ORIGIN_KEPT not in terms.to_created() and "provenance" not in terms.to_created()


def test_a_run_journaled_before_the_mark_replays_as_it_was_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the mark (as every run recorded before it), the resumed session was judged as a person's: replay
    must regenerate exactly that, byte for byte."""
    app, record, run_id = _fired_home(tmp_path)
    terms = app.anvil.terms("agent:planner", provenance="trigger", channel="schedule")
    terms = terms.model_copy(update={"trigger": record})
    _journal_as_before_the_mark(monkeypatch)
    _queued_then_resumed(app, tmp_path, terms, run_id)
    resumed = [c for c in _contexts(app, run_id) if c["session"] == 2]
    assert resumed and all("trigger" not in c for c in resumed)  # judged as a person's, as it was then
    monkeypatch.undo()
    assert replay_run(app.store, run_id, builtin_registry()).status == "succeeded"


def test_a_replan_of_a_run_recorded_before_the_mark_is_a_new_run_and_keeps_its_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(tmp_path / "home")
    terms = app.anvil.terms("agent:planner", provenance="external", channel="mail")
    app.anvil.prepare(terms)
    _journal_as_before_the_mark(monkeypatch)
    executor = app.executor(tmp_path)
    old = executor.start(PLAN, terms=terms, run_id="run-20261130-dddddddddddd-1")
    assert old.status == "awaiting_approval"  # an external request's write waits for a person
    monkeypatch.undo()
    new = executor.replan(old.run_id, PLAN, new_run_id="run-20261130-dddddddddddd-2")
    created = app.store.read(new.run_id)[0].data
    assert (created["provenance"], created["channel"], created[ORIGIN_KEPT]) == ("external", "mail", True)
