"""The SQLite journal store: the embedded default (stdlib sqlite3, WAL, synchronous=FULL).

Durability settings are read back at open and the store refuses to run without them. Writers serialize with
`BEGIN IMMEDIATE`; the expected-sequence check inside that transaction makes concurrent appends to one stream fail
cleanly instead of interleaving. Archived segments live beside the database in `<journal>.segments/`.

A new journal is built in a temporary file beside its place and linked there whole, so nobody ever sees a journal
half made (an empty or schema-less file). `read_only=True` opens with SQLite's `mode=ro` and changes nothing: no
file is created, and the -wal/-shm files SQLite makes for a reader are removed again when nobody else needs them.
Every sqlite3 or OS error is raised as the Alicorn error it stands for (`alicorn.errors.environment_failure`), naming
the file; a damaged file raises DamagedJournalError with the first unreadable point, and `salvage()` reads what is
still readable for `alicorn verify`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote

from alicorn.durable import fsync_dir, retry_while_locked, write_atomically
from alicorn.errors import (
    AlicornError,
    DamagedJournalError,
    EnvironmentFailure,
    JournalError,
    JournalIntegrityError,
    NoJournalError,
    NotAJournalError,
    StreamLockedError,
    environment_failure,
)
from alicorn.journal.events import Event, parse_line
from alicorn.journal.store import (
    Head,
    JournalStore,
    Known,
    Salvage,
    SalvagedStream,
    Segment,
    StreamInfo,
    check_stream_name,
)
from alicorn.journal.summaries import RunSummary

FORMAT = "alicorn-journal"
VERSION = "1"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = {"alicorn_meta", "events", "archives"}
#: Why a read that skips an event or stops short of the stream's head is damage (see `_check_complete`).
_MISSING = "events are missing from what the file returns"

#: How long a connection waits for another process's lock before giving up (seconds); tests shorten it.
BUSY_TIMEOUT_S = 30.0
#: At most this many streams' heads are remembered per connection (then forgotten all at once, and read again).
_KNOWN_STREAMS = 4096

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

#: The run-summary projection (journal/summaries.py), kept by every append. Not among `_TABLES`: a journal made
#: before it has no such table and is still a sound journal of this format; the first writable open adds and fills
#: it, and records `run_summaries = 1` in alicorn_meta (`SUMMARIES_KEY`) once the table holds every run.
_SUMMARY_SCHEMA = (
    """CREATE TABLE run_summaries (
    stream TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    goal TEXT NOT NULL,
    nodes INTEGER NOT NULL,
    succeeded INTEGER NOT NULL,
    events INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    created TEXT NOT NULL,
    finished TEXT,
    last_seq INTEGER NOT NULL,
    archived_bytes INTEGER
)""",
    "CREATE INDEX run_summaries_by_created ON run_summaries (created, stream)",
    "CREATE INDEX run_summaries_by_status ON run_summaries (status, created, stream)",
)
SUMMARIES_KEY = "run_summaries"
#: Most appends change neither indexed column of a run's summary. SQLite rewrites an index whose column an UPDATE
#: sets, even to the same value (two more pages in the WAL, written and fsynced with every step), so then only the
#: columns that are in no index are set.
_SUMMARY_UPDATE = (
    "UPDATE run_summaries SET goal = ?, nodes = ?, succeeded = ?, events = ?, bytes = ?, finished = ?, last_seq = ?, "
    "archived_bytes = ? WHERE stream = ?"
)
_SUMMARY_UPSERT = (
    "INSERT INTO run_summaries (stream, status, goal, nodes, succeeded, events, bytes, created, finished, last_seq, "
    "archived_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (stream) DO UPDATE SET status = excluded.status, goal = excluded.goal, nodes = excluded.nodes, "
    "succeeded = excluded.succeeded, events = excluded.events, bytes = excluded.bytes, created = excluded.created, "
    "finished = excluded.finished, last_seq = excluded.last_seq, archived_bytes = excluded.archived_bytes"
)


def _summary_write(summary: RunSummary, previous: RunSummary | None) -> tuple[str, tuple[object, ...]]:
    """The statement that stores `summary` over `previous`, and its row."""
    if previous is not None and (previous.status, previous.created) == (summary.status, summary.created):
        return _SUMMARY_UPDATE, (
            summary.goal, summary.nodes, summary.succeeded, summary.events, summary.bytes, summary.finished,
            summary.last_seq, summary.archived_bytes, summary.stream,
        )  # fmt: skip
    return _SUMMARY_UPSERT, (
        summary.stream, summary.status, summary.goal, summary.nodes, summary.succeeded, summary.events, summary.bytes,
        summary.created, summary.finished, summary.last_seq, summary.archived_bytes,
    )  # fmt: skip


_SUMMARY_TYPES: tuple[type | tuple[type, ...], ...] = (
    *(str, str, str, int, int, int, int, str),
    (str, type(None)),
    int,
    (int, type(None)),
)
_SUMMARY_COLUMNS = "stream, status, goal, nodes, succeeded, events, bytes, created, finished, last_seq, archived_bytes"


class SQLiteStore(JournalStore):
    """A journal in one SQLite file. `create=False` refuses to make a new file (for `resume`, `cancel`...);
    `read_only=True` (which implies it) opens the file read-only and changes nothing (for `verify`, `show`...).
    `group_commit` lets appends of this store's threads share one transaction and one fsync (store.py)."""

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = True, read_only: bool = False, group_commit: bool = True
    ) -> None:
        super().__init__()
        self.group_commit = group_commit and not read_only
        # BEGIN IMMEDIATE makes the write transaction this connection's alone: an append's checks read what no one
        # else can change before the commit, so a group's rows can be written together (store._commit_group_batched)
        self.batched_group_writes = True
        self.path = Path(path)
        self.location = str(self.path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._closed = False
        # What this connection knows of streams without reading them (`_known_txn`): each entry is true as of the
        # `PRAGMA data_version` it carries, and that version changes the moment any other connection commits.
        self._known: dict[str, tuple[int, Known]] = {}
        self._remembers = True  # off once the raw connection is handed out (`raw_connection`)
        self._staged: dict[str, Known] = {}  # what the open write transaction will make known once it commits
        self._txn_version: int | None = None  # data_version read in the open write transaction
        if not read_only:
            _refuse_if_marked(self.path)
        try:
            self._conn = _open(self.path, create and not read_only, read_only)
        except BaseException:
            if read_only:
                _drop_reader_sidecars(self.path)
            raise
        self.segments_dir = self.path.with_name(self.path.name + ".segments")
        try:
            self.summaries_kept = self._summaries_complete()
            if not self.summaries_kept and not read_only:
                try:
                    self._build_summaries()
                except (JournalIntegrityError, DamagedJournalError):
                    # a damaged journal made before summaries: it still opens (to verify, salvage or resume what
                    # reads); its listing is computed from the events, which names the damage
                    self.summaries_kept = False
        except BaseException:
            self.close()
            raise

    def _summaries_complete(self) -> bool:
        """Whether the file holds the run-summary table, filled for every run (its alicorn_meta key says so)."""
        with self._lock, self._translated("reading the journal"):
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "run_summaries" not in tables:
                return False
            row = self._conn.execute("SELECT value FROM alicorn_meta WHERE key = ?", (SUMMARIES_KEY,)).fetchone()
            return row is not None and row[0] == "1"

    def _build_summaries(self) -> None:
        """Add the run-summary table to a journal made before it and fill it from every run's events, in one write
        transaction (another process may have done it meanwhile: then nothing is left to do)."""
        with self._write_transaction() as tx:
            tables = {r[0] for r in tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            row = tx.execute("SELECT value FROM alicorn_meta WHERE key = ?", (SUMMARIES_KEY,)).fetchone()
            if "run_summaries" in tables and row is not None and row[0] == "1":
                self.summaries_kept = True
                return
            if "run_summaries" in tables:
                tx.execute("DELETE FROM run_summaries")  # a table without its key: rows may be missing; refill
            else:
                for statement in _SUMMARY_SCHEMA:
                    tx.execute(statement)
            self._backfill_summaries_txn(tx)
            tx.execute("INSERT OR REPLACE INTO alicorn_meta (key, value) VALUES (?, '1')", (SUMMARIES_KEY,))
        self.summaries_kept = True

    def data_version(self) -> int:
        """SQLite's `PRAGMA data_version` on this store's connection: it changes whenever another connection (another
        process, or another store object on this file) commits, and never for this store's own appends (those reach
        `observe`). Projections use it to notice writes they cannot observe without reading every stream's head."""
        with self._lock, self._translated("reading the journal"):
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._conn.close()
            if self.read_only:
                _drop_reader_sidecars(self.path)

    @contextmanager
    def lock(self, stream: str) -> Iterator[None]:
        """An OS lock (flock) on `<journal>.locks/<stream>.lock`: released by the kernel if the holder dies."""
        check_stream_name(stream)
        self._writable()
        _refuse_if_marked(self.path)  # a long-lived writer (`serve`, a worker) stops at a mark left since it opened
        with super().lock(stream):
            locks = self.path.with_name(self.path.name + ".locks")
            lock_file = locks / f"{stream}.lock"
            with self._translated(f"taking the lock of run {stream!r}", lock_file):
                locks.mkdir(exist_ok=True)
                fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
                    raise StreamLockedError(
                        f"run {stream!r} is being driven by {holder}; wait for it to finish, or stop it "
                        "(the lock is released the moment that process ends, even if it is killed)"
                    ) from None
                with self._translated(f"taking the lock of run {stream!r}", lock_file):
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"pid {os.getpid()} on {os.uname().nodename}".encode(), 0)
                yield
            finally:
                os.close(fd)  # closing the descriptor releases the flock

    # ---- transactions -----------------------------------------------------------------------------------------

    def _writable(self) -> None:
        if self.read_only:
            raise JournalError(f"{self.path} was opened read-only: this command does not write to the journal")

    @contextmanager
    def _translated(self, where: str = "", path: Path | None = None, *, writing: bool = False) -> Iterator[None]:
        """Raise sqlite3 and OS errors as the Alicorn errors they stand for, naming this journal (or `path`)."""
        try:
            yield
        except AlicornError:
            raise
        except (sqlite3.Error, OSError) as exc:
            failure = _failure(exc, path or self.path, where, writing=writing)
            if failure is None:
                raise
            raise failure from exc

    def _rollback(self) -> None:
        # SQLite rolls a transaction back by itself after some errors (SQLITE_FULL, some I/O errors): only roll back
        # what is still open, and never let a failing ROLLBACK hide the error that caused it.
        if self._conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    @contextmanager
    def _write_transaction(self) -> Iterator[sqlite3.Connection]:
        self._writable()
        with self._lock, self._translated("writing to the journal", writing=True):
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
            finally:
                staged, version = self._staged, self._txn_version
                self._staged, self._txn_version = {}, None
            if staged and version is not None:  # committed: now what this connection knows
                self._remember(version, staged)

    @contextmanager
    def _read_transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._translated("reading the journal"):
            conn = self._conn
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                self._rollback()

    # ---- group commit: savepoints inside the one write transaction ---------------------------------------------

    def _savepoint_txn(self, tx: sqlite3.Connection) -> None:
        tx.execute("SAVEPOINT alicorn_append")

    def _release_savepoint_txn(self, tx: sqlite3.Connection) -> None:
        tx.execute("RELEASE alicorn_append")

    def _rollback_to_savepoint_txn(self, tx: sqlite3.Connection) -> None:
        tx.execute("ROLLBACK TO alicorn_append")
        tx.execute("RELEASE alicorn_append")

    def _fails_group(self, exc: Exception) -> bool:
        # SQLite may have rolled the whole transaction back by itself (a full disk, some I/O errors).
        return isinstance(exc, (sqlite3.Error, OSError)) or super()._fails_group(exc)

    # ---- hooks ------------------------------------------------------------------------------------------------

    def _head_txn(self, tx: sqlite3.Connection, stream: str) -> Head | None:
        try:
            row = tx.execute(
                "SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1", (stream,)
            ).fetchone()
        except sqlite3.Error as exc:
            self._read_failed(exc, f"the last event of {stream!r} cannot be read", stream)
        if row is None:
            return None
        if not (isinstance(row[0], int) and isinstance(row[1], str)):
            raise self._damaged(f"the last event of {stream!r} has a damaged row", stream=stream)
        return Head(row[0], row[1])

    def _known_txn(self, tx: sqlite3.Connection, stream: str) -> Known | None:
        if self._txn_version is None:
            self._txn_version = int(tx.execute("PRAGMA data_version").fetchone()[0])
        entry = self._known.get(stream)
        return entry[1] if entry is not None and entry[0] == self._txn_version else None

    def _appended_txn(self, tx: sqlite3.Connection, stream: str, last: Event, summary: RunSummary | None) -> None:
        self._staged[stream] = Known(Head(last.seq, last.hash), summary, self.summaries_kept)

    def head(self, stream: str) -> Head | None:
        # A run's driver asks for its control stream's head every poll interval, and mostly nothing changed: one
        # PRAGMA answers that, instead of a read transaction. The version is read before the head, so a head is
        # never remembered with a version newer than itself.
        with self._lock:
            version = self.data_version()
            entry = self._known.get(stream)
            if entry is not None and entry[0] == version:
                return entry[1].head
            head = super().head(stream)
            self._remember(version, {stream: Known(head)})
            return head

    def _remember(self, version: int, known: dict[str, Known]) -> None:
        """Keep `known` as true at `version` (under the lock); nothing once the raw connection was handed out."""
        if not self._remembers:
            return
        if len(self._known) + len(known) > _KNOWN_STREAMS:
            self._known.clear()
        for stream, entry in known.items():
            self._known[stream] = (version, entry)

    def _insert_txn(self, tx: sqlite3.Connection, events: list[Event]) -> None:
        tx.executemany(
            "INSERT INTO events (stream, seq, kind, at, hash, body) VALUES (?, ?, ?, ?, ?, ?)",
            [(e.stream, e.seq, e.kind, e.at, e.hash, e.line) for e in events],
        )

    def _read_txn(self, tx: sqlite3.Connection, stream: str, after: int) -> list[Event]:
        rows: list[tuple[int, str]] = []
        try:  # row by row, so that damage is located at the first row that cannot be read
            for seq, body in tx.execute(
                "SELECT seq, body FROM events WHERE stream = ? AND seq > ? ORDER BY seq", (stream, after)
            ):
                if not (isinstance(seq, int) and isinstance(body, str)):
                    raise self._damaged(f"event #{seq} of {stream!r} has a damaged row", stream=stream)
                rows.append((seq, body))
        except sqlite3.Error as exc:
            last = rows[-1][0] if rows else after
            self._read_failed(exc, f"{stream!r} can be read up to event #{last}, not beyond", stream, last + 1)
        self._check_complete(tx, stream, after, [seq for seq, _ in rows])
        try:
            return [parse_line(body) for _, body in rows]
        except JournalIntegrityError:
            for seq, body in rows:  # name the row that does not parse
                try:
                    parse_line(body)
                except JournalIntegrityError as exc:
                    raise JournalIntegrityError(f"event #{seq}: {exc}", stream=stream, seq=seq) from None
            raise

    def _check_complete(self, tx: sqlite3.Connection, stream: str, after: int, seqs: list[int]) -> None:
        """A read returns #after+1 … the head, each once: a damaged page or index can hide rows from one query and
        not from another (seen by the fuzzer: a run read up to #19 whose head was #32), and acting on a short read
        would append after the wrong event. Said as damage, before anything is written."""
        expected = max(after, 0)  # `after` may be below the first event or past the last
        for seq in seqs:
            expected += 1
            if seq != expected:
                raise self._damaged(f"{stream!r} skips from event #{expected - 1} to #{seq}", _MISSING, stream=stream)
        head = self._head_txn(tx, stream)
        if head is not None and head.seq > expected:
            raise self._damaged(
                f"{stream!r} reads up to event #{expected} but its last event is #{head.seq}", _MISSING, stream=stream
            )

    def _streams_txn(self, tx: sqlite3.Connection) -> list[StreamInfo]:
        try:
            return self._stream_rows(tx)
        except sqlite3.Error as exc:
            self._read_failed(exc, "the list of its streams (runs) cannot be read")

    def _stream_rows(self, tx: sqlite3.Connection) -> list[StreamInfo]:
        live = tx.execute(
            """SELECT e.stream, count(*), sum(length(CAST(e.body AS BLOB))),
                      (SELECT at FROM events f WHERE f.stream = e.stream ORDER BY seq ASC LIMIT 1),
                      (SELECT at FROM events l WHERE l.stream = e.stream ORDER BY seq DESC LIMIT 1),
                      max(e.seq), (SELECT hash FROM events h WHERE h.stream = e.stream ORDER BY seq DESC LIMIT 1)
               FROM events e GROUP BY e.stream"""
        ).fetchall()
        archived = tx.execute(
            "SELECT stream, events, raw_bytes, first_at, last_at, last_seq, last_hash, stored_bytes FROM archives"
        ).fetchall()
        types = (str, int, int, str, str, int, str, int)
        for row in [*live, *archived]:
            if not all(isinstance(value, kind) for value, kind in zip(row, types, strict=False)):
                name = row[0] if isinstance(row[0], str) else repr(row[0])
                raise self._damaged(f"the list of its streams has a damaged row (stream {name})")
        infos = [StreamInfo(s, n, b, fa, la, Head(seq, h), False) for s, n, b, fa, la, seq, h in live]
        infos.extend(StreamInfo(s, n, b, fa, la, Head(seq, h), True, sb) for s, n, b, fa, la, seq, h, sb in archived)
        return infos

    def _archive_record_txn(self, tx: sqlite3.Connection, stream: str) -> tuple[str, Head] | None:
        try:
            row = tx.execute("SELECT digest, last_seq, last_hash FROM archives WHERE stream = ?", (stream,)).fetchone()
        except sqlite3.Error as exc:
            self._read_failed(exc, f"the archive record of {stream!r} cannot be read", stream)
        if row is None:
            return None
        if not (isinstance(row[0], str) and isinstance(row[1], int) and isinstance(row[2], str)):
            raise self._damaged(f"the archive record of {stream!r} is damaged", stream=stream)
        return (row[0], Head(row[1], row[2]))

    def _segment_path(self, segment: Segment) -> Path:
        # Named by content: two archivers racing on one stream can never overwrite each other's segment.
        return self.segments_dir / f"{segment.stream}.{segment.digest[:16]}.jsonl.gz"

    def _save_segment(self, segment: Segment) -> None:
        self._writable()
        with self._translated(f"archiving {segment.stream!r}"):
            self.segments_dir.mkdir(exist_ok=True)
            write_atomically(self._segment_path(segment), segment.data)

    def _load_segment(self, stream: str) -> bytes:
        with self._read_transaction() as tx:
            try:
                row = tx.execute("SELECT segment FROM archives WHERE stream = ?", (stream,)).fetchone()
            except sqlite3.Error as exc:
                self._read_failed(exc, f"the archive record of {stream!r} cannot be read", stream)
        with self._translated(f"reading the archive segment of {stream!r}"):
            return self._segment_bytes(stream, row)

    def _load_segment_txn(self, tx: sqlite3.Connection, stream: str) -> bytes:
        try:
            row = tx.execute("SELECT segment FROM archives WHERE stream = ?", (stream,)).fetchone()
        except sqlite3.Error as exc:
            self._read_failed(exc, f"the archive record of {stream!r} cannot be read", stream)
        return self._segment_bytes(stream, row)

    def _segment_bytes(self, stream: str, row: tuple[object, ...] | None) -> bytes:
        """The segment file an archive record (`row`: its segment name) names; JournalError when it is missing."""
        name = row[0] if row and isinstance(row[0], str) else f"{stream}.jsonl.gz"
        path = self.segments_dir / name
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise JournalError(
                f"the archive segment of {stream!r} is missing: expected {path}. Restore it from a backup; "
                "the journal records its digest, so a restored copy is checked."
            ) from None

    # ---- run summaries ----------------------------------------------------------------------------------------

    def _summary_txn(self, tx: sqlite3.Connection, stream: str) -> RunSummary | None:
        try:
            row = tx.execute(f"SELECT {_SUMMARY_COLUMNS} FROM run_summaries WHERE stream = ?", (stream,)).fetchone()
        except sqlite3.Error as exc:
            self._read_failed(exc, f"the run summary of {stream!r} cannot be read", stream)
        return None if row is None else self._summary(row)

    def _put_summary_txn(self, tx: sqlite3.Connection, summary: RunSummary, previous: RunSummary | None = None) -> None:
        tx.execute(*_summary_write(summary, previous))

    def _put_summaries_txn(
        self, tx: sqlite3.Connection, changes: Sequence[tuple[RunSummary, RunSummary | None]]
    ) -> None:
        # One statement for all the rows it writes: a group of appends updates its runs' rows together.
        by_statement: dict[str, list[tuple[object, ...]]] = {}
        for summary, previous in changes:
            sql, row = _summary_write(summary, previous)
            by_statement.setdefault(sql, []).append(row)
        for sql, rows in by_statement.items():
            tx.executemany(sql, rows)

    def _summaries_txn(self, tx: sqlite3.Connection, limit: int | None, status: str | None) -> list[RunSummary]:
        where, args = ("WHERE status = ?", [status]) if status is not None else ("", [])
        sql = f"SELECT {_SUMMARY_COLUMNS} FROM run_summaries {where} ORDER BY created DESC, stream DESC LIMIT ?"
        try:
            rows = tx.execute(sql, (*args, -1 if limit is None else limit)).fetchall()
        except sqlite3.Error as exc:
            self._read_failed(exc, "the list of its runs cannot be read")
        return [self._summary(row) for row in rows]

    def _summary_count_txn(self, tx: sqlite3.Connection, status: str | None) -> int:
        where, args = ("WHERE status = ?", (status,)) if status is not None else ("", ())
        try:
            return int(tx.execute(f"SELECT count(*) FROM run_summaries {where}", args).fetchone()[0])
        except sqlite3.Error as exc:
            self._read_failed(exc, "the list of its runs cannot be read")

    def _summary(self, row: tuple[object, ...]) -> RunSummary:
        if len(row) != len(_SUMMARY_TYPES) or not all(
            isinstance(v, t) for v, t in zip(row, _SUMMARY_TYPES, strict=True)
        ):
            name = row[0] if row and isinstance(row[0], str) else "?"
            raise self._damaged(f"the run summary of {name!r} has a damaged row", stream=name)
        return RunSummary(*row)  # type: ignore[arg-type]

    def _archive_txn(self, tx: sqlite3.Connection, segment: Segment) -> None:
        self._known.pop(segment.stream, None)  # its live head is gone; read again whatever this commits
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

    # ---- damage ------------------------------------------------------------------------------------------------

    def _read_failed(
        self, exc: sqlite3.Error, where: str, stream: str | None = None, seq: int | None = None
    ) -> NoReturn:
        """Raise what a failed read at `where` stands for: the environment failure (locked, I/O...) when it is one,
        else DamagedJournalError naming the first unreadable point."""
        failure = _failure(exc, self.path, "")
        if failure is None and isinstance(exc, sqlite3.ProgrammingError | sqlite3.InterfaceError):
            raise exc  # a misuse of the connection (a bug), not the file
        if failure is not None and not isinstance(failure, DamagedJournalError):
            raise failure from exc
        raise self._damaged(where, _short(str(exc)), stream, seq) from exc

    def _damaged(
        self,
        where: str,
        cause: str = "a column holds a value of the wrong type",
        stream: str | None = None,
        seq: int | None = None,
    ) -> DamagedJournalError:
        return DamagedJournalError(
            f"{self.path} is damaged: {where} ({cause}); nothing was changed. `alicorn verify` salvages and checks "
            "what can still be read; restore the journal from a backup.",
            path=self.path,
            stream=stream,
            seq=seq,
        )

    def damage_mark(self) -> str | None:
        return _read_mark(self.path)

    def mark_damaged(self, finding: str) -> bool:
        try:
            write_atomically(_mark_path(self.path), (finding.strip() + "\n").encode("utf-8"))
        except OSError:
            return False  # a read-only copy (a backup disk, a forensic image): nothing will write to it anyway
        return True

    def clear_damage_mark(self) -> bool:
        try:
            _mark_path(self.path).unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise EnvironmentFailure(
                f"{_mark_path(self.path)} cannot be removed ({exc.strerror}); the journal verifies, remove the file "
                "by hand so that Alicorn writes to the journal again",
                path=_mark_path(self.path),
            ) from exc
        return True

    def storage_problems(self) -> list[str]:
        """What SQLite's own check (`PRAGMA quick_check`) finds wrong with the file's pages; empty when sound."""
        try:
            with self._lock:
                rows = self._conn.execute("PRAGMA quick_check(20)").fetchall()
        except sqlite3.Error as exc:
            failure = _failure(exc, self.path, "")
            if failure is not None and not isinstance(failure, DamagedJournalError):
                raise failure from exc
            return [f"SQLite's integrity check of {self.path} cannot finish ({exc})"]
        found = [
            line.strip()
            for row in rows
            if row and row[0] != "ok"
            for line in str(row[0]).splitlines()
            if line.strip() and not line.startswith("*** in database")
        ]
        if not found:
            return []
        more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
        return [f"SQLite's integrity check of {self.path} finds its pages damaged: {'; '.join(found[:3])}{more}"]

    def salvage(self) -> Salvage:
        """Read what can still be read of a damaged journal, without changing it: every stream that can be found,
        its events from #1 up to the first one that cannot be read, and those after it that still can."""
        with self._lock:
            names, problems = _salvage_names(self._conn)
            archived: set[str] = set()
            try:
                archived = {r[0] for r in self._conn.execute("SELECT stream FROM archives") if isinstance(r[0], str)}
            except sqlite3.Error as exc:
                problems.append(f"the archive records cannot be read ({exc})")
            streams = [_salvage_stream(self._conn, name) for name in sorted(names - archived)]
        for name in sorted(archived):
            try:
                streams.append(SalvagedStream(name, self.read(name)))
            except AlicornError as exc:
                streams.append(SalvagedStream(name, [], unreadable_from=1, reason=str(exc)))
        return Salvage(sorted(streams, key=lambda s: s.stream), problems)

    # ---- raw access for tests and forensic tools ---------------------------------------------------------------

    def raw_connection(self) -> sqlite3.Connection:
        """The underlying connection. Only for tamper tests and forensics: writing through it breaks the chain.
        Its writes do not change this connection's `data_version`, so from now on this store remembers nothing it
        would have to trust them not to have changed (every append and `head` reads again)."""
        with self._lock:
            self._remembers = False
            self._known.clear()
        return self._conn


def _failure(exc: BaseException, path: Path, where: str, *, writing: bool = False) -> AlicornError | None:
    """The Alicorn error a sqlite3 or OS error stands for in this journal (None: not a failure we know)."""
    text = str(exc).lower()
    if isinstance(exc, sqlite3.Error) and (text.startswith(("no such table", "no such column"))):
        return DamagedJournalError(
            f"{path} is damaged: {exc} (Alicorn's tables are not all there); nothing was changed. Restore the "
            "journal from a backup.",
            path=path,
        )
    return environment_failure(exc, path=path, where=where, writing=writing)


def _short(text: str, limit: int = 160) -> str:
    """An error message cut to a readable length (SQLite quotes whole undecodable rows)."""
    return text if len(text) <= limit else text[:limit] + "…"


def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path.absolute()))}?mode={mode}"


