"""The SQLite journal store: the embedded default (stdlib sqlite3, WAL, synchronous=FULL).

Durability settings are read back at open and the store refuses to run without them. Writers serialize with
`BEGIN IMMEDIATE`; the expected-sequence check inside that transaction makes concurrent appends to one stream fail
cleanly instead of interleaving. Archived segments live beside the database in `<journal>.segments/`.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alicorn.durable import retry_while_locked, write_atomically
from alicorn.errors import JournalError, JournalIntegrityError, NotAJournalError, StreamLockedError
from alicorn.journal.events import Event, parse_line
from alicorn.journal.store import Head, JournalStore, Segment, StreamInfo, check_stream_name

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
        super().__init__()
        self.path = Path(path)
        self._lock = threading.RLock()
        self._conn = _open(self.path, create)
        self.segments_dir = self.path.with_name(self.path.name + ".segments")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def lock(self, stream: str) -> Iterator[None]:
        """An OS lock (flock) on `<journal>.locks/<stream>.lock`: released by the kernel if the holder dies."""
        check_stream_name(stream)
        with super().lock(stream):
            locks = self.path.with_name(self.path.name + ".locks")
            locks.mkdir(exist_ok=True)
            fd = os.open(locks / f"{stream}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
                    raise StreamLockedError(
                        f"run {stream!r} is being driven by {holder}; wait for it to finish, or stop it "
                        "(the lock is released the moment that process ends, even if it is killed)"
                    ) from None
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
                yield
            finally:
                os.close(fd)  # closing the descriptor releases the flock

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
            "SELECT seq, body FROM events WHERE stream = ? AND seq > ? ORDER BY seq", (stream, after)
        ).fetchall()
        try:
            return [parse_line(body) for _, body in rows]
        except JournalIntegrityError:
            for seq, body in rows:  # name the row that does not parse
                try:
                    parse_line(body)
                except JournalIntegrityError as exc:
                    raise JournalIntegrityError(f"event #{seq}: {exc}", stream=stream, seq=seq) from None
            raise

    def _streams_txn(self, tx: sqlite3.Connection) -> list[StreamInfo]:
        live = tx.execute(
            """SELECT e.stream, count(*), sum(length(CAST(e.body AS BLOB))),
                      (SELECT at FROM events f WHERE f.stream = e.stream ORDER BY seq ASC LIMIT 1),
                      (SELECT at FROM events l WHERE l.stream = e.stream ORDER BY seq DESC LIMIT 1),
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

    def _segment_path(self, segment: Segment) -> Path:
        # Named by content: two archivers racing on one stream can never overwrite each other's segment.
        return self.segments_dir / f"{segment.stream}.{segment.digest[:16]}.jsonl.gz"

    def _save_segment(self, segment: Segment) -> None:
        self.segments_dir.mkdir(exist_ok=True)
        write_atomically(self._segment_path(segment), segment.data)

    def _load_segment(self, stream: str) -> bytes:
        with self._read_transaction() as tx:
            row = tx.execute("SELECT segment FROM archives WHERE stream = ?", (stream,)).fetchone()
        path = self.segments_dir / (row[0] if row else f"{stream}.jsonl.gz")
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
                self._segment_path(segment).name,
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


def _open(path: Path, create: bool) -> sqlite3.Connection:
    exists = path.exists()
    if not exists and not create:
        raise JournalError(f"no journal at {path}; run something first (`alicorn run PLAN.json`) or check --home")
    if exists:
        if path.is_dir():
            raise NotAJournalError(f"{path} is a directory, not an Alicorn journal file")
        with open(path, "rb") as fh:
            magic = fh.read(16)
        if magic and magic != _SQLITE_MAGIC:
            raise NotAJournalError(f"{path} is not an Alicorn journal (not an SQLite database); nothing was changed")
    elif path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        conn.execute("PRAGMA busy_timeout = 30000")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables:
            # Decide whether the file is ours before changing anything in it (switching to WAL writes the header).
            _check_meta(conn, path, tables)
        mode = retry_while_locked(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        conn.execute("PRAGMA synchronous = FULL")
        sync = conn.execute("PRAGMA synchronous").fetchone()[0]
        if str(mode).lower() != "wal" or sync != 2:
            raise JournalError(
                f"{path}: SQLite refused durable settings (journal_mode={mode}, synchronous={sync}; need wal and "
                "FULL=2). Is the file on a filesystem without shared-memory support (e.g. some network mounts)?"
            )
        if not tables:
            retry_while_locked(lambda: _create_schema(conn))
            _check_meta(conn, path, {"alicorn_meta"})
        return conn
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise NotAJournalError(f"{path} is not an Alicorn journal ({exc}); nothing was changed") from exc
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def _check_meta(conn: sqlite3.Connection, path: Path, tables: set[str]) -> None:
    if "alicorn_meta" not in tables:
        raise NotAJournalError(
            f"{path} is an SQLite database but not an Alicorn journal (its tables: {', '.join(sorted(tables))}); "
            "nothing was changed. Point --home at a new or existing Alicorn journal."
        )
    try:
        meta = dict(conn.execute("SELECT key, value FROM alicorn_meta").fetchall())
    except sqlite3.DatabaseError as exc:
        raise NotAJournalError(
            f"{path} is not an Alicorn journal: its alicorn_meta table is not Alicorn's ({exc}); nothing was changed"
        ) from None
    if meta.get("format") != FORMAT:
        raise NotAJournalError(
            f"{path} is not an Alicorn journal: its alicorn_meta table says format {meta.get('format')!r}, not "
            f"{FORMAT!r}; nothing was changed"
        )
    if meta.get("version") != VERSION:
        raise NotAJournalError(
            f"{path} is an Alicorn journal of version {meta.get('version')!r}; this Alicorn reads version {VERSION}"
        )


def _create_schema(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        again = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not again:  # another process may have created it while we waited for the lock
            for statement in filter(str.strip, _SCHEMA.split(";")):
                conn.execute(statement)
            conn.executemany(
                "INSERT INTO alicorn_meta (key, value) VALUES (?, ?)", [("format", FORMAT), ("version", VERSION)]
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
