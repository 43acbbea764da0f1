"""A triggered run may do, without a human, only what its approved schedule allows, as the schedule's own stream
says: a forged trigger record (no such schedule, a paused one, another project's, a slot never fired, an approver
who lost the role) gets no allowance, and an effect beyond the allowance waits for a human. The trigger record and
the allowance are in every policy request's Cedar context, `alicorn why` names the schedule, `alicorn show` the
trigger."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from alicorn.anvil.explain import explain_run
from alicorn.anvil.terms import RunTerms, TriggerRecord
from alicorn.app import App
from alicorn.core.conversation import run_id_for
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.admission import proposal_in
from alicorn.runtime.state import RunState
from alicorn.schedule.book import pause
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.scheduler import Scheduler
from alicorn.testing.people import enrol
from tests.core.support import make_app
from tests.schedule.support import JumpClock, RecordingSubmitter, added

SID = "sch-write"


def _plan(*nodes: dict[str, Any]) -> Plan:
    return Plan.model_validate({"goal": "a firing's work", "goal_hash": goal_digest("a firing's work"), "nodes": nodes})


WRITE = {
    "node_id": "write",
    "operation": "workspace.write_file",
    "inputs": {"path": {"value": "out/summary.txt"}, "content": {"value": "quiet night\n"}},
}
READ_ONLY = {"node_id": "look", "operation": "util.noop", "inputs": {}}


def _home(
    tmp_path: Path, allow: tuple[str, ...] = ("local_write",), project: str = "default"
) -> tuple[App, TriggerRecord]:
    """A home where ann (an approver) added a schedule allowing `allow`, and one slot of it fired."""
    app = make_app(tmp_path / "home")
    enrol(app, "ann")
    clock = JumpClock(datetime(2026, 11, 30, 7, 59, 30, tzinfo=UTC))
    added(app.store, clock, SID, allow=allow, project=project, rule=parse_cron("0 8 * * *"))
    clock.jump(seconds=35)
    assert Scheduler(app.store, RecordingSubmitter(), clock).tick().fired == [f"{SID}@20261130T080000Z"]
    firing = next(e for e in app.store.read(f"schedule:{SID}") if e.kind == "schedule.fired")
    record = TriggerRecord(schedule=SID, slot=firing.data["slot"], fired_at=firing.data["fired_at"])
    return app, record


_runs = iter(range(1, 1000))


def _run(
    app: App, tmp_path: Path, plan: Plan, trigger: TriggerRecord | None, project: str = "default", run_id: str = ""
) -> RunState:
    """A run of `trigger`'s firing, named as Core names the runs of the firing's conversation (unless `run_id`)."""
    terms = app.anvil.terms("agent:planner", project=project, provenance="trigger", channel="schedule")
    terms = terms.model_copy(update={"trigger": trigger})
    app.anvil.prepare(terms)
    fired = [e for e in app.store.read(f"schedule:{SID}") if e.kind == "schedule.fired"]
    conversation = fired[0].data["conversation"] if fired else "conv-20261130-000000000000"
    return app.executor(tmp_path).start(plan, terms=terms, run_id=run_id or run_id_for(conversation, next(_runs)))


def _contexts(app: App, run: RunState) -> list[dict[str, Any]]:
    return [e.data["request"]["context"] for e in app.store.read(run.run_id) if e.kind == "anvil.check"]


def test_an_allowed_effect_runs_without_a_human_and_the_policy_request_carries_the_trigger(tmp_path: Path) -> None:
    app, record = _home(tmp_path)
    run = _run(app, tmp_path, _plan(WRITE), record)
    assert run.status == "succeeded" and run.effects.get("local_write") == ["write"]
    (context,) = _contexts(app, run)
    assert context["trigger"] == record.model_dump() and context["schedule_allows"] == ["local_write", "none", "read"]
    checks = [e for e in app.store.read(run.run_id) if e.kind == "anvil.check"]
    assert checks[0].data["rules"] == ["permit-schedule-allowed", "permit-within-rights"]
    inputs = next(e for e in app.store.read(run.run_id) if e.kind == "anvil.inputs")
    assert inputs.data["trigger_allowance"]["approved_by"] == "human:ann"
    (why,) = explain_run(app.store, run.run_id)
    assert f"schedule {SID} (active, approved by human:ann)" in " ".join(why.lines)


def test_an_effect_beyond_the_allowance_waits_for_a_human_and_why_names_the_schedule(tmp_path: Path) -> None:
    app, record = _home(tmp_path, allow=())  # only none and read
    run = _run(app, tmp_path, _plan(READ_ONLY, WRITE), record)
    assert run.status == "awaiting_approval" and "untrusted-origin-needs-human" in run.awaiting["rules"]
    assert any(f"schedule {SID}, which allows only looking" in r for r in run.awaiting["reasons"]), run.awaiting
    assert _contexts(app, run)[0]["schedule_allows"] == ["none", "read"]
    # a plan that only looks runs at once under the same schedule
    assert _run(app, tmp_path, _plan(READ_ONLY), record).status == "succeeded"


def _waits_because(app: App, tmp_path: Path, record: TriggerRecord, reason: str, project: str = "default") -> None:
    run = _run(app, tmp_path, _plan(WRITE), record, project=project)
    assert run.status == "awaiting_approval", run.status
    assert _contexts(app, run)[0]["schedule_allows"] == []
    inputs = next(e for e in app.store.read(run.run_id) if e.kind == "anvil.inputs")
    assert reason in inputs.data["trigger_allowance"]["reason"]
    assert any(reason in r for r in run.awaiting["reasons"]), run.awaiting["reasons"]
    assert not (tmp_path / "ws").exists() or not any((app.workspaces / run.run_id).glob("out/*"))


def test_a_trigger_record_naming_no_schedule_gets_no_allowance(tmp_path: Path) -> None:
    app, record = _home(tmp_path)
    forged = record.model_copy(update={"schedule": "sch-made-up"})
    _waits_because(app, tmp_path, forged, "no schedule sch-made-up exists")


def test_a_slot_the_schedule_never_fired_gets_no_allowance(tmp_path: Path) -> None:
    app, record = _home(tmp_path)
    forged = record.model_copy(update={"slot": "2026-12-01T08:00:00Z"})
    _waits_because(app, tmp_path, forged, "never fired the slot 2026-12-01T08:00:00Z")


def test_a_real_record_copied_into_another_request_gets_no_allowance(tmp_path: Path) -> None:
    """The record of a slot that did fire, carried by a run that is not of that firing's conversation."""
    app, record = _home(tmp_path)
    run = _run(app, tmp_path, _plan(WRITE), record, run_id="run-20261130-0123456789ab-1")
    assert run.status == "awaiting_approval"
    inputs = next(e for e in app.store.read(run.run_id) if e.kind == "anvil.inputs")
    assert "was not started by schedule sch-write's firing" in inputs.data["trigger_allowance"]["reason"]
    assert _contexts(app, run)[0]["schedule_allows"] == []


