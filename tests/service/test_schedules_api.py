"""`/api/v1/schedules` over real HTTP: roles (a viewer reads, a requester adds their own, an approver the rest), bad
input as a problem detail naming the field with nothing journaled, and the scheduler thread inside the service
firing a due slot, a schedule's into Core as a trigger and a heartbeat's into its probes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.people import People
from alicorn.app import open_app
from alicorn.service.app import create_app
from alicorn.service.tokens import Tokens
from tests.service.conftest import Served, StepClock, serve_in_thread


@pytest.fixture
def rita(served: Served) -> str:
    """A requester's write token."""
    served.people.add("rita", "requester", by=parse_principal("human:ada"))
    return (
        Tokens(served.people, served.clock)
        .create("rita", scope="write", expires_days=None, by=parse_principal("human:ada"))
        .token
    )


def _as(served: Served, token: str):  # type: ignore[no-untyped-def]
    import httpx

    return httpx.Client(base_url=served.url, headers={"Authorization": f"Bearer {token}"}, timeout=10.0)


DAILY = {"request": "summarise yesterday's alarms", "cron": "0 8 * * *", "zone": "Europe/Warsaw"}


def test_a_requester_adds_their_own_schedule_and_a_viewer_sees_it_with_its_next_slots(
    served: Served, rita: str
) -> None:
    with _as(served, rita) as client:
        made = client.post("/api/v1/schedules", json=DAILY)
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["author"] == "human:rita" and body["status"] == "active" and body["heartbeat"] is None
    with served.client("vic") as client:
        listed = client.get("/api/v1/schedules").json()["schedules"]
        shown = client.get(f"/api/v1/schedules/{body['id']}").json()
    assert [s["id"] for s in listed] == [body["id"]]
    assert len(shown["next"]) == 5 and shown["next"][0] == {
        "utc": "2026-12-01T07:00:00Z",
        "local": "2026-12-01 08:00 CET",
    }


def test_roles_decide_who_adds_pauses_and_fires(served: Served, rita: str) -> None:
    with served.client("abe") as client:
        sid = client.post("/api/v1/schedules", json=DAILY).json()["id"]
    before = served.heads()
    with served.client("vic") as client:
        refused = client.post("/api/v1/schedules", json=DAILY)
        assert refused.status_code == 403 and "needs the role requester" in refused.json()["detail"]
    with _as(served, rita) as client:
        for action in ("pause", "resume", "remove", "run-now"):
            refused = client.post(f"/api/v1/schedules/{sid}/{action}")
            assert refused.status_code == 403 and "needs the role approver" in refused.json()["detail"], action
        beyond = client.post("/api/v1/schedules", json={**DAILY, "allow": ["local_write"]})
        assert beyond.status_code == 422 and beyond.json()["detail"].startswith(
            "allow local_write: human:rita is a requester"
        )
        assert beyond.json()["field"] == "allow"
    with served.client("ada-read") as client:
        assert client.post(f"/api/v1/schedules/{sid}/pause").status_code == 403  # a read token never writes
    assert served.heads() == before
    with served.client("abe") as client:
        paused = client.post(f"/api/v1/schedules/{sid}/pause", json={"reason": "holidays"})
        assert paused.status_code == 200 and paused.json()["status"] == "paused"
        assert paused.json()["history"][-1]["reason"] == "holidays" and paused.json()["next"] == []
        again = client.post(f"/api/v1/schedules/{sid}/pause")
        assert again.status_code == 409 and "already paused" in again.json()["detail"]
        assert client.post(f"/api/v1/schedules/{sid}/resume").json()["status"] == "active"


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({**DAILY, "cron": "0 25 * * *"}, "cron", "is not a valid cron rule"),
        ({"request": "x", "every": "0m"}, "every", "interval"),
        ({"request": "x", "at": "2027-03-28T02:30", "zone": "Europe/Warsaw"}, "at", "does not exist in Europe/Warsaw"),
        ({**DAILY, "zone": "Mars/Olympus"}, "zone", "Mars/Olympus"),
        ({**DAILY, "active_hours": "18-08"}, "active_hours", "is not a range of local hours"),
        ({"request": "x", "cron": "0 8 * * *", "every": "15m"}, "", "exactly one of the fields cron"),
    ],
)
def test_bad_input_is_a_problem_naming_the_field_and_nothing_is_journaled(
    served: Served, body: dict[str, object], field: str, words: str
) -> None:
    before = served.heads()
    with served.client("ada") as client:
        refused = client.post("/api/v1/schedules", json=body)
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert words in problem["detail"] and refused.headers["content-type"] == "application/problem+json"
    if field:
        assert problem["field"] == field and problem["detail"].startswith(field)
    assert served.heads() == before


