"""`alicorn serve --queue`: Core's runs become jobs of the journal's broker; the service never drives them, a worker
does, and the service then gives the conversation its report by itself (on both journal engines)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.broker.submit import broker_for
from alicorn.broker.worker import Worker
from tests.broker.conftest import FakeSeconds
from tests.service.acting import ALARMS, Acting, ask, serving, settled
from tests.service.conftest import ENGINES, engine_journal


@pytest.fixture(params=ENGINES)
def queued(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Acting]:
    with serving(tmp_path / "home", journal=engine_journal(request), queue=True) as served:
        yield served


def test_a_request_s_run_waits_for_a_worker_and_the_service_reports_once_it_finished(queued: Acting) -> None:
    with queued.client("ada") as client:
        conv = ask(client, ALARMS)
        body = settled(client, conv, phase="running")
        run = body["runs"][-1]
        assert body["run_state"]["status"] != "succeeded" and body["report"] is None
        assert "tool.call" not in [e.kind for e in queued.store.read(run)]  # the service called nothing

        elsewhere = open_app(queued.home)  # a worker's process: the same home, so the same journal
        try:
            broker = broker_for(elsewhere.store, clock=FakeSeconds())
            job = broker.job(run)
            assert job is not None and job.state == "ready"
            worker = Worker(broker, elsewhere.executor(Path(".")), name="worker:elsewhere",
                            executor_for=lambda state: elsewhere.executor(Path(state.data_root)))  # fmt: skip
            assert worker.serve(threading.Event(), until_idle=True) == 1
            assert broker.job(run).state == "done"  # type: ignore[union-attr]
            broker.close()
        finally:
            elsewhere.close()

        body = settled(client, conv, phase="reported")  # nobody asked: the service followed the worker's run
    assert body["report"]["outcome"] == "complete" and "8 events need a human" in body["report"]["headline"]
    assert body["run_state"]["status"] == "succeeded"
