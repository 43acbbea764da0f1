"""The broker on an SQLite journal: a lease table in the journal's own file.

Claims take SQLite's write lock (`BEGIN IMMEDIATE`), so claims, renewals and every guarded append of the file are
serialized: a claim cannot fall between a fenced append's check and its insert. Workers on one machine share the
file; SQLite is the engine for one machine (PostgreSQL is the one for many, alicorn.broker.postgres).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alicorn.broker.jobs import (
    COLUMNS,
    LIMITS,
    PER_PROJECT,
    TABLE,
    Acceptor,
    Broker,
    Claim,
    Job,
    Limits,
    check_held,
    claim_note,
    job_from_row,
)
from alicorn.errors import EnvironmentFailure

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    run TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    operations TEXT NOT NULL,
    contracts TEXT NOT NULL,
    state TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    worker TEXT NOT NULL,
    lease_until REAL NOT NULL,
    not_before REAL NOT NULL,
    parked_seq INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    note TEXT NOT NULL,
    enqueued_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS {TABLE}_state ON {TABLE} (state, enqueued_at);
CREATE TABLE IF NOT EXISTS {LIMITS} (kind TEXT NOT NULL, name TEXT NOT NULL, lim INTEGER NOT NULL,
    PRIMARY KEY (kind, name));
"""
BUSY_TIMEOUT_S = 30.0
#: The claimable jobs a claim chooses among: the oldest few of each project (so one project's backlog never hides
#: another's jobs), ready ones whose back-off has passed and claimed ones whose lease expired.
CANDIDATES_SQL = f"""
SELECT {COLUMNS} FROM (
    SELECT *, row_number() OVER (PARTITION BY project ORDER BY enqueued_at, run) AS place FROM {TABLE}
    WHERE (state = 'ready' AND not_before <= ?) OR (state = 'claimed' AND lease_until <= ?)
) WHERE place <= ? ORDER BY enqueued_at, run
"""


class SQLiteBroker(Broker):
    """Jobs in the `broker_jobs` table of the SQLite journal at `path` (created on first open). `read_only` opens
    the file read-only and creates nothing: a journal no worker has used lists no jobs (`alicorn jobs`)."""

    def __init__(
        self, path: Path, clock: Callable[[], float], limits: Limits | None = None, *, read_only: bool = False
    ) -> None:
        super().__init__(clock, limits)
        self._guard = threading.Lock()  # one transaction at a time on the connection (leases renew from a thread)
        self.path = Path(path)
        self.location = str(self.path)
        self.read_only = read_only
        try:
            target = f"file:{self.path}?mode=ro" if read_only else str(self.path)
            self._conn = sqlite3.connect(
                target, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S, uri=read_only
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if read_only:
                names = {row[0] for row in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                self._present = {TABLE, LIMITS} <= names
            else:
                self._conn.execute("PRAGMA synchronous = FULL")
                self._conn.executescript(_SCHEMA)
                self._present = True
        except sqlite3.Error as exc:
            raise EnvironmentFailure(
                f"cannot open the job table in {self.path} ({exc}); check that the journal file is writable and not "
                "held by a process that is stuck"
            ) from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        if self.read_only:
            raise RuntimeError(f"the job table of {self.path} was opened read-only")
        with self._guard:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise EnvironmentFailure(f"cannot write the job table in {self.path} ({exc})") from None
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _claim(self, worker: str, now: float, lease_until: float, accepts: Acceptor) -> Claim | None:
        with self._write() as conn:
            rows = conn.execute(CANDIDATES_SQL, (now, now, PER_PROJECT)).fetchall()
            if not rows:
                return None
            active = [
                job_from_row(r)
                for r in conn.execute(
                    f"SELECT {COLUMNS} FROM {TABLE} WHERE state = 'claimed' AND lease_until > ?", (now,)
                )
            ]
            limits = self.limits.merged(conn.execute(f"SELECT kind, name, lim FROM {LIMITS}").fetchall())
            job = self.choose([job_from_row(r) for r in rows], active, accepts, limits)
            if job is None:
                return None
            taken_from, note = claim_note(job, worker)
            conn.execute(
                f"UPDATE {TABLE} SET state = 'claimed', epoch = epoch + 1, worker = ?, lease_until = ?, note = ? "
                "WHERE run = ? AND epoch = ?",
                (worker, lease_until, note, job.run, job.epoch),
            )
        return Claim.of(job, worker, lease_until, taken_from)

    def _update(self, claim: Claim, sets: str, params: Sequence[Any], *, released: bool = False) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                f"UPDATE {TABLE} SET {sets.format(p='?')} WHERE run = ? AND epoch = ? AND state = 'claimed'",
                (*params, claim.run, claim.epoch),
            )
            return cursor.rowcount == 1

    def fence(self, claim: Claim) -> Callable[[Any], None]:
        def check(tx: sqlite3.Connection) -> None:
            row = tx.execute(f"SELECT epoch, state, worker FROM {TABLE} WHERE run = ?", (claim.run,)).fetchone()
            check_held(claim, row)

        return check

    def enqueue_guard(self, run: str, project: str, operations: Sequence[str], contracts: str) -> Callable[[Any], None]:
        ops = json.dumps(sorted(set(operations)))

        def enqueue(tx: sqlite3.Connection) -> None:
            tx.execute(
                f"INSERT INTO {TABLE} ({COLUMNS}) VALUES (?, ?, ?, ?, 'ready', 0, '', 0, 0, 0, 0, 'submitted', ?) "
                "ON CONFLICT (run) DO NOTHING",
                (run, project, ops, contracts, self.clock()),
            )

        return enqueue

    def _jobs(self, states: Sequence[str]) -> list[Job]:
        if not self._present:
            return []  # read-only, and no worker or submission ever made the table
        marks = ", ".join("?" for _ in states)
        with self._guard:
            rows = self._conn.execute(
                f"SELECT {COLUMNS} FROM {TABLE} WHERE state IN ({marks}) ORDER BY enqueued_at, run", tuple(states)
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def job(self, run: str) -> Job | None:
        if not self._present:
            return None
        with self._guard:
            row = self._conn.execute(f"SELECT {COLUMNS} FROM {TABLE} WHERE run = ?", (run,)).fetchone()
        return None if row is None else job_from_row(row)

    def wake_waiting(self, moved: Callable[[Job], bool]) -> int:
        woken = [j for j in self.jobs(states=("waiting",)) if moved(j)]
        if not woken:
            return 0
        count = 0
        with self._write() as conn:
            for job in woken:
                count += conn.execute(
                    f"UPDATE {TABLE} SET state = 'ready', not_before = 0, note = 'its journal moved on' "
                    "WHERE run = ? AND state = 'waiting' AND epoch = ?",
                    (job.run, job.epoch),
                ).rowcount
        return count

    def _set_limit(self, kind: str, name: str, limit: int | None) -> None:
        with self._write() as conn:
            if limit is None:
                conn.execute(f"DELETE FROM {LIMITS} WHERE kind = ? AND name = ?", (kind, name))
            else:
                conn.execute(
                    f"INSERT INTO {LIMITS} (kind, name, lim) VALUES (?, ?, ?) "
                    "ON CONFLICT (kind, name) DO UPDATE SET lim = excluded.lim",
                    (kind, name, limit),
                )

    def stored_limits(self) -> Limits:
        if not self._present:
            return Limits()
        with self._guard:  # one SELECT reads a consistent snapshot: no write lock needed
            return Limits().merged(self._conn.execute(f"SELECT kind, name, lim FROM {LIMITS}").fetchall())

    def close(self) -> None:
        self._conn.close()
