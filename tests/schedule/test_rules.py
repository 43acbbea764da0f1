"""Time rules: cron and intervals in a zone, DST in both directions, active hours, and the bad input they refuse."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import islice, pairwise

import pytest

from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.rules import (
    EveryRule,
    next_slot,
    parse_cron,
    parse_duration,
    parse_every,
    parse_hours,
    parse_once,
    slots_after,
    slots_until,
    zone_of,
)

WARSAW = zone_of("Europe/Warsaw")
UTC_ZONE = zone_of("UTC")


def _local(slots: list[datetime]) -> list[str]:
    return [s.astimezone(WARSAW).strftime("%m-%d %H:%M%z") for s in slots]


def test_a_daily_slot_in_the_spring_gap_moves_to_the_first_minute_after_it() -> None:
    rule = parse_cron("30 2 * * *")
    got = list(islice(slots_after(rule, WARSAW, None, datetime(2026, 3, 27, 12, tzinfo=UTC)), 3))
    assert _local(got) == ["03-28 02:30+0100", "03-29 03:00+0200", "03-30 02:30+0200"]
    # the same slots counted backwards (what catch-up looks at) agree
    back = list(islice(slots_until(rule, WARSAW, None, got[-1]), 3))
    assert back == got[::-1]


def test_a_daily_slot_in_the_repeated_autumn_hour_fires_once_an_hourly_one_twice() -> None:
    daily = list(islice(slots_after(parse_cron("30 2 * * *"), WARSAW, None, datetime(2026, 10, 24, 12, tzinfo=UTC)), 2))
    assert _local(daily) == ["10-25 02:30+0200", "10-26 02:30+0100"]
    hourly = list(
        islice(slots_after(parse_cron("30 * * * *"), WARSAW, None, datetime(2026, 10, 24, 23, tzinfo=UTC)), 4)
    )
    assert _local(hourly) == ["10-25 01:30+0200", "10-25 02:30+0200", "10-25 02:30+0100", "10-25 03:30+0100"]
    assert all((b - a).total_seconds() == 3600 for a, b in pairwise(hourly))


def test_an_interval_counts_real_time_across_a_dst_change() -> None:
    rule = parse_every("6h", datetime(2026, 3, 28, 18, tzinfo=UTC))
    got = list(islice(slots_after(rule, WARSAW, None, datetime(2026, 3, 28, 18, tzinfo=UTC)), 3))
    assert [(b - a).total_seconds() for a, b in pairwise(got)] == [21600, 21600]
    assert got[0] == datetime(2026, 3, 29, 0, tzinfo=UTC)


def test_active_hours_keep_only_slots_inside_them_and_may_wrap_past_midnight() -> None:
    rule = parse_cron("0 * * * *")
    day = list(islice(slots_after(rule, WARSAW, parse_hours("08:00-10:00"), datetime(2026, 11, 30, tzinfo=UTC)), 3))
    assert _local(day) == ["11-30 08:00+0100", "11-30 09:00+0100", "12-01 08:00+0100"]
    night = list(islice(slots_after(rule, WARSAW, parse_hours("23:00-01:00"), datetime(2026, 11, 30, tzinfo=UTC)), 3))
    assert _local(night) == ["11-30 23:00+0100", "12-01 00:00+0100", "12-01 23:00+0100"]


def test_a_one_off_time_in_a_gap_is_refused_and_one_outside_is_kept() -> None:
    with pytest.raises(ScheduleError, match=r"--at .*does not exist in Europe/Warsaw.*2026-03-29T03:00"):
        parse_once("2026-03-29T02:30", WARSAW)
    once = parse_once("2026-03-29T03:30", WARSAW)
    assert list(slots_after(once, WARSAW, None, datetime(2026, 3, 1, tzinfo=UTC))) == [
        datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    ]


@pytest.mark.parametrize(
    ("expr", "said"),
    [
        ("61 * * * *", "not a valid cron rule"),
        ("0 8 * *", "has 4 field"),
        ("0 8 * * 1 2", "has 6 field"),
        ("0 0 31 2 *", "not a valid cron rule"),
        ("every monday", "has 2 field"),
    ],
)
def test_bad_cron_rules_name_the_option_and_the_form(expr: str, said: str) -> None:
    with pytest.raises(ScheduleError, match=r"--cron .*" + said + r".*nothing was journaled"):
        parse_cron(expr)


@pytest.mark.parametrize(
    ("text", "said"), [("0m", "zero"), ("-5m", "negative"), ("every 0h", "zero"), ("soon", "not an interval")]
)
def test_bad_intervals_are_refused(text: str, said: str) -> None:
    with pytest.raises(ScheduleError, match=r"--every .*" + said):
        parse_every(text, datetime(2026, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("days", [3_000_000, 99_999_999, 999_999_999])
def test_an_interval_past_the_last_date_has_no_slot_either_way(days: int) -> None:
    rule = parse_every(f"{days}d", datetime(2026, 11, 30, 9, tzinfo=UTC))
    moment = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
    assert next_slot(rule, UTC_ZONE, None, moment) is None
    assert list(slots_until(rule, UTC_ZONE, None, moment)) == []


def test_an_interval_too_long_for_a_timedelta_has_no_slot() -> None:
    rule = EveryRule(seconds=10**20, anchor="2026-11-30T09:00:00+00:00")  # as a journaled spec could hold it
    moment = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
    assert next_slot(rule, UTC_ZONE, None, moment) is None
    assert list(slots_until(rule, UTC_ZONE, None, moment)) == []


@pytest.mark.parametrize(
    ("text", "said"),
    [("9" * 5000 + "d", "is too long: its number has more than 9 digits"), ("1000000000m", "is too long"),
     ("-" + "9" * 5000 + "d", "is negative")],
)  # fmt: skip
def test_an_interval_of_more_digits_than_any_date_is_refused_and_quoted_short(text: str, said: str) -> None:
    with pytest.raises(ScheduleError, match=r"--every .*" + said) as refused:
        parse_every(text, datetime(2026, 1, 1, tzinfo=UTC))
    assert len(str(refused.value)) < 300
    with pytest.raises(ScheduleError, match=r"--window .*"):
        parse_duration("--window", text)


@pytest.mark.parametrize("name", ["Europe/Warshaw", "Mars/Olympus", "", "../etc/passwd", " UTC"])
def test_unknown_zones_are_refused(name: str) -> None:
    with pytest.raises(ScheduleError, match=r"--zone .*not an IANA time zone; give one like Europe/Warsaw"):
        zone_of(name)


@pytest.mark.parametrize("text", ["8-18", "25:00-26:00", "08:00-08:00", "08:61-09:00"])
def test_bad_active_hours_are_refused(text: str) -> None:
    with pytest.raises(ScheduleError, match=r"--active-hours"):
        parse_hours(text)


def test_durations() -> None:
    assert parse_duration("--window", "6h") == 21600
    with pytest.raises(ScheduleError, match="--window '30s'"):
        parse_duration("--window", "30s")
