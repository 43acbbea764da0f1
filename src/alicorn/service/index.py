"""The run index: a projection of the journal that makes listing runs and conversations fast, and only a cache.

The journal is the truth. This index is a table in its own SQLite file (`<home>/run-index.db`) holding, for each run,
the handful of fields the run list filters and sorts on, folded with `runtime.state.fold` from the run's stream (and
its workflow from the conversation stream that linked it: `workflow.selected` before `run.linked`): among them
Anvil's `decision` at the run's admission (the strictest of its first batch of `anvil.check` events: allow,
needs_approval or deny; a run approved later keeps needs_approval) and the people who approved it
(`approval.granted`, and `approval.carried` from the run it replaced), and for each
conversation the summary the conversation list shows and its phase, folded with `core.conversation.fold`. Delete the
file and it is rebuilt from the journal on the next request, as it is when its format (`_VERSION`) is not this
code's; nothing else ever writes it.

The same projection tells `alicorn serve` at start what is unfinished (`unfinished`): conversations neither new nor
finished, and runs left running, so a start reads only those streams, not every stream of the journal.

Catching up never reads every stream on a request:

* Appends through the service's own store object (where the service's workers write) are seen through
  `JournalStore.observe`: the streams they touched are folded again on the next request, and nothing else is.
* Appends by anyone else (another process, another store object) change the journal's version
  (alicorn.service.heads: SQLite's `PRAGMA data_version`, PostgreSQL's WAL position), which costs one call to read.
  Then one query walks every stream's head, through a connection of its own (one pass over the events' primary
  key, no event bodies decoded), and folds again only the streams whose head (seq and hash) differs from what the
  index recorded: a stream that grew, or whose head went backwards or changed hash (a journal restored or
  replaced); a stream that vanished is dropped. That walk costs about 25 us per stream, so it runs on the request
  while the journal has at most `inline_streams` streams (small journals: the answer is always fresh), and
  otherwise in a background thread, at most once per `min_interval_s`, while requests answer from the index as it
  is: at 100,000 runs, a write by another process shows in the list seconds later.
* The very first request of a new (or deleted) index folds the whole journal before it answers.
"""

from __future__ import annotations

import base64
import binascii
import json
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alicorn.core.conversation import PREFIX
from alicorn.core.conversation import fold as fold_conversation
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.runtime.state import fold
from alicorn.service.heads import heads_of

INDEX_FILE = "run-index.db"
_VERSION = "3"  # 2: conversations; 3: decision and approvers
_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
_TABLES = ("streams", "links", "runs", "approvers", "conversations", "meta")
_SCHEMA = f"""
{_META};
CREATE TABLE IF NOT EXISTS streams (stream TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS links (run TEXT PRIMARY KEY, workflow TEXT, conversation TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run TEXT PRIMARY KEY, status TEXT NOT NULL, project TEXT NOT NULL, workflow TEXT, agent TEXT NOT NULL,
    provenance TEXT NOT NULL, goal TEXT NOT NULL, plan_hash TEXT NOT NULL, created_at TEXT NOT NULL,
    finished_at TEXT, nodes INTEGER NOT NULL, succeeded INTEGER NOT NULL, events INTEGER NOT NULL,
    decision TEXT, approvers TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS approvers (
    approver TEXT NOT NULL, created_at TEXT NOT NULL, run TEXT NOT NULL, PRIMARY KEY (approver, created_at, run)
);
CREATE INDEX IF NOT EXISTS approvers_run ON approvers (run);
CREATE TABLE IF NOT EXISTS conversations (
    conversation TEXT PRIMARY KEY, phase TEXT NOT NULL, finished INTEGER NOT NULL, received_at TEXT NOT NULL,
    author TEXT, project TEXT, text TEXT, run TEXT, outcome TEXT
);
CREATE INDEX IF NOT EXISTS conversations_received ON conversations (received_at, conversation);
CREATE INDEX IF NOT EXISTS conversations_open ON conversations (finished, phase);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at, run);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, created_at, run);
CREATE INDEX IF NOT EXISTS runs_project ON runs (project, created_at, run);
CREATE INDEX IF NOT EXISTS runs_workflow ON runs (workflow, created_at, run);
CREATE INDEX IF NOT EXISTS runs_agent ON runs (agent, created_at, run);
CREATE INDEX IF NOT EXISTS runs_decision ON runs (decision, created_at, run);
"""
_COLUMNS = (
    "run, status, project, workflow, agent, provenance, goal, plan_hash, created_at, finished_at, nodes, succeeded, "
    "events, decision, approvers"
)
_FIELDS = tuple(c.strip() for c in _COLUMNS.split(","))
_RUN_COLUMNS = ", ".join(f"r.{c}" for c in _FIELDS)
#: What the conversation list shows of each conversation (alicorn.service.conversations), in the table's order.
CONVERSATION_FIELDS = ("conversation", "phase", "received_at", "author", "project", "text", "run", "outcome")
#: Streams folded per write of the index: requests wait for the index's lock at most one chunk's write.
_CHUNK = 500


