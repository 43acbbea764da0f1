"""`alicorn.periods`: dates and periods said in English, Polish and Russian, read against a pinned `now`."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alicorn.errors import AlicornError
from alicorn.periods import (
    Coverage,
    InvalidDate,
    Period,
    coverage,
    find_days,
    find_period,
    find_periods,
    month_of,
    parse_date_answer,
)

#: A Tuesday: yesterday is Monday 30 November, last week ran 23-29 November.
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
D = date.fromisoformat


# ------------------------------------------------------------------------------------------------ find_period

PERIODS = [
    # (language, text, kind, first day, last day)
    ("en", "yesterday", "day", "2026-11-30", "2026-11-30"),
    ("en", "Analyse yesterday's camera alarms, window 120", "day", "2026-11-30", "2026-11-30"),
    ("en", "today", "day", "2026-12-01", "2026-12-01"),
    ("en", "the day before yesterday", "day", "2026-11-29", "2026-11-29"),
    ("en", "tomorrow", "day", "2026-12-02", "2026-12-02"),
    ("en", "last night", "night", "2026-11-30", "2026-12-01"),
    ("en", "Go over last night's camera alerts", "night", "2026-11-30", "2026-12-01"),
    ("en", "tonight", "night", "2026-12-01", "2026-12-02"),
    ("en", "next month", "month", "2027-01-01", "2027-01-31"),
    ("en", "this month", "month", "2026-12-01", "2026-12-31"),
    ("en", "last month", "month", "2026-11-01", "2026-11-30"),
    ("en", "last week", "week", "2026-11-23", "2026-11-29"),
    ("en", "this week", "week", "2026-11-30", "2026-12-06"),
    ("en", "next week", "week", "2026-12-07", "2026-12-13"),
    ("en", "from 29 November", "from", "2026-11-29", "2026-12-01"),
    ("en", "since Monday", "from", "2026-11-30", "2026-12-01"),
    ("en", "since last week", "from", "2026-11-23", "2026-12-01"),
    ("en", "between 1 and 5 December", "range", "2026-12-01", "2026-12-05"),
    ("en", "from 29 November to 1 December", "range", "2026-11-29", "2026-12-01"),
    ("en", "28 December to 3 January", "range", "2025-12-28", "2026-01-03"),
    ("en", "December 1-5", "range", "2026-12-01", "2026-12-05"),
    ("en", "from 2026-11-20 to 2026-11-25", "range", "2026-11-20", "2026-11-25"),
    ("en", "since Monday until Wednesday", "range", "2026-11-30", "2026-12-02"),
    ("en", "until Friday", "until", "2026-11-27", "2026-11-27"),
    ("en", "nov 29", "day", "2026-11-29", "2026-11-29"),
    ("en", "November 29th", "day", "2026-11-29", "2026-11-29"),
    ("en", "the 3rd of December", "day", "2025-12-03", "2025-12-03"),  # past preferred: the last 3 December
    ("en", "29.11.2026", "day", "2026-11-29", "2026-11-29"),
    ("en", "2026-11-29", "day", "2026-11-29", "2026-11-29"),
    ("en", "alarms from 29.11.2026", "from", "2026-11-29", "2026-12-01"),
    ("en", "5.11.2026", "day", "2026-11-05", "2026-11-05"),  # day first, even in English
    ("en", "last 3 days", "range", "2026-11-28", "2026-11-30"),
    ("en", "over the past 2 weeks", "range", "2026-11-17", "2026-11-30"),
    ("en", "for three days", "range", "2026-11-28", "2026-11-30"),
    ("en", "3 days ago", "day", "2026-11-28", "2026-11-28"),
    ("en", "a week ago", "day", "2026-11-24", "2026-11-24"),
    ("en", "in 3 days", "day", "2026-12-04", "2026-12-04"),
    ("pl", "za dwa tygodnie", "day", "2026-12-15", "2026-12-15"),
    ("ru", "через 3 дня", "day", "2026-12-04", "2026-12-04"),
    ("en", "last Friday", "day", "2026-11-27", "2026-11-27"),
    ("en", "in December", "month", "2026-12-01", "2026-12-31"),
    ("en", "Shift schedule for February 2027", "month", "2027-02-01", "2027-02-28"),
    ("en", "Work plan for 2027-03", "month", "2027-03-01", "2027-03-31"),
    ("en", "in two months", "month", "2027-02-01", "2027-02-28"),
    ("pl", "28 listopada", "day", "2026-11-28", "2026-11-28"),
    ("pl", "wczoraj", "day", "2026-11-30", "2026-11-30"),
    ("pl", "wczorajsze", "day", "2026-11-30", "2026-11-30"),
    ("pl", "Przejrzyj wczorajsze zdarzenia z monitoringu", "day", "2026-11-30", "2026-11-30"),
    ("pl", "przedwczoraj", "day", "2026-11-29", "2026-11-29"),
    ("pl", "dzisiejsze alarmy", "day", "2026-12-01", "2026-12-01"),
    ("pl", "zeszłej nocy", "night", "2026-11-30", "2026-12-01"),
    ("pl", "dziś w nocy", "night", "2026-11-30", "2026-12-01"),  # said in the morning: the night just over
    ("pl", "w przyszłym miesiącu", "month", "2027-01-01", "2027-01-31"),
    ("pl", "przyszłego miesiąca", "month", "2027-01-01", "2027-01-31"),
    ("pl", "w tym miesiącu", "month", "2026-12-01", "2026-12-31"),
    ("pl", "w zeszłym tygodniu", "week", "2026-11-23", "2026-11-29"),
    ("pl", "od 29 listopada", "from", "2026-11-29", "2026-12-01"),
    ("pl", "od wczoraj", "from", "2026-11-30", "2026-12-01"),
    ("pl", "od 1 do 5 grudnia", "range", "2026-12-01", "2026-12-05"),
    ("pl", "między 1 a 5 grudnia", "range", "2026-12-01", "2026-12-05"),
    ("pl", "od poniedziałku do środy", "range", "2026-11-30", "2026-12-02"),
    ("pl", "ostatnie 3 dni", "range", "2026-11-28", "2026-11-30"),
    ("pl", "z ostatnich trzech dni", "range", "2026-11-28", "2026-11-30"),
    ("pl", "trzy dni temu", "day", "2026-11-28", "2026-11-28"),
    ("pl", "w poniedziałek", "day", "2026-11-30", "2026-11-30"),
    ("pl", "piątkowej rozmowy", "day", "2026-11-27", "2026-11-27"),
    ("pl", "na grudzień", "month", "2026-12-01", "2026-12-31"),
    ("pl", "w październiku", "month", "2026-10-01", "2026-10-31"),
    ("pl", "29 listopada 2026 r.", "day", "2026-11-29", "2026-11-29"),
    ("ru", "вчера", "day", "2026-11-30", "2026-11-30"),
    ("ru", "вчерашние", "day", "2026-11-30", "2026-11-30"),
    ("ru", "Просмотри вчерашних срабатываний камер", "day", "2026-11-30", "2026-11-30"),
    ("ru", "позавчера", "day", "2026-11-29", "2026-11-29"),
    ("ru", "прошлой ночью", "night", "2026-11-30", "2026-12-01"),
    ("ru", "этой ночью", "night", "2026-11-30", "2026-12-01"),
    ("ru", "в следующем месяце", "month", "2027-01-01", "2027-01-31"),
    ("ru", "следующего месяца", "month", "2027-01-01", "2027-01-31"),
    ("ru", "на прошлой неделе", "week", "2026-11-23", "2026-11-29"),
    ("ru", "с 29 ноября", "from", "2026-11-29", "2026-12-01"),
    ("ru", "со вчерашнего дня", "from", "2026-11-30", "2026-12-01"),
    ("ru", "с 1 по 5 декабря", "range", "2026-12-01", "2026-12-05"),
    ("ru", "между 1 и 5 декабря", "range", "2026-12-01", "2026-12-05"),
    ("ru", "за последние 3 дня", "range", "2026-11-28", "2026-11-30"),
    ("ru", "последние три дня", "range", "2026-11-28", "2026-11-30"),
    ("ru", "два дня назад", "day", "2026-11-29", "2026-11-29"),
    ("ru", "в пятницу", "day", "2026-11-27", "2026-11-27"),
    ("ru", "до пятницы", "until", "2026-11-27", "2026-11-27"),
    ("ru", "пятничного разговора", "day", "2026-11-27", "2026-11-27"),
    ("ru", "до десятого декабря", "until", "2025-12-10", "2025-12-10"),
    ("ru", "в январе", "month", "2026-01-01", "2026-01-31"),
    ("ru", "на декабрь", "month", "2026-12-01", "2026-12-31"),
    ("ru", "План смен на февраль 2027 года", "month", "2027-02-01", "2027-02-28"),
]


@pytest.mark.parametrize(("language", "text", "kind", "first", "last"), PERIODS)
def test_find_period(language: str, text: str, kind: str, first: str, last: str) -> None:
    period = find_period(text, language, NOW)
    assert period is not None, text
    assert (period.kind, period.start, period.last) == (kind, D(first), D(last)), period
    assert period.end == D(last) + timedelta(days=1)  # end is exclusive
    assert period.words and period.words in text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Show the alarms from 29 November, please", "from 29 November"),
        ("Pokaż wczorajsze alarmy", "wczorajsze"),
        ("Render jest wolniejszy od 1 do 5 grudnia", "od 1 do 5 grudnia"),
        ("Со вчерашнего дня рендер идёт дольше.", "Со вчерашнего дня"),
    ],
)
def test_the_words_are_kept_as_said(text: str, words: str) -> None:
    period = find_period(text, "en", NOW)
    assert period is not None and period.words == words


@pytest.mark.parametrize(
    "text",
    [
        "hello",
        "Prepare the schedule",
        "You may publish the schedule for Jan Kowalski",  # "may" and "Jan" are no months here
        "1.5 million users",
        "minimum confidence 0.75, window 10.30",
        "Przygotuj wersję demonstracyjną aplikacji w osobnym środowisku",  # "środowisko" is no Wednesday
        "Подготовь демо-сборку в изолированной среде",  # nor is "среда" the environment
        "what should I do next",
        "",
    ],
)
def test_no_date_is_no_period(text: str) -> None:
    assert find_period(text, "en", NOW) is None
    assert find_periods(text, "en", NOW) == []
    assert parse_date_answer(text, "en", NOW) is None


def test_a_request_language_is_only_a_hint() -> None:
    for text in ("alarmy z wczoraj", "вчерашние тревоги", "yesterday's alarms"):
        for language in ("en", "pl", "ru", "de"):
            assert parse_date_answer(text, language, NOW) == D("2026-11-30"), (text, language)


def test_future_preference_takes_the_next_such_day() -> None:
    for language, text, first in [
        ("en", "29 November", "2027-11-29"),
        ("en", "5 December", "2026-12-05"),
        ("en", "1 December", "2026-12-01"),  # today is the nearest future one
        ("en", "Friday", "2026-12-04"),
        ("en", "Tuesday", "2026-12-08"),  # said on a Tuesday: next week's
        ("pl", "do 9 grudnia", "2026-12-09"),
        ("ru", "к среде", "2026-12-02"),
        ("ru", "до 03.12", "2026-12-03"),
    ]:
        period = find_period(text, language, NOW, prefer="future")
        assert period is not None and period.last == D(first), (text, period)


def test_past_preference_takes_the_last_such_day() -> None:
    assert parse_date_answer("Friday", "en", NOW) == D("2026-11-27")
    assert parse_date_answer("Tuesday", "en", NOW) == D("2026-11-24")  # said on a Tuesday: last week's
    assert parse_date_answer("5 December", "en", NOW) == D("2025-12-05")
    assert parse_date_answer("29 February", "en", NOW) == D("2024-02-29")  # the last year that had one


def test_several_periods_in_order() -> None:
    found = find_periods("Compare yesterday to today, and last week with next month", "en", NOW)
    assert [(p.kind, p.start) for p in found] == [
        ("day", D("2026-11-30")),
        ("day", D("2026-12-01")),
        ("week", D("2026-11-23")),
        ("month", D("2027-01-01")),
    ]
    assert find_days("wczoraj i przedwczoraj, a potem w przyszłym tygodniu", "pl", NOW) == [
        D("2026-11-30"),
        D("2026-11-29"),
    ]


# ----------------------------------------------------------------------------------------------- InvalidDate


@pytest.mark.parametrize(
    ("language", "text", "reason"),
    [
        ("en", "30 February 2026", "there is no 30 February 2026"),
        ("en", "the report of 2026-02-30", "there is no 30 February 2026"),
        ("en", "alarms from 31.04.2026", "there is no 31 April 2026"),
        ("pl", "31 listopada", "there is no 31 November"),
        ("ru", "с 31 ноября", "there is no 31 November"),
        ("en", "2026-13-01", "there is no month 13"),
        ("en", "between 1 and 31 November", "there is no 31 November"),
        ("en", "between 31 November and 2 December", "there is no 31 November"),
        ("pl", "od 31 do 30 listopada", "there is no 31 November"),
        ("en", "February 29 2027", "there is no 29 February 2027"),
    ],
)
def test_a_date_that_does_not_exist_is_refused(language: str, text: str, reason: str) -> None:
    with pytest.raises(InvalidDate) as raised:
        find_period(text, language, NOW)
    assert raised.value.reason == reason
    assert raised.value.words in text and raised.value.words in str(raised.value)
    assert reason in str(raised.value)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, AlicornError)


def test_invalid_dates_raise_from_every_reader() -> None:
    for read in (parse_date_answer, find_days, find_periods):
        with pytest.raises(InvalidDate):
            read("30 February 2026", "en", NOW)
    with pytest.raises(InvalidDate):
        month_of("grafik od 31 listopada", "pl", NOW)


# ----------------------------------------------------------------------------------------- parse_date_answer


@pytest.mark.parametrize(
    ("language", "text", "day"),
    [
        ("pl", "28 listopada", "2026-11-28"),
        ("en", "nov 29", "2026-11-29"),
        ("ru", "вчера", "2026-11-30"),
        ("en", "2026-11-28", "2026-11-28"),
        ("en", "last night", "2026-11-30"),
        ("en", "from Monday", "2026-11-30"),
        ("en", "by Friday", "2026-11-27"),
        ("ru", "28 ноября", "2026-11-28"),
        ("pl", "w sobotę", "2026-11-28"),
    ],
)
def test_parse_date_answer(language: str, text: str, day: str) -> None:
    assert parse_date_answer(text, language, NOW) == D(day)


@pytest.mark.parametrize("text", ["next month", "last week", "last 3 days", "between 1 and 5 December", "grudzień"])
def test_an_answer_naming_no_single_day_is_none(text: str) -> None:
    assert parse_date_answer(text, "en", NOW) is None


# ---------------------------------------------------------------------------------------------------- month_of

SCHEDULE_NOW = datetime(2026, 11, 29, 9, 30)


@pytest.mark.parametrize(
    ("language", "text", "month"),
    [
        ("en", "next month", "2026-12"),
        ("en", "in December", "2026-12"),
        ("en", "in November", "2026-11"),  # the current month is this one
        ("en", "I need the roster for January", "2027-01"),  # a month already past this year is next year's
        ("en", "Schedule for May", "2027-05"),
        ("en", "Roster for Dec 2026", "2026-12"),
        ("en", "Shifts for 04/2027", "2027-04"),
        ("en", "Redo this month's schedule for 2027-03", "2027-03"),  # a named month wins over a relative one
        ("en", "The schedule in two months", "2027-01"),
        ("en", "Shifts starting 5 November", "2026-11"),
        ("pl", "na grudzień", "2026-12"),
        ("pl", "w przyszłym miesiącu", "2026-12"),
        ("pl", "Grafik za dwa miesiące", "2027-01"),
        ("pl", "Plan pracy na luty 2027 r.", "2027-02"),
        ("pl", "Zmiany w październiku", "2027-10"),
        ("ru", "на декабрь", "2026-12"),
        ("ru", "в январе", "2027-01"),
        ("ru", "Смены в мае", "2027-05"),
        ("ru", "Исправь график в этом месяце", "2026-11"),
        ("ru", "График через два месяца", "2027-01"),
    ],
)
def test_month_of(language: str, text: str, month: str) -> None:
    assert month_of(text, language, SCHEDULE_NOW) == month


@pytest.mark.parametrize("text", ["Prepare the schedule", "You may publish the schedule for Jan Kowalski", "tomorrow"])
def test_month_of_names_no_month(text: str) -> None:
    assert month_of(text, "en", SCHEDULE_NOW) is None


# ------------------------------------------------------------------------------------------------------ Period


def test_period_days_contains_and_describe() -> None:
    day = Period(D("2026-11-29"), D("2026-11-30"), "29 November", "day")
    assert day.days == 1 and day.contains(D("2026-11-29")) and not day.contains(D("2026-11-30"))
    assert day.describe() == "2026-11-29"
    month = find_period("w grudniu", "pl", NOW)
    assert month is not None and month.describe() == "2026-12 (December 2026)" and month.days == 31
    span = find_period("from 29 November to 1 December", "en", NOW)
    assert span is not None and span.describe() == "2026-11-29 to 2026-12-01" and span.days == 3
    since = find_period("since 29 November", "en", NOW)
    assert since is not None and since.describe() == "from 2026-11-29"
    night = find_period("last night", "en", NOW)
    assert night is not None and night.days == 2 and night.contains(D("2026-12-01"))
    assert night.describe() == "the night of 2026-11-30 to 2026-12-01"
    until = find_period("until Friday", "en", NOW)
    assert until is not None and until.describe() == "until 2026-11-27"


def test_a_period_ends_after_it_starts() -> None:
    with pytest.raises(ValueError, match="ends after it starts"):
        Period(D("2026-11-29"), D("2026-11-29"), "x", "day")
    with pytest.raises(ValueError, match="unknown period kind"):
        Period(D("2026-11-29"), D("2026-11-30"), "x", "fortnight")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------- coverage


def test_coverage() -> None:
    day = Period(D("2026-11-30"), D("2026-12-01"), "yesterday", "day")
    assert coverage(day, None, None) == Coverage(day, None, None, "empty", 1)
    assert coverage(day, None, None).sentence == "the data is empty"
    none = coverage(day, D("2026-11-29"), D("2026-11-29"))
    assert (none.status, none.missing_days) == ("none", 1)
    assert none.sentence == "the data covers 2026-11-29 only; the request asks for 2026-11-30"
    covered = coverage(day, D("2026-11-28"), D("2026-12-01"))
    assert (covered.status, covered.missing_days) == ("covered", 0)
    assert covered.sentence == "the data covers 2026-11-30"
    week = Period(D("2026-11-23"), D("2026-11-30"), "last week", "week")
    partial = coverage(week, D("2026-11-26"), D("2026-12-03"))
    assert (partial.status, partial.missing_days) == ("partial", 3)
    assert partial.sentence == (
        "the data covers 2026-11-26 to 2026-12-03 only; the request asks for 2026-11-23 to 2026-11-29 (3 days missing)"
    )
    month = find_period("this month", "en", NOW)
    assert month is not None
    assert coverage(month, D("2026-12-01"), D("2026-12-31")).sentence == "the data covers 2026-12 (December 2026)"
    since = find_period("since 29 November", "en", NOW)
    assert since is not None
    assert coverage(since, D("2026-11-30"), D("2026-12-01")).sentence == (
        "the data covers 2026-11-30 to 2026-12-01 only; the request asks for 2026-11-29 to 2026-12-01 (1 day missing)"
    )
    with pytest.raises(ValueError, match="before its first day"):
        coverage(day, D("2026-12-01"), D("2026-11-30"))


# ---------------------------------------------------------------------------------------------- the clock


def test_now_is_the_only_clock() -> None:
    """Far from today, every relative word follows `now`, and dateparser is never left to read the wall clock."""
    import dateparser.freshness_date_parser
    import dateparser.utils

    from alicorn import periods

    class NoClock(datetime):
        @classmethod
        def now(cls, tz: object = None) -> NoClock:  # type: ignore[override]
            raise AssertionError("dateparser read the wall clock")

    periods._dateparser.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dateparser.utils, "datetime", NoClock)
        patch.setattr(dateparser.freshness_date_parser, "datetime", NoClock)
        then = datetime(1999, 3, 10, 20, 0)  # a Wednesday
        assert parse_date_answer("yesterday", "en", then) == date(1999, 3, 9)
        assert parse_date_answer("trzy dni temu", "pl", then) == date(1999, 3, 7)
        assert parse_date_answer("в пятницу", "ru", then) == date(1999, 3, 5)
        assert parse_date_answer("29 listopada", "pl", then) == date(1998, 11, 29)
        assert month_of("next month", "en", then) == "1999-04"
        assert parse_date_answer("этой ночью", "ru", then) == date(1999, 3, 10)  # said in the evening: tonight
        later = datetime(2041, 1, 2, 8, 0, tzinfo=UTC)
        assert parse_date_answer("przedwczoraj", "pl", later) == date(2040, 12, 31)
        assert find_period("last week", "en", later) == Period(
            date(2040, 12, 24), date(2040, 12, 31), "last week", "week"
        )
    periods._dateparser.cache_clear()


# -------------------------------------------------------------------------------------------------- properties

_PHRASES = [p[1] for p in PERIODS] + ["and", "to", "od", "do", "с", "по", "between", "from", "-", "3", "15", "x"]


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(st.sampled_from(_PHRASES), min_size=1, max_size=4),
    noise=st.text(alphabet="0123456789.-/ abcżłё", max_size=12),
    offset=st.integers(min_value=-4000, max_value=4000),
    hour=st.integers(min_value=0, max_value=23),
    prefer=st.sampled_from(["past", "future"]),
)
def test_any_period_found_starts_before_it_ends(
    words: list[str], noise: str, offset: int, hour: int, prefer: str
) -> None:
    now = datetime(2026, 12, 1, hour, tzinfo=UTC) + timedelta(days=offset)
    text = " ".join([*words, noise])
    try:
        found = find_periods(text, "en", now, prefer=prefer)  # type: ignore[arg-type]
    except InvalidDate as error:
        assert error.words in text
        return
    for period in found:
        assert period.start < period.end and period.contains(period.start) and not period.contains(period.end)
        assert period.words in text
    assert find_periods(text, "en", now, prefer=prefer) == found  # type: ignore[arg-type]  # a pure function
