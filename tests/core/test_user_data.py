"""Core on the user's own data, judged honestly: data found where the user put it, checked before anything runs,
the period checked against the data's span, stated constraints checked, the outcome the weakest check, and the
conversation going on after the report (a picked variant gets its own publication plan)."""

from __future__ import annotations

import csv
import hashlib
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from alicorn.app import App, open_app
from alicorn.clock import PinnedClock
from alicorn.context.artifacts import ArtifactStore
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.packs.catalog import bundled_workflows
from alicorn.packs.notes.slots import DATA_DIR as NOTES_DATA
from alicorn.packs.schedule import DATA_DIR as SCHEDULE_DATA
from alicorn.plan.dsl import Plan
from alicorn.runtime.state import fold as fold_run
from alicorn.testing.people import enrol

AS_OF = datetime(2026, 12, 1, 7, 30, tzinfo=UTC)  # "yesterday" is 2026-11-30
ALARMS = "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human."


def alarm_log(path: Path, days: Sequence[str], per_day: int = 6) -> Path:
    """A camera alarm log of the user's own: `per_day` alarms on each day, every third one a tamper alarm."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "ts", "camera", "zone", "type", "confidence", "note"])
        number = 700
        for day in days:
            for i in range(per_day):
                kind = "tamper" if i % 3 == 0 else "animal"
                writer.writerow([number, f"{day}T0{i}:15:00", f"cam-{i}", "perimeter", kind, 0.9, ""])
                number += 1
    return path


def _core(home: Path, workdir: Path | None = None) -> tuple[App, Norbi]:
    app = open_app(home)
    return app, Norbi(app, bundled_workflows(), clock=PinnedClock(AS_OF), workdir=workdir or home.parent)


def _ask(core: Norbi, text: str, **fields: object):
    return core.receive(IntentEnvelope(utterance=text, author="human:ann", **fields))  # type: ignore[arg-type]


def _runs(app: App) -> list[str]:
    return [i.stream for i in app.store.streams() if i.stream.startswith("run-")]


def _attach(app: App, path: Path) -> str:
    return ArtifactStore(app.home / "artifacts").put_file(path).sha256


def test_an_attached_log_is_the_input_and_the_report_names_it(tmp_path: Path) -> None:
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-29", "2026-11-30"])
    app, core = _core(tmp_path / "home")
    turn = _ask(core, ALARMS, attachments=(_attach(app, log),))
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    assert "2 events need a human, of 6 alarms" in turn.report.headline  # the user's data, not the samples
    digest = hashlib.sha256(log.read_bytes()).hexdigest()
    assert any("cams.csv" in line and digest[:16] in line for line in turn.report.evidence)
    state = fold(app.store.read(turn.conversation))
    assert state.contract is not None and state.contract["data"] == {"alarms": [digest]}


def test_data_given_with_the_request_or_named_in_its_words_is_read(tmp_path: Path) -> None:
    alarm_log(tmp_path / "logs.csv", ["2026-11-30"], per_day=9)
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    given = _ask(core, ALARMS, data=("logs.csv",))
    assert given.report is not None and "3 events need a human, of 9 alarms" in given.report.headline
    named = _ask(core, "Analyse the camera alarms of 2026-11-30 in ./logs.csv and show only events that need a human")
    assert named.report is not None and "of 9 alarms" in named.report.headline


def test_the_projects_data_sources_are_found(tmp_path: Path) -> None:
    folder = tmp_path / "srv" / "alarms"
    folder.mkdir(parents=True)
    alarm_log(folder / "a.csv", ["2026-11-29"])
    alarm_log(folder / "b.csv", ["2026-11-30"], per_day=3)
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(f'[projects.ops.data]\nalarms = "{folder}/*.csv"\n', encoding="utf-8")
    _app, core = _core(home)
    turn = _ask(core, ALARMS, project="ops")
    assert turn.report is not None and "of 3 alarms" in turn.report.headline  # both files read, merged
    assert sum("read alarms (project data source)" in line for line in turn.report.evidence) == 2


def test_a_projects_files_of_different_shapes_are_merged_without_sharing_an_id(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    folder.mkdir()
    (folder / "a.csv").write_text("Time;Camera;Zone;Event;Score\n30.11.2026 01:00;c1;yard;Car;0,9\n", encoding="utf-8")
    (folder / "b.csv").write_text(
        "id,ts,camera,zone,type,confidence\n1,2026-11-30T02:00:00,c2,yard,tamper,1\n", encoding="utf-8"
    )
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(f'[projects.ops.data]\nalarms = "{folder}/*.csv"\n', encoding="utf-8")
    _app, core = _core(home)
    turn = _ask(core, ALARMS, project="ops")
    assert turn.report is not None and "2 events need a human, of 2 alarms" in turn.report.headline, turn.report
    # the log without ids is numbered after the other's highest id, never as a second "alarm 1"
    assert sorted(line.split(" at ")[0] for line in turn.report.result if line.startswith("alarm ")) == [
        "alarm 1",
        "alarm 2",
    ], turn.report.result


def test_no_data_is_a_question_naming_what_and_how_then_the_answer_gives_it(tmp_path: Path) -> None:
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS)
    assert turn.phase == "asking" and turn.question is not None
    assert "camera alarm log (CSV)" in turn.question and "--attach" in turn.question and "--data" in turn.question
    assert _runs(app) == []
    alarm_log(tmp_path / "here.csv", ["2026-11-30"])
    done = core.reply(turn.conversation, "here.csv", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete" and "of 6 alarms" in done.report.headline


def test_a_polish_request_gets_a_polish_question(tmp_path: Path) -> None:
    _, core = _core(tmp_path / "home")
    turn = _ask(core, "Przeanalizuj wczorajsze alarmy z kamer i pokaż tylko zdarzenia wymagające człowieka.")
    assert turn.phase == "asking" and turn.question is not None
    assert "dziennik alarmów z kamer" in turn.question and "Dołącz plik" in turn.question


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("alarms.pdf", b"%PDF-1.7\n...", "a PDF document, not text"),
        ("empty.csv", b"", "is empty"),
        ("wrong.csv", b"a,b\n1,2\n", "lacks the column(s) ts, camera, zone, type, confidence"),
        ("header.csv", b"id,ts,camera,zone,type,confidence\n", "has a header but no rows"),
        ("latin.csv", "id,ts\n1,żółw\n".encode("cp1250"), "not UTF-8 text"),
    ],
)
def test_data_of_the_wrong_kind_is_a_clear_question_and_nothing_runs(
    tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    (tmp_path / name).write_bytes(content)
    app, core = _core(tmp_path / "home")
    turn = _ask(core, ALARMS, attachments=(_attach(app, tmp_path / name),))
    assert turn.phase == "asking" and turn.question is not None
    assert name in turn.question and says in turn.question, turn.question
    assert _runs(app) == []
    streams = {i.stream for i in app.store.streams()}
    assert streams == {turn.conversation}  # nothing journaled but the conversation's own events


def test_a_path_outside_the_project_is_refused(tmp_path: Path) -> None:
    outside = alarm_log(tmp_path / "elsewhere.csv", ["2026-11-30"])
    project = tmp_path / "project"
    project.mkdir()
    app, core = _core(tmp_path / "home", workdir=project)
    turn = _ask(core, ALARMS, data=(str(outside),))
    assert turn.phase == "asking" and turn.question is not None
    assert "outside the project's folders" in turn.question and _runs(app) == []


def test_a_folder_outside_the_project_is_named_once_for_all_the_inputs_found_in_it(tmp_path: Path) -> None:
    outside = _schedule_data(tmp_path / "elsewhere")
    project = tmp_path / "project"
    project.mkdir()
    app, core = _core(tmp_path / "home", workdir=project)
    turn = _ask(core, "Prepare three variants of next month's work schedule", data=(str(outside),))
    assert turn.phase == "asking" and turn.question is not None
    assert turn.question.count("outside the project's folders") == 1, turn.question
    assert turn.question.count("I need") == 1 and all(w in turn.question for w in ("CSV: employee, from", "JSON"))
    assert _runs(app) == []


def test_data_that_does_not_cover_the_period_is_missing_data_with_the_span_found(tmp_path: Path) -> None:
    log = alarm_log(tmp_path / "old.csv", ["2026-11-29"])
    app, core = _core(tmp_path / "home")
    turn = _ask(core, ALARMS, attachments=(_attach(app, log),))
    assert turn.report is not None and turn.report.outcome == "missing_data", turn.report
    assert "covers 2026-11-29 only" in turn.report.headline and "2026-11-30" in turn.report.headline
    assert _runs(app) == []


def _schedule_data(folder: Path) -> Path:
    """The user's HR export: the bundled sample with its deliberate data problems fixed."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in SCHEDULE_DATA.iterdir():
        shutil.copyfile(source, folder / source.name)
    employees = (folder / "employees.csv").read_text(encoding="utf-8").splitlines()
    (folder / "employees.csv").write_text("\n".join(r for r in employees if not r.startswith("E15,")) + "\n")
    vacations = (folder / "vacations.csv").read_text(encoding="utf-8").splitlines()
    bad = ("E99,", "E13,2026-12-20")
    kept = [r for r in vacations if not r.startswith(bad) and "overlaps the row above" not in r]
    (folder / "vacations.csv").write_text("\n".join(kept) + "\n")
    return folder


