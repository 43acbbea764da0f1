"""A real `alicorn serve` that acts: workers (Core with `--model none`), over a home whose project data are the
bundled samples, with people of every role and their tokens; and runs interrupted by a killed process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.people import People
from alicorn.app import open_app
from alicorn.broker.submit import broker_for
from alicorn.broker.worker import Worker
from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.plan.dsl import goal_digest
from alicorn.runtime.state import fold
from alicorn.service.app import create_app
from alicorn.service.tokens import Tokens
from alicorn.testing.people import TEST_ADMIN
from tests.broker.conftest import FakeSeconds
from tests.core.support import samples_as_project_data
from tests.service.conftest import ENGINES, StepClock, Talking, engine_journal, journal_toml, serve_in_thread

ROOT = Path(__file__).resolve().parents[2]
#: The request of the seed whose plan sends a reply: it waits for a person's approval.
SEND = "From the conversation, prepare a note and tasks and send the draft reply to the participants"
ALARMS = "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human."


def people_and_tokens(home: Path, clock: StepClock) -> dict[str, str]:
    """ada (admin), abe and amy (approvers), rita (requester), vic (viewer) and their tokens: `NAME` writes,
    `NAME-read` reads."""
    application = open_app(home)
    try:
        people = People(application.store, home / "keys", clock)
        ada = parse_principal("human:ada")
        people.bootstrap(ada)
        if ada.id not in people.roster().people:
            # a home a crash-test child made first has that child's admin (it signs its operator's approvals)
            people.add("ada", "admin", by=parse_principal(TEST_ADMIN))
        for name, role in (("abe", "approver"), ("amy", "approver"), ("rita", "requester"), ("vic", "viewer")):
            people.add(name, role, by=ada)
        tokens = Tokens(people, clock)
        minted = {}
        for name in ("ada", "abe", "amy", "rita", "vic"):
            minted[name] = tokens.create(name, scope="write", expires_days=None, by=ada).token
            minted[f"{name}-read"] = tokens.create(name, scope="read", expires_days=None, by=ada).token
        return minted
    finally:
        application.close()


@dataclass
class Acting(Talking):
    """A running service that acts, and what a test needs to talk to it and to check the journal behind it."""

    home: Path
    url: str
    clock: StepClock
    store: JournalStore
    tokens: dict[str, str]


@contextmanager
def serving(
    home: Path,
    tokens: dict[str, str] | None = None,
    *,
    workers: int = 2,
    journal: tuple[str, str] | None = None,
    queue: bool = False,
) -> Iterator[Acting]:
    """The service over `home` (made ready when new) with `workers` threads on a loopback port (uvicorn in a
    thread), stopped when the block ends; on the PostgreSQL journal `journal` (URL, schema) when given; with
    `queue`, Core's runs go to the job broker (`alicorn serve --queue`)."""
    clock = StepClock()
    if not (home / "alicorn.toml").exists():
        samples_as_project_data(home)
        if journal is not None:
            with (home / "alicorn.toml").open("a", encoding="utf-8") as toml:
                toml.write("\n" + journal_toml(journal))
    tokens = tokens if tokens is not None else people_and_tokens(home, clock)
    api = create_app(home, clock=clock, poll_s=0.01, workers=workers, models="none", queue=queue)
    store: JournalStore = (
        PostgresJournalStore(journal[0], schema=journal[1], create=False)
        if journal is not None
        else SQLiteStore(home / "journal.db", create=False)
    )
    try:
        with serve_in_thread(api) as url:
            yield Acting(home, url, clock, store, tokens)
    finally:
        store.close()


