"""Workers killed with SIGKILL at random moments and replaced, on both engines: no effect doubled, no acknowledged
event lost, every run finished, its chain and replay verified (alicorn.testing.worker_loop; the long run is
bench/worker_kill_loop.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.testing.worker_loop import worker_kill_loop
from tests.pgserver import next_schema


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


@pytest.mark.parametrize("lease", [0.3])
def test_a_killed_workers_run_is_taken_over(tmp_path: Path, lease: float) -> None:
    """Enough kills that some land while a worker holds a run: those runs are taken over and still finish."""
    journal = tmp_path / "journal.db"
    report = worker_kill_loop(
        12, lambda: SQLiteStore(journal), seed=7, lease_s=lease, max_kill_s=0.08, runs_per_round=6, workdir=tmp_path
    )
    assert report.ok(), (report.summary(), report.problems[:5])
    assert report.takeovers >= 1, report.summary()
