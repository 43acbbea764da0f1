"""The PostgreSQL journal store: the engine for many processes and machines (psycopg 3, one connection per store).

The semantics are SQLite's (store.py holds the logic): an append is one READ COMMITTED transaction that takes a
per-stream transaction-level advisory lock, checks the expected seq against the head and inserts; the primary key
(stream, seq) is the backstop, so two writers can never fork a stream, on any number of connections. Reads run in
REPEATABLE READ, READ ONLY transactions, so a read that spans statements sees one snapshot. Archived segments are
rows of `journal_segments` (content-addressed by digest, saved before the archive transaction like SQLite's files).

Tables live in one schema (`public` by default) and are named `journal_*`, so they can share a database with Pegas
Memory's `memory_*`. `journal_meta` holds the format and version: a schema whose `journal_*` tables have another
shape, or another format or version, is refused with a sentence naming the URL (password masked) and the fix.

A lost connection: a transaction whose first statement finds the connection gone is run again once on a new
connection (nothing reached the server). A failure later in a transaction is reported (JournalServerError; it was
rolled back). A failure of the COMMIT itself leaves the append in doubt: the error says so, and a retry of the same
append with the same expected seq is safe: it returns the events if the first attempt committed, writes them if it
did not, and never doubles them. With group commit each append of a failed group is in doubt the same way, and
told so in a sentence naming its own events. A group's savepoints ride in the pipeline of each append's first
statement, so grouping adds no round trip per append.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import IsolationLevel

from alicorn.errors import (
    AlicornError,
    ConcurrentAppendError,
    DamagedJournalError,
    EnvironmentFailure,
    JournalError,
    JournalIntegrityError,
    NoJournalError,
    NotAJournalError,
    StreamLockedError,
)
from alicorn.journal.events import Draft, Event, chain, parse_line
from alicorn.journal.store import Head, JournalStore, Segment, StreamInfo, check_stream_name
from alicorn.journal.summaries import RunSummary

FORMAT = "alicorn-journal"
VERSION = "1"
SCHEMES = ("postgresql", "postgres")
#: How a journal URL is written. Said in words: a USER:PASSWORD@ example would itself be masked as a credential in
#: the command line's output.
_FORM = "postgresql://USER@HOST:PORT/DATABASE, with the password after USER and a colon"
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
T = TypeVar("T")

#: The tables of a journal and their columns, as `information_schema.columns` names them: what "ours" means.
SHAPE: dict[str, list[tuple[str, str]]] = {
    "journal_meta": [("key", "text"), ("value", "text")],
    # `at_json` is the event's `at` as a JSON string: PostgreSQL text cannot hold NUL, which an `at` may.
    "journal_events": [("stream", "text"), ("seq", "bigint"), ("at_json", "text"), ("hash", "text"), ("body", "text")],
    "journal_archives": [
        ("stream", "text"),
        ("digest", "text"),
        ("events", "bigint"),
        ("last_seq", "bigint"),
        ("last_hash", "text"),
        ("raw_bytes", "bigint"),
        ("stored_bytes", "bigint"),
        ("first_at", "text"),
        ("last_at", "text"),
    ],
    "journal_segments": [("stream", "text"), ("digest", "text"), ("data", "bytea")],
}
#: The run-summary projection (journal/summaries.py), kept by every append. Apart from SHAPE: a journal made before
#: it lacks the table and is still a journal of this version; the first writable open adds and fills it and records
#: `run_summaries = 1` in journal_meta. Its text columns hold JSON strings (as `at_json`: text cannot hold NUL), and
#: sort in byte order (COLLATE "C"), as SQLite and the in-memory store list them.
SUMMARY_TABLE = "journal_run_summaries"
SUMMARIES_KEY = "run_summaries"
_SUMMARY_COLUMNS = "stream, status, goal, nodes, succeeded, events, bytes, created, finished, last_seq, archived_bytes"
_SUMMARY_SCHEMA = (
    f"""CREATE TABLE {SUMMARY_TABLE} (
    stream text COLLATE "C" PRIMARY KEY,
    status text COLLATE "C" NOT NULL,
    goal text NOT NULL,
    nodes bigint NOT NULL,
    succeeded bigint NOT NULL,
    events bigint NOT NULL,
    bytes bigint NOT NULL,
    created text COLLATE "C" NOT NULL,
    finished text,
    last_seq bigint NOT NULL,
    archived_bytes bigint
)""",
    f"CREATE INDEX {SUMMARY_TABLE}_by_created ON {SUMMARY_TABLE} (created, stream)",
    f"CREATE INDEX {SUMMARY_TABLE}_by_status ON {SUMMARY_TABLE} (status, created, stream)",
)
_UPSERT_SUMMARY = (
    f"INSERT INTO {SUMMARY_TABLE} ({_SUMMARY_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (stream) DO UPDATE SET status = EXCLUDED.status, goal = EXCLUDED.goal, nodes = EXCLUDED.nodes, "
    "succeeded = EXCLUDED.succeeded, events = EXCLUDED.events, bytes = EXCLUDED.bytes, created = EXCLUDED.created, "
    "finished = EXCLUDED.finished, last_seq = EXCLUDED.last_seq, archived_bytes = EXCLUDED.archived_bytes"
)
#: The rows of several summaries in one statement: one array per column, as `_summary_params` gives them.
#: The arrays go in PostgreSQL's binary format (`%b`): the text format escapes an array element by element, with a
#: regular expression per value (event lines are full of quotes), which took most of a group's time.
_UPSERT_SUMMARIES = (
    f"INSERT INTO {SUMMARY_TABLE} ({_SUMMARY_COLUMNS}) SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], "
    "%b::bigint[], %b::bigint[], %b::bigint[], %b::bigint[], %b::text[], %b::text[], %b::bigint[], %b::bigint[]) "
    + _UPSERT_SUMMARY[_UPSERT_SUMMARY.index("ON CONFLICT") :]
)
#: Every event of an append (or of a group's appends) in one statement: one array per column, in binary.
_INSERT_EVENTS = (
    "INSERT INTO journal_events (stream, seq, at_json, hash, body) "
    "SELECT * FROM unnest(%b::text[], %b::bigint[], %b::text[], %b::text[], %b::text[])"
)
_SAVEPOINT: tuple[str, Sequence[Any]] = ("SAVEPOINT alicorn_append", ())
_RELEASE: tuple[str, Sequence[Any]] = ("RELEASE SAVEPOINT alicorn_append", ())
_KEYS = {
    "journal_meta": "PRIMARY KEY (key)",
    "journal_events": "PRIMARY KEY (stream, seq)",
    "journal_archives": "PRIMARY KEY (stream)",
    "journal_segments": "PRIMARY KEY (stream, digest)",
}


class JournalServerError(EnvironmentFailure, JournalError):
    """The PostgreSQL server of a journal cannot be reached, or was lost during an operation (exit code 5)."""


def redact(url: str) -> str:
    """`url` with its password masked, for messages (in the netloc and in a `password=` query parameter)."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.split(':', 1)[0]}:***@{host}"
        query = re.sub(r"(?i)(^|&)password=[^&]*", r"\1password=***", parts.query)
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "<a journal URL that cannot be parsed>"


