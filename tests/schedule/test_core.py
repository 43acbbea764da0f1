"""A firing goes to Norbi Core as provenance "trigger", labelled with its trigger record in the conversation's
envelope, in its run's `run.created` and in its report; each firing may do only the effects its schedule allowed (an
allowed one runs without asking again), and handing the same firing over again starts nothing new."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alicorn.anvil.terms import RunTerms
from alicorn.core.triggered import CoreSubmitter
from alicorn.plan.dsl import EFFECT_ORDER
from alicorn.runtime.state import fold as fold_run
from alicorn.schedule.book import add_schedule
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.scheduler import Scheduler
from alicorn.schedule.spec import ScheduleSpec
from tests.core.support import core, make_app
from tests.schedule.support import JumpClock

REQUEST = "Summarise yesterday's camera alarms, do not publish"


def _fire(home: Path, allow: tuple[str, ...]) -> tuple[Any, Any, str, CoreSubmitter]:
    app = make_app(home)
    norbi = core(app)
    clock = JumpClock(datetime(2026, 11, 30, 7, 59, 30, tzinfo=UTC))
    spec = ScheduleSpec(request=REQUEST, author="human:ann", rule=parse_cron("0 8 * * *"), allow=allow)  # type: ignore[arg-type]
    add_schedule(app.store, spec, clock, schedule_id="sch-alarms")
    submitter = CoreSubmitter(norbi)
    clock.jump(seconds=35)
    report = Scheduler(app.store, submitter, clock).tick()
    assert report.fired == ["sch-alarms@20261130T080000Z"] and report.problems == []
    conversation = app.store.read("schedule:sch-alarms")[-2].data["conversation"]
    return app, norbi, conversation, submitter


def test_a_firing_is_a_triggered_request_carrying_its_trigger_into_the_run(tmp_path: Path) -> None:
    app, norbi, conversation, submitter = _fire(tmp_path / "home", ("local_write",))
    state = norbi.state(conversation)
    trigger = {"schedule": "sch-alarms", "slot": "2026-11-30T08:00:00Z", "fired_at": "2026-11-30T08:00:05.000000Z"}
    assert state.envelope["provenance"] == "trigger" and state.envelope["trigger"] == trigger
    assert state.envelope["author"] == "schedule:sch-alarms" and state.envelope["channel"] == "schedule"
    assert state.run is not None
    created = app.store.read(state.run)[0]
    terms = RunTerms.from_created(created.data)
    assert (terms.provenance, terms.trigger.model_dump() if terms.trigger else None) == ("trigger", trigger)
    run = fold_run(app.store.read(state.run), state.run)
    # its plan writes a file, which the schedule allows: no person is asked again
    assert run.status == "succeeded" and run.effects.get("local_write"), run.status
    assert state.report is not None and state.report["known"][0] == (
        "triggered by schedule sch-alarms: slot 2026-11-30T08:00:00Z, fired at 2026-11-30T08:00:05.000000Z"
    )
    # handing the same firing over again (a crash, a second scheduler) changes nothing
    before = [e.hash for e in app.store.read(conversation)]
    schedule = Scheduler(app.store, submitter, JumpClock()).refresh()[0]
    submitter.submit(schedule, schedule.fired["sch-alarms@20261130T080000Z"])
    assert [e.hash for e in app.store.read(conversation)] == before
    assert len([s for s in app.store.streams() if s.stream.startswith("run-")]) == 1


def test_a_firing_may_do_only_what_its_schedule_allowed(tmp_path: Path) -> None:
    app, norbi, conversation, _ = _fire(tmp_path / "home", ())  # only none and read
    state = norbi.state(conversation)
    assert state.phase == "reported" and state.run is not None
    run = fold_run(app.store.read(state.run), state.run)
    effects = {k for k, v in run.effects.items() if v}
    assert effects and effects <= {"none", "read"}, effects
    assert set(state.envelope["forbid"]) == set(EFFECT_ORDER) - {"none", "read"}