def test_a_paused_schedule_allows_nothing(tmp_path: Path) -> None:
    app, record = _home(tmp_path)
    pause(app.store, SID, JumpClock(), by="human:ann")
    _waits_because(app, tmp_path, record, f"schedule {SID} is paused")


def test_why_a_schedule_allows_nothing_is_said_in_the_readers_language(tmp_path: Path) -> None:
    """The reason is journaled in English (the sentence replays byte for byte) and, beside it, as a msgid and its
    values: a Polish or Russian reader gets the whole sentence in their language."""
    app, record = _home(tmp_path)
    pause(app.store, SID, JumpClock(), by="human:ann")
    run = _run(app, tmp_path, _plan(WRITE), record)
    events = app.store.read(run.run_id)
    allowance = next(e for e in events if e.kind == "anvil.inputs").data["trigger_allowance"]
    assert allowance["reason"] == f"schedule {SID} is paused"
    assert allowance["reason_said"] == {"message": "schedule {schedule} is {status}",
                                        "values": {"schedule": SID, "status": "paused"}}  # fmt: skip
    polish = proposal_in(events, app.registry, "pl")
    russian = proposal_in(events, app.registry, "ru")
    assert polish is not None and russian is not None
    assert any(
        f"który bez człowieka nie pozwala na nic: harmonogram {SID} ma stan paused)" in r for r in polish.reasons
    )
    assert any(f"без человека не разрешает ничего: расписание {SID} в состоянии paused)" in r for r in russian.reasons)


def test_another_projects_schedule_allows_nothing_here(tmp_path: Path) -> None:
    app, record = _home(tmp_path)  # the schedule is project default's
    _waits_because(app, tmp_path, record, "belongs to project default, not ops", project="ops")


def test_an_approver_who_lost_the_role_no_longer_lets_the_schedule_act(tmp_path: Path) -> None:
    app, record = _home(tmp_path)
    enrol(app, "ann", role="requester")
    _waits_because(app, tmp_path, record, "approval no longer holds")


def test_runs_no_schedule_started_keep_their_requests_as_they_were(tmp_path: Path) -> None:
    app, _ = _home(tmp_path)
    terms = app.anvil.terms("agent:planner")
    app.anvil.prepare(terms)
    run = app.executor(tmp_path).start(_plan(WRITE), terms=terms)
    assert run.status == "succeeded"
    (context,) = _contexts(app, run)
    assert "trigger" not in context and "schedule_allows" not in context
    inputs = next(e for e in app.store.read(run.run_id) if e.kind == "anvil.inputs")
    assert "trigger_allowance" not in inputs.data
    assert RunTerms.from_created(app.store.read(run.run_id)[0].data).trigger is None


def test_show_prints_the_trigger_of_a_triggered_run(tmp_path: Path) -> None:
    from alicorn.cli import app as cli

    app, record = _home(tmp_path)
    run = _run(app, tmp_path, _plan(WRITE), record)
    app.close()
    result = CliRunner().invoke(cli, ["show", run.run_id, "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output
    assert f"triggered by schedule {SID}: slot {record.slot}, fired at {record.fired_at}" in result.output


def test_an_allowance_read_for_another_schedule_allows_nothing() -> None:
    from alicorn.anvil.facts import Facts
    from alicorn.anvil.rights import HUMAN_RIGHTS, Subject
    from alicorn.anvil.risk import assess
    from alicorn.ops.builtin import builtin_registry

    p = _plan(WRITE)
    risk = assess(p, builtin_registry(), None)
    subject = Subject("human:ann", "human", True, HUMAN_RIGHTS, tier="human")
    trigger = {"schedule": SID, "slot": "2026-11-30T08:00:00Z", "fired_at": "2026-11-30T08:00:05Z"}
    mine = {"schedule": SID, "effects": ["none", "read", "local_write"]}
    other = {**mine, "schedule": "sch-other"}
    facts = Facts(p.plan_hash(), p.goal_hash, "default", risk, subject, trigger=trigger, allowance=mine)
    assert facts.schedule_allows == ("none", "read", "local_write")
    assert (
        Facts(p.plan_hash(), p.goal_hash, "default", risk, subject, trigger=trigger, allowance=other).schedule_allows
        == ()
    )
    assert Facts(p.plan_hash(), p.goal_hash, "default", risk, subject, allowance=mine).schedule_allows == ()
