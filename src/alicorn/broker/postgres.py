"""The broker on a PostgreSQL journal: a job table in the journal's schema, for workers on any number of machines.

A claim reads the claimable jobs (the oldest few of each project), then locks the one it chose with
`FOR UPDATE SKIP LOCKED` (a job another worker is claiming at that moment is skipped, never waited for) and
updates it if its epoch is unchanged. With concurrency limits, claims of one broker also take a transaction-level
advisory lock, so two claims never both count the same free slot. A fenced append reads the job's row `FOR SHARE`
inside its own transaction: a claim of the same run waits for that append to commit, and the append sees a claim
that committed before it. `NOTIFY` on enqueue and release wakes idle workers (`wait`); polling is the fallback.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

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
from alicorn.journal.postgres import JournalServerError, PostgresJournalStore

CHANNEL = "alicorn_broker"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    run text PRIMARY KEY,
    project text NOT NULL,
    operations text NOT NULL,
    contracts text NOT NULL,
    state text NOT NULL,
    epoch bigint NOT NULL,
    worker text NOT NULL,
    lease_until double precision NOT NULL,
    not_before double precision NOT NULL,
    parked_seq bigint NOT NULL,
    attempts bigint NOT NULL,
    note text NOT NULL,
    enqueued_at double precision NOT NULL
);
CREATE INDEX IF NOT EXISTS {TABLE}_state ON {TABLE} (state, enqueued_at);
CREATE TABLE IF NOT EXISTS {LIMITS} (kind text NOT NULL, name text NOT NULL, lim bigint NOT NULL,
    PRIMARY KEY (kind, name))
"""
_CANDIDATES = f"""
SELECT {COLUMNS} FROM (
    SELECT *, row_number() OVER (PARTITION BY project ORDER BY enqueued_at, run) AS place FROM {TABLE}
    WHERE (state = 'ready' AND not_before <= %s) OR (state = 'claimed' AND lease_until <= %s)
) AS claimable WHERE place <= %s ORDER BY enqueued_at, run
"""