def _header_mode(path: Path) -> str:
    """The journal mode an SQLite file's header records: "wal" when its read and write versions (bytes 18-19) are 2."""
    with open(path, "rb") as fh:
        header = fh.read(20)
    return "wal" if header[18:20] == b"\x02\x02" else "delete"


def _on_read_only_media(path: Path) -> bool:
    """Whether `path` lies on a filesystem mounted read-only with no write-ahead log beside it: nobody can change
    it, and everything committed is in the file itself."""
    try:
        read_only = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
        wal = _sidecars(path)[0]
        return read_only and (not wal.exists() or wal.stat().st_size == 0)
    except OSError:
        return False


def _mark_path(path: Path) -> Path:
    """The file `alicorn verify` leaves beside a journal it found damaged: while it exists no writer opens it."""
    return path.with_name(path.name + ".damaged")


def _read_mark(path: Path) -> str | None:
    try:
        return _mark_path(path).read_text(encoding="utf-8", errors="replace").strip() or "(no finding recorded)"
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"(the mark cannot be read: {exc.strerror})"


def _refuse_if_marked(path: Path) -> None:
    """Writers stop at a journal that verification found damaged: appending would spread the damage over the copy
    that is to be kept for forensics, and build new events on a history that is not the one recorded."""
    finding = _read_mark(path)
    if finding is None:
        return
    raise DamagedJournalError(
        f"{path} was found damaged by `alicorn verify` ({finding}); Alicorn does not write to it, and nothing was "
        f"changed. Restore the journal from a backup and run `alicorn verify` again: a journal that verifies clears "
        f"the mark ({_mark_path(path)}). Read-only commands (`runs`, `show`, `verify`) still work.",
        path=path,
    )


