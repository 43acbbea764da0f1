"""What a Polish or Russian follow-up shows is in that language: the picked variant's objective in the publication's
description, the result's kind in the header, a step's state in the evidence (English was left in all three)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.testing.people import enrol
from tests.core.test_user_data import _ask, _core, _schedule_data, alarm_log

CASES = {
    "pl": ("Przygotuj dwa warianty grafiku pracy na przyszły miesiąc, nie publikuj", "Wybieram wariant 2, opublikuj go",
           "wynik: grafik (proces schedule)", "publish: udany"),
    "ru": ("Подготовь два варианта графика работы на следующий месяц, не публикуй", "Выбираю вариант 2, опубликуй его",
           "результат: график (процесс schedule)", "publish: выполнено"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_publication_follow_up_says_everything_in_the_requests_language(tmp_path: Path, language: str) -> None:
    request, pick, result, step = CASES[language]
    data = _schedule_data(tmp_path / "hr")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, request, data=(str(data),))
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    assert result in turn.understood, turn.understood
    picked = core.reply(turn.conversation, pick, by="human:ann")
    assert picked.plan is not None and picked.phase == "waiting", picked
    description = picked.plan.nodes[0].description or ""
    assert "Hours closest to each contract" not in description and "(" in description, description
    enrol(app, "bob")
    done = core.approve(turn.conversation, by="human:bob")
    assert done.report is not None and done.report.outcome == "complete", done.report
    assert any(line.endswith(step) for line in done.report.evidence), done.report.evidence


@pytest.mark.parametrize(("language", "text", "said"), [
    ("pl", "Przeanalizuj wczorajsze alarmy z kamer i pokaż tylko zdarzenia wymagające człowieka.", ": sabotaż, kamera"),
    ("ru", "Проанализируй вчерашние тревоги камер и покажи только события, требующие человека.", ": саботаж, камера"),
    ("en", "Analyse yesterday's camera alarms and show only events that need a human.", ": tamper on cam-0"),
])  # fmt: skip
def test_an_alarms_type_is_said_in_the_requests_language(tmp_path: Path, language: str, text: str, said: str) -> None:
    alarm_log(tmp_path / "cams.csv", ["2026-11-30"])
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, text, data=("cams.csv",))
    assert turn.report is not None and any(said in line for line in turn.report.result), turn.report.result
