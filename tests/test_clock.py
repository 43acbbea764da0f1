"""The clock at the ground floor: the suite's guard holds, pinned clocks pin the day and advance."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from alicorn.clock import ClockError, PinnedClock, SystemClock, default_clock, parse_instant, parse_time

TEST_NOW = "2026-11-30T08:00:00Z"  # tests/conftest.py pins it


def test_a_test_that_reads_the_wall_clock_fails() -> None:
    with pytest.raises(AssertionError, match="read the wall clock; inject a clock"):
        SystemClock().now()


def test_the_default_clock_is_pinned_in_tests() -> None:
    clock = default_clock()
    assert isinstance(clock, PinnedClock)
    first = parse_time(clock.now())
    assert first.date().isoformat() == TEST_NOW[:10]
    assert parse_time(clock.now()) >= first  # it advances, never goes back
    assert default_clock() is clock  # one pinned clock per pin: readings keep advancing


def test_a_pinned_clock_starts_at_its_moment() -> None:
    clock = PinnedClock(datetime(2026, 2, 28, 23, 59, tzinfo=UTC))
    assert clock.now().startswith("2026-02-28T23:59:")


@pytest.mark.parametrize("text", ["2026-11-30", "2026-11-30T08:00", "2026-11-30T08:00:00Z", "2026-11-30T09:00+01:00"])
def test_instants_are_read_as_utc(text: str) -> None:
    assert parse_instant(text).tzinfo is not None
    assert parse_instant(text).date().isoformat() == "2026-11-30"


def test_a_bad_pin_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALICORN_NOW", "yesterday-ish")
    with pytest.raises(ClockError, match=r"ALICORN_NOW.*not an ISO 8601 time"):
        default_clock()


def test_a_pin_with_an_origin_is_one_time_line_for_every_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("ALICORN_NOW", f"2026-11-30T08:00:00Z@{time.monotonic() - 3600}")
    assert default_clock().now().startswith("2026-11-30T09:00:")  # an hour after the origin, wherever it was read
