"""A period still running when the request is made ("today" asked at 09:00, this week before Sunday night) is never
reported `complete`: no data can hold what had not happened yet, so the report says the span covered, up to the
request's time, and that the period was not over then; in every language the request comes in."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.clock import PinnedClock
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.packs.catalog import bundled_workflows
from alicorn.periods import Period, coverage
from tests.core.test_user_data import alarm_log

MORNING = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # a Monday, 09:00

TODAY = {
    "en": "Analyse today's camera alarms and show only events that need a human.",
    "pl": "Przeanalizuj dzisiejsze alarmy z kamer i pokaż tylko zdarzenia wymagające człowieka.",
    "ru": "Проанализируй сегодняшние тревоги камер и покажи только события, требующие человека.",
}
NOT_OVER = {
    "en": "which was not over then",
    "pl": "który wtedy jeszcze trwał",
    "ru": "который тогда ещё не закончился",
}


def _ask(tmp_path: Path, text: str, now: datetime, days: tuple[str, ...] = ("2026-11-29", "2026-11-30")):
    log = alarm_log(tmp_path / "cams.csv", list(days), per_day=6)
    app = open_app(tmp_path / "home")
    core = Norbi(app, bundled_workflows(), clock=PinnedClock(now), workdir=tmp_path)
    return core.receive(IntentEnvelope(utterance=text, author="human:ann", data=(log.name,)))


@pytest.mark.parametrize("language", sorted(TODAY))
def test_today_asked_in_the_morning_is_partial_and_says_up_to_when(tmp_path: Path, language: str) -> None:
    turn = _ask(tmp_path, TODAY[language], MORNING)
    report = turn.report
    assert report is not None and report.outcome == "partial", report
    period = [line for line in report.evidence if "2026-11-30 09:00 UTC" in line]
    assert period and NOT_OVER[language] in period[0], report.evidence


def test_a_day_that_is_over_is_still_complete(tmp_path: Path) -> None:
    turn = _ask(tmp_path, "Analyse yesterday's camera alarms and show only events that need a human.", MORNING)
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    assert any("the data covers the period asked (2026-11-29)" in line for line in turn.report.evidence)


def test_coverage_counts_only_the_days_begun_by_the_request() -> None:
    week = Period(date(2026, 11, 30), date(2026, 12, 7), "this week", "week")
    wednesday = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    running = coverage(week, date(2026, 11, 30), date(2026, 12, 2), now=wednesday)
    assert (running.status, running.running, running.missing_days) == ("partial", True, 0)
    assert "up to the request's time (2026-12-02 15:00)" in running.sentence
    assert "which was not over then" in running.sentence and "missing" not in running.sentence
    gap = coverage(week, date(2026, 12, 1), date(2026, 12, 2), now=wednesday)
    assert (gap.status, gap.missing_days) == ("partial", 1)  # Monday is missing; Thursday to Sunday had not come
    month = Period(date(2026, 12, 1), date(2027, 1, 1), "this month", "month")
    assert coverage(month, date(2026, 12, 1), date(2026, 12, 31), now=datetime(2026, 12, 31, 23, 59)).running
    over = coverage(month, date(2026, 12, 1), date(2026, 12, 31), now=datetime(2027, 1, 1, 0, 0))
    assert (over.status, over.running) == ("covered", False)
    ahead = coverage(Period(date(2026, 12, 3), date(2026, 12, 4), "tomorrow", "day"), date(2026, 12, 1),
                     date(2026, 12, 3), now=wednesday)  # fmt: skip
    assert ahead.status == "none"  # a day that has not begun is covered by nothing, whatever the data claims
    assert coverage(week, date(2026, 11, 30), date(2026, 12, 6)).status == "covered"  # no time given: days only
