"""A recurring request (en/pl/ru) becomes a proposed schedule, not a one-off run: the person approves it (then it
exists with the right cron, zone and effects, and its firings do the allowed effects without asking again),
changes its time, or declines it (then nothing but the answer and the report is journaled)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from alicorn.anvil.settings import AnvilSettings
from alicorn.anvil.terms import RunTerms
from alicorn.app import App
from alicorn.config import Config
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.core.recurring import changed_time, person_zone, without_time_words
from alicorn.core.triggered import CoreSubmitter
from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.registry import Operation
from alicorn.packs.workflow import BuiltPlan
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import fold as fold_run
from alicorn.schedule.book import all_schedules
from alicorn.schedule.scheduler import Scheduler
from tests.core.support import GREET, NotifyOutputs, core, make_app, registry
from tests.schedule.support import JumpClock


def _ask(norbi: Norbi, text: str, **fields: Any) -> Any:
    return norbi.receive(IntentEnvelope(utterance=text, author=fields.pop("author", "human:ann"), **fields))


def _proposal(app: App, conversation: str) -> dict[str, Any]:
    state = fold(app.store.read(conversation))
    assert state.questions and "schedule_proposal" in state.questions[-1], state.questions
    return dict(state.questions[-1]["schedule_proposal"]) | {"next": state.questions[-1]["next"]}


def _no_schedules(app: App) -> bool:
    return not [s for s in app.store.streams() if s.stream == "schedules" or s.stream.startswith("schedule:")]


def _runs(app: App) -> list[str]:
    return [s.stream for s in app.store.streams() if s.stream.startswith("run-")]


CASES = [
    ("en", "Every Monday at 8, summarise yesterday's camera alarms", "yes", "0 8 * * 1",
     "Summarise yesterday's camera alarms", "Shall I add this as a schedule?", "Schedule sch-"),
    ("pl", "Co piątek o 9 przeanalizuj wczorajsze alarmy z kamer", "tak", "0 9 * * 5",
     "Przeanalizuj wczorajsze alarmy z kamer", "Czy dodać to jako harmonogram?", "Dodano harmonogram sch-"),
    ("ru", "Каждый день в 9 проанализируй вчерашние тревоги камер", "да", "0 9 * * *",
     "Проанализируй вчерашние тревоги камер", "Добавить это как расписание?", "Расписание sch-"),
]  # fmt: skip


@pytest.mark.parametrize(("language", "text", "yes", "cron", "what", "asks", "added"), CASES)
def test_a_recurring_request_is_proposed_then_added_on_approval(
    tmp_path: Path, language: str, text: str, yes: str, cron: str, what: str, asks: str, added: str
) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    turn = _ask(norbi, text)
    assert turn.phase == "asking" and turn.question.startswith(asks), turn.question
    proposal = _proposal(app, turn.conversation)
    assert (proposal["cron"], proposal["zone"], proposal["request"]) == (cron, "UTC", what)
    assert proposal["allow"] == ["none", "read", "local_write"]  # the alarms template's plan writes its report
    assert (proposal["overlap"], proposal["catch_up"]) == ("skip", "last") and len(proposal["next"]) == 3
    assert f"cron {cron}" in turn.question and _runs(app) == [] and _no_schedules(app)
    done = norbi.reply(turn.conversation, yes, by="human:ann")
    assert done.report is not None and done.report.outcome == "complete" and done.report.language == language
    assert done.report.headline.startswith(added), done.report.headline
    (schedule,) = list(all_schedules(app.store))
    spec = schedule.require_spec()
    assert (spec.rule.kind, spec.rule.expr, spec.zone) == ("cron", cron, "UTC")  # type: ignore[union-attr]
    assert spec.allow == ("none", "read", "local_write") and spec.author == "human:ann"
    assert (spec.request, spec.language, spec.overlap, spec.catch_up) == (what, language, "skip", "last")
    assert done.report.metrics["schedule"] == schedule.id and done.report.metrics["next"] == proposal["next"]
    assert _runs(app) == []  # approving a schedule runs nothing


def test_an_approved_schedule_fires_and_its_run_does_the_allowed_effect_without_a_human(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)  # its clock: 2026-11-30 08:00 UTC
    turn = _ask(norbi, "Every day at 9 summarise yesterday's camera alarms")
    done = norbi.reply(turn.conversation, "yes", by="human:ann")
    sid = done.report.metrics["schedule"]
    clock = JumpClock(datetime(2026, 11, 30, 9, 0, 4, tzinfo=UTC))
    assert Scheduler(app.store, CoreSubmitter(norbi), clock).tick().fired == [f"{sid}@20261130T090000Z"]
    fired = next(e for e in app.store.read(f"schedule:{sid}") if e.kind == "schedule.fired")
    state = norbi.state(fired.data["conversation"])
    assert state.envelope["provenance"] == "trigger" and state.envelope["utterance"] == (
        "Summarise yesterday's camera alarms"
    )
    assert state.questions == [] and state.run is not None  # a firing is one piece of work, never proposed again
    run = fold_run(app.store.read(state.run), state.run)
    assert run.status == "succeeded" and run.effects.get("local_write"), run.status  # no human was asked
    assert not run.approvals
    assert RunTerms.from_created(app.store.read(state.run)[0].data).trigger is not None
    assert state.report is not None and state.report["known"][0].startswith(f"triggered by schedule {sid}: slot ")


def test_a_changed_time_is_proposed_again_then_added(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    turn = _ask(norbi, "Co piątek o 9 przeanalizuj wczorajsze alarmy z kamer")
    again = norbi.reply(turn.conversation, "o 10:30", by="human:ann")
    assert again.phase == "asking" and again.question.startswith("Czy dodać")
    assert _proposal(app, turn.conversation)["cron"] == "30 10 * * 5" and _no_schedules(app)
    other = norbi.reply(turn.conversation, "co wtorek o 7", by="human:ann")
    assert other.phase == "asking" and _proposal(app, turn.conversation)["cron"] == "0 7 * * 2"
    done = norbi.reply(turn.conversation, "tak", by="human:ann")
    (schedule,) = list(all_schedules(app.store))
    assert schedule.require_spec().rule.expr == "0 7 * * 2" and done.report.outcome == "complete"  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "no"), [
    ("Every Monday at 8, summarise yesterday's camera alarms", "no"),
    ("Co piątek o 9 przeanalizuj wczorajsze alarmy z kamer", "nie"),
    ("Каждый день в 9 проанализируй вчерашние тревоги камер", "нет"),
])  # fmt: skip
def test_a_declined_schedule_journals_nothing_but_the_answer_and_the_report(tmp_path: Path, text: str, no: str) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    turn = _ask(norbi, text)
    before = {s.stream for s in app.store.streams()}
    done = norbi.reply(turn.conversation, no, by="human:ann")
    assert done.report is not None and done.report.outcome == "stopped_safely"
    assert {s.stream for s in app.store.streams()} == before and _no_schedules(app) and _runs(app) == []
    kinds = [e.kind for e in app.store.read(turn.conversation)]
    assert kinds[-2:] == ["clarification.answered", "report.written"]


def test_the_zone_is_the_homes_or_the_persons_else_utc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    norbi.schedule_zone = "Europe/Warsaw"
    turn = _ask(norbi, "Every Monday at 8, summarise yesterday's camera alarms")
    proposal = _proposal(app, turn.conversation)
    assert proposal["zone"] == "Europe/Warsaw" and proposal["next"][0] == "2026-12-07T07:00:00Z"  # 08:00 CET
    assert "Mon 7 Dec 2026, 08:00 CET" in turn.question
    norbi.reply(turn.conversation, "yes", by="human:ann")
    assert next(iter(all_schedules(app.store))).require_spec().zone == "Europe/Warsaw"
    monkeypatch.setenv("TZ", "Europe/Moscow")
    assert person_zone() == "Europe/Moscow"
    monkeypatch.setenv("TZ", "CET-1CEST")  # a POSIX rule, not an IANA zone: UTC
    assert person_zone() == "UTC"


class PostInputs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str
    message: str = Field(min_length=1)


#: A send that names where it goes (its url), unlike test.notify: a schedule may be allowed to do it there.
POST = Operation(
    "test.post", "Post a message to the team's hook.", PostInputs, NotifyOutputs, "external_transmission", "keyed",
    lambda inputs, ctx: NotifyOutputs(sent=True), url_input="url",
)  # fmt: skip


def _build_posting(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    built = GREET.build(params, forbidden)
    nodes = [
        Node.model_validate(
            {
                "node_id": n.node_id,
                "operation": "test.post",
                "inputs": {
                    "url": {"value": "https://hooks.example.com/team"},
                    "message": n.inputs["message"].model_dump(),
                },
                "depends_on": n.depends_on,
            }
        )
        if n.operation == "test.notify"
        else n
        for n in built.nodes
    ]
    return BuiltPlan(tuple(nodes), built.left_out)


GREET_POSTING = replace(GREET, operations=(POST,), build=_build_posting)


def test_the_effects_come_from_the_template_less_what_the_person_forbade(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    # test.notify sends without naming a host: a schedule cannot be allowed to send it anywhere, so it is held back
    sends = _ask(norbi, "Every Monday at 9 greet the red team and send it")
    assert _proposal(app, sends.conversation)["allow"] == ["none", "read"]
    assert "names no host to allow it for, so each run's sending waits for a person" in sends.question
    quiet = _ask(norbi, "Every Monday at 9 greet the red team and send it, but do not send anything outside")
    assert _proposal(app, quiet.conversation)["allow"] == ["none", "read"]
    assert "only look (read), change nothing" in quiet.question and "names no host" not in quiet.question
    nothing = _ask(norbi, "Every Monday at 9 water the garden plants")  # no template fits: read-only
    assert _proposal(app, nothing.conversation)["allow"] == ["none", "read"]


def test_a_schedule_that_sends_names_the_hosts_its_plan_reaches_and_is_added_with_them(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    app.registry.register(POST)
    norbi = core(app, (GREET_POSTING,))
    turn = _ask(norbi, "Every Monday at 9 greet the red team and send it")
    proposal = _proposal(app, turn.conversation)
    assert proposal["allow"] == ["none", "read", "external_transmission"]
    assert proposal["hosts"] == ["hooks.example.com"]
    assert "reaching only hooks.example.com" in turn.question and "names no host" not in turn.question
    done = norbi.reply(turn.conversation, "yes", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.report
    (added,) = all_schedules(app.store)
    assert added.spec.hosts == ("hooks.example.com",) and "external_transmission" in added.spec.allow


def test_a_process_with_no_time_rule_asks_when(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    turn = _ask(norbi, "Keep watching the camera alarms")
    assert turn.phase == "asking" and turn.question.startswith("This is ongoing work: when should it run?")
    proposed = norbi.reply(turn.conversation, "every Monday at 8", by="human:ann")
    assert proposed.phase == "asking" and _proposal(app, turn.conversation)["cron"] == "0 8 * * 1"
    once = _ask(norbi, "Keep watching the camera alarms")
    onwards = norbi.reply(once.conversation, "once", by="human:ann")  # a one-off: on to the template, as a task
    state = fold(app.store.read(once.conversation))
    assert state.workflow is not None and state.workflow["workflow"] == "alarms"
    assert not any("schedule_proposal" in q for q in state.questions) and onwards.question != turn.question
    assert _no_schedules(app)


def test_a_forbidden_effect_is_the_schedule_packages_error_in_the_requests_language(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = Config(anvil=AnvilSettings(forbidden=("local_write",)))
    app = App(home, SQLiteStore(home / "journal.db"), registry(), config=config)
    norbi = core(app)
    turn = _ask(norbi, "Co piątek o 9 przeanalizuj wczorajsze alarmy z kamer")
    done = norbi.reply(turn.conversation, "tak", by="human:ann")
    assert done.report is not None and done.report.outcome == "stopped_safely"
    assert "harmonogramu nie dodano: --allow local_write: this home forbids" in done.report.headline
    assert _no_schedules(app)


def test_only_an_authenticated_person_adds_a_schedule(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    turn = _ask(norbi, "Every Monday at 8, summarise yesterday's camera alarms")
    done = norbi.reply(turn.conversation, "yes", by="agent:planner")
    assert done.report is not None and "only an authenticated person" in done.report.headline
    stranger = _ask(norbi, "Every Monday at 8, summarise yesterday's camera alarms")
    refused = norbi.reply(stranger.conversation, "yes", by="human:mallory")  # not one of this home's people
    assert refused.report is not None and "not one of this home's people" in refused.report.headline
    external = _ask(norbi, "Every Monday at 8, summarise yesterday's camera alarms", author="external:mail",
                    provenance="external", channel="mail")  # fmt: skip
    assert external.report is not None and "only a person can add a schedule" in external.report.headline
    assert _no_schedules(app)


def test_a_triggered_request_with_time_words_is_run_once_never_proposed(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = core(app)
    turn = _ask(norbi, "Every day at 8 summarise yesterday's camera alarms", author="trigger:cron",
                provenance="trigger", channel="cron")  # fmt: skip
    assert turn.phase != "asking" and fold(app.store.read(turn.conversation)).questions == []
    assert _no_schedules(app) and len(_runs(app)) == 1


def test_reading_the_words() -> None:
    assert (
        without_time_words("Every Monday at 8, summarise the alarms", "Every Monday … at 8") == "Summarise the alarms"
    )
    assert without_time_words("every day", "every day") == "every day"  # nothing left: the words stay
    daily = {"cron": "0 9 * * *", "at": "09:00", "frequency": "daily"}
    assert changed_time("в 10", "ru", daily)["cron"] == "0 10 * * *"  # type: ignore[index]
    assert changed_time("7:45", "en", daily)["cron"] == "45 7 * * *"  # type: ignore[index]
    assert changed_time("at 25", "en", daily) is None
    assert changed_time("o 9", "pl", {"cron": "0 * * * *"}) is None  # an hourly rule has no hour to change


def test_alicorn_ask_proposes_and_the_person_at_the_terminal_approves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from alicorn.cli import app as cli
    from alicorn.testing.people import act_as

    act_as(monkeypatch, "ann")
    monkeypatch.setenv("TZ", "Europe/Warsaw")
    home = tmp_path / "home"
    args = ["ask", "Co poniedziałek o 8 przeanalizuj wczorajsze alarmy z kamer", "--home", str(home), "--model", "none"]
    result = CliRunner().invoke(cli, args, input="tak\n")
    assert result.exit_code == 0, result.output
    assert "Czy dodać to jako harmonogram?" in result.output and "Europe/Warsaw" in result.output
    assert "Dodano harmonogram sch-" in result.output
    listed = CliRunner().invoke(cli, ["schedule", "list", "--home", str(home), "--json"])
    (row,) = json.loads(listed.output)["schedules"]
    assert row["status"] == "active" and row["when"] == "cron '0 8 * * 1' in Europe/Warsaw", row
    assert row["request"] == "Przeanalizuj wczorajsze alarmy z kamer"