@pytest.mark.slow
def test_a_stated_constraint_is_checked_and_a_picked_variant_gets_its_own_publication_plan(tmp_path: Path) -> None:
    data = _schedule_data(tmp_path / "hr")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    text = "Prepare three variants of next month's work schedule, keep overtime under 285 h, do not publish"
    turn = _ask(core, text, data=(str(data),))
    report = turn.report
    assert report is not None and report.outcome in ("complete", "partial"), report
    state = fold(app.store.read(turn.conversation))
    constraint = next(c for c in state.validations[-1]["checks"] if c["name"] == "constraint")
    broken = str(constraint["values"].get("items", ""))
    first_run = state.run
    # A message Core cannot act on is answered, never ignored.
    declined = core.reply(turn.conversation, "thanks, looks fine", by="human:ann")
    assert declined.answer is not None and "I cannot act on" in declined.answer
    # Picking a variant that breaks the stated constraint is refused with the reason.
    for number in (1, 2, 3):
        if f"variant {number}" in broken.split(", "):
            refused = core.reply(turn.conversation, f"I pick variant {number}, publish it", by="human:ann")
            assert refused.answer is not None and "keep overtime under 285 h" in refused.answer
            assert refused.phase == "reported"
    good = next(n for n in (1, 2, 3) if f"variant {n}" not in broken.split(", "))
    picked = core.reply(turn.conversation, f"I pick variant {good}", by="human:ann")
    assert picked.phase == "waiting" and picked.plan is not None
    assert [n.node_id for n in picked.plan.nodes] == ["publish"]  # only the new node: nothing is solved again
    node = picked.plan.nodes[0]
    assert "recipients" in node.description and "changes" in node.description
    assert all("value" in b.model_dump() for b in node.inputs.values())  # over the finished run's outputs
    assert picked.proposal is not None and "publish" in picked.proposal.actions
    state = fold(app.store.read(turn.conversation))
    assert state.contract is not None and state.contract["follows"] is not None
    assert state.contract["forbidden"] == []  # a new human decision, separate from the first request's "do not"
    enrol(app, "bob")
    done = core.approve(turn.conversation, by="human:bob")
    assert done.report is not None and done.report.outcome == "complete", done.report
    run = fold_run(app.store.read(done.report.run or ""), done.report.run or "")
    assert run.run_id != first_run and run.effects.get("publication") == ["publish"]
    assert Plan.model_validate(run.plan).goal_hash == state.goal_hash