def test_a_schedule_that_sends_names_its_hosts_and_one_that_names_none_is_refused(served: Served) -> None:
    sending = {**DAILY, "allow": ["external_transmission"]}
    before = served.heads()
    with served.client("ada") as client:
        refused = client.post("/api/v1/schedules", json=sending)
        assert refused.status_code == 422, refused.text
        assert refused.json()["field"] == "hosts" and refused.json()["detail"].startswith("hosts is missing")
        assert served.heads() == before
        everywhere = client.post("/api/v1/schedules", json={**sending, "hosts": ["*"]})
        assert everywhere.status_code == 422 and everywhere.json()["field"] == "hosts", everywhere.text
        added = client.post("/api/v1/schedules", json={**sending, "hosts": ["API.example.com"]})
        assert added.status_code == 201, added.text
        shown = client.get(f"/api/v1/schedules/{added.json()['id']}").json()
    assert shown["hosts"] == ["api.example.com"], shown


def test_unknown_fields_and_ids_are_refused(served: Served) -> None:
    with served.client("ada") as client:
        extra = client.post("/api/v1/schedules", json={**DAILY, "cronn": "x"})
        assert extra.status_code == 422 and "cronn" in extra.json()["detail"]
        missing = client.get("/api/v1/schedules/sch-nope")
        assert missing.status_code == 404 and "GET /api/v1/schedules lists them" in missing.json()["detail"]
        nobeat = client.get("/api/v1/schedules/heartbeat:ops")
        assert nobeat.status_code == 422 and "has no heartbeat" in nobeat.json()["detail"]


def test_a_heartbeat_is_added_by_an_approver_once_per_project(served: Served, rita: str) -> None:
    with _as(served, rita) as client:
        assert client.post("/api/v1/schedules/heartbeat", json={"project": "ops"}).status_code == 403
    with served.client("abe") as client:
        made = client.post("/api/v1/schedules/heartbeat", json={"project": "ops", "every": "15m",
                                                               "settings": {"breaker_after": 4}})  # fmt: skip
        assert made.status_code == 201, made.text
        assert made.json()["id"] == "heartbeat-ops" and made.json()["heartbeat"]["settings"]["breaker_after"] == 4
        twice = client.post("/api/v1/schedules/heartbeat", json={"project": "ops"})
        assert twice.status_code == 409 and "has a heartbeat already" in twice.json()["detail"]
        bad = client.post("/api/v1/schedules/heartbeat", json={"project": "ops2", "settings": {"breaker_after": 1}})
        assert bad.status_code == 422 and "breaker_after" in bad.json()["detail"]
        assert client.get("/api/v1/schedules/heartbeat:ops").json()["id"] == "heartbeat-ops"


@pytest.fixture
def ticking(tmp_path: Path) -> Iterator[tuple[str, StepClock, object, str]]:
    """A service whose scheduler thread wakes every 50 ms, and an approver's token."""
    home = tmp_path / "home"
    home.mkdir()
    clock = StepClock()
    application = open_app(home)
    people = People(application.store, home / "keys", clock)
    ada = parse_principal("human:ada")
    people.bootstrap(ada)
    token = Tokens(people, clock).create("ada", scope="write", expires_days=None, by=ada).token
    application.close()
    api = create_app(home, clock=clock, poll_s=0.01, scheduler_poll_s=0.05)
    with serve_in_thread(api) as url:
        yield url, clock, api, token


def _until(check, seconds: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the scheduler thread did not fire in time"
        time.sleep(0.02)


def test_the_scheduler_inside_serve_fires_a_due_slot_into_core_and_a_heartbeat_into_its_probes(ticking: tuple) -> None:  # type: ignore[type-arg]
    import httpx

    url, clock, api, token = ticking
    store = api.state.service.app.store
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=10.0) as client:
        sid = client.post("/api/v1/schedules", json={"request": "summarise the alarms", "every": "1m"}).json()["id"]
        assert client.post("/api/v1/schedules/heartbeat", json={"project": "default", "every": "1m"}).status_code == 201
        assert not [e for e in store.read(f"schedule:{sid}") if e.kind == "schedule.fired"]
        clock.advance(seconds=61)
        _until(lambda: any(e.kind == "schedule.started" for e in store.read(f"schedule:{sid}")))
        _until(lambda: store.head("heartbeat:default") is not None and store.head("heartbeat:default").seq >= 2)
        fired = [e for e in store.read(f"schedule:{sid}") if e.kind == "schedule.fired"]
        assert len(fired) == 1 and fired[0].data["by"] == "serve"
        intent = store.read(fired[0].data["conversation"])[0]
        assert intent.kind == "intent.received" and intent.data["envelope"]["provenance"] == "trigger"
        assert intent.data["envelope"]["trigger"]["schedule"] == sid
        tick = [e for e in store.read("heartbeat:default") if e.kind == "heartbeat.tick"]
        assert len(tick) == 1 and tick[0].data["model_calls"] == 0
        shown = client.get("/api/v1/schedules/heartbeat:default").json()
        assert shown["heartbeat"]["ticks"] == 1 and shown["fired"] == 1
        fired_now = client.post(f"/api/v1/schedules/{sid}/run-now")
        assert fired_now.status_code == 201 and fired_now.json()["slot_id"].endswith("-manual")
    assert api.state.schedules.ticks >= 1