@pytest.fixture(params=ENGINES)
def acting_on_each_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Acting]:
    """The acting service on each journal engine (a module takes it as its `acting` fixture)."""
    with serving(tmp_path / "home", journal=engine_journal(request)) as served:
        yield served


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll `check` until it returns something true; that value."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def conversation(client: httpx.Client, conversation_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def settled(client: httpx.Client, conversation_id: str, phase: str | None = None, waiting: str | None = None) -> Any:
    """The conversation once its workers are done with it (and, if given, in `phase` / waiting for `waiting`)."""

    def ready() -> dict[str, Any] | None:
        body = conversation(client, conversation_id)
        if body["worker"]["busy"]:
            return None
        assert body["worker"]["failure"] is None, body["worker"]["failure"]
        if phase is not None and body["phase"] != phase:
            return None
        if waiting is not None and body["waiting_for"] != waiting:
            return None
        return body

    return wait_for(ready, f"conversation {conversation_id} to settle")


def ask(client: httpx.Client, text: str, **fields: Any) -> str:
    response = client.post("/api/v1/conversations", json={"text": text, **fields})
    assert response.status_code == 202, response.text
    assert response.headers["location"] == response.json()["location"]
    return str(response.json()["conversation"])


def run_status(served: Acting, run_id: str) -> str:
    return fold(served.store.read(run_id), run_id).status


def sleep_plan(seconds: float) -> dict[str, Any]:
    """A plan that sleeps, then writes a file in its workspace (effect-free but for its own folder)."""
    nodes = [
        {"node_id": "nap", "operation": "util.sleep", "inputs": {"seconds": {"value": seconds}}},
        {"node_id": "after", "operation": "util.noop", "inputs": {}, "depends_on": ["nap"]},
    ]
    return {"goal": "sleep, then go on", "goal_hash": goal_digest("sleep, then go on"), "nodes": nodes}


def sleeping(home: Path, session: int = 1) -> str | None:
    """The run of `home` whose sleep is in flight in its `session`-th session (or a later one), if one's is."""
    path = home / "journal.db"
    if not path.exists():
        return None
    with SQLiteStore(path, create=False) as store:
        for info in store.streams():
            if info.stream.startswith("run-") and store.read(info.stream)[0].kind == "run.created":
                state = fold(store.read(info.stream), info.stream)
                if state.sessions >= session and any(n.node_id == "nap" for n in state.in_flight()):
                    return info.stream
    return None


def kill_mid_run(command: list[str], home: Path, session: int = 1) -> str:
    """Start `alicorn COMMAND`, SIGKILL it once a run's sleep is running in its `session`-th session (a power cut,
    as far as the journal knows), and return that run's id."""
    child = subprocess.Popen(
        [sys.executable, "-c", "from alicorn.cli import main; main()", *command],
        cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while (run_id := sleeping(home, session)) is None:
            if child.poll() is not None or time.monotonic() > deadline:
                said = child.stderr.read().decode() if child.stderr else ""
                raise AssertionError(f"alicorn {command[0]} never got to the sleep: {said}")
            time.sleep(0.02)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    return run_id


def interrupted_run(home: Path, seconds: float) -> str:
    """A run (a sleep of `seconds`, then a no-op) started with `alicorn run` and killed while it sleeps; its id."""
    plan = home.parent / "sleep-plan.json"
    plan.write_text(json.dumps(sleep_plan(seconds)), encoding="utf-8")
    home.mkdir(parents=True, exist_ok=True)
    return kill_mid_run(["run", str(plan), "--home", str(home), "--quiet"], home)


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on, every stream any SQLite journal of this process reads, in order (to pin what is not read)."""
    read = SQLiteStore.read
    reads: list[str] = []

    def counted(self: SQLiteStore, stream: str, *args: object, **kwargs: object) -> object:
        reads.append(stream)
        return read(self, stream, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SQLiteStore, "read", counted)
    return reads


def work_elsewhere(home: Path) -> int:
    """A worker in another app on `home` (so on the same journal) drives what the broker has claimable, until idle;
    how many claims it made. Its leases run on a test clock."""
    elsewhere = open_app(home)
    try:
        broker = broker_for(elsewhere.store, clock=FakeSeconds())
        try:
            worker = Worker(broker, elsewhere.executor(Path(".")), name="worker:elsewhere",
                            executor_for=lambda state: elsewhere.executor(Path(state.data_root)))  # fmt: skip
            return worker.serve(threading.Event(), until_idle=True)
        finally:
            broker.close()
    finally:
        elsewhere.close()
