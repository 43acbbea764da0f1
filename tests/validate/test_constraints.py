"""A stated bound read from the words: the figure named before or after its number, and a denial that turns the
comparison around ("nobody works more than 40 hours a week" bounds the week at 40), in en/pl/ru."""

from __future__ import annotations

import pytest

from alicorn.packs.catalog import bundled_workflows
from alicorn.validate.constraints import read_bound

MEASURES = next(w for w in bundled_workflows() if w.id == "schedule").measures


@pytest.mark.parametrize(
    ("words", "measure", "op", "value"),
    [
        # the figure after its number
        ("max 40 hours per week per person", "most_weekly_hours", "<=", 40),
        ("up to 42 h/week", "most_weekly_hours", "<=", 42),
        ("maksymalnie 40 godzin tygodniowo na osobę", "most_weekly_hours", "<=", 40),
        ("не больше 40 часов в неделю на человека", "most_weekly_hours", "<=", 40),
        # a denial before the comparison turns it around
        ("nobody works more than 40 hours a week", "most_weekly_hours", "<=", 40),
        ("nikt nie pracuje więcej niż 38 godzin w tygodniu", "most_weekly_hours", "<=", 38),
        ("никто не работает больше 36 часов в неделю", "most_weekly_hours", "<=", 36),
        ("no overtime over 10 hours", "overtime_hours", "<=", 10),
        # comparisons holding their own denial are read as they are
        ("koszt nie więcej niż 90 000", "total_cost", "<=", 90000),
        ("переработка не более 150 часов", "overtime_hours", "<=", 150),
        # the figure before its comparison, as before
        ("keep overtime under 200 h", "overtime_hours", "<", 200),
        ("weekly hours under 45", "most_weekly_hours", "<", 45),
        ("coverage at least 95%", "coverage_pct", ">=", 95),
    ],
)
def test_a_bound_is_read_whichever_side_its_figure_is_named(words: str, measure: str, op: str, value: float) -> None:
    bound = read_bound(words, MEASURES)
    assert bound is not None and (bound.measure, bound.op, bound.value) == (measure, op, value), bound


@pytest.mark.parametrize(
    "words",
    ["at most 3 night shifts a week", "Prepare two variants, 40 hours a week", "everyone works hard every week"],
)
def test_no_bound_without_a_comparison_on_a_measured_figure(words: str) -> None:
    assert read_bound(words, MEASURES) is None
