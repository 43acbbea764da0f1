"""A limit on anyone's weekly hours said in words ("nobody works more than 30 hours a week") is in the contract and
checked on every variant: the variants that break it are named and the outcome is not complete. It was dropped from
the contract, and a schedule with 48-hour weeks was reported complete."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from alicorn.core.conversation import fold
from alicorn.packs.catalog import bundled_workflows
from alicorn.runtime.state import fold as fold_run
from tests.core.test_user_data import _ask, _core, _schedule_data


def _weekly_most(artifact: dict[str, Any], variant: dict[str, Any]) -> float:
    """The most hours anyone works in one calendar week of `variant`, counted here from its assignments."""
    hours = {s["id"]: s for s in artifact["rules"]["shifts"]}
    week: dict[tuple[str, int, int], float] = defaultdict(float)
    for a in variant["assignments"]:
        shift = hours[a["shift"]]
        start, end = (int(t[:2]) * 60 + int(t[3:5]) for t in (shift["start"], shift["end"]))
        length = ((end - start) % (24 * 60)) / 60
        week[(a["employee"], *date.fromisoformat(a["date"]).isocalendar()[:2])] += length
    return max(week.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("words", "broken"),
    [
        ("nobody works more than 30 hours a week", True),
        ("nikt nie pracuje więcej niż 30 godzin w tygodniu", True),
        ("at most 60 hours a week per person", False),
    ],
)
def test_a_weekly_hours_limit_in_words_is_checked_on_every_variant(tmp_path: Path, words: str, broken: bool) -> None:
    data = _schedule_data(tmp_path / "hr")
    app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, f"Prepare two variants of next month's work schedule, {words}, do not publish", data=(str(data),))
    assert turn.report is not None, turn
    state = fold(app.store.read(turn.conversation))
    assert state.contract is not None and words in [c["value"] for c in state.contract["constraints"]]
    check = next(c for c in state.validations[-1]["checks"] if c["name"] == "constraint")
    schedule = next(w for w in bundled_workflows() if w.id == "schedule")
    artifact = schedule.artifact_of(fold_run(app.store.read(state.run), state.run))
    assert artifact is not None
    counted = {f"variant {v['id']}": _weekly_most(artifact, v) for v in artifact["variants"]}
    measured = {f"variant {m['variant']}": m["most_weekly_hours"] for m in artifact["metrics"]}
    assert measured == pytest.approx(counted)
    assert check["passed"] is (not broken)
    assert (turn.report.outcome == "complete") is (not broken)
    if broken:
        assert all(v > 30 for v in counted.values()), counted  # the data cannot keep under 30 h
