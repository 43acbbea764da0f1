"""A vacations file with its header alone says nobody is away: the schedule is made, not asked for again. It ended
in three questions and `missing_data` ("vacations.csv has a header but no rows")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_user_data import _ask, _core, _schedule_data


@pytest.mark.slow
def test_nobody_on_vacation_is_a_header_alone(tmp_path: Path) -> None:
    data = _schedule_data(tmp_path / "hr")
    (data / "vacations.csv").write_text("employee,from,to\n", encoding="utf-8")
    _app, core = _core(tmp_path / "home", workdir=tmp_path)
    turn = _ask(core, "Prepare two variants of next month's work schedule, respect vacations, do not publish",
                data=(str(data),))  # fmt: skip
    assert turn.report is not None and turn.report.outcome == "complete", turn
