"""At least 200 random kills in CI with every step durable, and 100 with effect-free steps grouped (the executor's
default); bench/kill_loop.py runs the long versions."""

from __future__ import annotations

import pytest

from alicorn.testing.kill_loop import kill_loop


@pytest.mark.slow
@pytest.mark.parametrize(
    ("durability", "kills", "seed"),
    [
        ("step", 200, 20261130),
        # Grouping may lose effect-free work to a kill (resume runs it again), never an acknowledged event or an
        # effect's exactly-once guarantee.
        ("grouped", 100, 20261203),
    ],
)
def test_random_kills(durability: str, kills: int, seed: int) -> None:
    report = kill_loop(kills, seed=seed, durability=durability)
    print(report.summary())
    assert report.kills >= kills
    assert report.duplicated_effects == 0
    assert report.lost_events == 0
    assert report.unexplained_runs == 0, report.problems[:10]
    assert report.runs > 0 and report.acked_events > 0