def test_a_recurring_request_is_a_process_proposed_as_a_schedule_and_never_run_once(tmp_path: Path) -> None:
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-30"])
    app, core = _core(tmp_path / "home")
    text = "Every morning at 7 analyse yesterday's camera alarms and show only events that need a human"
    turn = _ask(core, text, attachments=(_attach(app, log),))
    assert turn.phase == "asking" and turn.question is not None and "as a schedule" in turn.question
    state = fold(app.store.read(turn.conversation))
    assert state.classification is not None and state.classification["kind"] == "process"
    no = core.reply(turn.conversation, "no", by="human:ann")
    assert no.report is not None and no.report.outcome == "stopped_safely" and _runs(app) == []
    again = _ask(core, text, attachments=(_attach(app, log),))
    yes = core.reply(again.conversation, "yes", by="human:ann")
    assert yes.report is not None and yes.report.outcome == "complete" and _runs(app) == []  # scheduled, not run
    assert str(yes.report.metrics["schedule"]).startswith("sch-")  # tests/core/test_recurring.py: the rest


def test_which_of_these_offers_none_and_none_runs_nothing(tmp_path: Path) -> None:
    app, core = _core(tmp_path / "home")
    turn = _ask(core, "Clean up the disk on the build server")
    assert turn.phase == "asking" and turn.question is not None and "none of these" in turn.question
    answered = core.reply(turn.conversation, "none of these", by="human:ann")
    assert answered.report is not None and answered.report.outcome == "stopped_safely"
    assert "no workflow template fits" in answered.report.headline and _runs(app) == []


