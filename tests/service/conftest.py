"""A real `alicorn serve` app on a loopback port (uvicorn in a thread), over a home holding the recorded corpus
runs, three people and their tokens. The service reads time only from the injected `StepClock`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.people import People
from alicorn.app import open_app
from alicorn.clock import format_time, parse_time
from alicorn.journal.store import JournalStore
from alicorn.journal.transfer import import_lines
from alicorn.service.app import Service, create_app
from alicorn.service.tokens import Tokens
from tests.pgserver import next_schema

if TYPE_CHECKING:
    from tests.service.webhome import WebHome

CORPUS = Path(__file__).parents[1] / "corpus"
START = "2026-11-30T08:00:00.000000Z"


class StepClock:
    """A clock the test moves by hand: `now` is whatever it was last set to."""

    def __init__(self, at: str = START) -> None:
        self.at = at

    def now(self) -> str:
        return self.at

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(seconds, 0))

    def advance(self, **delta: float) -> None:
        self.at = format_time(parse_time(self.at) + timedelta(**delta))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_process(
    home: Path, path: str, *, token: str | None = None, timeout: float = 60.0
) -> Iterator[httpx.Response]:
    """`alicorn serve --home HOME` as a user starts it (a process on a free loopback port); the answer to the first
    GET of `path` that it gives (with `token` as the bearer), then the process is stopped when the block ends."""
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-c", "from alicorn.cli import main; main()", "serve", "--home", str(home), "--port",
         str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}{path}", headers=headers, timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or child.poll() is not None:
                    raise AssertionError(child.stderr.read().decode() if child.stderr else "no output") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", response
    finally:
        child.terminate()
        child.wait(10)


class Talking:
    """What a test does with a served home: talk to it as one of its token holders, and look at the journal."""

    url: str
    tokens: dict[str, str]
    store: JournalStore

    def client(self, who: str | None = "ada") -> httpx.Client:
        """A client with `who`'s token (None: no token at all)."""
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=10.0)

    def heads(self) -> dict[str, int]:
        """Every stream's last seq: equal before and after a refusal when nothing was written."""
        return {name: head.seq for name, head in self.store.heads().items()}


@dataclass
class Served(Talking):
    """A running service and what the test needs to talk to it and to check the journal behind it."""

    home: Path
    url: str
    clock: StepClock
    store: JournalStore
    people: People
    service: Service  # the server's own wiring (its store, its run index)
    tokens: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)


@contextmanager
def serve_in_thread(api: FastAPI, timeout: float = 20.0) -> Iterator[str]:
    """`api` served by a real uvicorn on a free loopback port in a thread (its lifespan on, so the service closes
    when the block ends); the base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(api, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    try:
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serve_home(tmp_path)


#: The journal engines the service is tested on (a fixture's params; see `engine_journal`).
ENGINES = ["sqlite", "postgresql"]


def engine_journal(request: pytest.FixtureRequest, prefix: str = "svc") -> tuple[str, str] | None:
    """The PostgreSQL journal (URL, a fresh schema) for a fixture parametrized over ENGINES; None for SQLite."""
    return (request.getfixturevalue("pg_url"), next_schema(prefix)) if request.param == "postgresql" else None


def journal_toml(journal: tuple[str, str]) -> str:
    """The alicorn.toml section that points a home at the PostgreSQL journal `journal` (URL, schema)."""
    return f'[journal]\nurl = "{journal[0]}"\nschema = "{journal[1]}"\n'


def serve_home(tmp_path: Path, journal: tuple[str, str] | None = None) -> Iterator[Served]:
    """The `served` home; on the PostgreSQL journal `journal` (URL, schema) when given (its alicorn.toml says so)."""
    home = tmp_path / "home"
    home.mkdir()
    if journal is not None:
        (home / "alicorn.toml").write_text(journal_toml(journal))
    clock = StepClock()
    application = open_app(home)
    store = application.store
    runs = [import_lines(store, path.read_text().splitlines())[0] for path in sorted(CORPUS.glob("*.jsonl"))]
    people = People(store, home / "keys", clock)
    ada = parse_principal("human:ada")
    people.bootstrap(ada)
    people.add("vic", "viewer", by=ada)
    people.add("abe", "approver", by=ada)
    tokens = Tokens(people, clock)
    minted = {
        "ada": tokens.create("ada", scope="write", expires_days=None, by=ada).token,
        "ada-read": tokens.create("ada", scope="read", expires_days=None, by=ada).token,
        "vic": tokens.create("vic", scope="read", expires_days=30, by=ada).token,
        "abe": tokens.create("abe", scope="write", expires_days=None, by=ada).token,
    }
    api = create_app(home, clock=clock, poll_s=0.01)
    try:
        with serve_in_thread(api) as url:
            yield Served(home, url, clock, store, people, api.state.service, minted, runs)
    finally:
        application.close()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebHome]:
    """The web UI's home (tests.service.webhome), served."""
    from tests.service.webhome import serve_home

    yield from serve_home(tmp_path)


def at(day: int, hour: int = 0) -> str:
    return format_time(datetime(2026, 12, day, hour, tzinfo=UTC))
