"""The SQLite journal store: the embedded default (stdlib sqlite3, WAL, synchronous=FULL).

Durability settings are read back at open and the store refuses to run without them. Writers serialize with
`BEGIN IMMEDIATE`; the expected-sequence check inside that transaction makes concurrent appends to one stream fail
cleanly instead of interleaving. Archived segments live beside the database in `<journal>.segments/`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alicorn.errors import JournalError, NotAJournalError
from alicorn.journal.events import Event, parse_line
from alicorn.journal.store import Head, JournalStore, Segment, StreamInfo

FORMAT = "alicorn-journal"
VERSION = "1"
_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE alicorn_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
    stream TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    hash TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
CREATE TABLE archives (
    stream TEXT PRIMARY KEY,
    segment TEXT NOT NULL,
    digest TEXT NOT NULL,
    events INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    last_hash TEXT NOT NULL,
    raw_bytes INTEGER NOT NULL,
    stored_bytes INTEGER NOT NULL,
    first_at TEXT NOT NULL,
    last_at TEXT NOT NULL
);
"""


class SQLiteStore(JournalStore):
    """A journal in one SQLite file. `create=False` refuses to make a new file (for `verify`, `show`...)."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._conn = _open(self.path, create)
        self.segments_dir = self.path.with_name(self.path.name + ".segments")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # ---- transactions -----------------------------------------------------------------------------------------

    @contextmanager
    def _write_transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _read_transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    # ---- hooks ------------------------------------------------------------------------------------------------

    def _head_txn(self, tx: sqlite3.Connection, stream: str) -> Head | None:
        row = tx.execute(
            "SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1", (stream,)
        ).fetchone()
        return Head(row[0], row[1]) if row else None

    def _insert_txn(self, tx: sqlite3.Connection, events: list[Event]) -> None:
        tx.executemany(
            "INSERT INTO events (stream, seq, kind, at, hash, body) VALUES (?, ?, ?, ?, ?, ?)",
            [(e.stream, e.seq, e.kind, e.at, e.hash, e.line) for e in events],
        )

    def _read_txn(self, tx: sqlite3.Connection, stream: str, after: int) -> list[Event]:
        rows = tx.execute(
            "SELECT body FROM events WHERE stream = ? AND seq > ? ORDER BY seq", (stream, after)
        ).fetchall()
        return [parse_line(row[0]) for row in rows]

    def _streams_txn(self, tx: sqlite3.Connection) -> list[StreamInfo]:
        live = tx.execute(
            """SELECT e.stream, count(*), sum(length(CAST(e.body AS BLOB))), min(e.at), max(e.at),
                      max(e.seq), (SELECT hash FROM events h WHERE h.stream = e.stream ORDER BY seq DESC LIMIT 1)
               FROM events e GROUP BY e.stream"""
        ).fetchall()
        infos = [StreamInfo(s, n, b, fa, la, Head(seq, h), False) for s, n, b, fa, la, seq, h in live]
        archived = tx.execute(
            "SELECT stream, events, raw_bytes, first_at, last_at, last_seq, last_hash, stored_bytes FROM archives"
        ).fetchall()
        infos.extend(StreamInfo(s, n, b, fa, la, Head(seq, h), True, sb) for s, n, b, fa, la, seq, h, sb in archived)
        return infos

    def _archive_record_txn(self, tx: sqlite3.Connection, stream: str) -> tuple[str, Head] | None:
        row = tx.execute("SELECT digest, last_seq, last_hash FROM archives WHERE stream = ?", (stream,)).fetchone()
        return (row[0], Head(row[1], row[2])) if row else None

    def _segment_path(self, stream: str) -> Path:
        return self.segments_dir / f"{stream}.jsonl.gz"

    def _save_segment(self, segment: Segment) -> None:
        self.segments_dir.mkdir(exist_ok=True)
        final = self._segment_path(segment.stream)
        tmp = final.with_name(final.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(segment.data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        _fsync_dir(self.segments_dir)

    def _load_segment(self, stream: str) -> bytes:
        path = self._segment_path(stream)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise JournalError(
                f"the archive segment of {stream!r} is missing: expected {path}. Restore it from a backup; "
                "the journal records its digest, so a restored copy is checked."
            ) from None

    def _archive_txn(self, tx: sqlite3.Connection, segment: Segment) -> None:
        tx.execute(
            "INSERT INTO archives VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                segment.stream,
                self._segment_path(segment.stream).name,
                segment.digest,
                segment.events,
                segment.head.seq,
                segment.head.hash,
                segment.raw_bytes,
                len(segment.data),
                segment.first_at,
                segment.last_at,
            ),
        )
        tx.execute("DELETE FROM events WHERE stream = ?", (segment.stream,))

    # ---- raw access for tests and forensic tools ---------------------------------------------------------------

    def raw_connection(self) -> sqlite3.Connection:
        """The underlying connection. Only for tamper tests and forensics: writing through it breaks the chain."""
        return self._conn


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open(path: Path, create: bool) -> sqlite3.Connection:
    exists = path.exists()
    if not exists and not create:
        raise JournalError(f"no journal at {path}; run something first (`alicorn run PLAN.json`) or check --journal")
    if exists:
        if path.is_dir():
            raise NotAJournalError(f"{path} is a directory, not an Alicorn journal file")
        with open(path, "rb") as fh:
            magic = fh.read(16)
        if magic and magic != _SQLITE_MAGIC:
            raise NotAJournalError(f"{path} is not an Alicorn journal (not an SQLite database); nothing was changed")
    elif path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        conn.execute("PRAGMA busy_timeout = 30000")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise NotAJournalError(f"{path} is not an Alicorn journal ({exc}); nothing was changed") from exc
    if tables and "alicorn_meta" not in tables:
        conn.close()
        raise NotAJournalError(
            f"{path} is an SQLite database but not an Alicorn journal (its tables: {', '.join(sorted(tables))}); "
            "nothing was changed. Point --journal at a new or existing Alicorn journal."
        )
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    conn.execute("PRAGMA synchronous = FULL")
    sync = conn.execute("PRAGMA synchronous").fetchone()[0]
    if str(mode).lower() != "wal" or sync != 2:
        conn.close()
        raise JournalError(
            f"{path}: SQLite refused durable settings (journal_mode={mode}, synchronous={sync}; need wal and FULL=2). "
            "Is the file on a filesystem without shared-memory support (e.g. some network mounts)?"
        )
    if not tables:
        conn.execute("BEGIN IMMEDIATE")
        try:
            again = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not again:
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    conn.execute(statement)
                conn.executemany(
                    "INSERT INTO alicorn_meta (key, value) VALUES (?, ?)",
                    [("format", FORMAT), ("version", VERSION)],
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            conn.close()
            raise
    meta = dict(conn.execute("SELECT key, value FROM alicorn_meta").fetchall())
    if meta.get("format") != FORMAT:
        conn.close()
        raise NotAJournalError(f"{path} has an alicorn_meta table but format {meta.get('format')!r}, not {FORMAT!r}")
    if meta.get("version") != VERSION:
        conn.close()
        raise NotAJournalError(
            f"{path} is an Alicorn journal of version {meta.get('version')!r}; this Alicorn reads version {VERSION}"
        )
    return conn
