"""At least 200 random kills in CI; bench/kill_loop.py runs the long version."""

from __future__ import annotations

import pytest

from alicorn.testing.kill_loop import kill_loop


@pytest.mark.slow
def test_two_hundred_random_kills() -> None:
    report = kill_loop(200, seed=20261130)
    print(report.summary())
    assert report.kills >= 200
    assert report.duplicated_effects == 0
    assert report.lost_events == 0
    assert report.unexplained_runs == 0, report.problems[:10]
    assert report.runs > 0 and report.acked_events > 0
