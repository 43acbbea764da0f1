"""The user's data as they give it: a folder of several files, a path with a typo, a path with spaces in quotes.

Before: a folder holding one readable CSV and one saved in Windows-1250 ran over the readable half and reported
`complete`; a binary `.csv` or a readme beside the log was left out without a word; a `--data` path or a path in the
words that does not exist, or a quoted path with spaces, was ignored, and the question never said so."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from alicorn.core.conversation import fold
from alicorn.core.data import DataSources, locate
from alicorn.core.gathering import data_question
from alicorn.packs.schedule import WORKFLOW as SCHEDULE
from tests.core.test_user_data import ALARMS, _ask, _attach, _core, _runs, alarm_log

POLISH = "Przeanalizuj wczorajsze alarmy z kamer {where} i pokaż tylko zdarzenia wymagające człowieka"


def _split_log(folder: Path) -> tuple[Path, Path]:
    """One day's alarm log in two files; the second saved as Windows-1250 (a note in Polish)."""
    folder.mkdir(parents=True, exist_ok=True)
    first, second = folder / "cams_part1.csv", folder / "cams_part2.csv"
    alarm_log(first, ["2026-11-30"], per_day=3)
    with second.open("w", newline="", encoding="cp1250") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "ts", "camera", "zone", "type", "confidence", "note"])
        for number in range(3):
            writer.writerow([900 + number, f"2026-11-30T1{number}:00:00", "cam-x", "yard", "tamper", 1.0, "żółte"])
    return first, second