class CursorError(ValueError):
    """A paging cursor this index did not give."""


@dataclass(frozen=True)
class RunFilter:
    """What the run list is narrowed to; `since`/`until` bound the created time (`at` strings, until exclusive)."""

    status: tuple[str, ...] = ()
    project: str | None = None
    workflow: str | None = None
    agent: str | None = None
    provenance: str | None = None
    decision: str | None = None  # Anvil's: allow, needs_approval, deny
    approver: str | None = None  # a person who approved it (human:NAME)
    since: str | None = None
    until: str | None = None


@dataclass(frozen=True)
class Page:
    runs: list[dict[str, Any]]
    next_cursor: str | None


@dataclass(frozen=True)
class ConversationPage:
    conversations: list[dict[str, Any]]
    next_cursor: str | None


@dataclass(frozen=True)
class Unfinished:
    """What a start resumes: conversations neither new nor finished (advancing one resumes its runs) and the runs
    left running that none of them owns and that are not archived."""

    conversations: list[str]
    runs: list[str]


@dataclass(frozen=True)
class _Folded:
    """One stream as the index records it: its head, and its run row, conversation row and links, if any."""

    stream: str
    last: Event
    run: tuple[Any, ...] | None = None
    conversation: tuple[Any, ...] | None = None
    links: dict[str, str | None] | None = None