def test_a_date_that_does_not_exist_is_a_question_in_the_users_language(tmp_path: Path) -> None:
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-29"])
    app, core = _core(tmp_path / "home")
    turn = _ask(core, "Przeanalizuj alarmy z kamer z 31 listopada", attachments=(_attach(app, log),))
    assert turn.phase == "asking" and turn.question is not None
    assert "31 listopada" in turn.question and "którego dnia" in turn.question.lower(), turn.question
    assert _runs(app) == []
    done = core.reply(turn.conversation, "29 listopada", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.report


def test_a_log_with_its_own_column_names_and_date_forms_is_read_for_what_it_says(tmp_path: Path) -> None:
    # Before: "2026-11-30 01:12" sorts before "2026-11-30T00:00:00" and "30.11.2026" by its day, so the day filter
    # kept nothing and the report said, complete, that no event needed a human.
    log = tmp_path / "export.csv"
    log.write_text(
        "Timestamp,Camera,Area,Event Type,Score\n"
        "2026-11-30 01:12:00,cam-3,parking,person,0.91\n"
        "2026-11-30 01:12:20,cam-3,parking,person,0.89\n"
        "30.11.2026 02:40,cam-1,gate,vehicle,0.75\n"
        "30.11.2026 10:30,cam-1,gate,person,0.95\n"
        "2026-11-30 23:30:00,cam-1,gate,tamper,0.95\n"
        "2026-11-29 23:30:00,cam-1,gate,tamper,0.95\n",
        encoding="utf-8",
    )
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, data=("export.csv",))
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    # the night-time person (its repeat merged), the night-time vehicle and the tamper; not the daytime person
    assert "3 events need a human, of 5 alarms" in turn.report.headline, turn.report.headline
    line = next(line for line in turn.report.evidence if "export.csv" in line)
    assert "Event Type → type" in line and "Timestamp → ts" in line and "rows numbered as id" in line, line
    assert "dates written as ISO 8601: 6" in line, line


def test_an_alarm_of_a_type_the_triage_does_not_know_is_shown_to_a_person_and_said(tmp_path: Path) -> None:
    log = tmp_path / "export.csv"
    log.write_text(
        "id,ts,camera,zone,type,confidence\n"
        "1,2026-11-30T03:00:00,cam-1,yard,Fox,0.9\n"  # an animal: the triage knows it needs nobody
        "2,2026-11-30T03:30:00,cam-2,yard,Loitering,0.8\n"  # a type it does not know: not hidden
        "3,2026-11-30T04:00:00,cam-4,roof,Video Loss,1.0\n",  # "offline", as this log writes it
        encoding="utf-8",
    )
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, data=("export.csv",))
    assert turn.report is not None and "2 events need a human, of 3 alarms" in turn.report.headline, turn.report
    assert any("Loitering on cam-2" in line for line in turn.report.result), turn.report.result
    line = next(line for line in turn.report.evidence if "export.csv" in line)
    assert "Fox → animal" in line and "Video Loss → offline" in line and "type 'Loitering' ×1" in line, line


def test_a_date_the_log_cannot_hold_is_a_question_naming_its_line_in_the_users_language(tmp_path: Path) -> None:
    log = tmp_path / "export.csv"
    log.write_text(
        "id,ts,camera,zone,type,confidence\n1,30.11.2026 01:00,c,z,person,0.9\n2,31.11.2026 01:00,c,z,person,0.9\n"
    )
    app, core = _core(tmp_path / "home")
    turn = _ask(core, "Przeanalizuj wczorajsze alarmy z kamer", attachments=(_attach(app, log),))
    assert turn.phase == "asking" and turn.question is not None
    assert "export.csv" in turn.question and "'31.11.2026 01:00'" in turn.question, turn.question
    assert "wierszu 3" in turn.question and "nie jest datą" in turn.question, turn.question
    assert _runs(app) == []