def _sidecars(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _drop_reader_sidecars(path: Path) -> None:
    """Remove the -wal/-shm files a read-only connection leaves, when nobody else uses them.

    A read-only connection cannot remove them itself. A plain connection that only reads does, on closing, if it
    is the last connection to the file (SQLite decides that under its own lock, so a writer that opened the file
    meanwhile keeps them). Only an empty log is removed this way: that changes nothing in the journal file, whereas
    a log with frames (a writer that was killed) is left for the next writer to check into the file.
    """
    wal, shm = _sidecars(path)
    try:
        if not path.is_file() or not (wal.exists() or shm.exists()) or (wal.exists() and wal.stat().st_size > 0):
            return
    except OSError:
        return
    with contextlib.suppress(sqlite3.Error, OSError):
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, timeout=0)  # rw, never create
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        finally:
            conn.close()


def _open(path: Path, create: bool, read_only: bool) -> sqlite3.Connection:
    try:
        return _open_journal(path, create, read_only)
    except AlicornError:
        raise
    except sqlite3.DatabaseError as exc:
        failure = _failure(exc, path, "opening the journal")
        if failure is not None and not isinstance(failure, DamagedJournalError):
            raise failure from exc
        not_a_database = getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB" or "file is not a database" in str(exc)
        if failure is not None and not not_a_database:
            raise DamagedJournalError(
                f"{path} is an SQLite file but damaged where SQLite keeps its tables ({exc}), so Alicorn cannot tell "
                "whether it is a journal; nothing was changed. Restore it from a backup, or point --home elsewhere.",
                path=path,
            ) from exc
        raise NotAJournalError(f"{path} is not an Alicorn journal ({exc}); nothing was changed") from exc
    except (sqlite3.Error, OSError) as exc:
        failure = _failure(exc, path, "opening the journal")
        if failure is None:
            raise
        raise failure from exc


