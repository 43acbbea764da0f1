"""The heartbeat: no model call while every probe is quiet, one when a probe finds something (its finding in the
inbox), nothing at all while people or runs are active, a hard budget per tick, and a breaker that pauses it."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from alicorn.config import ProjectData
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import JournalStore
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.providers.base import Provider
from alicorn.schedule import book
from alicorn.schedule.book import add_schedule
from alicorn.schedule.heartbeat import (
    Heartbeat,
    HeartbeatSettings,
    HeartbeatSubmitter,
    open_findings,
    read_heartbeat,
    request_for,
    resolve_id,
    stream_for,
)
from alicorn.schedule.rules import parse_every
from alicorn.schedule.scheduler import Scheduler
from alicorn.schedule.spec import ScheduleSpec
from tests.schedule.support import JumpClock, RecordingSubmitter

SID = "heartbeat-ops"


class CountingProvider(Provider):
    """A model that counts its calls and answers with one sentence."""

    kind = "counting"

    def __init__(self) -> None:
        self.calls = 0
        self.asked: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        self.asked.append(request)
        return ChatResponse(text="New alarm files came in: look at them first.", usage=Usage(prompt_tokens=90,
                            completion_tokens=12), model="counting-1")  # fmt: skip


def _heartbeat(
    tmp_path: Path, store: JournalStore | None = None, *, wording: Provider | None = None,
    settings: HeartbeatSettings | None = None, clock: JumpClock | None = None,
) -> tuple[Any, JumpClock, Scheduler, Path]:  # fmt: skip
    """A heartbeat every 15 minutes over project ops, whose data source `alarms` is tmp_path/alarms/*.csv."""
    store = store if store is not None else InMemoryStore()
    clock = clock or JumpClock()
    folder = tmp_path / "alarms"
    folder.mkdir(exist_ok=True)
    (folder / "old.csv").write_text("severity,text\ninfo,all fine\n")
    _touch(folder / "old.csv", clock, -3600)
    spec = ScheduleSpec(request=request_for("ops"), author="human:ann", project="ops",
                        rule=parse_every("15m", clock.moment))  # fmt: skip
    add_schedule(store, spec, clock, schedule_id=SID)
    store.append(
        stream_for("ops"),
        [
            Draft(
                "heartbeat.configured",
                clock.now(),
                {"schedule": SID, "settings": (settings or HeartbeatSettings()).model_dump()},
            )
        ],
        expect=0,
    )
    projects = {"ops": ProjectData(sources={"alarms": (str(folder / "*.csv"),)})}
    heartbeat = Heartbeat(store, clock, projects=projects, wording=wording)
    scheduler = Scheduler(store, HeartbeatSubmitter(RecordingSubmitter(), heartbeat), clock, max_poll_s=3600)
    return store, clock, scheduler, folder


def _touch(path: Path, clock: JumpClock, offset_s: float = 0.0) -> None:
    moment = clock.moment.timestamp() + offset_s
    os.utime(path, (moment, moment))


def _ticks(store: Any) -> list[dict[str, Any]]:
    return read_heartbeat(store, "ops").ticks


def test_a_quiet_project_costs_no_model_call_over_a_hundred_ticks(tmp_path: Path) -> None:
    model = CountingProvider()
    store, _clock, scheduler, _folder = _heartbeat(tmp_path, wording=model)
    scheduler.run(ticks=121)
    ticks = _ticks(store)
    assert len(ticks) >= 100 and {t["outcome"] for t in ticks} == {"quiet"}
    assert model.calls == 0 and sum(t["model_calls"] for t in ticks) == 0
    assert book.load(store, SID).status == "active" and open_findings(store) == []
    assert len({t["slot_id"] for t in ticks}) == len(ticks)  # once per slot


def test_a_new_alarm_file_is_one_model_call_and_a_finding_in_the_inbox(tmp_path: Path) -> None:
    model = CountingProvider()
    store, clock, scheduler, folder = _heartbeat(tmp_path, wording=model)
    scheduler.run(ticks=3)  # the first look sets the mark; the second finds nothing new
    (folder / "night.csv").write_text("severity,text\ncritical,door forced\nwarning,fan slow\ninfo,ok\n")
    _touch(folder / "night.csv", clock)
    scheduler.run(ticks=1)
    assert model.calls == 1
    latest = _ticks(store)[-1]
    assert latest["outcome"] == "findings" and latest["worded_by"] == "model counting-1" and latest["tokens"] == 102
    probes_found = {f["probe"] for f in latest["findings"]}
    assert probes_found == {"new_files", "alarms"}
    assert "night.csv" in model.asked[0].messages[-1].content
    [inbox] = open_findings(store)
    assert inbox["summary"] == "New alarm files came in: look at them first." and inbox["project"] == "ops"
    assert any("1 alarm(s) at or above severity 4" in f["text"] for f in inbox["findings"])
    scheduler.run(ticks=2)  # nothing new since: quiet again, no more calls, the inbox is clear
    assert model.calls == 1 and _ticks(store)[-1]["outcome"] == "quiet" and open_findings(store) == []


def test_without_a_model_findings_are_worded_by_rule(tmp_path: Path) -> None:
    store, clock, scheduler, folder = _heartbeat(tmp_path)
    scheduler.run(ticks=2)
    (folder / "new.csv").write_text("severity,text\n5,smoke\n")
    _touch(folder / "new.csv", clock)
    scheduler.run(ticks=1)
    latest = _ticks(store)[-1]
    assert latest["worded_by"] == "rules" and latest["model_calls"] == 0
    assert latest["summary"].startswith("2 thing(s) in project ops need a person: 1 new or changed file(s)")


def test_it_does_nothing_while_a_conversation_is_active(tmp_path: Path) -> None:
    model = CountingProvider()
    store, clock, scheduler, folder = _heartbeat(tmp_path, wording=model)
    scheduler.run(ticks=2)
    (folder / "new.csv").write_text("severity,text\ncritical,smoke\n")
    _touch(folder / "new.csv", clock)
    store.append("conv-20261130-aaaaaaaaaaaa", [Draft("intent.received", clock.now(), {"utterance": "hi"})], expect=0)
    scheduler.run(ticks=1)
    busy = _ticks(store)[-1]
    assert busy["outcome"] == "busy" and "conv-20261130-aaaaaaaaaaaa" in busy["reason"] and model.calls == 0
    clock.jump(minutes=11)  # the conversation is idle for longer than idle_s (10 min): the heartbeat looks again
    scheduler.run(ticks=2)
    assert model.calls == 1 and [t["outcome"] for t in _ticks(store)][-2:] in (
        ["findings", "quiet"],
        ["busy", "findings"],
    )


def test_a_token_budget_too_small_for_the_wording_stops_and_says_so(tmp_path: Path) -> None:
    model = CountingProvider()
    store, clock, scheduler, folder = _heartbeat(tmp_path, wording=model, settings=HeartbeatSettings(tokens=50))
    scheduler.run(ticks=2)
    (folder / "new.csv").write_text("severity,text\ncritical,smoke\n")
    _touch(folder / "new.csv", clock)
    scheduler.run(ticks=1)
    latest = _ticks(store)[-1]
    assert model.calls == 0 and latest["outcome"] == "budget" and latest["worded_by"] == "rules"
    assert "token budget of 50" in latest["stopped"] and latest["findings"]


class SlowClock(JumpClock):
    """Every reading of the monotonic clock is 20 s later: each probe seems to take 20 s."""

    def __init__(self) -> None:
        super().__init__()
        self.ticking = 0.0

    def monotonic(self) -> float:
        self.ticking += 20.0
        return self.moment.timestamp() + self.ticking


def test_the_wall_time_budget_stops_the_tick_between_probes(tmp_path: Path) -> None:
    model = CountingProvider()
    store, _clock, scheduler, _folder = _heartbeat(
        tmp_path, wording=model, settings=HeartbeatSettings(wall_s=30), clock=SlowClock()
    )
    scheduler.run(ticks=2)
    latest = _ticks(store)[-1]
    assert latest["outcome"] == "budget" and "wall-time budget of 30 s ran out before the probe" in latest["stopped"]
    assert model.calls == 0


def test_the_same_findings_three_times_trip_the_breaker_which_pauses_and_says_why(tmp_path: Path) -> None:
    model = CountingProvider()
    store, clock, scheduler, _folder = _heartbeat(tmp_path, wording=model)
    scheduler.run(ticks=2)
    # A run of project ops waits for approval: once it is older than proposal_after_s, every tick finds it.
    _waiting_run(store, clock, "run-ops-1")
    clock.jump(hours=5)
    scheduler.run(ticks=4)
    outcomes = [t["outcome"] for t in _ticks(store)]
    assert outcomes[-3:] == ["findings"] * 3, outcomes
    state = book.load(store, SID)
    assert state.status == "paused" and state.history[-1]["by"] == "heartbeat:breaker"
    reason = state.history[-1]["reason"]
    assert reason.startswith("the last 3 heartbeat ticks found the same things") and f"resume {SID}" in reason
    assert open_findings(store)[0]["breaker"] == reason
    calls = model.calls
    scheduler.run(ticks=4)  # paused: no tick, no call
    assert model.calls == calls == 3 and len(_ticks(store)) == len(outcomes)
    book.resume(store, SID, clock, by="human:ann")
    scheduler.run(ticks=2)
    assert book.load(store, SID).status == "active" and len(_ticks(store)) > len(outcomes)  # counts afresh


def test_a_tick_for_a_slot_already_journaled_does_nothing(tmp_path: Path) -> None:
    store, _clock, scheduler, _folder = _heartbeat(tmp_path)
    scheduler.run(ticks=2)
    state = book.load(store, SID)
    firing = next(iter(state.fired.values()))
    heartbeat = scheduler.submitter.heartbeat  # type: ignore[attr-defined]
    before = store.last_seq(stream_for("ops"))
    assert heartbeat.tick(state, firing) is None and store.last_seq(stream_for("ops")) == before


def test_heartbeat_colon_project_names_the_projects_heartbeat(tmp_path: Path) -> None:
    store, _clock, _scheduler, _folder = _heartbeat(tmp_path)
    assert resolve_id(store, "heartbeat:ops") == SID and resolve_id(store, "sch-x") == "sch-x"


def _waiting_run(store: Any, clock: JumpClock, run: str) -> None:
    """A run of project ops whose plan waits for approval, as journaled (its fold is all the probes read)."""
    plan = {"goal_hash": "0" * 64, "nodes": [{"node_id": "note", "operation": "workspace.write_file"}]}
    created = {"plan": plan, "plan_hash": "1" * 64, "project": "ops", "effects": {"local_write": ["note"]}}
    drafts = [Draft("run.created", clock.now(), created), Draft("run.awaiting_approval", clock.now(), {})]
    store.append(run, drafts, expect=0)


def test_settings_journaled_with_the_heartbeat_are_the_ones_it_uses(tmp_path: Path) -> None:
    store, clock, scheduler, _folder = _heartbeat(tmp_path, settings=HeartbeatSettings(proposal_after_s=1200))
    _waiting_run(store, clock, "run-ops-2")
    scheduler.run(ticks=2)
    assert _ticks(store)[-1]["outcome"] == "quiet"  # at 08:15 it has waited 14.5 min, under the 20 min limit
    scheduler.run(ticks=1)
    latest = _ticks(store)[-1]  # at 08:30: 29.5 min
    assert latest["outcome"] == "findings" and latest["findings"][0]["key"] == "proposal:run-ops-2"
    assert "has waited 29 min for approval" in latest["findings"][0]["text"]
    assert timedelta(seconds=read_heartbeat(store, "ops").settings.proposal_after_s) == timedelta(minutes=20)


class BrokenProvider(CountingProvider):
    def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        raise RuntimeError("no recorded answer for this request")


def test_a_model_that_fails_still_leaves_the_findings_worded_by_rule(tmp_path: Path) -> None:
    model = BrokenProvider()
    store, clock, scheduler, folder = _heartbeat(tmp_path, wording=model)
    scheduler.run(ticks=2)
    (folder / "new.csv").write_text("severity,text\ninfo,fine\n")
    _touch(folder / "new.csv", clock)
    scheduler.run(ticks=1)
    latest = _ticks(store)[-1]
    assert model.calls == 1 and latest["outcome"] == "findings" and latest["worded_by"] == "rules"
    assert "RuntimeError: no recorded answer" in latest["note"] and open_findings(store)[0]["findings"]


def test_a_run_running_but_silent_is_stalled_not_activity(tmp_path: Path) -> None:
    store, clock, scheduler, _folder = _heartbeat(tmp_path)
    plan = {"goal_hash": "0" * 64, "nodes": [{"node_id": "a", "operation": "workspace.read_file"}]}
    created = {"plan": plan, "plan_hash": "1" * 64, "project": "ops"}
    store.append("run-ops-3", [Draft("run.created", clock.now(), created)], expect=0)
    scheduler.run(ticks=2)  # at 08:15 the run journaled 14.5 min ago: not in progress any more, not yet stalled
    assert _ticks(store)[-1]["outcome"] == "quiet"
    clock.jump(hours=1)
    scheduler.run(ticks=1)
    latest = _ticks(store)[-1]
    assert latest["outcome"] == "findings" and latest["findings"][0]["key"] == "stalled:run-ops-3"
    store.append("run-ops-3", [Draft("run.resumed", clock.now(), {})], expect=1)
    scheduler.run(ticks=1)
    assert _ticks(store)[-1]["outcome"] == "busy" and "run-ops-3 is in progress" in _ticks(store)[-1]["reason"]
