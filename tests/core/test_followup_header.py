"""The header of a turn after the report states what that turn did: a message Core declined is its goal, with the
status that nothing was done (not the earlier request's goal, parameters and forbidden effects, as if they were this
turn's); a next step Core planned is understood as such, with its own forbidden effects (the first request's "do not
publish" no longer describes a publication the person asked for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.testing.people import enrol
from tests.core.test_user_data import _ask, _core, _schedule_data, alarm_log

YESTERDAY = {
    "en": ("Analyse yesterday's camera alarms and show only events that need a human.", "goal: ", "status: declined"),
    "pl": ("Przeanalizuj wczorajsze alarmy z kamer i pokaż tylko zdarzenia wymagające człowieka.", "cel: ",
           "stan: odmowa"),
    "ru": ("Проанализируй вчерашние тревоги камер и покажи только события, требующие человека.", "цель: ",
           "статус: отказ"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(YESTERDAY))
def test_a_declined_message_is_the_headers_goal_and_nothing_was_done(tmp_path: Path, language: str) -> None:
    text, goal, status = YESTERDAY[language]
    alarm_log(tmp_path / "cams.csv", ["2026-11-30"])
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, text, data=("cams.csv",))
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    assert f"{goal}{text}" in turn.understood  # the first turn's header: its own request
    message = "and what about the weather?"
    declined = core.reply(turn.conversation, message, by="human:ann")
    assert declined.answer is not None and message in declined.answer
    assert declined.understood[0] == f"{goal}{message}", declined.understood
    assert declined.understood[1].startswith(status), declined.understood
    assert not any(text in line or "day=2026-11-30" in line for line in declined.understood), declined.understood
    again = core.advance(turn.conversation)  # continued later: the report shown is the first one, and so is its header
    assert f"{goal}{text}" in again.understood and again.report is not None


def test_a_planned_next_step_is_understood_with_its_own_forbidden_effects(tmp_path: Path) -> None:
    data = _schedule_data(tmp_path / "hr")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, "Prepare two variants of next month's work schedule, do not publish", data=(str(data),))
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    assert "forbids publication" in turn.understood[0]
    picked = core.reply(turn.conversation, "I pick variant 2, publish it", by="human:ann")
    assert picked.phase == "waiting", picked
    header = picked.understood
    assert header[0] == "understood: a next step on this conversation's result, in en (forbids nothing)", header
    assert "goal: I pick variant 2, publish it" in header and "forbidden effects: none" in header
    assert not any("forbids publication" in line or "do not publish" in line for line in header), header
    enrol(app, "bob")
    finished = core.approve(turn.conversation, by="human:bob")
    assert finished.report is not None and finished.report.outcome == "complete", finished.report
    assert finished.report.known[0].startswith("goal served: a next step on the result of Work schedule variants")
