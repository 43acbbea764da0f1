"""Every date and time the API takes is checked against the calendar: a well-formed value that names no real
moment (month 13, February 30th, hour 25) or leaves the years 1-9999 in UTC is a 4xx problem detail naming the
field, the value and the form expected, never a 500, and nothing is journaled."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import Served

BAD_DEADLINES = ["2026-13-45", "2026-02-30", "2026-12-31T25:00", "2026-12-31T12:61Z", "2026-12-31T12:00:60"]


@pytest.mark.parametrize("deadline", BAD_DEADLINES)
def test_an_impossible_deadline_is_refused_naming_the_field_the_value_and_the_form(
    served: Served, deadline: str
) -> None:
    before = served.heads()
    with served.client("ada") as client:
        refused = client.post("/api/v1/conversations", json={"text": "summarise the alarms", "deadline": deadline})
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert "deadline" in detail and repr(deadline) in detail and "YYYY-MM-DD" in detail, detail
    assert served.heads() == before


def _moment_refusals(served: Served, moment: str) -> list[tuple[str, Any]]:
    """(field, answer) of each route that takes a moment, asked with `moment`."""
    with served.client("ada") as client:
        return [
            ("since", client.get("/api/v1/runs", params={"since": moment})),
            ("until", client.get("/api/v1/runs", params={"until": moment})),
            ("at", client.get("/api/v1/agents/agent:planner/rights", params={"at": moment})),
            ("at", client.get("/api/v1/memory/search", params={"q": "alarms", "at": moment})),
            ("at", client.post("/api/v1/schedules", json={"request": "check the inbox", "at": moment})),
        ]


@pytest.mark.parametrize("moment", ["2026-13-45T08:00", "0001-01-01T00:00+01:00", "9999-12-31T23:59-01:00"])
def test_every_moment_the_api_takes_is_refused_when_it_is_no_real_time(served: Served, moment: str) -> None:
    served.service.app.anvil.agents.ensure_builtin("agent:planner")  # an agent whose rights can be asked about
    before = served.heads()
    for name, answer in _moment_refusals(served, moment):
        assert answer.status_code == 422, (name, answer.status_code, answer.text)
        detail = answer.json()["detail"]
        assert detail.startswith(f"{name} ") or detail.startswith(f"{name}:"), detail
        assert repr(moment) in detail and "2026-" in detail, detail  # the value, and an example of the form
    assert served.heads() == before


def test_a_real_deadline_is_still_taken(served: Served) -> None:
    """The check refuses only what names no moment: an honest deadline passes validation (the service then answers
    503 here, since this home runs no workers, before anything is journaled)."""
    with served.client("ada") as client:
        for deadline in ("2026-12-31", "2026-12-31T17:00", "2026-12-31T17:00:30Z"):
            answer = client.post("/api/v1/conversations", json={"text": "summarise the alarms", "deadline": deadline})
            assert answer.status_code != 422, answer.text
