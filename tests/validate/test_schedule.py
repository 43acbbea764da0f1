"""The schedule validator on a small hand-made schedule: each doctored fault is caught by the check that names it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from alicorn.validate.schedule import validate_schedule

CRITERIA = {"month": "2026-12", "variants": 2, "respect_vacations": True, "max_shortfall": 0}


def _a(employee: str, day: int, shift: str, competence: str) -> dict[str, str]:
    return {"employee": employee, "date": f"2026-12-{day:02d}", "shift": shift, "competence": competence}


def schedule() -> dict[str, Any]:
    """Tuesday 1 to Friday 4 December 2026: a cashier every morning and a forklift driver every night.

    Variant 1: Ada takes the mornings, Cy the nights. Variant 2: Bo and Ada share the mornings (Bo is on vacation
    on the 3rd and 4th), Di and Cy the nights. Both keep every rule.
    """
    return {
        "month": "2026-12",
        "rules": {
            "shifts": [
                {"id": "morning", "start": "06:00", "end": "14:00"},
                {"id": "late", "start": "13:00", "end": "21:00"},
                {"id": "night", "start": "22:00", "end": "06:00"},
                {"id": "long", "start": "07:00", "end": "19:00"},
            ],
            "min_rest_hours": 11,
            "max_weekly_hours": 48,
            "max_consecutive_days": 6,
        },
        "employees": [
            {"id": "A", "name": "Ada", "competences": ["cashier", "first_aid"]},
            {"id": "B", "name": "Bo", "competences": ["cashier"]},
            {"id": "C", "name": "Cy", "competences": ["forklift"]},
            {"id": "D", "name": "Di", "competences": ["cashier", "forklift"]},
        ],
        "vacations": [{"employee": "B", "start": "2026-12-03", "end": "2026-12-04"}],
        "demand": [
            {"date": f"2026-12-{d:02d}", "shift": s, "competence": c, "required": 1}
            for d in (1, 2, 3, 4)
            for s, c in (("morning", "cashier"), ("night", "forklift"))
        ],
        "variants": [
            {
                "id": 1,
                "label": "Lowest cost",
                "assignments": [_a("A", d, "morning", "cashier") for d in (1, 2, 3, 4)]
                + [_a("C", d, "night", "forklift") for d in (1, 2, 3, 4)],
            },
            {
                "id": 2,
                "label": "Balanced",
                "assignments": [
                    _a("B", 1, "morning", "cashier"),
                    _a("B", 2, "morning", "cashier"),
                    _a("A", 3, "morning", "cashier"),
                    _a("A", 4, "morning", "cashier"),
                    _a("D", 1, "night", "forklift"),
                    _a("D", 2, "night", "forklift"),
                    _a("C", 3, "night", "forklift"),
                    _a("C", 4, "night", "forklift"),
                ],
            },
        ],
        "issues": [],
        "metrics": [{"variant": 1, "total_cost": 0}],  # the ops' own figures: ignored by the validator
    }


def check(report: Any, name: str) -> Any:
    return next(c for c in report.checks if c.name == name)


def failing(report: Any) -> set[str]:
    return {c.name for c in report.failures}


def assignments(artifact: dict[str, Any], variant: int) -> list[dict[str, str]]:
    result: list[dict[str, str]] = artifact["variants"][variant - 1]["assignments"]
    return result


def test_the_clean_schedule_is_complete() -> None:
    report = validate_schedule(schedule(), CRITERIA)
    assert report.status == "complete", report.summary
    names = [c.name for c in report.checks]
    assert names == ["month", "variants", "coverage", "time_limits", "competences", "conflicts", "data"]
    assert all(c.passed for c in report.checks)
    assert "all 8 person-shift(s)" in check(report, "coverage").detail


def test_someone_on_vacation_is_a_conflict() -> None:
    doctored = schedule()
    assignments(doctored, 2)[2] = _a("B", 3, "morning", "cashier")  # Bo is on vacation from the 3rd
    report = validate_schedule(doctored, CRITERIA)
    assert report.status == "partial"
    assert failing(report) == {"conflicts"}
    assert "B works morning on 2026-12-03 during a vacation" in check(report, "conflicts").detail


def test_vacations_do_not_count_when_the_request_ignores_them() -> None:
    doctored = schedule()
    assignments(doctored, 2)[2] = _a("B", 3, "morning", "cashier")
    report = validate_schedule(doctored, {**CRITERIA, "respect_vacations": False})
    assert report.status == "complete", report.summary


def test_a_missing_competence_is_caught() -> None:
    doctored = schedule()
    assignments(doctored, 1)[4] = _a("B", 1, "night", "forklift")  # Bo is a cashier, not a forklift driver
    report = validate_schedule(doctored, CRITERIA)
    assert report.status == "partial"
    assert failing(report) == {"competences"}
    assert "B works as forklift on 2026-12-01 night without that competence" in check(report, "competences").detail


def test_an_unknown_employee_is_a_competence_failure() -> None:
    doctored = schedule()
    assignments(doctored, 1)[0] = _a("Z", 1, "morning", "cashier")
    report = validate_schedule(doctored, CRITERIA)
    assert failing(report) == {"competences"}
    assert "Z on 2026-12-01 is not among the employees" in check(report, "competences").detail


def test_a_nine_hour_rest_is_caught() -> None:
    doctored = schedule()
    work = assignments(doctored, 1)
    work[1] = _a("B", 2, "morning", "cashier")  # Bo: late shift to 21:00, then the 06:00 morning shift
    work.append(_a("B", 1, "late", "cashier"))
    report = validate_schedule(doctored, CRITERIA)
    assert report.status == "partial"
    assert failing(report) == {"time_limits"}
    assert "B rests 9 h before morning on 2026-12-02 (minimum 11 h)" in check(report, "time_limits").detail


def test_a_night_followed_by_a_morning_is_caught() -> None:
    doctored = schedule()
    work = assignments(doctored, 2)
    work[1] = _a("D", 2, "morning", "cashier")  # Di works the night of the 1st until 06:00 on the 2nd
    work[5] = _a("B", 2, "night", "forklift")
    report = validate_schedule(doctored, CRITERIA)
    assert "time_limits" in failing(report)
    assert "D rests 0 h before morning on 2026-12-02" in check(report, "time_limits").detail


def test_too_many_weekly_hours_are_caught() -> None:
    doctored = schedule()
    assignments(doctored, 1).extend(_a("D", d, "long", "cashier") for d in range(7, 12))  # 5 x 12 h = 60 h
    report = validate_schedule(doctored, CRITERIA)
    assert failing(report) == {"time_limits"}
    assert "D works 60 h in ISO week 2026-W50 (maximum 48 h)" in check(report, "time_limits").detail


def test_too_many_days_in_a_row_are_caught() -> None:
    doctored = schedule()
    assignments(doctored, 1).extend(_a("C", d, "night", "forklift") for d in (5, 6, 7))  # seven nights
    report = validate_schedule(doctored, CRITERIA)
    assert failing(report) == {"time_limits"}
    assert "C works more than 6 days in a row up to 2026-12-07" in check(report, "time_limits").detail


def test_a_double_booking_is_a_conflict() -> None:
    doctored = schedule()
    assignments(doctored, 1).append(_a("A", 4, "late", "cashier"))  # 13:00-21:00 overlaps her 06:00-14:00
    report = validate_schedule(doctored, CRITERIA)
    assert failing(report) == {"conflicts"}
    assert "A is booked for morning on 2026-12-04 and late on 2026-12-04" in check(report, "conflicts").detail


def test_a_shortfall_makes_the_schedule_partial() -> None:
    doctored = schedule()
    assignments(doctored, 1).pop()  # nobody drives the forklift on the night of the 4th
    report = validate_schedule(doctored, CRITERIA)
    assert report.status == "partial"
    assert failing(report) == {"coverage"}
    assert "variant 1 leaves 1 person-shift(s) unstaffed (2026-12-04 night forklift 0 of 1)" in (
        check(report, "coverage").detail
    )
    allowed = validate_schedule(doctored, {**CRITERIA, "max_shortfall": 1})
    assert allowed.status == "complete"
    assert "shortfall of at most 1" in check(allowed, "coverage").detail


def test_overstaffing_is_not_a_shortfall() -> None:
    doctored = schedule()
    assignments(doctored, 1).append(_a("D", 1, "morning", "cashier"))
    assert validate_schedule(doctored, CRITERIA).status == "complete"


def test_identical_variants_and_a_wrong_count_are_caught() -> None:
    doctored = schedule()
    doctored["variants"][1]["assignments"] = copy.deepcopy(assignments(doctored, 1))
    report = validate_schedule(doctored, CRITERIA)
    assert failing(report) == {"variants"}
    assert "variant 2 is identical to variant 1" in check(report, "variants").detail
    report = validate_schedule(schedule(), {**CRITERIA, "variants": 3})
    assert "2 variant(s) where 3 were asked for" in check(report, "variants").detail


def test_an_empty_variant_is_caught() -> None:
    doctored = schedule()
    doctored["variants"][1]["assignments"] = []
    report = validate_schedule(doctored, CRITERIA)
    assert {"variants", "coverage"} <= failing(report)
    assert "variant 2 assigns nobody" in check(report, "variants").detail


def test_the_wrong_month_is_caught() -> None:
    report = validate_schedule(schedule(), {**CRITERIA, "month": "2027-01"})
    assert failing(report) == {"month"}
    doctored = schedule()
    assignments(doctored, 1).append(_a("D", 1, "morning", "cashier") | {"date": "2027-01-05"})
    assert (
        "variant 1 schedules 2027-01-05, outside 2026-12"
        in check(validate_schedule(doctored, CRITERIA), "month").detail
    )


def test_data_problems_are_a_warning_only() -> None:
    doctored = schedule()
    doctored["issues"] = ["vacations.csv line 8: employee E99 is not in the contracts; the vacation is ignored"]
    report = validate_schedule(doctored, CRITERIA)
    assert report.status == "complete"
    data = check(report, "data")
    assert not data.passed and data.severity == "warning" and "E99" in data.detail
    assert "warnings: data" in report.summary


def test_everything_wrong_is_failed() -> None:
    doctored = schedule()
    doctored["month"] = "2026-11"
    for variant in doctored["variants"]:
        variant["assignments"] = [_a("A", 1, "morning", "forklift"), _a("A", 1, "night", "forklift")]
        variant["assignments"] += [_a("A", d, "night", "cashier") for d in range(2, 9)]
        variant["assignments"].append(_a("B", 3, "morning", "cashier"))
    report = validate_schedule(doctored, {**CRITERIA, "month": "2026-12"})
    assert report.status == "failed"
    assert failing(report) == {"month", "variants", "coverage", "time_limits", "competences", "conflicts"}


@pytest.mark.parametrize(
    ("artifact", "words"),
    [
        (None, "no artifact"),
        ({}, "month"),
        ([1, 2, 3], "malformed"),
        ({**schedule(), "variants": "three"}, "variants"),
        ({**schedule(), "rules": {"shifts": [], "min_rest_hours": 11}}, "rules"),
        (
            {**schedule(), "demand": [{"date": "2026-12-40", "shift": "morning", "competence": "x", "required": 1}]},
            "demand",
        ),
        ({**schedule(), "month": "December"}, "month"),
    ],
)
def test_a_malformed_artifact_is_failed_with_a_reason(artifact: Any, words: str) -> None:
    report = validate_schedule(artifact, CRITERIA)
    assert report.status == "failed"
    assert [c.name for c in report.checks] == ["artifact"]
    assert words in report.checks[0].detail


def test_an_assignment_to_an_unknown_shift_is_malformed() -> None:
    doctored = schedule()
    assignments(doctored, 1)[0]["shift"] = "evening"
    report = validate_schedule(doctored, CRITERIA)
    assert report.status == "failed"
    assert "evening are used but the rules do not define them" in report.checks[0].detail


def test_unusable_criteria_are_failed_not_raised() -> None:
    report = validate_schedule(schedule(), {"variants": "many"})
    assert report.status == "failed"
    assert report.checks[0].name == "criteria"


def test_dates_at_the_end_of_the_calendar_do_not_raise() -> None:
    doctored = schedule()
    doctored["month"] = "9999-12"
    assignments(doctored, 1).append(_a("D", 31, "night", "forklift") | {"date": "9999-12-31"})
    report = validate_schedule(doctored, {})
    assert report.status == "failed"
    assert "cannot be checked" in report.checks[0].detail


def test_a_period_asked_that_is_not_the_month_planned_is_said_and_never_passes() -> None:
    # "the week of 7-13 December", "January and February": the template plans one whole month; the result says so
    report = validate_schedule(schedule(), {**CRITERIA, "asked_period": "7-13 December"})
    asked = check(report, "asked")
    assert not asked.passed and asked.severity == "warning"
    assert "7-13 December" in asked.detail and "plans one whole month" in asked.detail
    assert "asked" not in [c.name for c in validate_schedule(schedule(), CRITERIA).checks]