class PostgresBroker(Broker):
    """Jobs in `broker_jobs` of the journal `store`'s schema, on connections of the broker's own."""

    def __init__(
        self,
        store: PostgresJournalStore,
        clock: Callable[[], float],
        limits: Limits | None = None,
        *,
        read_only: bool = False,
    ) -> None:
        super().__init__(clock, limits)
        self._guard = threading.Lock()  # one transaction at a time on the connection (leases renew from a thread)
        self.store = store
        self.location = store.location
        self._conn = self._connect()
        self._listener: psycopg.Connection[Any] | None = None
        self._present = True
        with self._write() as conn:
            if read_only:  # `alicorn jobs`: list what is there, create nothing
                row = conn.execute(
                    "SELECT to_regclass(%s) IS NOT NULL AND to_regclass(%s) IS NOT NULL", (TABLE, LIMITS)
                ).fetchone()
                self._present = bool(row and row[0])
                return
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (self._key("schema"),))
            for statement in _SCHEMA.split(";"):
                conn.execute(statement)

    def _key(self, what: str) -> str:
        return f"alicorn-broker-{what}:{self.store.schema}"

    def _connect(self) -> psycopg.Connection[Any]:
        # autocommit: transactions are explicit (`_write`), and NOTIFY/LISTEN need no open one
        return self.store.connect(purpose="broker", autocommit=True)

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        """One transaction; a connection found broken is replaced by the next one."""
        with self._guard:
            if self._conn.broken or self._conn.closed:
                self._conn = self._connect()
            conn = self._conn
            try:
                with conn.transaction():
                    yield conn
            except psycopg.OperationalError as exc:
                with contextlib.suppress(psycopg.Error):
                    conn.close()
                raise JournalServerError(
                    f"lost the PostgreSQL journal at {self.location} while updating the job table ({exc}); the "
                    "change was rolled back. The worker retries once the server is back."
                ) from None

    def _claim(self, worker: str, now: float, lease_until: float, accepts: Acceptor) -> Claim | None:
        with self._write() as conn:
            limits = self.limits.merged(conn.execute(f"SELECT kind, name, lim FROM {LIMITS}").fetchall())
            if limits.any:  # two claims must not both count the same free slot
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (self._key("claims"),))
            rows = conn.execute(_CANDIDATES, (now, now, PER_PROJECT)).fetchall()
            if not rows:
                return None
            active = [
                job_from_row(r)
                for r in conn.execute(
                    f"SELECT {COLUMNS} FROM {TABLE} WHERE state = 'claimed' AND lease_until > %s", (now,)
                )
            ]
            candidates = [job_from_row(r) for r in rows]
            while candidates:
                job = self.choose(candidates, active, accepts, limits)
                if job is None:
                    return None
                locked = conn.execute(
                    f"SELECT run FROM {TABLE} WHERE run = %s AND epoch = %s FOR UPDATE SKIP LOCKED",
                    (job.run, job.epoch),
                ).fetchone()
                if locked is None:  # another worker is claiming it (or has): try the next one
                    candidates.remove(job)
                    continue
                taken_from, note = claim_note(job, worker)
                conn.execute(
                    f"UPDATE {TABLE} SET state = 'claimed', epoch = epoch + 1, worker = %s, lease_until = %s, "
                    "note = %s WHERE run = %s",
                    (worker, lease_until, note, job.run),
                )
                return Claim.of(job, worker, lease_until, taken_from)
        return None

    def _update(self, claim: Claim, sets: str, params: Sequence[Any], *, released: bool = False) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                f"UPDATE {TABLE} SET {sets.format(p='%s')} WHERE run = %s AND epoch = %s AND state = 'claimed'",
                (*params, claim.run, claim.epoch),
            )
            if released and cursor.rowcount == 1:  # idle workers LISTEN: the job is claimable again
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, claim.run))
            return cursor.rowcount == 1

    def fence(self, claim: Claim) -> Callable[[Any], None]:
        def check(tx: Any) -> None:  # the journal store's transaction (alicorn.journal.postgres._Tx)
            row = tx.execute(
                f"SELECT epoch, state, worker FROM {TABLE} WHERE run = %s FOR SHARE", (claim.run,)
            ).fetchone()
            check_held(claim, row)

        return check

    def enqueue_guard(self, run: str, project: str, operations: Sequence[str], contracts: str) -> Callable[[Any], None]:
        ops = json.dumps(sorted(set(operations)))

        def enqueue(tx: Any) -> None:
            tx.execute_all(
                [
                    (
                        f"INSERT INTO {TABLE} ({COLUMNS}) VALUES "
                        "(%s, %s, %s, %s, 'ready', 0, '', 0, 0, 0, 0, 'submitted', %s) ON CONFLICT (run) DO NOTHING",
                        (run, project, ops, contracts, self.clock()),
                    ),
                    ("SELECT pg_notify(%s, %s)", (CHANNEL, run)),  # delivered when the run's creation commits
                ]
            )

        return enqueue

    def _jobs(self, states: Sequence[str]) -> list[Job]:
        if not self._present:
            return []
        with self._write() as conn:
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM {TABLE} WHERE state = ANY(%s) ORDER BY enqueued_at, run", (list(states),)
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def job(self, run: str) -> Job | None:
        if not self._present:
            return None
        with self._write() as conn:
            row = conn.execute(f"SELECT {COLUMNS} FROM {TABLE} WHERE run = %s", (run,)).fetchone()
        return None if row is None else job_from_row(row)

    def wake_waiting(self, moved: Callable[[Job], bool]) -> int:
        woken = [j for j in self.jobs(states=("waiting",)) if moved(j)]
        count = 0
        for job in woken:
            with self._write() as conn:
                count += conn.execute(
                    f"UPDATE {TABLE} SET state = 'ready', not_before = 0, note = 'its journal moved on' "
                    "WHERE run = %s AND state = 'waiting' AND epoch = %s",
                    (job.run, job.epoch),
                ).rowcount
        return count

    def wait(self, timeout_s: float) -> None:
        """Sleep until a job is enqueued or released (LISTEN), or `timeout_s` passed."""
        try:
            if self._listener is None or self._listener.closed or self._listener.broken:
                self._listener = self._connect()
                self._listener.execute(f"LISTEN {CHANNEL}")
            for _ in self._listener.notifies(timeout=timeout_s, stop_after=1):
                break
        except psycopg.Error:
            if self._listener is not None:
                with contextlib.suppress(psycopg.Error):
                    self._listener.close()
            self._listener = None  # polling it is, until the next wait reconnects

    def _set_limit(self, kind: str, name: str, limit: int | None) -> None:
        with self._write() as conn:
            if limit is None:
                conn.execute(f"DELETE FROM {LIMITS} WHERE kind = %s AND name = %s", (kind, name))
            else:
                conn.execute(
                    f"INSERT INTO {LIMITS} (kind, name, lim) VALUES (%s, %s, %s) "
                    "ON CONFLICT (kind, name) DO UPDATE SET lim = excluded.lim",
                    (kind, name, limit),
                )

    def stored_limits(self) -> Limits:
        if not self._present:
            return Limits()
        with self._write() as conn:
            return Limits().merged(conn.execute(f"SELECT kind, name, lim FROM {LIMITS}").fetchall())

    def close(self) -> None:
        for conn in (self._conn, self._listener):
            if conn is not None:
                with contextlib.suppress(psycopg.Error):
                    conn.close()
