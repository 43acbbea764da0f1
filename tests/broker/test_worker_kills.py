"""Workers killed with SIGKILL at random moments and replaced, on both engines: no effect doubled, no acknowledged
event lost, every run finished, its chain and replay verified (alicorn.testing.worker_loop; the long run is
bench/worker_kill_loop.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.testing.worker_loop import server_killer, worker_kill_loop
from tests.pgserver import next_schema, start_server


def test_killed_sqlite_workers_lose_and_double_nothing(tmp_path: Path) -> None:
    journal = tmp_path / "journal.db"
    report = worker_kill_loop(30, lambda: SQLiteStore(journal), seed=1, workdir=tmp_path)
    assert report.kills == 30 and report.runs >= 8
    assert report.ok(), (report.summary(), report.problems[:5])
    assert report.acked_events > 100


def test_killed_postgres_workers_lose_and_double_nothing(tmp_path: Path, pg_url: str) -> None:
    schema = next_schema("w")
    report = worker_kill_loop(30, lambda: PostgresJournalStore(pg_url, schema=schema), seed=2, workdir=tmp_path)
    assert report.kills == 30 and report.runs >= 8
    assert report.ok(), (report.summary(), report.problems[:5])


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_killed_workers_driving_runs_together_lose_and_double_nothing(
    tmp_path: Path, engine: str, request: pytest.FixtureRequest
) -> None:
    """Each worker drives up to 3 claimed runs together (their steps share commits): a kill takes all of them down
    at once, and the runs taken over still finish with nothing doubled or lost."""
    journal = tmp_path / "journal.db"
    if engine == "postgresql":
        url, schema = request.getfixturevalue("pg_url"), next_schema("wt")

        def open_store() -> SQLiteStore | PostgresJournalStore:
            return PostgresJournalStore(url, schema=schema)
    else:

        def open_store() -> SQLiteStore | PostgresJournalStore:
            return SQLiteStore(journal)

    report = worker_kill_loop(20, open_store, seed=11, runs_per_round=6, runs_at_once=3, workdir=tmp_path)
    assert report.kills == 20 and report.runs >= 12
    assert report.ok(), (report.summary(), report.problems[:5])


def test_workers_ride_out_a_postgres_server_killed_mid_run(tmp_path: Path) -> None:
    """The server itself is SIGKILLed while workers drive (and started again): the workers' appends fail with the
    server's sentence, nothing is doubled or lost, and every run finishes once it is back."""
    server = start_server(Path(tempfile.mkdtemp(prefix="alicorn-pg-kill-")) / "data")
    try:
        url = str(server.get_uri())
        report = worker_kill_loop(
            4,
            lambda: PostgresJournalStore(url, schema="kills"),
            seed=3,
            workdir=tmp_path,
            kill_server=server_killer(server),
        )
    finally:
        server.cleanup()
    assert report.server_kills >= 1
    assert report.ok(), (report.summary(), report.problems[:5])


@pytest.mark.parametrize("lease", [0.3])
def test_a_killed_workers_run_is_taken_over(tmp_path: Path, lease: float) -> None:
    """Enough kills that some land while a worker holds a run: those runs are taken over and still finish."""
    journal = tmp_path / "journal.db"
    report = worker_kill_loop(
        12, lambda: SQLiteStore(journal), seed=7, lease_s=lease, max_kill_s=0.08, runs_per_round=6, workdir=tmp_path
    )
    assert report.ok(), (report.summary(), report.problems[:5])
    assert report.takeovers >= 1, report.summary()


def test_a_worker_that_dies_of_its_own_error_is_a_problem_of_the_loop(tmp_path: Path) -> None:
    """A worker process that raises (a bug, not a kill) fails the loop even when nothing was lost: its traceback
    reaches the loop through the worker's pipe, not only the terminal."""
    journal = tmp_path / "journal.db"
    parent = os.getpid()

    def open_store() -> SQLiteStore:
        if os.getpid() != parent:
            raise RuntimeError("a bug in the worker")
        return SQLiteStore(journal)

    report = worker_kill_loop(1, open_store, seed=5, runs_per_round=1, round_timeout_s=1.0, workdir=tmp_path)
    assert not report.ok()
    assert any("a worker printed a traceback" in p and "a bug in the worker" in p for p in report.problems), (
        report.problems
    )
