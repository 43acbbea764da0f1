"""At least 200 random kills in CI with every step durable, and 100 with effect-free steps grouped (the executor's
default); bench/kill_loop.py runs the long versions."""

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


@pytest.mark.slow
def test_a_hundred_random_kills_of_runs_that_group_effect_free_steps() -> None:
    """Grouping may lose effect-free work to a kill (resume runs it again), never an acknowledged event or an
    effect's exactly-once guarantee."""
    report = kill_loop(100, seed=20261203, durability="grouped")
    print(report.summary())
    assert report.kills >= 100
    assert report.duplicated_effects == 0
    assert report.lost_events == 0
    assert report.unexplained_runs == 0, report.problems[:10]
    assert report.runs > 0 and report.acked_events > 0