def _open_journal(path: Path, create: bool, read_only: bool) -> sqlite3.Connection:
    exists = path.exists()
    if not exists and not create:
        raise NoJournalError(
            f"no journal at {path}; run something first (`alicorn run PLAN.json`) or check --home", location=str(path)
        )
    if not exists:
        _create_journal(path)
    if path.is_dir():
        raise NotAJournalError(f"{path} is a directory, not an Alicorn journal file")
    with open(path, "rb") as fh:
        magic = fh.read(16)
    if not magic and not _wal_holds_frames(path):
        # Alicorn links a new journal into place whole, so an empty file is never one of its own: a leftover, or a
        # journal that lost its contents. Writing a new journal over it would hide that, so writers refuse it too.
        raise NotAJournalError(
            f"{path} is an empty file, not an Alicorn journal; nothing was changed. Alicorn never leaves an empty "
            "journal: remove the file if it is a leftover (a writing command then makes a new journal), restore the "
            "journal from a backup if it lost its contents, or point --home at the journal's folder."
        )
    if magic and magic != _SQLITE_MAGIC:
        raise NotAJournalError(f"{path} is not an Alicorn journal (not an SQLite database); nothing was changed")
    target, uri = (_uri(path, "ro"), True) if read_only else (str(path), False)
    immutable = read_only and _on_read_only_media(path)
    if immutable:
        # SQLite would need to make the -shm file beside it even to read: on a read-only filesystem (a backup disk,
        # a forensic copy) nobody can change the file, so it is read as immutable, without that file
        target += "&immutable=1"
    conn = sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        # Decide whether the file is ours before changing anything in it (switching to WAL writes the header): a
        # database without tables is someone else's too (another program's, not yet filled), never adopted.
        _check_meta(conn, path, tables)
        if read_only:
            # an immutable connection reports no WAL; the file's header says which mode wrote it (bytes 18-19: 2)
            mode = _header_mode(path) if immutable else conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(
                    f"{path}: the journal is not in WAL mode (journal_mode={mode}): it was changed by another tool; "
                    "open it once with a writing command (`alicorn resume`, `alicorn run`) to restore it"
                )
            return conn
        mode = retry_while_locked(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0], BUSY_TIMEOUT_S)
        conn.execute("PRAGMA synchronous = FULL")
        sync = conn.execute("PRAGMA synchronous").fetchone()[0]
        if str(mode).lower() != "wal" or sync != 2:
            raise JournalError(
                f"{path}: SQLite refused durable settings (journal_mode={mode}, synchronous={sync}; need wal and "
                "FULL=2). Is the file on a filesystem without shared-memory support (e.g. some network mounts)?"
            )
        return conn
    except BaseException:
        conn.close()
        raise


