"""Kill a real process at every named crash point, resume it in fresh processes, and check nothing is duplicated,
lost or left unexplained. The effect sink is a real SQLite ledger that counts applications per key."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from alicorn.crashpoints import POINTS
from alicorn.testing.crashes import check_run, drive, run_forked, start_args, write_plan

# (point, which hit) pairs: every point, at several places of the run.
SCENARIOS = [
    ("before_intent_commit", 1),
    ("before_intent_commit", 2),
    ("after_intent_commit", 1),
    ("after_intent_commit", 2),
    ("after_effect", 1),
    ("after_effect", 2),
    ("after_effect", 3),
    ("before_result_commit", 1),
    ("before_result_commit", 2),
    ("before_result_commit", 3),
    ("mid_append", 1),
    ("mid_append", 2),
    ("mid_append", 4),
    ("mid_append", 6),
]
SAGA_SCENARIOS = [
    ("mid_compensation", 1),
    ("mid_compensation", 2),
    ("mid_compensation", 3),
    ("after_effect", 4),
    ("after_effect", 5),
    ("before_result_commit", 4),
    ("mid_append", 9),
]


def test_every_crash_point_is_exercised() -> None:
    assert {p for p, _ in SCENARIOS + SAGA_SCENARIOS} == POINTS


@pytest.mark.parametrize(("point", "nth"), SCENARIOS, ids=[f"{p}:{n}" for p, n in SCENARIOS])
def test_crash_point_then_resume(tmp_path: Path, point: str, nth: int) -> None:
    _scenario(tmp_path, point, nth, fail_at_end=False, expected={"succeeded"})


@pytest.mark.parametrize(("point", "nth"), SAGA_SCENARIOS, ids=[f"{p}:{n}" for p, n in SAGA_SCENARIOS])
def test_crash_point_during_a_saga_then_resume(tmp_path: Path, point: str, nth: int) -> None:
    _scenario(tmp_path, point, nth, fail_at_end=True, expected={"stopped"})


GROUPED = [
    ("after_effect", 1),
    ("after_effect", 3),
    ("mid_append", 2),
    ("before_result_commit", 2),
    ("after_intent_commit", 2),
]


@pytest.mark.parametrize(("point", "nth"), GROUPED, ids=[f"{p}:{n}" for p, n in GROUPED])
def test_crash_point_with_grouped_durability(tmp_path: Path, point: str, nth: int) -> None:
    """Grouping effect-free steps must not weaken anything the effects rely on."""
    _scenario(tmp_path, point, nth, fail_at_end=False, expected={"succeeded"}, durability="grouped")


def _scenario(
    tmp_path: Path, point: str, nth: int, *, fail_at_end: bool, expected: set[str], durability: str = "step"
) -> None:
    plan_file = write_plan(tmp_path, fail_at_end)
    first = run_forked(start_args(tmp_path, plan_file, "run-crash", durability), crash_point=f"{point}:{nth}")
    assert first.returncode == -signal.SIGKILL, f"the crash point never fired:\n{first.output[-2000:]}"
    acked = list(first.acked)
    rounds, kills = drive(tmp_path, "run-crash", acked)
    outcome = check_run(tmp_path, "run-crash", acked, kills + 1, rounds)
    # Acknowledgements must reach the parent, or the lost-event check would prove nothing.
    assert acked or outcome.status == "never-started"
    assert outcome.duplicates == {}
    assert outcome.lost == []
    assert outcome.problems == []
    assert outcome.status in expected | (
        {"never-started"} if point in ("before_intent_commit", "mid_append") else set()
    )