def _transcript(folder: Path, name: str, day: str, language: str, title: str) -> None:
    import json

    source = json.loads((NOTES_DATA / "2026-11-27-planning.json").read_text(encoding="utf-8"))
    source.update({"date": day, "language": language, "title": title})
    (folder / name).write_text(json.dumps(source, ensure_ascii=False), encoding="utf-8")


def test_the_latest_transcript_prefers_the_requests_language_and_day(tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    _transcript(folder, "2026-11-20-review.json", "2026-11-20", "pl", "Przegląd kwartału")
    _transcript(folder, "2026-11-26-sync.json", "2026-11-26", "en", "Weekly sync")
    _transcript(folder, "2026-12-05-future.json", "2026-12-05", "pl", "Not yet held")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    text = "Z ostatniej rozmowy przygotuj notatkę i zadania, nic nie wysyłaj"
    turn = _ask(core, text, data=(str(folder),))
    state = fold(app.store.read(turn.conversation))
    assert state.slots is not None and state.slots["parameters"]["conversation"] == "2026-11-20-review.json"


def test_a_run_whose_result_fails_validation_never_raises_reputation(tmp_path: Path) -> None:
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-30"])
    app, core = _core(tmp_path / "home")
    good = _ask(core, ALARMS, attachments=(_attach(app, log),))
    assert good.report is not None and good.report.outcome == "complete"
    after_good = app.anvil.agents.record("agent:planner").reputation
    # "night only" names no figure the workflow measures: the run succeeds, the result is partial.
    partial = _ask(core, ALARMS, attachments=(_attach(app, log),), constraints=("night only",))
    assert partial.report is not None and partial.report.outcome == "partial"
    record = app.anvil.agents.record("agent:planner")
    assert record.reputation <= after_good
    kinds = [e.data.get("kind") for e in app.store.read(record.id) if e.kind == "reputation.changed"]
    assert "validation" in kinds


@pytest.mark.parametrize(
    ("text", "triaged"),
    [
        (
            "Someone is breaking into the yard right now, the cameras keep firing tamper alarms! The log is attached: "
            "triage today's camera alarms and show me only the ones that need a human.",
            "alarm triaged as critical",
        ),
        (
            "Ktoś właśnie włamuje się na parking, kamery sypią alarmami sabotażu! Log w załączniku: przeanalizuj "
            "dzisiejsze alarmy z kamer i pokaż tylko te, które wymagają człowieka.",
            "alarm oceniony jako krytyczny",
        ),
    ],
)
def test_an_alarm_that_names_a_workflows_work_is_triaged_then_worked_on_its_data(
    tmp_path: Path, text: str, triaged: str
) -> None:
    # it used to end at the triage ("a human should review it today"): the attached log was stored and never read
    log = alarm_log(tmp_path / "yard.csv", ["2026-11-30", "2026-12-01"])
    app, core = _core(tmp_path / "home")
    turn = _ask(core, text, attachments=(_attach(app, log),))
    events = list(app.store.read(turn.conversation))
    kinds = [e.kind for e in events]
    assert next(e for e in events if e.kind == "intent.classified").data["kind"] == "alarm"
    assert kinds.index("triage.done") < kinds.index("intent.reclassified") < kinds.index("workflow.selected")
    assert next(e for e in events if e.kind == "triage.done").data["then"] == "work"
    assert next(e for e in events if e.kind == "workflow.selected").data["workflow"] == "alarms"
    assert turn.report is not None and turn.report.outcome != "triaged"
    assert turn.report.run is not None and _runs(app) == [turn.report.run]
    digest = hashlib.sha256(log.read_bytes()).hexdigest()
    assert any("yard.csv" in line and digest[:16] in line for line in turn.report.evidence)  # the user's log, read
    assert any(line.startswith(triaged) for line in turn.report.known), "\n".join(turn.report.known)


def test_an_alarm_that_names_no_workflows_work_is_only_triaged(tmp_path: Path) -> None:
    app, core = _core(tmp_path / "home")
    turn = _ask(core, "Smoke in the server room right now, the detector is beeping!")
    assert turn.report is not None and turn.report.outcome == "triaged"
    assert _runs(app) == []
    assert "intent.reclassified" not in [e.kind for e in app.store.read(turn.conversation)]