def is_postgres_url(text: str) -> bool:
    """Whether `text` names a PostgreSQL journal (`postgresql://…` or `postgres://…`) rather than a file."""
    return text.split("://", 1)[0].lower() in SCHEMES and "://" in text


def _said(exc: BaseException) -> str:
    """An error's text on one line, without a trailing full stop."""
    return " ".join(str(exc).split()).rstrip(".") or type(exc).__name__


class _StaleConnection(Exception):
    """The first statement of a transaction found the connection gone: nothing reached the server, run it again."""


class _GroupInDoubt(JournalServerError):
    """The commit of a group of appends failed: each is in doubt; `sentences` tells each one's appender of it."""

    def __init__(self, message: str, sentences: dict[tuple[str, int], str]) -> None:
        super().__init__(message)
        self.sentences = sentences


@dataclass
class _Tx:
    """One transaction on the store's connection; counts statements, so a lost connection can be told apart."""

    conn: psycopg.Connection[Any]
    writing: bool = False
    statements: int = 0
    #: The events of each append inserted in this transaction (what a failed commit leaves in doubt).
    pending: list[list[Event]] = field(default_factory=list)
    #: Statements not sent yet (savepoints, run-summary writes): they go in the pipeline of the next statement (no
    #: round trip of their own); what is still queued at the end is sent before the commit (`flush`).
    queued: list[tuple[str, Sequence[Any]]] = field(default_factory=list)
    #: len(pending) at the last savepoint.
    savepoint: int = 0
    #: Run-summary rows read in the round trip of a writer's head (see `_head_txn`), by stream, until used.
    summary_rows: dict[str, Any] = field(default_factory=dict)
    #: Heads read ahead for a group's appends, each after its stream's lock (`_prefetch_heads_txn`), until used.
    heads: dict[str, Head | None] = field(default_factory=dict)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self.execute_all([(sql, params)])

    def execute_all(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> psycopg.Cursor[Any]:
        """Run `statements` in one round trip (a pipeline when there are several); the last one's cursor."""
        return self.execute_each(statements)[-1]

    def execute_each(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[psycopg.Cursor[Any]]:
        """Run `statements` in one round trip (a pipeline when there are several); each one's cursor, in order
        (queued savepoint statements first)."""
        if self.queued:
            statements = [*self.queued, *statements]
            self.queued.clear()
        if not statements:
            return []
        try:
            if len(statements) == 1:
                cursors = [self.conn.execute(*statements[0])]
            else:
                with self.conn.pipeline():
                    cursors = [self.conn.execute(sql, params) for sql, params in statements]
        except psycopg.OperationalError:
            if self.statements == 0 and self.conn.broken:
                raise _StaleConnection from None
            raise
        self.statements += len(statements)
        return cursors

    def flush(self) -> None:
        """Send the queued writes before the commit (a trailing savepoint release alone needs no round trip)."""
        if any(not sql.startswith(("SAVEPOINT", "RELEASE")) for sql, _ in self.queued):
            self.execute_each([])


class PostgresJournalStore(JournalStore):
    """A journal in a PostgreSQL database (`url`: `postgresql://USER:PASSWORD@HOST:PORT/DATABASE`), in `schema`.

    `create=False` refuses to make the tables (for `resume`, `cancel`...); `read_only=True` (which implies it)
    runs every transaction READ ONLY and changes nothing. `group_commit` lets appends of this store's threads share
    one transaction and one WAL flush (store.py).
    """

    def __init__(
        self,
        url: str,
        *,
        schema: str = "public",
        create: bool = True,
        read_only: bool = False,
        connect_timeout: int = 10,
        group_commit: bool = True,
    ) -> None:
        super().__init__()
        self.group_commit = group_commit and not read_only
        # Each append's checks are reads after its stream's advisory lock: a group with no guarded stream reads them
        # all in one round trip and writes every row in one more (store._commit_group_batched)
        self.batched_group_writes = True
        if not _IDENTIFIER.fullmatch(schema):
            raise JournalError(
                f"invalid journal schema name {schema!r}: use 1-63 lower-case letters, digits and _, starting with "
                "a letter or _"
            )
        self.url = url
        self.schema = schema
        self.read_only = read_only
        self.location = redact(url) + (f" (schema {schema})" if schema != "public" else "")
        self.connect_timeout = connect_timeout
        self._lock = threading.RLock()
        self._closed = False
        self._in_doubt: dict[tuple[str, int], list[str]] = {}
        self._conninfo = _conninfo(url)
        self._conn = self._connect()
        try:
            self._check_schema(create and not read_only)
        except BaseException:
            self._conn.close()
            raise

    # ---- connections ------------------------------------------------------------------------------------------

    def _connect(self) -> psycopg.Connection[Any]:
        return self.connect()

    def connect(self, *, purpose: str = "journal", autocommit: bool = False) -> psycopg.Connection[Any]:
        """A new connection to this journal's database and schema, every commit waiting for its WAL flush, read-only
        when the store is; `purpose` names it to the server (the job broker opens its own). JournalServerError when
        the server cannot be reached."""
        try:
            conn = psycopg.connect(
                self._conninfo,
                autocommit=autocommit,
                connect_timeout=self.connect_timeout,
                application_name=f"alicorn {purpose} (pid {os.getpid()} on {socket.gethostname()})"[:63],
                # Every commit waits for its WAL flush, whatever the server's default: an acknowledged append is
                # durable (a server with fsync=off is not durable at all; that is the operator's choice).
                options=f"-c search_path={self.schema} -c synchronous_commit=on",
            )
        except psycopg.Error as exc:
            raise JournalServerError(
                f"cannot connect to the PostgreSQL journal at {redact(self.url)} ({_said(exc)}). Check that the "
                "server is running and reachable, and the URL's host, port, database, user and password "
                "([journal] url in alicorn.toml); nothing was changed."
            ) from None
        conn.read_only = self.read_only
        return conn

    def _check_schema(self, create: bool) -> None:
        with self._lock, self._translated("opening the journal"):
            conn = self._conn
            encoding = conn.execute("SHOW server_encoding").fetchone()
            if encoding is None or str(encoding[0]).upper() not in ("UTF8", "UTF-8"):
                raise JournalError(
                    f"the PostgreSQL database at {redact(self.url)} uses encoding {encoding and encoding[0]}; an "
                    "Alicorn journal needs UTF8: create the database with ENCODING 'UTF8'"
                )
            shape = _shape(conn, self.schema)
            conn.rollback()
            if not shape and create:
                with conn.transaction():
                    conn.execute(
                        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                        (f"alicorn-journal-schema:{self.schema}",),
                    )
                    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
                    if not _shape(conn, self.schema):  # another opener may have made it while we waited
                        for table, columns in SHAPE.items():
                            cols = ", ".join(f"{name} {kind} NOT NULL" for name, kind in columns)
                            conn.execute(f"CREATE TABLE {table} ({cols}, {_KEYS[table]})")
                        for statement in _SUMMARY_SCHEMA:
                            conn.execute(statement)
                        conn.execute(
                            "INSERT INTO journal_meta (key, value) VALUES ('format', %s), ('version', %s), (%s, '1')",
                            (FORMAT, VERSION, SUMMARIES_KEY),
                        )
                shape = _shape(conn, self.schema)
                conn.rollback()
            if not shape:
                raise NoJournalError(
                    f"no journal at {self.location}; run something first (`alicorn run PLAN.json`) or check "
                    "[journal] url in alicorn.toml",
                    location=self.location,
                )
            self._check_shape(shape)
            meta = dict(conn.execute("SELECT key, value FROM journal_meta").fetchall())
            conn.rollback()
        if meta.get("format") != FORMAT:
            raise NotAJournalError(
                f"{self.location} is not an Alicorn journal: its journal_meta table says format "
                f"{meta.get('format')!r}, not {FORMAT!r}; nothing was changed. Point [journal] url at another "
                "database, or give the journal a schema of its own ([journal] schema)."
            )
        if meta.get("version") != VERSION:
            raise NotAJournalError(
                f"{self.location} is an Alicorn journal of version {meta.get('version')!r}; this Alicorn reads "
                f"version {VERSION}. Use the Alicorn that wrote it, or point [journal] url at another database; "
                "nothing was changed."
            )
        self.summaries_kept = meta.get(SUMMARIES_KEY) == "1" and self._has_summary_table()
        if not self.summaries_kept and not self.read_only:
            try:
                self._build_summaries()
            except (
                JournalIntegrityError,
                DamagedJournalError,
            ):  # damaged: opens anyway; the listing computed from events names it
                self.summaries_kept = False

    def _has_summary_table(self) -> bool:
        with self._lock, self._translated("opening the journal"):
            row = self._conn.execute(
                "SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
                (self.schema, SUMMARY_TABLE),
            ).fetchone()
            self._conn.rollback()
        return row is not None

    def _build_summaries(self) -> None:
        """Add the run-summary table to a journal made before it and fill it from every run's events, in one write
        transaction under the schema's lock (another opener may have done it meanwhile: then nothing is left)."""
        with self._write_transaction() as tx:
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"alicorn-journal-schema:{self.schema}",)
            )
            done = tx.execute("SELECT value FROM journal_meta WHERE key = %s", (SUMMARIES_KEY,)).fetchone()
            if done is not None and done[0] == "1" and self._has_summary_table_txn(tx):
                self.summaries_kept = True
                return
            if self._has_summary_table_txn(tx):
                tx.execute(f"DELETE FROM {SUMMARY_TABLE}")  # a table without its key: rows may be missing; refill
            else:
                for statement in _SUMMARY_SCHEMA:
                    tx.execute(statement)
            self._backfill_summaries_txn(tx)
            tx.execute("DELETE FROM journal_meta WHERE key = %s", (SUMMARIES_KEY,))
            tx.execute("INSERT INTO journal_meta (key, value) VALUES (%s, '1')", (SUMMARIES_KEY,))
        self.summaries_kept = True

    def _has_summary_table_txn(self, tx: _Tx) -> bool:
        row = tx.execute(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
            (self.schema, SUMMARY_TABLE),
        ).fetchone()
        return row is not None

    def _check_shape(self, shape: dict[str, list[tuple[str, str]]]) -> None:
        # A table of another shape says more than a missing one: name it first.
        for table, columns in sorted(SHAPE.items(), key=lambda item: item[0] not in shape):
            if shape.get(table) != columns:
                found = shape.get(table)
                what = (
                    f"has no {table} table"
                    if found is None
                    else f"has a {table} table with columns ({', '.join(f'{n} {k}' for n, k in found)})"
                )
                raise NotAJournalError(
                    f"{self.location} is not an Alicorn journal: it {what}, but an Alicorn journal's {table} has "
                    f"({', '.join(f'{n} {k}' for n, k in columns)}); nothing was changed. Point [journal] url at "
                    "another database, or give the journal a schema of its own ([journal] schema)."
                )

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._conn.close()

    @contextmanager
    def _translated(self, where: str) -> Iterator[None]:
        """Raise psycopg errors as the Alicorn errors they stand for, naming this journal."""
        try:
            yield
        except (AlicornError, _StaleConnection):
            raise
        except psycopg.OperationalError as exc:
            raise JournalServerError(
                f"lost the PostgreSQL journal at {self.location} while {where} ({_said(exc)}); the transaction was "
                "rolled back and nothing was written. Check the server; the next command reconnects."
            ) from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise JournalServerError(
                f"the PostgreSQL journal at {self.location} refused {where} ({_said(exc)}); grant this URL's user "
                "the rights on the schema's journal_* tables"
            ) from None
        except psycopg.errors.ReadOnlySqlTransaction:
            raise JournalError(
                f"{self.location} was opened read-only: this command does not write to the journal"
            ) from None
        except psycopg.errors.UndefinedTable as exc:
            raise JournalError(
                f"{self.location} has lost its journal tables ({_said(exc)}): they were dropped or renamed by "
                "another tool; nothing was changed. Restore the journal from a backup."
            ) from None
        except psycopg.Error as exc:
            raise JournalError(
                f"the PostgreSQL journal at {self.location} refused {where} ({_said(exc)}); the transaction was "
                "rolled back and nothing was written"
            ) from None

    def _usable(self) -> psycopg.Connection[Any]:
        if self._closed:
            raise JournalError(f"the journal store for {self.location} is closed")
        if self._conn.closed or self._conn.broken:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = self._connect()
        return self._conn

    def _again(self, fn: Callable[[], T]) -> T:
        """Run `fn`, once more on a new connection if its first statement found the connection gone."""
        try:
            return fn()
        except _StaleConnection:
            pass  # nothing reached the server; _usable() reconnects
        try:
            return fn()
        except _StaleConnection:
            raise JournalServerError(
                f"lost the PostgreSQL journal at {self.location} twice in a row on new connections; nothing was "
                "written. Check the server and run the command again."
            ) from None

    @contextmanager
    def _write_transaction(self) -> Iterator[_Tx]:
        if self.read_only:
            raise JournalError(f"{self.location} was opened read-only: this command does not write to the journal")
        with self._lock:
            conn = self._usable()
            conn.isolation_level = IsolationLevel.READ_COMMITTED
            tx = _Tx(conn, writing=True)
            try:
                with self._translated("writing to the journal"):
                    yield tx
                    tx.flush()
            except BaseException:
                if not conn.broken:
                    with contextlib.suppress(psycopg.Error):
                        conn.rollback()
                raise
            try:
                conn.commit()
            except psycopg.Error as exc:
                if not tx.pending:
                    raise JournalServerError(
                        f"lost the PostgreSQL journal at {self.location} while committing ({_said(exc)}); nothing "
                        "was changed if it did not commit. Check the server and run the command again."
                    ) from None
                sentences = {}
                for events in tx.pending:
                    first = events[0]
                    self._in_doubt[(first.stream, first.seq - 1)] = [e.line for e in events]
                    sentences[(first.stream, first.seq - 1)] = self._in_doubt_sentence(events, exc)
                if len(sentences) == 1:
                    raise JournalServerError(next(iter(sentences.values()))) from None
                raise _GroupInDoubt(
                    f"lost the PostgreSQL journal at {self.location} while committing a group of {len(sentences)} "
                    f"appends ({_said(exc)}): they may or may not have been written. Append each again with the same "
                    "expected seq: that returns its events if they were written and writes them if not.",
                    sentences,
                ) from None

    def _in_doubt_sentence(self, events: list[Event], exc: BaseException) -> str:
        first = events[0]
        return (
            f"lost the PostgreSQL journal at {self.location} while committing events "
            f"#{first.seq}-#{events[-1].seq} of {first.stream!r} ({_said(exc)}): they may or may not "
            f"have been written. Append the same events again with the same expected seq ({first.seq - 1}): "
            "that returns them if they were written and writes them if not; nothing is doubled."
        )

    @contextmanager
    def _read_transaction(self) -> Iterator[_Tx]:
        with self._lock:
            conn = self._usable()
            conn.isolation_level = IsolationLevel.REPEATABLE_READ
            try:
                with self._translated("reading the journal"):
                    yield _Tx(conn)
            finally:
                if not conn.broken:
                    with contextlib.suppress(psycopg.Error):
                        conn.rollback()

    # ---- the public API, with one retry on a connection found gone ------------------------------------------------

    def append(self, stream: str, drafts: Sequence[Draft], *, expect: int) -> list[Event]:
        try:
            events = self._again(lambda: super(PostgresJournalStore, self).append(stream, drafts, expect=expect))
        except ConcurrentAppendError:
            doubt = self._in_doubt.pop((stream, expect), None)
            if doubt is None:
                raise
            stored = self._again(lambda: super(PostgresJournalStore, self).read(stream, after=max(expect - 1, 0)))
            prev = stored[0].hash if expect and stored and stored[0].seq == expect else None
            if expect and prev is None:
                raise
            mine = chain(stream, expect, prev, *self.encoded(drafts))
            later = stored[1:] if expect else stored
            if [e.line for e in mine] != doubt or [e.line for e in later[: len(mine)]] != doubt:
                raise
            events = later[: len(mine)]  # the append that was in doubt did commit: now its observers may know
            if self._observers:
                self._notify(stream, tuple(events))
            return events
        self._in_doubt.pop((stream, expect), None)  # a retry that found the first attempt had not committed
        return events

    def append_together(self, appends: Sequence[tuple[str, Sequence[Draft], int]]) -> list[list[Event] | Exception]:
        answers = super().append_together(appends)
        stale = [position for position, answer in enumerate(answers) if isinstance(answer, _StaleConnection)]
        if not stale:
            return answers
        # The first statement of their transaction found the connection gone, so nothing of these appends reached
        # the server: once more, on a new connection, as `append` does; a second loss is the server's, said so.
        again = super().append_together([appends[position] for position in stale])
        for position, answer in zip(stale, again, strict=True):
            answers[position] = (
                JournalServerError(
                    f"lost the PostgreSQL journal at {self.location} twice in a row on new connections; nothing of "
                    f"the append to {appends[position][0]!r} was written. Check the server; the run can be resumed."
                )
                if isinstance(answer, _StaleConnection)
                else answer
            )
        return answers

    def read(self, stream: str, after: int = 0) -> list[Event]:
        return self._again(lambda: super(PostgresJournalStore, self).read(stream, after))

    def head(self, stream: str) -> Head | None:
        return self._again(lambda: super(PostgresJournalStore, self).head(stream))

    def streams(self) -> list[StreamInfo]:
        return self._again(lambda: super(PostgresJournalStore, self).streams())

    def is_archived(self, stream: str) -> bool:
        return self._again(lambda: super(PostgresJournalStore, self).is_archived(stream))

    def run_summaries(self, *, limit: int | None, status: str | None = None) -> list[RunSummary]:
        return self._again(lambda: super(PostgresJournalStore, self).run_summaries(limit=limit, status=status))

    def run_count(self, *, status: str | None = None) -> int:
        return self._again(lambda: super(PostgresJournalStore, self).run_count(status=status))

    def archive(self, stream: str) -> StreamInfo:
        return self._again(lambda: super(PostgresJournalStore, self).archive(stream))

    @contextmanager
    def lock(self, stream: str) -> Iterator[None]:
        """A session-level advisory lock on a connection of its own: the server releases it when the holder's
        connection ends, even if the process is killed or its machine is lost."""
        check_stream_name(stream)
        if self.read_only:
            raise JournalError(f"{self.location} was opened read-only: this command does not write to the journal")
        with super().lock(stream):
            held = self._connect()
            try:
                held.autocommit = True
                with self._translated(f"taking the lock of run {stream!r}"):
                    row = held.execute(
                        "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (self._lock_key(stream),)
                    )
                    got = row.fetchone()
                if not (got and got[0]):
                    raise StreamLockedError(
                        f"run {stream!r} is being driven by another process connected to {self.location}; wait for "
                        "it to finish, or stop it (the lock is released the moment its connection ends, even if it "
                        "is killed)"
                    )
                try:
                    yield
                finally:
                    # Unlocked before closing: the server drops a closed session's locks only once its backend
                    # has exited, a moment later, and the next taker (this process resuming the run) must not
                    # find it still held. A connection that is gone released it anyway.
                    with contextlib.suppress(psycopg.Error):
                        held.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (self._lock_key(stream),))
            finally:
                held.close()  # closing the session releases the lock in every other case

    def _lock_key(self, stream: str) -> str:
        return f"alicorn-journal-run:{self.schema}:{stream}"

    def _writer_key(self, stream: str) -> str:
        """The transaction lock writers of `stream` take in turn (appends, archiving), until their commit."""
        return f"alicorn-journal:{self.schema}:{stream}"

    # ---- group commit: savepoints inside the one write transaction ---------------------------------------------

    def _savepoint_txn(self, tx: _Tx) -> None:
        tx.queued.append(_SAVEPOINT)
        tx.savepoint = len(tx.pending)

    def _release_savepoint_txn(self, tx: _Tx) -> None:
        tx.queued.append(_RELEASE)

    def _rollback_to_savepoint_txn(self, tx: _Tx) -> None:
        del tx.pending[tx.savepoint :]
        unsent = _SAVEPOINT in tx.queued
        tx.queued.clear()  # the failed append's writes not sent yet are dropped with it
        if unsent:  # nothing was sent since the savepoint was asked for, so there is nothing to undo
            return
        tx.execute("ROLLBACK TO SAVEPOINT alicorn_append")  # also leaves a transaction aborted by an error usable
        tx.queued.append(_RELEASE)

    def _fails_group(self, exc: Exception) -> bool:
        return isinstance(exc, (psycopg.Error, _StaleConnection)) or super()._fails_group(exc)

    def _group_failure(self, exc: BaseException, queued: Any) -> BaseException:
        if isinstance(exc, _GroupInDoubt):
            sentence = exc.sentences.get((queued.stream, queued.expect))
            if sentence is not None:
                return JournalServerError(sentence)
        return super()._group_failure(exc, queued)

    # ---- hooks ------------------------------------------------------------------------------------------------

    def _prefetch_heads_txn(self, tx: _Tx, streams: Sequence[str]) -> None:
        # Every stream's lock, then every head and summary row, in one round trip of three statements: the locks in
        # `streams`' order (sorted: the order every group takes them in), one per row of the array as it is scanned.
        keys = [self._writer_key(stream) for stream in streams]
        statements: list[tuple[str, Sequence[Any]]] = [
            ("SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) FROM unnest(%s::text[]) AS k", (keys,)),
            (
                "SELECT s.stream, e.seq, e.hash FROM unnest(%s::text[]) AS s(stream) LEFT JOIN LATERAL (SELECT seq, "
                "hash FROM journal_events WHERE stream = s.stream ORDER BY seq DESC LIMIT 1) AS e ON true",
                (list(streams),),
            ),
        ]
        if self.summaries_kept:
            statements.append(
                (f"SELECT {_SUMMARY_COLUMNS} FROM {SUMMARY_TABLE} WHERE stream = ANY(%s::text[])", (list(streams),))
            )
        cursors = tx.execute_each(statements)
        for stream, seq, digest in cursors[1].fetchall():
            tx.heads[stream] = None if seq is None else Head(int(seq), digest)
        if self.summaries_kept:
            found = {row[0]: row for row in cursors[2].fetchall()}
            for stream in streams:
                tx.summary_rows[stream] = found.get(stream)

    def _head_statements(self, tx: _Tx, stream: str) -> list[tuple[str, Sequence[Any]]]:
        """A writer's lock of `stream`, its head and (for a writer keeping summaries) its summary row."""
        statements: list[tuple[str, Sequence[Any]]] = []
        if tx.writing:  # writers of one stream (appends, archiving) take turns from here to their commit
            statements.append(("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (self._writer_key(stream),)))
        statements.append(
            ("SELECT seq, hash FROM journal_events WHERE stream = %s ORDER BY seq DESC LIMIT 1", (stream,))
        )
        if tx.writing and self.summaries_kept:
            statements.append((f"SELECT {_SUMMARY_COLUMNS} FROM {SUMMARY_TABLE} WHERE stream = %s", (stream,)))
        return statements

    def _head_txn(self, tx: _Tx, stream: str) -> Head | None:
        if stream in tx.heads:  # read ahead for its group, after its lock
            return tx.heads.pop(stream)
        # In one round trip with the lock: in a pipeline the head is read after the lock is granted, so (READ
        # COMMITTED) it sees every append committed before; a writer's next step reads the run's summary row
        # (store.py, `_prepare_txn`): in the same round trip.
        cursors = tx.execute_each(self._head_statements(tx, stream))
        if tx.writing and self.summaries_kept:
            tx.summary_rows[stream] = cursors[-1].fetchone()
            cursors = cursors[:-1]
        row = cursors[-1].fetchone()
        return None if row is None else Head(int(row[0]), row[1])

    def _insert_txn(self, tx: _Tx, events: list[Event]) -> None:
        try:
            columns = (
                [e.stream for e in events],
                [e.seq for e in events],
                [json.dumps(e.at) for e in events],
                [e.hash for e in events],
                [e.line for e in events],
            )
            # One statement, in one round trip with those queued before it (the summary rows): one pipeline.
            tx.execute_each([(_INSERT_EVENTS, columns)])
        except psycopg.errors.UniqueViolation:
            # Only possible if the head moved after it was read (the stream lock makes that a storage edit).
            raise ConcurrentAppendError(events[0].stream, events[0].seq - 1, events[0].seq) from None
        # Each stream's events apart (a group's appends may be inserted together): a failed commit names each.
        start = 0
        for position in range(1, len(events) + 1):
            if position == len(events) or events[position].stream != events[start].stream:
                tx.pending.append(events[start:position])
                start = position

    def _read_txn(self, tx: _Tx, stream: str, after: int) -> list[Event]:
        rows = tx.execute(
            "SELECT seq, body FROM journal_events WHERE stream = %s AND seq > %s ORDER BY seq", (stream, after)
        ).fetchall()
        events = []
        for seq, body in rows:
            try:
                events.append(parse_line(body))
            except JournalIntegrityError as exc:
                raise JournalIntegrityError(f"event #{seq}: {exc}", stream=stream, seq=int(seq)) from None
        return events

    def _streams_txn(self, tx: _Tx) -> list[StreamInfo]:
        live = tx.execute(
            """SELECT e.stream, count(*), sum(octet_length(e.body)),
                      (SELECT at_json FROM journal_events f WHERE f.stream = e.stream ORDER BY seq ASC LIMIT 1),
                      (SELECT at_json FROM journal_events l WHERE l.stream = e.stream ORDER BY seq DESC LIMIT 1),
                      max(e.seq),
                      (SELECT hash FROM journal_events h WHERE h.stream = e.stream ORDER BY seq DESC LIMIT 1)
               FROM journal_events e GROUP BY e.stream"""
        ).fetchall()
        archived = tx.execute(
            "SELECT stream, events, raw_bytes, first_at, last_at, last_seq, last_hash, stored_bytes "
            "FROM journal_archives"
        ).fetchall()
        infos = [
            StreamInfo(s, int(n), int(b), json.loads(fa), json.loads(la), Head(int(seq), h), False)
            for s, n, b, fa, la, seq, h in live
        ]
        infos.extend(
            StreamInfo(s, int(n), int(b), fa, la, Head(int(seq), h), True, int(sb))
            for s, n, b, fa, la, seq, h, sb in archived
        )
        return infos

    def _archive_record_txn(self, tx: _Tx, stream: str) -> tuple[str, Head] | None:
        row = tx.execute(
            "SELECT digest, last_seq, last_hash FROM journal_archives WHERE stream = %s", (stream,)
        ).fetchone()
        return None if row is None else (row[0], Head(int(row[1]), row[2]))

    def _save_segment(self, segment: Segment) -> None:
        def save() -> None:
            with self._write_transaction() as tx:
                tx.execute(
                    "INSERT INTO journal_segments (stream, digest, data) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    (segment.stream, segment.digest, segment.data),
                )

        self._again(save)

    def _load_segment(self, stream: str) -> bytes:
        with self._read_transaction() as tx:
            return self._load_segment_txn(tx, stream)

    def _load_segment_txn(self, tx: _Tx, stream: str) -> bytes:
        row = tx.execute(
            "SELECT s.data FROM journal_archives a JOIN journal_segments s "
            "ON s.stream = a.stream AND s.digest = a.digest WHERE a.stream = %s",
            (stream,),
        ).fetchone()
        if row is None:
            raise JournalError(
                f"the archive segment of {stream!r} is missing from {self.location} (table journal_segments). "
                "Restore it from a backup; the journal records its digest, so a restored copy is checked."
            )
        return bytes(row[0])

    # ---- run summaries: text columns as JSON strings (see SUMMARY_TABLE) -----------------------------------------

    def _summary_txn(self, tx: _Tx, stream: str) -> RunSummary | None:
        if stream in tx.summary_rows:  # read with the stream's head, after its lock (`_head_txn`)
            row = tx.summary_rows.pop(stream)
        else:
            row = tx.execute(f"SELECT {_SUMMARY_COLUMNS} FROM {SUMMARY_TABLE} WHERE stream = %s", (stream,)).fetchone()
        return None if row is None else _summary(row)

    def _put_summary_txn(self, tx: _Tx, summary: RunSummary, previous: RunSummary | None = None) -> None:
        # PostgreSQL leaves the indexes alone by itself when their columns' values did not change (a HOT update).
        # Queued: it rides in the pipeline of the append's insert, or is sent before the commit (`_Tx.flush`).
        tx.queued.append((_UPSERT_SUMMARY, _summary_params(summary)))

    def _put_summaries_txn(self, tx: _Tx, changes: Sequence[tuple[RunSummary, RunSummary | None]]) -> None:
        if changes:  # one statement for a group's rows, queued as one row's is
            rows = [_summary_params(summary) for summary, _ in changes]
            tx.queued.append((_UPSERT_SUMMARIES, [list(column) for column in zip(*rows, strict=True)]))

    def _summaries_txn(self, tx: _Tx, limit: int | None, status: str | None) -> list[RunSummary]:
        where, args = ("WHERE status = %s", [json.dumps(status)]) if status is not None else ("", [])
        rows = tx.execute(
            f"SELECT {_SUMMARY_COLUMNS} FROM {SUMMARY_TABLE} {where} ORDER BY created DESC, stream DESC LIMIT %s",
            (*args, limit),  # LIMIT NULL: all
        ).fetchall()
        return [_summary(row) for row in rows]

    def _summary_count_txn(self, tx: _Tx, status: str | None) -> int:
        where, args = ("WHERE status = %s", (json.dumps(status),)) if status is not None else ("", ())
        row = tx.execute(f"SELECT count(*) FROM {SUMMARY_TABLE} {where}", args).fetchone()
        return int(row[0]) if row else 0

    def _archive_txn(self, tx: _Tx, segment: Segment) -> None:
        tx.execute(
            "INSERT INTO journal_archives VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                segment.stream,
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
        tx.execute("DELETE FROM journal_events WHERE stream = %s", (segment.stream,))

    # ---- raw access for tests and forensic tools ---------------------------------------------------------------

    def raw_connection(self) -> psycopg.Connection[Any]:
        """The underlying connection. Only for tamper tests and forensics: writing through it breaks the chain."""
        return self._usable()


def _summary_params(summary: RunSummary) -> tuple[Any, ...]:
    """A summary as the parameters of `_UPSERT_SUMMARY` (text columns as JSON strings)."""
    return (
        summary.stream,
        json.dumps(summary.status),
        json.dumps(summary.goal),
        summary.nodes,
        summary.succeeded,
        summary.events,
        summary.bytes,
        json.dumps(summary.created),
        None if summary.finished is None else json.dumps(summary.finished),
        summary.last_seq,
        summary.archived_bytes,
    )


def _summary(row: Sequence[Any]) -> RunSummary:
    """A journal_run_summaries row as the summary it stores."""
    stream, status, goal, nodes, succeeded, events, size, created, finished, last_seq, archived = row
    return RunSummary(
        stream,
        json.loads(status),
        json.loads(goal),
        int(nodes),
        int(succeeded),
        int(events),
        int(size),
        json.loads(created),
        None if finished is None else json.loads(finished),
        int(last_seq),
        None if archived is None else int(archived),
    )


def _conninfo(url: str) -> str:
    """`url` checked as a PostgreSQL URL libpq accepts; JournalError naming it (password masked) when it is not."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise JournalError(f"the journal URL {redact(url)!r} is not a PostgreSQL URL: write it as {_FORM}")
    try:
        urlsplit(url).port  # noqa: B018 - raises ValueError for a port that is not a number (libpq would resolve it)
        psycopg.conninfo.conninfo_to_dict(url)
    except (psycopg.Error, ValueError) as exc:
        raise JournalError(
            f"the journal URL {redact(url)!r} cannot be used ({_said(exc).replace(url, redact(url))}). Write it as "
            f"{_FORM} (percent-encode special characters in the password)"
        ) from None
    return url


def _shape(conn: psycopg.Connection[Any], schema: str) -> dict[str, list[tuple[str, str]]]:
    """The columns of the journal_* tables that exist in `schema`, in their order."""
    rows = conn.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = %s AND table_name = ANY(%s) ORDER BY table_name, ordinal_position",
        (schema, list(SHAPE)),
    ).fetchall()
    shape: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        shape.setdefault(table, []).append((column, kind))
    return shape
