"""Every stream's head, as the run index walks them (alicorn.service.index), on each journal engine.

The walk reads through a connection of its own, read-only, so a long walk (25 µs a stream on SQLite: 2.5 s at
100,000 runs) never holds the store's lock and never delays an append. Each engine also gives a cheap *version*
that is bound to differ after another writer commits, so a request whose version is unchanged walks nothing:

* SQLite: `PRAGMA data_version` on the store's connection (another connection's commit changes it; the store's
  own appends reach the index through `JournalStore.observe`).
* PostgreSQL: the server's current WAL position, `pg_current_wal_lsn()`: every commit anywhere on the server
  moves it (ours too, and other databases': then the walk finds nothing new). A server that cannot say (a standby
  in recovery) gets a version that always differs: every catch-up walks.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from alicorn.errors import AlicornError
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore

if TYPE_CHECKING:
    import psycopg

    from alicorn.journal.postgres import PostgresJournalStore

Heads = dict[str, tuple[int, str]]

#: Every live stream's last event (a skip-scan over the events' primary key: no event body is decoded).
_SQLITE_HEADS = """
WITH RECURSIVE names(name) AS (
    SELECT (SELECT min(stream) FROM events)
    UNION ALL
    SELECT (SELECT min(stream) FROM events WHERE stream > names.name) FROM names WHERE names.name IS NOT NULL
)
SELECT names.name, e.seq, e.hash FROM names
JOIN events e ON e.stream = names.name AND e.seq = (SELECT max(seq) FROM events WHERE stream = names.name)
"""
#: The same on PostgreSQL: one pass over the primary key's index, newest event of each stream first.
_POSTGRES_HEADS = "SELECT DISTINCT ON (stream) stream, seq, hash FROM journal_events ORDER BY stream, seq DESC"


class JournalHeads(Protocol):
    """What the run index needs of a journal engine: a version that changes when others write, and the heads."""

    def version(self) -> object:
        """Differs from every earlier reading once another writer has committed (may differ without one)."""
        ...

    def read(self) -> Heads:
        """Every stream's head, live and archived: (seq, hash) by stream."""
        ...

    def archived(self) -> set[str]:
        """The archived streams (finished runs moved into segments)."""
        ...

    def close(self) -> None: ...


class SQLiteHeads:
    """The heads of an SQLite journal, read through a read-only connection of the index's own."""

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store
        self._lock = threading.Lock()
        uri = f"file:{quote(str(store.path.resolve()))}?mode=ro"
        self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)

    def version(self) -> object:
        return self._store.data_version()

    def read(self) -> Heads:
        with self._lock:
            heads = {name: (seq, digest) for name, seq, digest in self._conn.execute(_SQLITE_HEADS)}
            for name, seq, digest in self._conn.execute("SELECT stream, last_seq, last_hash FROM archives"):
                heads[name] = (seq, digest)
        return heads

    def archived(self) -> set[str]:
        with self._lock:
            return {name for (name,) in self._conn.execute("SELECT stream FROM archives")}

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class PostgresHeads:
    """The heads of a PostgreSQL journal, read through a read-only connection of the index's own (opened again once
    when it is found broken: a server that restarted)."""

    def __init__(self, store: PostgresJournalStore) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        self._cannot_tell = False

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            conn = self._store.connect(purpose="run index", autocommit=True)
            conn.read_only = True
            self._conn = conn
        return self._conn

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        import psycopg

        from alicorn.journal.postgres import JournalServerError

        for attempt in (1, 2):
            try:
                return self._connection().execute(sql).fetchall()
            except psycopg.OperationalError as exc:  # the connection broke: once more on a new one
                if self._conn is not None:
                    self._conn.close()
                if attempt == 2:
                    raise JournalServerError(
                        f"the run index cannot read the PostgreSQL journal at {self._store.location} ({exc}); "
                        "check that the server is running; the run list answers again once it is back"
                    ) from None
        raise AssertionError("unreachable")

    def version(self) -> object:
        import psycopg

        with self._lock:
            if not self._cannot_tell:
                try:
                    return self._query("SELECT pg_current_wal_lsn()::text")[0][0]
                except psycopg.Error:  # a standby in recovery, a server that will not say: walk every time
                    self._cannot_tell = True
            return object()

    def read(self) -> Heads:
        with self._lock:
            rows = self._query(_POSTGRES_HEADS)
            rows += self._query("SELECT stream, last_seq, last_hash FROM journal_archives")
        return {str(name): (int(str(seq)), str(digest)) for name, seq, digest in rows}

    def archived(self) -> set[str]:
        with self._lock:
            return {str(row[0]) for row in self._query("SELECT stream FROM journal_archives")}

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()


def heads_of(store: JournalStore) -> JournalHeads:
    """The heads reader for `store`'s engine; AlicornError for an engine the index cannot walk."""
    if isinstance(store, SQLiteStore):
        return SQLiteHeads(store)
    from alicorn.journal.postgres import PostgresJournalStore

    if isinstance(store, PostgresJournalStore):
        return PostgresHeads(store)
    raise AlicornError(f"the HTTP service serves an SQLite or PostgreSQL journal, not {store.location}")
