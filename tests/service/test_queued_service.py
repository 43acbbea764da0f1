"""`alicorn serve --queue`: Core's runs become jobs of the journal's broker; the service never drives them, a worker
does, and the service then gives the conversation its report by itself (on both journal engines)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.broker.submit import broker_for
from tests.broker.conftest import FakeSeconds
from tests.service.acting import ALARMS, SEND, Acting, ask, serving, settled, work_elsewhere
from tests.service.conftest import ENGINES, engine_journal


@pytest.fixture(params=ENGINES)
def queued(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Acting]:
    with serving(tmp_path / "home", journal=engine_journal(request), queue=True) as served:
        yield served


def test_an_approval_through_the_service_is_journaled_for_the_worker_which_sends(queued: Acting) -> None:
    with queued.client("ada") as client:
        conv = ask(client, SEND)
        body = settled(client, conv, waiting="approval")
    run = body["run"]
    assert work_elsewhere(queued.home) == 1  # the worker finds it waiting for a person and parks it
    with queued.client("abe") as client:
        plan_hash = body["proposal"]["plan_hash"]
        response = client.post(f"/api/v1/proposals/{run}/approve", json={"plan_hash": plan_hash, "comment": "ok"})
        assert response.status_code == 202, response.text
        settled(client, conv, phase="running")
        kinds = [e.kind for e in queued.store.read(run)]
        assert "approval.granted" in kinds and "tool.call" not in kinds  # journaled here, called nowhere yet
        assert work_elsewhere(queued.home) == 1
        report = settled(client, conv, phase="reported")["report"]
    assert report["outcome"] == "complete"
    events = queued.store.read(run)
    sending = {
        e.data["node"] for e in events if e.kind == "effect.intended" and e.data["effect"] == "external_transmission"
    }
    done = [e for e in events if e.kind == "effect.done" and e.data["node"] in sending]
    assert len(sending) == 1 and len(done) == 1  # the reply was sent once, by the worker


def test_a_request_s_run_waits_for_a_worker_and_the_service_reports_once_it_finished(queued: Acting) -> None:
    with queued.client("ada") as client:
        conv = ask(client, ALARMS)
        body = settled(client, conv, phase="running")
        run = body["runs"][-1]
        assert body["run_state"]["status"] != "succeeded" and body["report"] is None
        assert "tool.call" not in [e.kind for e in queued.store.read(run)]  # the service called nothing

        looking = broker_for(queued.store, clock=FakeSeconds(), read_only=True)
        job = looking.job(run)
        looking.close()
        assert job is not None and job.state == "ready"
        assert work_elsewhere(queued.home) == 1  # a worker's process: the same home, so the same journal

        body = settled(client, conv, phase="reported")  # nobody asked: the service followed the worker's run
    assert body["report"]["outcome"] == "complete" and "8 events need a human" in body["report"]["headline"]
    assert body["run_state"]["status"] == "succeeded"