def encode_cursor(created_at: str, run: str) -> str:
    raw = json.dumps([created_at, run], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise CursorError(cursor) from None
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise CursorError(cursor)
    return value[0], value[1]


def _run_row(run: str, events: Sequence[Event], workflow: str | None) -> tuple[Any, ...]:
    state = fold(events, run)
    created = events[0].data
    return (
        run,
        state.status,
        state.project,
        workflow,
        state.proposed_by,
        str(created.get("provenance", "human")),
        str(state.plan.get("goal", "")),
        state.plan_hash,
        state.created_at,
        state.finished_at,
        len(state.nodes),
        sum(1 for n in state.nodes.values() if n.status == "succeeded"),
        state.last_seq,
        admission(events),
        json.dumps(sorted({str(a["by"]) for a in state.approvals if a.get("by")})),
    )


_DECISIONS = ("allow", "needs_approval", "deny")


def admission(events: Sequence[Event]) -> str | None:
    """Anvil's decision when the run was admitted: the strictest of its first consecutive `anvil.check` events
    (later batches re-check after an approval or a resume); None for a run journaled without Anvil's checks."""
    found: str | None = None
    for event in events:
        if event.kind == "anvil.check" and event.data.get("decision") in _DECISIONS:
            decision = str(event.data["decision"])
            if found is None or _DECISIONS.index(decision) > _DECISIONS.index(found):
                found = decision
        elif found is not None:
            break
    return found


def _conversation_row(stream: str, events: Sequence[Event]) -> tuple[Any, ...]:
    state = fold_conversation(events)
    intent = state.envelope
    return (
        stream,
        state.phase,
        int(state.finished),
        state.received_at or events[0].at,
        intent.get("author"),
        intent.get("project"),
        intent.get("utterance"),
        state.run,
        (state.report or {}).get("outcome"),
    )


def _links(events: Sequence[Event]) -> dict[str, str | None]:
    """The runs a conversation linked, each with the workflow selected before it."""
    workflow: str | None = None
    found: dict[str, str | None] = {}
    for event in events:
        if event.kind == "workflow.selected":
            workflow = event.data.get("workflow")
        elif event.kind == "run.linked":
            found[str(event.data["run"])] = workflow
    return found


class RunIndex:
    """The projection over the journal `store` (SQLite or PostgreSQL), kept in the file `path` (see the module
    docstring)."""

    def __init__(
        self, store: JournalStore, path: Path, *, inline_streams: int = 2000, min_interval_s: float = 1.0
    ) -> None:
        self.store = store
        self.path = path
        self.inline_streams = inline_streams
        self.min_interval_s = min_interval_s
        self._db_lock = threading.Lock()  # the index's own connection
        self._scan_lock = threading.Lock()  # one walk of the heads at a time
        self._dirty_lock = threading.Lock()
        self._dirty: set[str] = set()
        self._version: object | None = None  # the journal's version at the last walk; None: never walked
        self._streams = 0  # how many streams the last walk found
        self._scan_s = 0.0  # how long it took
        self._last_scan = 0.0
        self._wake = threading.Event()
        self._closing = False
        self._background: threading.Thread | None = None
        self._heads = heads_of(store)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")  # a cache: a lost write is folded again from the journal
        self._db.execute(_META)
        version = self._db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        stale = version is None or version[0] != _VERSION
        if stale:  # another format: its tables go, and the journal is folded again into this one's
            for table in _TABLES:
                self._db.execute(f"DROP TABLE IF EXISTS {table}")
        self._db.executescript(_SCHEMA)
        if stale:
            self._reset()
        #: Each stream's head as the index recorded it (the streams table, kept in memory for the walk's diff).
        self._known: dict[str, tuple[int, str]] = {
            name: (seq, digest) for name, seq, digest in self._db.execute("SELECT stream, seq, hash FROM streams")
        }
        self._unsubscribe = store.observe(self._observed)

    def close(self) -> None:
        self._unsubscribe()
        self._closing = True
        self._wake.set()
        if self._background is not None:
            self._background.join(30)
        with self._scan_lock, self._db_lock:
            self._heads.close()
            self._db.close()

    def _observed(self, stream: str, events: Sequence[Event]) -> None:
        with self._dirty_lock:
            self._dirty.add(stream)

    def _reset(self) -> None:
        with self._db_lock:
            db = self._db
            db.execute("BEGIN")
            for table in _TABLES:
                db.execute(f"DELETE FROM {table}")
            db.execute("INSERT INTO meta VALUES ('version', ?)", (_VERSION,))
            db.execute("COMMIT")
            self._known = {}

    def rebuild(self) -> int:
        """Forget everything and fold every stream again; returns the number of streams folded."""
        with self._scan_lock:
            self._reset()
        return self.reconcile()

    def catch_up(self) -> None:
        """What a request does first: fold what this process appended, and notice what others did."""
        with self._dirty_lock:
            dirty, self._dirty = self._dirty, set()
        if dirty:
            self._apply(sorted(dirty, key=_runs_first), [])
        if self._version is None:
            self.reconcile()
            return
        if self._heads.version() == self._version:
            return
        if self._streams <= self.inline_streams:
            self.reconcile()
        else:
            self._start_background()

    def journal_version(self) -> object:
        """The journal's version (see `alicorn.service.heads`): it differs from every earlier reading once another
        writer has committed, so a caller that saw it unchanged knows nobody else wrote meanwhile."""
        with self._scan_lock:  # the journal's connection is the walk's
            return self._heads.version()

    def reconcile(self) -> int:
        """Walk every stream's head and fold again those that changed; returns how many were folded."""
        with self._scan_lock:
            version = self._heads.version()  # read first: a commit after it is noticed next time
            started = time.perf_counter()
            heads = self._heads.read()
            with self._db_lock:
                known = dict(self._known)
            changed = sorted((s for s, head in heads.items() if known.get(s) != head), key=_runs_first)
            self._apply(changed, [s for s in known if s not in heads])
            self._scan_s = time.perf_counter() - started
            self._streams = len(heads)
            self._last_scan = time.monotonic()
            self._version = version
            return len(changed)

    def _start_background(self) -> None:
        self._wake.set()
        if self._background is None:
            self._background = threading.Thread(target=self._reconciler, name="run-index", daemon=True)
            self._background.start()

    def _reconciler(self) -> None:
        while not self._closing:
            self._wake.wait()
            self._wake.clear()
            wait = self.min_interval_s - (time.monotonic() - self._last_scan)
            if wait > 0 and not self._closing:
                time.sleep(wait)
            if self._closing:
                return
            try:
                if self._heads.version() != self._version:
                    self.reconcile()
            except Exception as exc:  # a journal that cannot be read now: said, and tried again on the next change
                print(f"alicorn serve: warning: the run index could not catch up: {exc}", file=sys.stderr)

    def _apply(self, changed: list[str], gone: list[str]) -> None:
        """Fold `changed` (read and folded outside the index's lock, written in chunks under it) and drop `gone`."""
        if gone:
            with self._db_lock:
                self._write([], gone)
        for first in range(0, len(changed), _CHUNK):
            folded: list[_Folded] = []
            for stream in changed[first : first + _CHUNK]:
                events = self.store.read(stream)
                if not events:
                    continue
                if events[0].kind == "run.created":
                    folded.append(_Folded(stream, events[-1], run=_run_row(stream, events, None)))
                elif stream.startswith(PREFIX) and events[0].kind == "intent.received":
                    row = _conversation_row(stream, events)
                    folded.append(_Folded(stream, events[-1], conversation=row, links=_links(events)))
                else:
                    folded.append(_Folded(stream, events[-1], links=_links(events)))
            with self._db_lock:
                self._write(folded, [])

    def _write(self, folded: list[_Folded], gone: list[str]) -> None:
        db = self._db
        db.execute("BEGIN")
        try:
            for stream in gone:
                db.execute("DELETE FROM streams WHERE stream = ?", (stream,))
                db.execute("DELETE FROM runs WHERE run = ?", (stream,))
                db.execute("DELETE FROM approvers WHERE run = ?", (stream,))
                db.execute("DELETE FROM links WHERE conversation = ?", (stream,))
                db.execute("DELETE FROM conversations WHERE conversation = ?", (stream,))
            for one in folded:
                if one.run is not None:
                    link = db.execute("SELECT workflow FROM links WHERE run = ?", (one.stream,)).fetchone()
                    row = (*one.run[:3], link[0] if link else None, *one.run[4:])
                    db.execute(f"INSERT OR REPLACE INTO runs ({_COLUMNS}) VALUES ({', '.join('?' * len(row))})", row)
                    db.execute("DELETE FROM approvers WHERE run = ?", (one.stream,))
                    for person in json.loads(row[-1]):
                        db.execute("INSERT INTO approvers VALUES (?, ?, ?)", (person, row[8], one.stream))
                if one.conversation is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", one.conversation
                    )
                for run, workflow in (one.links or {}).items():
                    db.execute("INSERT OR REPLACE INTO links VALUES (?, ?, ?)", (run, workflow, one.stream))
                    db.execute("UPDATE runs SET workflow = ? WHERE run = ?", (workflow, run))
                db.execute("INSERT OR REPLACE INTO streams VALUES (?, ?, ?)", (one.stream, one.last.seq, one.last.hash))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        for stream in gone:
            self._known.pop(stream, None)
        for one in folded:
            self._known[one.stream] = (one.last.seq, one.last.hash)

    def page(self, where: RunFilter, *, limit: int, cursor: str | None = None) -> Page:
        """Runs matching `where`, newest first (created time, then id), `limit` at most, after `cursor`.

        With an approver, the walk starts from the approvers table (its key is approver, created time, run), so a
        person who approved half of 100,000 runs is paged in index order rather than sorted on every request."""
        self.catch_up()
        clauses: list[str] = []
        params: list[Any] = []
        tables = "runs r"
        order = "r"  # the table whose (created_at, run) the walk follows
        if where.approver is not None:
            tables, order = "approvers a CROSS JOIN runs r ON r.run = a.run", "a"  # CROSS JOIN: approvers first
            clauses.append("a.approver = ?")
            params.append(where.approver)
        if where.status:
            clauses.append(f"r.status IN ({', '.join('?' * len(where.status))})")
            params.extend(where.status)
        for column in ("project", "workflow", "agent", "provenance", "decision"):
            value = getattr(where, column)
            if value is not None:
                clauses.append(f"r.{column} = ?")
                params.append(value)
        if where.since is not None:
            clauses.append(f"{order}.created_at >= ?")
            params.append(where.since)
        if where.until is not None:
            clauses.append(f"{order}.created_at < ?")
            params.append(where.until)
        if cursor is not None:
            clauses.append(f"({order}.created_at, {order}.run) < (?, ?)")
            params.extend(decode_cursor(cursor))
        sql = f"SELECT {_RUN_COLUMNS} FROM {tables}"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += f" ORDER BY {order}.created_at DESC, {order}.run DESC LIMIT ?"
        with self._db_lock:
            rows = self._db.execute(sql, (*params, limit + 1)).fetchall()
        runs = [dict(zip(_FIELDS, row, strict=True)) for row in rows[:limit]]
        for run in runs:
            run["approvers"] = json.loads(run["approvers"])
        more = len(rows) > limit
        return Page(runs, encode_cursor(runs[-1]["created_at"], runs[-1]["run"]) if more else None)

    def conversations(self, *, limit: int, cursor: str | None = None) -> ConversationPage:
        """Conversations, newest first (received time, then id), `limit` at most, after `cursor`."""
        self.catch_up()
        sql = f"SELECT {', '.join(CONVERSATION_FIELDS)} FROM conversations"
        params: list[Any] = []
        if cursor is not None:
            sql += " WHERE (received_at, conversation) < (?, ?)"
            params.extend(decode_cursor(cursor))
        sql += " ORDER BY received_at DESC, conversation DESC LIMIT ?"
        with self._db_lock:
            rows = self._db.execute(sql, (*params, limit + 1)).fetchall()
        found = [dict(zip(CONVERSATION_FIELDS, row, strict=True)) for row in rows[:limit]]
        more = len(rows) > limit
        last = found[-1] if found else None
        return ConversationPage(
            found, encode_cursor(last["received_at"], last["conversation"]) if more and last else None
        )

    def unfinished(self) -> Unfinished:
        """What a start resumes (see `Unfinished`), after a full walk of the heads (a start must not miss what
        another process left): folding only the streams that changed since the index last saw them."""
        with self._dirty_lock:
            dirty, self._dirty = self._dirty, set()
        if dirty:
            self._apply(sorted(dirty, key=_runs_first), [])
        self.reconcile()
        with self._scan_lock:  # the journal's connection is the walk's
            archived = self._heads.archived()
        with self._db_lock:
            open_ = [
                c for (c,) in self._db.execute(
                    "SELECT conversation FROM conversations WHERE finished = 0 AND phase != 'new' "
                    "ORDER BY received_at, conversation"
                )
            ]  # fmt: skip
            owned = {r for (r,) in self._db.execute(
                "SELECT l.run FROM links l JOIN conversations c ON c.conversation = l.conversation "
                "WHERE c.finished = 0 AND c.phase != 'new'"
            )}  # fmt: skip
            running = [r for (r,) in self._db.execute("SELECT run FROM runs WHERE status = 'running' ORDER BY run")]
        return Unfinished(open_, [r for r in running if r not in owned and r not in archived])

    def count(self) -> int:
        with self._db_lock:
            return int(self._db.execute("SELECT count(*) FROM runs").fetchone()[0])


def _runs_first(stream: str) -> tuple[int, str]:
    """Conversations after runs, so a link finds its run's row already there."""
    return (1 if stream.startswith("conv-") else 0, stream)