def test_an_unreadable_csv_beside_a_readable_one_is_a_question_never_half_the_log(tmp_path: Path) -> None:
    _first, second = _split_log(tmp_path / "split")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, data=("split",))
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert "cams_part2.csv is not UTF-8 text; save it as UTF-8" in turn.question, turn.question
    assert _runs(app) == []
    # saved as UTF-8, both halves are read and merged
    second.write_text(second.read_text(encoding="cp1250"), encoding="utf-8")
    done = core.reply(turn.conversation, "saved it as UTF-8", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.report
    assert "4 events need a human, of 6 alarms" in done.report.headline, done.report.headline
    assert sum("cams_part" in line for line in done.report.evidence) == 2, done.report.evidence


def test_the_same_question_in_polish_and_for_a_projects_glob(tmp_path: Path) -> None:
    _split_log(tmp_path / "srv")
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(f'[projects.ops.data]\nalarms = "{tmp_path}/srv/*.csv"\n', encoding="utf-8")
    app, core = _core(home)
    turn = _ask(core, POLISH.format(where=""), project="ops")
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert "cams_part2.csv nie jest tekstem w UTF-8" in turn.question, turn.question
    assert _runs(app) == []


def test_a_binary_csv_in_a_folder_is_asked_about_and_files_of_no_use_are_said_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    alarm_log(folder / "cams.csv", ["2026-11-30"])
    (folder / "readme.txt").write_text("exported from the NVR on Monday\n", encoding="utf-8")
    (folder / "empty.csv").write_bytes(b"")
    (folder / "zz_binary.csv").write_bytes(bytes(range(256)))
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, data=("mixed",))
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert "zz_binary.csv is a binary file, not text" in turn.question, turn.question
    assert "readme.txt" not in turn.question and "empty.csv" not in turn.question  # they hold no alarms
    assert _runs(app) == []
    (folder / "zz_binary.csv").unlink()
    done = core.reply(turn.conversation, "removed it", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.report
    state = fold(app.store.read(turn.conversation))
    skipped = {Path(s["path"]).name: s["why"] for s in (state.data or {}).get("skipped", [])}
    assert set(skipped) == {"readme.txt", "empty.csv"}, skipped
    assert "empty.csv is empty" in skipped["empty.csv"] and ".csv" in skipped["readme.txt"], skipped


def test_a_table_of_another_input_neither_blocks_nor_counts_as_skipped(tmp_path: Path) -> None:
    # A schedule folder whose files are not named as the plan reads them: every CSV is a candidate of every CSV
    # input. Another table's CSV is not this input's; one that cannot be read blocks each input it could be, once.
    workflow = SCHEDULE
    folder = tmp_path / "hr"
    folder.mkdir()
    (folder / "staff.csv").write_text(
        "id,name,competences,contract_hours,hourly_cost\nA1,Ann,picker,160,30\n", encoding="utf-8"
    )
    (folder / "needs.csv").write_text("day,shift,competence,required\nmon,morning,picker,1\n", encoding="utf-8")
    (folder / "leave.csv").write_bytes("employee,from,to\nA1,2026-12-01,2026-12-02 żółw\n".encode("cp1250"))
    (folder / "rules.json").write_text('{"shifts": {}, "min_rest_hours": 11, "max_weekly_hours": 48}')
    (folder / "notes.txt").write_text("who exported this\n", encoding="utf-8")
    sources = DataSources(given=((None, folder),), roots=(tmp_path,))
    located = [locate(want, sources, ()) for want in workflow.inputs]
    by_name = {item.input.name: item for item in located}
    assert by_name["rules"].found
    assert not any(by_name[name].found for name in ("employees", "demand", "vacations"))
    question = data_question(workflow, located, "en")
    assert question.count("leave.csv is not UTF-8 text") == 1, question
    assert "needs.csv" not in question and "staff.csv" not in question, question


@pytest.mark.parametrize(
    ("data", "words", "says"),
    [
        (("alarms/nope.csv",), ALARMS, "There is no file alarms/nope.csv."),
        ((), "Analyse yesterday's camera alarms from ./alarms/nope.csv and show only events that need a human", None),
        ((), POLISH.format(where="z pliku ./alarms/nope.csv"), "Nie ma pliku ./alarms/nope.csv."),
    ],
)
def test_a_path_that_does_not_exist_is_named_in_the_question(
    tmp_path: Path, data: tuple[str, ...], words: str, says: str | None
) -> None:
    (tmp_path / "alarms").mkdir()
    alarm_log(tmp_path / "alarms" / "cams.csv", ["2026-11-30"])
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, words, data=data)
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert (says or "There is no file ./alarms/nope.csv.") in turn.question, turn.question
    assert _runs(app) == []
    # the answer names the right file: it replaces the path that was wrong
    done = core.reply(turn.conversation, "alarms/cams.csv", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.report
    assert any(n in done.report.headline for n in ("of 6 alarms", "alarmów łącznie: 6")), done.report.headline


def test_a_data_path_that_does_not_exist_is_never_replaced_by_the_projects_data(tmp_path: Path) -> None:
    alarm_log(tmp_path / "project.csv", ["2026-11-30"])
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(f'[projects.ops.data]\nalarms = "{tmp_path}/project.csv"\n', encoding="utf-8")
    app, core = _core(home, workdir=tmp_path)
    turn = _ask(core, ALARMS, data=("todays.csv",), project="ops")
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert "There is no file todays.csv." in turn.question and _runs(app) == []
    # a path in the words may say where a result goes: it holds up nothing
    text = "Analyse yesterday's camera alarms, show only events that need a human and save it to out/today.csv"
    saved = _ask(core, text, project="ops")
    assert saved.report is not None and saved.report.outcome == "complete", saved.question


@pytest.mark.parametrize("quotes", ['"{}"', "„{}”", "«{}»", "'{}'", "“{}”"])
def test_a_quoted_path_with_spaces_in_the_words_is_the_data(tmp_path: Path, quotes: str) -> None:
    folder = tmp_path / "Dział ochrony" / "kopia zapasowa"
    folder.mkdir(parents=True)
    alarm_log(folder / "kamery źródło.csv", ["2026-11-30"], per_day=9)
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    where = "z pliku " + quotes.format("Dział ochrony/kopia zapasowa/kamery źródło.csv")
    turn = _ask(core, POLISH.format(where=where))
    assert turn.report is not None and turn.report.outcome == "complete", turn.question
    assert "alarmów łącznie: 9" in turn.report.headline, turn.report.headline
    assert any("kamery źródło.csv" in line for line in turn.report.evidence), turn.report.evidence


def test_an_answer_that_is_a_path_with_spaces_is_the_data(tmp_path: Path) -> None:
    folder = tmp_path / "Dział ochrony"
    folder.mkdir()
    alarm_log(folder / "kamery źródło.csv", ["2026-11-30"])
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS)
    assert turn.phase == "asking"
    done = core.reply(turn.conversation, "Dział ochrony/kamery źródło.csv", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.question
    assert "of 6 alarms" in done.report.headline


def test_an_answer_that_is_a_bare_folder_name_is_the_data(tmp_path: Path) -> None:
    # "logs" alone, the name of a folder beside the request: the question was asked again, word for word
    folder = tmp_path / "logs"
    folder.mkdir()
    alarm_log(folder / "cams.csv", ["2026-11-30"])
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS)
    assert turn.phase == "asking"
    done = core.reply(turn.conversation, "logs", by="human:ann")
    assert done.report is not None and done.report.outcome == "complete", done.question
    assert "of 6 alarms" in done.report.headline


def test_an_answer_of_marks_alone_names_no_folder(tmp_path: Path) -> None:
    # "?" stripped of its marks is "", which named the project's root: its files were taken as the data
    alarm_log(tmp_path / "cams.csv", ["2026-11-30"])
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS)
    assert turn.phase == "asking"
    for marks in ("?", "..."):
        again = core.reply(turn.conversation, marks, by="human:ann")
        assert again.phase == "asking" and again.report is None, (marks, again)
    last = core.reply(turn.conversation, ".", by="human:ann")  # the third question's answer: no data, no run
    assert last.report is not None and last.report.outcome == "missing_data", last


def test_an_attached_pdf_beside_the_log_is_not_the_log(tmp_path: Path) -> None:
    # an attachment of another kind than the input's is no reason to ask: it is said skipped, the log is read
    log = alarm_log(tmp_path / "cams.csv", ["2026-11-30"])
    pdf = tmp_path / "handbook.pdf"
    pdf.write_bytes(b"%PDF-1.7\n...")
    app, core = _core(tmp_path / "home")
    turn = _ask(core, ALARMS, attachments=(_attach(app, log), _attach(app, pdf)))
    assert turn.report is not None and turn.report.outcome == "complete", turn.question
    state = fold(app.store.read(turn.conversation))
    assert [s["name"] for s in (state.data or {}).get("skipped", [])] == ["handbook.pdf"], state.data