def _wal_holds_frames(path: Path) -> bool:
    """Whether a write-ahead log with content lies beside `path`: then SQLite reads the database from it, even when
    the file itself is still empty (a journal whose first checkpoint never ran)."""
    try:
        return _sidecars(path)[0].stat().st_size > 0
    except OSError:
        return False


def _create_journal(path: Path) -> None:
    """Build a new journal in a temporary file beside `path` and link it into place whole; if another process
    got there first, theirs is kept. Nobody ever sees a half-made journal."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        failure = environment_failure(exc, path=path.parent, where="making the journal's folder")
        if failure is not None:
            raise failure from exc
        raise JournalError(
            f"the folder {str(path.parent)!r} for the journal cannot be made ({exc.strerror or exc}); nothing was "
            "changed: point --home (or ALICORN_HOME) at a folder, or at a new path where folders can be made"
        ) from None
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    os.close(fd)
    temp = Path(name)
    try:
        os.chmod(temp, 0o644)
        conn = sqlite3.connect(temp, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            _create_schema(conn)
            # Everything into the file itself now, so that a checkpoint that cannot finish (a full disk) is an
            # error here, not a file that lacks its schema once the log beside it is gone.
            busy, logged, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy or logged != done:
                raise sqlite3.OperationalError("disk I/O error: the new journal could not be written whole")
        finally:
            conn.close()
        if _sidecars(temp)[0].exists() and _sidecars(temp)[0].stat().st_size:
            raise sqlite3.OperationalError("disk I/O error: the new journal could not be written whole")
        with open(temp, "rb+") as fh:
            os.fsync(fh.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another process created the journal meanwhile: use theirs
        except OSError:  # a filesystem without hard links: a rename, unless the journal appeared meanwhile
            if not path.exists():
                os.replace(temp, path)
        fsync_dir(path.parent)
    finally:
        for leftover in (temp, *_sidecars(temp)):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _check_meta(conn: sqlite3.Connection, path: Path, tables: set[str]) -> None:
    if not tables:
        raise NotAJournalError(
            f"{path} is an SQLite database without tables, not an Alicorn journal; nothing was changed. Remove the "
            "file if nothing else uses it (a writing command then makes a new journal), or point --home at an Alicorn "
            "journal's folder."
        )
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
    missing = _TABLES - tables
    if missing:
        raise DamagedJournalError(
            f"{path} is an Alicorn journal without its {', '.join(sorted(missing))} table(s): the file is damaged or "
            "was edited; nothing was changed. Restore it from a backup.",
            path=path,
        )


def _create_schema(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        again = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not again:  # another process may have created it while we waited for the lock
            for statement in filter(str.strip, _SCHEMA.split(";")):
                conn.execute(statement)
            for statement in _SUMMARY_SCHEMA:
                conn.execute(statement)
            conn.executemany(
                "INSERT INTO alicorn_meta (key, value) VALUES (?, ?)",
                [("format", FORMAT), ("version", VERSION), (SUMMARIES_KEY, "1")],
            )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (a full disk): never hide the cause
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


# ---- salvage ---------------------------------------------------------------------------------------------------


def _rows(conn: sqlite3.Connection, sql: str, args: tuple[object, ...] = ()) -> tuple[list[tuple[object, ...]], str]:
    """The rows a query yields before it fails, and why it failed ("" when it did not)."""
    rows: list[tuple[object, ...]] = []
    try:
        for row in conn.execute(sql, args):
            rows.append(tuple(row))
    except sqlite3.Error as exc:
        return rows, _short(str(exc)) or type(exc).__name__
    return rows, ""


def _salvage_names(conn: sqlite3.Connection) -> tuple[set[str], list[str]]:
    """Every stream name that can be found: a scan in key order until it fails, then seeks forward and backward
    from either side of the damage (each seek reads only the pages on its path through the tree)."""
    rows, failed = _rows(conn, "SELECT DISTINCT stream FROM events ORDER BY stream")
    names = {r[0] for r in rows if isinstance(r[0], str)}
    problems = []
    if failed:
        problems.append(f"the events table cannot be read in full ({failed})")
        last = max(names) if names else ""
        for sql, bound in (
            ("SELECT stream FROM events WHERE stream > ? ORDER BY stream LIMIT 1", last),
            ("SELECT stream FROM events WHERE stream < ? ORDER BY stream DESC LIMIT 1", "\U0010ffff"),
        ):
            for _ in range(100_000):
                found, failed_seek = _rows(conn, sql, (bound,))
                if failed_seek or not found or not isinstance(found[0][0], str) or found[0][0] in names:
                    break
                bound = found[0][0]
                names.add(bound)
    return names, problems


def _event(stream: str, seq: object, body: object) -> Event | str:
    """A salvaged row as an event, or why it is not one."""
    if not isinstance(seq, int) or not isinstance(body, bytes):
        return f"a row of the stream has columns of the wrong type (seq {seq!r})"
    try:
        event = parse_line(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"event #{seq}'s stored text is not UTF-8 (byte {exc.start})"
    except JournalIntegrityError:
        return f"event #{seq}'s stored text is not an Alicorn event"
    if event.seq != seq or event.stream != stream:
        return f"the row of event #{seq} holds event #{event.seq} of {event.stream!r}"
    return event


def _salvage_stream(conn: sqlite3.Connection, stream: str) -> SalvagedStream:
    """A stream's events from #1 up to the first that cannot be read, then (reading back from its end) those after
    it that still can."""
    sql = "SELECT seq, CAST(body AS BLOB) FROM events WHERE stream = ? ORDER BY seq"
    rows, failed = _rows(conn, sql, (stream,))
    events: list[Event] = []
    for seq, body in rows:
        event = _event(stream, seq, body)
        if isinstance(event, str):
            failed = event
            break
        events.append(event)
    else:
        if not failed:
            return SalvagedStream(stream, events)
    reached = events[-1].seq if events else 0
    back, _ = _rows(conn, sql + " DESC", (stream,))
    later: list[Event] = []
    for seq, body in back:
        if not isinstance(seq, int) or seq <= reached + 1:
            break
        event = _event(stream, seq, body)
        if isinstance(event, str):
            break
        later.append(event)
    later.reverse()
    return SalvagedStream(stream, events, unreadable_from=reached + 1, reason=failed, later=later)
