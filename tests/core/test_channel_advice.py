"""Core's advice worded for where the person is: the data question tells the command line `--attach`, the browser
its upload field and a program the attachments route, in the request's language; and a file sent with an answer is
the data the question asked for (as `alicorn ask --attach` would have given it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.core.norbi import CoreError
from tests.core.test_user_data import ALARMS, _ask, _attach, _core, _runs, alarm_log


@pytest.mark.parametrize(
    ("channel", "says", "never"),
    [
        ("cli", ["alicorn ask --attach FILE", "--data PATH"], ["upload", "/api/v1"]),
        ("web", ["upload field below this question"], ["alicorn ask", "--attach", "--data", "/api/v1"]),
        ("api", ["POST /api/v1/conversations/{conv}/attachments"], ["alicorn ask", "--attach", "--data"]),
        ("cron", ["alicorn ask --attach FILE"], ["upload", "/api/v1"]),  # no button on a trigger: the operator's
    ],
)
def test_the_data_question_is_worded_for_the_channel(
    tmp_path: Path, channel: str, says: list[str], never: list[str]
) -> None:
    _, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, channel=channel)
    assert turn.phase == "asking" and turn.question is not None
    for text in says:
        assert text.format(conv=turn.conversation) in turn.question, turn.question
    for text in never:
        assert text not in turn.question, turn.question


@pytest.mark.parametrize(
    ("channel", "says"), [("web", "polem przesyłania"), ("api", "/attachments"), ("cli", "alicorn ask --attach")]
)
def test_the_polish_data_question_is_worded_for_the_channel_too(tmp_path: Path, channel: str, says: str) -> None:
    _, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, "Przeanalizuj wczorajsze alarmy z kamer i pokaż tylko zdarzenia dla człowieka", channel=channel)
    assert turn.phase == "asking" and turn.question is not None and says in turn.question, turn.question


def test_a_file_attached_to_the_answer_is_the_data_asked_for(tmp_path: Path) -> None:
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, channel="web")
    assert turn.phase == "asking" and _runs(app) == []
    (tmp_path / "elsewhere").mkdir()
    sha = _attach(app, alarm_log(tmp_path / "elsewhere" / "cams.csv", ["2026-11-30"]))
    done = core.reply(turn.conversation, "", by="human:ann", attachments=[sha])  # no words: the file is the answer
    assert done.report is not None and done.report.outcome == "complete", done.report
    assert "of 6 alarms" in done.report.headline


def test_an_attachment_not_in_the_store_or_with_no_question_pending_is_refused(tmp_path: Path) -> None:
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, ALARMS, channel="api")
    with pytest.raises(CoreError, match="not in the artifact store"):
        core.reply(turn.conversation, "", by="human:ann", attachments=["0" * 64])
    (tmp_path / "elsewhere").mkdir()
    sha = _attach(app, alarm_log(tmp_path / "elsewhere" / "cams.csv", ["2026-11-30"]))
    done = core.reply(turn.conversation, "", by="human:ann", attachments=[sha])
    assert done.report is not None
    with pytest.raises(CoreError, match="waits for no answer"):
        core.reply(turn.conversation, "more", by="human:ann", attachments=[sha])


@pytest.mark.parametrize(
    ("request_text", "opening"),
    [
        ("Prepare two variants of the January work schedule.", "For “Work schedule variants” I need: "),
        ("Przygotuj dwa warianty grafiku pracy na styczeń.", "Do „Warianty grafiku pracy” potrzebuję: "),
        ("Подготовь два варианта графика работы на январь.", "Для «Варианты графика работы» мне нужно: "),
    ],
)
def test_every_missing_input_is_named_in_one_sentence(tmp_path: Path, request_text: str, opening: str) -> None:
    _, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, request_text)
    assert turn.phase == "asking" and turn.question is not None
    assert turn.question.startswith(opening), turn.question
    # the schedule needs four inputs: all named once, separated, none with a sentence of its own
    named = turn.question[len(opening) :].split(". ")[0]
    assert named.count(";") == 3, turn.question
    assert turn.question.count(opening) == 1
