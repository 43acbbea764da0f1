"""Slots that do not go together, or ask beyond what a template can do, are a question (in a first request) or a
declined follow-up with the reason, in the person's language; never a traceback, and the conversation stays usable.

"Prepare two variants and publish variant 3", "seven variants" (the template makes at most five), and "I pick
variant 5" after a report of two variants each crashed Core with a pydantic error; the follow-up also left the
conversation refusing every later message."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.app import App
from alicorn.core.conversation import fold
from alicorn.core.norbi import Norbi
from alicorn.core.turn import Turn
from alicorn.packs.catalog import bundled_workflows
from tests.core.test_user_data import _ask, _core, _runs, _schedule_data


def _asked(tmp_path: Path, text: str) -> tuple[App, Norbi, Turn]:
    """A home, Core over it, and `text` asked of it with the user's HR data."""
    data = _schedule_data(tmp_path / "hr")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    return app, core, _ask(core, text, data=(str(data),))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Prepare two variants of next month's work schedule and publish variant 3 to the staff",
         "publish variant 3, but there are only 2 variants"),
        ("Przygotuj dwa warianty grafiku na przyszły miesiąc i opublikuj trzeci wariant",
         "publikację wariantu 3, ale wariantów jest tylko 2"),
        ("Подготовь два варианта графика на следующий месяц и опубликуй третий вариант",
         "опубликовать вариант 3, но вариантов всего 2"),
        ("Prepare seven variants of next month's work schedule, do not publish", "“variants” is 7"),
        ("Przygotuj dziesięć wariantów grafiku na przyszły miesiąc", "„variants” to 10, więcej"),
    ],
)  # fmt: skip
def test_slots_beyond_the_template_are_a_question_and_nothing_runs(tmp_path: Path, text: str, said: str) -> None:
    app, _, turn = _asked(tmp_path, text)
    assert turn.phase == "asking" and turn.question is not None, turn
    assert said in turn.question, turn.question
    state = fold(app.store.read(turn.conversation))
    assert state.contract is None and _runs(app) == []


@pytest.mark.slow
def test_the_answer_settles_the_conflict(tmp_path: Path) -> None:
    app, core, turn = _asked(tmp_path, "Prepare seven variants of next month's work schedule, do not publish")
    answered = core.reply(turn.conversation, "five variants then", by="human:ann")
    assert answered.report is not None and answered.report.outcome == "complete", answered
    state = fold(app.store.read(turn.conversation))
    assert state.contract is not None and state.contract["parameters"]["variants"] == 5


@pytest.mark.slow
def test_a_picked_variant_that_does_not_exist_is_declined_and_the_next_pick_is_taken(tmp_path: Path) -> None:
    app, core, turn = _asked(tmp_path, "Prepare two variants of next month's work schedule, do not publish")
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    runs = _runs(app)
    declined = core.reply(turn.conversation, "I pick variant 5", by="human:ann")
    assert declined.phase == "reported" and declined.answer is not None
    assert "there are only 2 variants" in declined.answer, declined.answer
    assert _runs(app) == runs  # nothing was planned or run for it
    picked = core.reply(turn.conversation, "I pick variant 2", by="human:ann")
    assert picked.phase == "waiting" and picked.plan is not None
    assert [n.node_id for n in picked.plan.nodes] == ["publish"]


def test_a_workflow_says_what_its_slots_cannot_be_in_each_language() -> None:
    schedule = next(w for w in bundled_workflows() if w.id == "schedule")
    fine = {"month": "2026-12", "variants": 2, "publish": True, "publish_variant": 2}
    assert schedule.conflict(fine, "en") is None
    both = {**fine, "variants": 9, "publish_variant": 0}
    said = schedule.conflict(both, "ru")
    assert said is not None and "«variants» = 9, больше" in said and "«publish_variant» = 0, меньше" in said


@pytest.mark.slow
def test_after_a_rejected_publication_another_variant_may_be_picked(tmp_path: Path) -> None:
    # "its run ended rejected, so there is no result to act on": the schedule itself was there all along
    from alicorn.testing.people import enrol

    app, core, turn = _asked(tmp_path, "Prepare two variants of next month's work schedule, do not publish")
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    picked = core.reply(turn.conversation, "I pick variant 2", by="human:ann")
    assert picked.phase == "waiting"
    enrol(app, "bob")
    rejected = core.reject(turn.conversation, by="human:bob", reason="not this one")
    assert rejected.report is not None and rejected.report.outcome == "stopped_safely"
    again = core.reply(turn.conversation, "I pick variant 1", by="human:ann")
    assert again.phase == "waiting" and again.plan is not None, again.answer
    assert [n.node_id for n in again.plan.nodes] == ["publish"]
    assert "variant 1" in again.plan.nodes[0].description.lower()
