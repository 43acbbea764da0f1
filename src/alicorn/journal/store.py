"""The journal store interface, shared by every engine.

One abstract class holds the logic (optimistic concurrency, chaining, archiving); each engine overrides only the
small `_*_txn` hooks that touch storage, in the manner of DBOS's system database. Appends of one step are one
transaction: either every event of the batch is stored, or none is.

Group commit (`group_commit`, on in the durable engines): appends that threads of one process make at the same time
share one write transaction and so one fsync. Each append keeps its own guarantees inside it, under a savepoint: its
own head, archive and expected-seq checks and its own guard; a failure of its own rolls back to its savepoint and
fails it alone. A failed commit fails every append of the group. See `JournalStore._append_grouped`.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import re
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Self

from alicorn.crashpoints import DISARMED, CrashPoints
from alicorn.errors import (
    ConcurrentAppendError,
    EnvironmentFailure,
    JournalError,
    JournalIntegrityError,
    StreamArchivedError,
    StreamLockedError,
    UnknownStreamError,
)
from alicorn.journal.events import Draft, Event, chain, parse_line, verify_stream
from alicorn.journal.summaries import RunSummary, advance, newest_first, summarize
from alicorn.secrets import KnownSecrets

_STREAM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$")
SEGMENT_FORMAT = "alicorn-segment"
SEGMENT_VERSION = 1

#: A journal observer: called with the stream's name and the events of one committed append (see `observe`).
Observer = Callable[[str, Sequence[Event]], None]
#: How long the leader of a group commit waits, at most, for the appends of other runs it expects (seconds).
GROUP_WINDOW_S = 0.002
#: The most appends one group commit takes; the rest form the next group.
GROUP_MAX = 256

#: An append guard: called with the engine's open write transaction before an append's events are inserted (see
#: `guard_appends`); raising refuses the append and rolls the transaction back.
AppendGuard = Callable[[Any], None]


def check_stream_name(stream: str) -> None:
    """Stream names are short, printable identifiers (run ids, `agent:planner`...)."""
    if not isinstance(stream, str) or not _STREAM_NAME.fullmatch(stream):
        raise JournalError(
            f"invalid stream name {stream!r}: use 1-128 characters from letters, digits and _ . : @ -, "
            "starting with a letter or digit"
        )


@dataclass(frozen=True, slots=True)
class Head:
    """The last event of a stream: enough to detect later truncation or rewriting."""

    seq: int
    hash: str


@dataclass(frozen=True, slots=True)
class Known:
    """A stream's state as one engine connection last committed or read it: its head and its run-summary row
    (`summary_read`: whether `summary` is the row, or was never read)."""

    head: Head | None
    summary: RunSummary | None = None
    summary_read: bool = False


@dataclass(frozen=True, slots=True)
class StreamInfo:
    """What the store knows about one stream without folding it."""

    stream: str
    events: int
    bytes: int
    first_at: str
    last_at: str
    head: Head
    archived: bool
    archived_bytes: int = 0


@dataclass(frozen=True)
class SalvagedStream:
    """What could be read of one stream of a damaged journal: `events` from #1 up to `unreadable_from` (exclusive),
    and `later`, events after the damage that could still be read (in order). `unreadable_from` is None when the
    whole stream was read."""

    stream: str
    events: list[Event]
    unreadable_from: int | None = None
    reason: str = ""
    later: list[Event] = field(default_factory=list)


@dataclass(frozen=True)
class Salvage:
    """What could be read of a damaged journal, and what could not (`problems`, beyond single streams)."""

    streams: list[SalvagedStream]
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Segment:
    """A finished stream archived as compressed canonical JSON lines."""

    stream: str
    events: int
    head: Head
    digest: str
    data: bytes
    raw_bytes: int
    first_at: str
    last_at: str


@dataclass(eq=False, slots=True)
class _Queued:
    """One append waiting in the group-commit queue: what to append, and how it ended."""

    stream: str
    drafts: list[Draft]
    texts: list[str]  # each draft's data as canonical JSON (see `JournalStore.encoded`)
    expect: int
    done: threading.Event | None = None  # a follower's, set when it is answered or made leader
    lead: bool = False  # woken to lead the next group, not with a result
    events: list[Event] | None = None
    error: BaseException | None = None


def encode_segment(stream: str, events: Sequence[Event]) -> Segment:
    """Compress a stream's events, headed by a line that names the stream and its head."""
    last = events[-1]
    header = {
        "format": SEGMENT_FORMAT,
        "version": SEGMENT_VERSION,
        "stream": stream,
        "events": len(events),
        "last_seq": last.seq,
        "last_hash": last.hash,
    }
    text = "\n".join([json.dumps(header, sort_keys=True), *(e.line for e in events)]) + "\n"
    raw = text.encode("utf-8")
    data = gzip.compress(raw, compresslevel=6, mtime=0)
    return Segment(
        stream,
        len(events),
        Head(last.seq, last.hash),
        hashlib.sha256(data).hexdigest(),
        data,
        sum(len(e.line.encode("utf-8")) for e in events),
        events[0].at,
        last.at,
    )


def decode_segment(stream: str, data: bytes, expected_digest: str) -> list[Event]:
    """Read an archived segment back, refusing one whose bytes or header do not match what was recorded."""
    if hashlib.sha256(data).hexdigest() != expected_digest:
        raise JournalIntegrityError(
            f"the archive segment of {stream!r} does not match the digest recorded when it was archived "
            "(the segment file was modified or replaced)",
            stream=stream,
        )
    try:
        # Split on "\n" only: canonical JSON keeps U+2028, U+2029 and U+0085 unescaped, and splitlines() would cut
        # an event in two at them.
        lines = gzip.decompress(data).decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        header = json.loads(lines[0])
    except (OSError, ValueError, IndexError) as exc:
        raise JournalIntegrityError(f"the archive segment of {stream!r} cannot be read: {exc}") from exc
    if header.get("format") != SEGMENT_FORMAT or header.get("stream") != stream:
        raise JournalIntegrityError(f"the archive segment of {stream!r} has a foreign header: {header}")
    return [parse_line(line) for line in lines[1:]]


class JournalStore(ABC):
    """An append-only store of hash-chained event streams.

    `crash` lets tests kill the process inside an append (rows written, not committed); disarmed by default.
    `observe` lets a reader follow appends as they are committed (progress displays), without polling.
    `secrets` are this home's known secrets: `append` redacts them (and credentials known by their format) from
    every event before it is chained and stored, so the hash chain covers the redacted text (DESIGN.md invariant 7).
    The default knows no values and applies the detectors only; `alicorn.app.open_app` gives it the home's.
    Every append also keeps its run's summary row (journal/summaries.py) in its own transaction; `run_summaries`
    lists them with one indexed query.

    Subclasses implement the `_*_txn` hooks and `_write_transaction`/`_read_transaction`; all logic lives here.
    A store may be shared by threads of one process; separate processes each open their own.
    """

    crash: CrashPoints = DISARMED
    #: Where the journal is, for messages: a file's path, a server's URL with its password masked.
    location: str = "an in-memory journal"
    secrets: KnownSecrets = KnownSecrets()
    #: Whether concurrent appends share one transaction (see `_append_grouped`); engines with savepoints turn it on.
    group_commit: bool = False
    #: Whether a group with no guarded stream may write its rows together, without savepoints (an engine where an
    #: append's own refusal is decided by reads, before any write: `_commit_group_batched`).
    batched_group_writes: bool = False
    #: The longest a group's leader waits for the appends it expects (the size of the previous group).
    group_window_s: float = GROUP_WINDOW_S
    #: Whether the storage holds a complete run-summary row for every run, kept by every append. False only for a
    #: journal made before summaries were kept and opened read-only: its listing is computed from the events.
    summaries_kept: bool = True

    def __init__(self) -> None:
        self._locks_guard = threading.Lock()
        self._held: set[str] = set()
        self._observers: tuple[tuple[object, Observer], ...] = ()  # replaced whole under the guard, read without it
        self._guards: dict[str, AppendGuard] = {}
        self._writing_guards: set[str] = set()  # streams whose guard writes (see `guard_appends`)
        self._group = threading.Condition(threading.Lock())
        self._queue: list[_Queued] = []  # appends waiting for a group, in arrival order
        self._leading = False  # a thread is leading a group (forming or committing it)
        self._last_group = 1  # how many appends the previous group held: how many the next leader waits for

    # ---- public API -------------------------------------------------------------------------------------------

    def append(self, stream: str, drafts: Sequence[Draft], *, expect: int) -> list[Event]:
        """Append `drafts` atomically after event #`expect` of `stream` (0 for a new stream).

        Raises ConcurrentAppendError if the stream's last event is not #`expect` (another writer got there
        first), StreamArchivedError if the stream is archived. On any error nothing is written.
        """
        check_stream_name(stream)
        if not drafts:
            return []
        drafts, texts = self.encoded(drafts)
        if self.group_commit:
            events = self._append_grouped(stream, drafts, texts, expect)
        else:
            with self._write_transaction() as tx:
                events = self._append_txn(tx, stream, drafts, texts, expect)
        if self._observers:  # the transaction has committed: only now are these events in the journal
            self._notify(stream, tuple(events))
        return events

    def append_together(self, appends: Sequence[tuple[str, Sequence[Draft], int]]) -> list[list[Event] | Exception]:
        """Append to several streams at once: `appends` holds (stream, drafts, expect), at most one per stream. Each
        append is checked, guarded and chained exactly as `append` would, and answered on its own, in order: its
        events, or the error it raised (a conflict, an archived stream, a guard's refusal; a storage failure answers
        every append of the transaction it failed). Where the engine groups commits, they share one transaction and
        one fsync: a driver of many runs in one thread (runtime.together) makes all its steps durable at once."""
        if len({stream for stream, _, _ in appends}) != len(appends):
            raise ValueError("append_together takes at most one append per stream")
        answers: list[list[Event] | Exception | None] = [None] * len(appends)
        queued: list[tuple[int, _Queued]] = []
        for position, (stream, drafts, expect) in enumerate(appends):
            try:
                check_stream_name(stream)
                if not drafts:
                    answers[position] = []
                    continue
                encoded, texts = self.encoded(drafts)
            except Exception as exc:  # this append's own bad input: nothing of it is written
                answers[position] = exc
                continue
            queued.append((position, _Queued(stream, encoded, texts, expect)))
        if self.group_commit and queued:
            self._commit_group([q for _, q in queued])
        else:
            for _, one in queued:
                try:
                    with self._write_transaction() as tx:
                        one.events = self._append_txn(tx, one.stream, one.drafts, one.texts, one.expect)
                except Exception as exc:
                    one.error = exc
        for position, one in queued:
            if one.error is not None and not isinstance(one.error, Exception):
                raise one.error  # a crash or an interrupt stops the driver, as it would stop `append`'s caller
            answers[position] = one.error if one.error is not None else one.events
            if one.events and self._observers:
                self._notify(one.stream, tuple(one.events))
        return [a if a is not None else [] for a in answers]

    def _append_txn(self, tx: Any, stream: str, drafts: list[Draft], texts: list[str], expect: int) -> list[Event]:
        """One append inside the open write transaction `tx`: its checks, its guard, its rows (`texts`: the drafts'
        data, encoded by `encoded`)."""
        events, summary, previous = self._prepare_txn(tx, stream, drafts, texts, expect)
        if summary is not None:
            self._put_summary_txn(tx, summary, previous)
        self._insert_txn(tx, events)
        self.crash.hit("mid_append")
        self._appended_txn(tx, stream, events[-1], summary)
        return events

    def _prepare_txn(
        self, tx: Any, stream: str, drafts: list[Draft], texts: list[str], expect: int
    ) -> tuple[list[Event], RunSummary | None, RunSummary | None]:
        """An append's checks and guard, its events chained and its run summary advanced, nothing written yet: the
        events, the new summary (None when summaries are not kept) and the one it replaces."""
        known = self._known_txn(tx, stream)
        head = known.head if known is not None else self._head_txn(tx, stream)
        # An archived stream has no live events, so only a stream without a live head needs this look-up.
        if head is None and self._archive_record_txn(tx, stream) is not None:
            raise StreamArchivedError(f"stream {stream!r} is archived (finished runs are read-only)")
        actual = head.seq if head else 0
        if actual != expect:
            raise ConcurrentAppendError(stream, expect, actual)
        guard = self._guards.get(stream)
        if guard is not None:
            guard(tx)
        events = chain(stream, actual, head.hash if head else None, drafts, texts)
        summary = previous = None
        if self.summaries_kept:
            # The run's summary row, in this transaction: it commits with the events or not at all. Written before
            # them so an engine can send both in one round trip; a new stream has no row to read yet.
            if not actual:
                previous = None
            elif known is not None and known.summary_read:
                previous = known.summary
            else:
                previous = self._summary_txn(tx, stream)
            summary = advance(previous, events)
        return events, summary, previous

    # ---- group commit -----------------------------------------------------------------------------------------

    def _append_grouped(self, stream: str, drafts: list[Draft], texts: list[str], expect: int) -> list[Event]:
        """Append through the group-commit queue: the result of this append, or its own error.

        Leader and followers: a thread that finds no group forming leads one; the others queue and sleep until the
        leader hands them their result (or the lead of the next group). Why it pays: one fsync for many appends.
        What it keeps: each append is checked, guarded and chained exactly as alone, and a thread appending alone
        (the previous group held one append) never waits.
        """
        mine = _Queued(stream, drafts, texts, expect)
        with self._group:
            lead = not self._leading
            if lead:
                self._leading = True
            else:
                mine.done = threading.Event()
                self._queue.append(mine)
                self._group.notify_all()  # a leader waiting for its group counts arrivals
        if mine.done is not None:
            mine.done.wait()
            lead = mine.lead
        if lead:
            self._lead(mine)
        if mine.error is not None:
            raise mine.error
        if mine.events is None:  # the leader answers every append it took; this guards against a bug, loudly
            raise JournalError(f"the group commit gave the append to {stream!r} no answer; nothing was written")
        return mine.events

    def _lead(self, mine: _Queued) -> None:
        """Form a group around `mine` (waiting at most the window for as many appends as the previous group had),
        commit it, hand the lead to the first append still queued, and wake the group's appenders."""
        group = [mine]
        try:
            if self._queue or self._last_group > 1:  # read unlocked: an append queued meanwhile leads the next group
                with self._group:
                    expected = min(self._last_group, GROUP_MAX)
                    if 1 + len(self._queue) < expected:
                        deadline = time.monotonic() + self.group_window_s
                        while 1 + len(self._queue) < expected and (left := deadline - time.monotonic()) > 0:
                            self._group.wait(left)
                    group = self._take_group(mine)
            self._last_group = len(group)  # only the leader writes it, and there is one leader at a time
            self._commit_group(group)
        finally:
            with self._group:
                if self._queue:
                    successor = self._queue.pop(0)
                    successor.lead = True
                    if successor.done is not None:
                        successor.done.set()
                else:
                    self._leading = False
            for queued in group:
                if queued.events is None and queued.error is None:  # never left unanswered, whatever happened
                    queued.error = JournalError("the group commit holding this append stopped before it committed")
                if queued.done is not None:
                    queued.done.set()

    def _take_group(self, first: _Queued) -> list[_Queued]:
        """The group led by `first`, then the queue in arrival order: at most one append per stream (a second append
        to a stream waits for the next group, so it is checked against the first one's committed result), at most
        GROUP_MAX."""
        group = [first]
        rest: list[_Queued] = []
        streams = {first.stream}
        for queued in self._queue:
            if queued.stream in streams or len(group) >= GROUP_MAX:
                rest.append(queued)
            else:
                streams.add(queued.stream)
                group.append(queued)
        self._queue = rest
        return group

    def _commit_group(self, group: list[_Queued]) -> None:
        """Run the group's appends in one write transaction, each under a savepoint; answer each one."""
        if len(group) == 1:  # alone: exactly the transaction of an ungrouped append, no savepoint
            one = group[0]
            try:
                with self._write_transaction() as tx:
                    one.events = self._append_txn(tx, one.stream, one.drafts, one.texts, one.expect)
            except BaseException as exc:
                one.events, one.error = None, exc
            return
        if self.batched_group_writes and not any(q.stream in self._writing_guards for q in group):
            self._commit_group_batched(group)
            return
        try:
            with self._write_transaction() as tx:
                # In stream order: every group takes its streams' locks in one order (PostgreSQL's per-stream
                # advisory locks), so groups of two processes never deadlock on each other.
                for queued in sorted(group, key=lambda q: q.stream):
                    self._savepoint_txn(tx)
                    try:
                        queued.events = self._append_txn(tx, queued.stream, queued.drafts, queued.texts, queued.expect)
                    except Exception as exc:
                        if self._fails_group(exc):
                            raise
                        self._rollback_to_savepoint_txn(tx)  # this append's own failure: it alone is undone
                        queued.error = exc
                    else:
                        self._release_savepoint_txn(tx)
        except BaseException as exc:  # the group as a whole failed (storage, connection, commit): none is stored
            for queued in group:
                if queued.error is None:
                    queued.events, queued.error = None, self._group_failure(exc, queued)

    def _commit_group_batched(self, group: list[_Queued]) -> None:
        """A group with no guarded stream, in one write transaction, its writes batched: every append is checked and
        chained first, reading only, so an append refused by its own check has written nothing and needs no
        savepoint; then the summaries, one insert of every event, and the commit. A failure while writing fails the
        whole group (nothing of it is stored), as a storage failure does in `_commit_group`."""
        try:
            with self._write_transaction() as tx:
                prepared = []
                self._prefetch_heads_txn(tx, sorted({q.stream for q in group}))
                for queued in sorted(group, key=lambda q: q.stream):  # the lock order of `_commit_group`
                    try:
                        prepared.append(
                            (queued, *self._prepare_txn(tx, queued.stream, queued.drafts, queued.texts, queued.expect))
                        )
                    except Exception as exc:
                        if self._fails_group(exc):
                            raise
                        queued.error = exc  # a conflict, an archived stream: read only, nothing of it written
                self._put_summaries_txn(tx, [(s, p) for _, _, s, p in prepared if s is not None])
                self._insert_txn(tx, [event for _, events, _, _ in prepared for event in events])
                for _ in prepared:
                    self.crash.hit("mid_append")  # once per append, as ungrouped: `mid_append:N` counts the same
                for queued, events, summary, _previous in prepared:
                    self._appended_txn(tx, queued.stream, events[-1], summary)
                    queued.events = events
        except BaseException as exc:  # the transaction is lost: none of the group is stored
            for queued in group:
                if queued.error is None:
                    queued.events, queued.error = None, self._group_failure(exc, queued)

    def _prefetch_heads_txn(self, tx: Any, streams: Sequence[str]) -> None:  # noqa: B027 - optional hook
        """Read what the appends to `streams` will check (their heads, their summaries) at once, for an engine where
        each read is a round trip; `_head_txn` and `_summary_txn` then answer from it."""

    def _put_summaries_txn(self, tx: Any, changes: Sequence[tuple[RunSummary, RunSummary | None]]) -> None:
        """Store the summaries of a group's appends, each over the one it replaces (an engine may batch them)."""
        for summary, previous in changes:
            self._put_summary_txn(tx, summary, previous)

    def _fails_group(self, exc: Exception) -> bool:
        """Whether an error inside one append of a group means the whole transaction is lost (storage failures);
        any other error (a conflict, an archived stream, a guard's refusal, bad data) is that append's own."""
        return isinstance(exc, EnvironmentFailure)

    def _group_failure(self, exc: BaseException, queued: _Queued) -> BaseException:
        """The error one append of a failed group is given: its own copy of `exc` (each appender raises it in its
        own thread). Engines whose failed commit leaves appends in doubt name that append's events instead."""
        try:
            twin = copy.copy(exc)
        except Exception:
            return exc
        return twin if type(twin) is type(exc) and str(twin) == str(exc) else exc

    @contextmanager
    def guard_appends(self, stream: str, guard: AppendGuard, *, reads_only: bool = False) -> Iterator[None]:
        """While inside, every append to `stream` through this store object first calls `guard(tx)` inside its own
        write transaction, after the expected seq was checked and before anything is inserted: what the guard reads
        or writes in `tx` (a row of the same database) commits or rolls back together with the events.

        It is how a job broker fences a worker whose lease was taken over (the guard refuses the append when the
        lease's epoch moved on) and enqueues a run in the transaction that creates it. `tx` is the engine's own
        transaction (an sqlite3 connection, or the PostgreSQL store's transaction), so a guard is written for one
        engine. One guard per stream at a time.

        `reads_only` says the guard writes nothing (it reads, locks a row for sharing, and may refuse): its appends
        may then share a group whose writes are batched, since it runs while the group only reads and a refusal
        leaves nothing to undo. A guard that writes keeps its appends under a savepoint each."""
        check_stream_name(stream)
        with self._locks_guard:
            if stream in self._guards:
                raise JournalError(f"appends to {stream!r} are already guarded through this store")
            self._guards[stream] = guard
            if not reads_only:
                self._writing_guards.add(stream)
        try:
            yield
        finally:
            with self._locks_guard:
                self._guards.pop(stream, None)
                self._writing_guards.discard(stream)

    def redacted(self, drafts: Sequence[Draft]) -> list[Draft]:
        """`drafts` as `append` stores them: every known secret and detected secret replaced by a placeholder."""
        return self.encoded(drafts)[0]

    def encoded(self, drafts: Sequence[Draft]) -> tuple[list[Draft], list[str]]:
        """`drafts` as `append` stores them (see `redacted`), and each one's data as canonical JSON: the text the
        redaction probed is the text the event is sealed with, so an event's data is encoded once."""
        out, texts = [], []
        for draft in drafts:
            data, text = self.secrets.redact_encoded(draft.data)
            out.append(draft if data is draft.data else Draft(draft.kind, draft.at, data))
            texts.append(text)
        return out, texts

    def observe(self, callback: Observer) -> Callable[[], None]:
        """Call `callback(stream, events)` after every committed append through this store object; returns the
        function that stops it (calling that twice is harmless).

        Only appends that committed are seen: a conflicting, refused or failed append calls nothing, and neither
        does a write another process (or another store object on the same file) makes. The callback runs in the
        appending thread, after the commit and outside every lock of the store, so it may read the store; it must
        be quick (the appender waits for it) and must not change the events (they are the appender's too). Appends
        of different threads may be reported out of their commit order. A callback that raises breaks nothing: the
        append stands and returns normally, and that callback is dropped with one warning on stderr.

        Effect-free steps of a `durability="grouped"` run are appended (so seen) when their group is made
        durable, at most a group delay after they happened.
        """
        token = object()  # one per subscription: the same callback observed twice is two subscriptions
        with self._locks_guard:
            self._observers = (*self._observers, (token, callback))

        def unsubscribe() -> None:
            self._drop_observer(token)

        return unsubscribe

    def _drop_observer(self, token: object) -> bool:
        """Remove one subscription; False if it was already gone."""
        with self._locks_guard:
            kept = tuple(o for o in self._observers if o[0] is not token)
            gone, self._observers = len(kept) < len(self._observers), kept
        return gone

    def _notify(self, stream: str, events: Sequence[Event]) -> None:
        for token, callback in self._observers:  # a snapshot: callbacks may unsubscribe while it runs
            try:
                callback(stream, events)
            except Exception as exc:  # an observer must never undo or fail an append that is already committed
                if self._drop_observer(token):
                    name = getattr(callback, "__qualname__", None) or type(callback).__name__
                    print(
                        f"alicorn: warning: journal observer {name} raised {type(exc).__name__}: {exc}; "
                        "it is no longer called (the append it saw is committed)",
                        file=sys.stderr,
                    )

    def read(self, stream: str, after: int = 0) -> list[Event]:
        """Events of `stream` with seq > `after`, in order (from the archive segment if archived)."""
        with self._read_transaction() as tx:
            record = self._archive_record_txn(tx, stream)
            if record is None:
                return self._read_txn(tx, stream, after)
        digest, data = record[0], self._load_segment(stream)
        return [e for e in decode_segment(stream, data, digest) if e.seq > after]

    def head(self, stream: str) -> Head | None:
        """The last event's seq and hash, or None for a stream that does not exist."""
        with self._read_transaction() as tx:
            record = self._archive_record_txn(tx, stream)
            if record is not None:
                return record[1]
            return self._head_txn(tx, stream)

    def last_seq(self, stream: str) -> int:
        """The last event's seq; 0 for a stream with no events."""
        h = self.head(stream)
        return h.seq if h else 0

    def require(self, stream: str) -> Head:
        """The stream's head; UnknownStreamError if it does not exist."""
        h = self.head(stream)
        if h is None:
            raise UnknownStreamError(stream)
        return h

    def streams(self) -> list[StreamInfo]:
        """Every stream, live and archived, ordered by first event time then name."""
        with self._read_transaction() as tx:
            infos = self._streams_txn(tx)
        return sorted(infos, key=lambda i: (i.first_at, i.stream))

    def run_summaries(self, *, limit: int | None, status: str | None = None) -> list[RunSummary]:
        """The runs' summaries, newest created first (ties: the greater stream name first), at most `limit` (None:
        all), only those whose status is `status` when given; archived runs included. One indexed query, unless
        the journal predates summaries and was opened read-only (then computed from its events, writing nothing)."""
        if limit is not None and limit < 0:
            raise JournalError(f"a run listing's limit must be 0 or more, not {limit}")
        with self._read_transaction() as tx:
            if self.summaries_kept:
                return self._summaries_txn(tx, limit, status)
            rows = self._computed_summaries_txn(tx)
        return newest_first(rows, limit=limit, status=status)

    def run_count(self, *, status: str | None = None) -> int:
        """How many runs there are (with status `status`, when given), as `run_summaries` would list them all."""
        with self._read_transaction() as tx:
            if self.summaries_kept:
                return self._summary_count_txn(tx, status)
            return len(newest_first(self._computed_summaries_txn(tx), limit=None, status=status))

    def _computed_summaries_txn(self, tx: Any) -> list[RunSummary]:
        """Every run's summary computed from its events (live or archived) in `tx`: what a journal made before
        summaries were kept holds, and how its table is filled the first time it is opened for writing."""
        out = []
        for info in self._streams_txn(tx):
            if info.archived:
                record = self._archive_record_txn(tx, info.stream)
                digest = record[0] if record is not None else ""
                events = decode_segment(info.stream, self._load_segment_txn(tx, info.stream), digest)
            else:
                events = self._read_txn(tx, info.stream, 0)
            summary = summarize(events)
            if summary is not None:
                out.append(replace(summary, archived_bytes=info.archived_bytes) if info.archived else summary)
        return out

    def _backfill_summaries_txn(self, tx: Any) -> int:
        """Write every run's computed summary in the open write transaction `tx`; how many runs there were."""
        rows = self._computed_summaries_txn(tx)
        for summary in rows:
            self._put_summary_txn(tx, summary)
        return len(rows)

    def heads(self) -> dict[str, Head]:
        """Every stream's head: what `alicorn journal head` saves to detect truncation later."""
        return {info.stream: info.head for info in self.streams()}

    def archive(self, stream: str) -> StreamInfo:
        """Move a stream's events into a compressed segment that still verifies and replays.

        The stream must verify first. The segment is written durably before the events are removed, in one
        transaction that also checks nobody appended meanwhile.
        """
        events = self.read(stream)
        if not events:
            raise UnknownStreamError(stream)
        if self.is_archived(stream):
            raise StreamArchivedError(f"stream {stream!r} is already archived")
        problem = verify_stream(stream, events)
        if problem is not None:
            raise JournalIntegrityError(f"refusing to archive a stream that does not verify: {problem}")
        segment = encode_segment(stream, events)
        if [e.line for e in decode_segment(stream, segment.data, segment.digest)] != [e.line for e in events]:
            raise JournalIntegrityError(f"the archive segment of {stream!r} does not read back identically; kept live")
        self._save_segment(segment)
        with self._write_transaction() as tx:
            head = self._head_txn(tx, stream)
            if head != segment.head:
                raise ConcurrentAppendError(stream, segment.head.seq, head.seq if head else 0)
            self._archive_txn(tx, segment)
            summary = self._summary_txn(tx, stream) if self.summaries_kept else None
            if summary is not None:  # the listing shows archived runs too, with their segment's size
                self._put_summary_txn(tx, replace(summary, archived_bytes=len(segment.data)))
        return StreamInfo(
            stream,
            segment.events,
            segment.raw_bytes,
            segment.first_at,
            segment.last_at,
            segment.head,
            True,
            len(segment.data),
        )

    def is_archived(self, stream: str) -> bool:
        with self._read_transaction() as tx:
            return self._archive_record_txn(tx, stream) is not None

    def iter_all(self) -> Iterator[tuple[str, list[Event]]]:
        """Every stream with its events (for whole-journal verification)."""
        for info in self.streams():
            yield info.stream, self.read(info.stream)

    @contextmanager
    def lock(self, stream: str) -> Iterator[None]:
        """Hold the right to drive `stream` (one process at a time); StreamLockedError if someone else holds it.

        This in-process version serves the in-memory store; engines shared between processes override it.
        """
        with self._locks_guard:
            if stream in self._held:
                raise StreamLockedError(f"run {stream!r} is already being driven in this process")
            self._held.add(stream)
        try:
            yield
        finally:
            with self._locks_guard:
                self._held.discard(stream)

    def storage_problems(self) -> list[str]:
        """What the engine finds wrong with its storage itself (damaged pages...); empty when sound or unknown."""
        return []

    def damage_mark(self) -> str | None:
        """What `mark_damaged` recorded (the finding of a verification that failed), or None when unmarked. While
        a journal is marked, its writers refuse to open it. Engines that keep no mark answer None."""
        return None

    def mark_damaged(self, finding: str) -> bool:
        """Record that verification found this journal damaged, so that writers stop appending to it (and to the
        copy that must be kept for forensics). False when the engine keeps no mark or it could not be written."""
        return False

    def clear_damage_mark(self) -> bool:
        """Remove the mark once the journal verifies again (restored from a backup); True when there was one."""
        return False

    def salvage(self) -> Salvage:
        """Read what can be read of a journal whose storage is damaged. Engines without damage to salvage from
        read every stream the ordinary way."""
        return Salvage([SalvagedStream(info.stream, self.read(info.stream)) for info in self.streams()])

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources; the store is unusable afterwards."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- engine hooks -----------------------------------------------------------------------------------------

    @abstractmethod
    def _write_transaction(self) -> AbstractContextManager[Any]:
        """A transaction that serializes writers; commits on normal exit, rolls back on exception."""

    @abstractmethod
    def _read_transaction(self) -> AbstractContextManager[Any]:
        """A consistent read snapshot."""

    def _savepoint_txn(self, tx: Any) -> None:
        """Mark the point the next append of a group can be rolled back to (engines with `group_commit`)."""
        raise NotImplementedError(f"{type(self).__name__} has no savepoints: it cannot group commits")

    def _release_savepoint_txn(self, tx: Any) -> None:
        """The append since the last savepoint succeeded: keep it."""
        raise NotImplementedError(f"{type(self).__name__} has no savepoints: it cannot group commits")

    def _rollback_to_savepoint_txn(self, tx: Any) -> None:
        """Undo everything since the last savepoint (one append of a group failed on its own)."""
        raise NotImplementedError(f"{type(self).__name__} has no savepoints: it cannot group commits")

    @abstractmethod
    def _head_txn(self, tx: Any, stream: str) -> Head | None: ...

    def _known_txn(self, tx: Any, stream: str) -> Known | None:
        """What an engine knows, without reading, of `stream` in the open write transaction `tx`: its head and
        (when `summary_read`) its summary row, or None when it must read them. Knowing is optional: an engine that
        answers must be certain no write it did not see has happened since (SQLite: `PRAGMA data_version`)."""
        return None

    def _appended_txn(self, tx: Any, stream: str, last: Event, summary: RunSummary | None) -> None:
        """`stream`'s append in `tx` ended with `last` and left `summary` (the row, when `summaries_kept`): an engine
        that remembers them (`_known_txn`) does so once `tx` commits."""
        return None

    @abstractmethod
    def _insert_txn(self, tx: Any, events: list[Event]) -> None: ...

    @abstractmethod
    def _read_txn(self, tx: Any, stream: str, after: int) -> list[Event]: ...

    @abstractmethod
    def _streams_txn(self, tx: Any) -> list[StreamInfo]: ...

    @abstractmethod
    def _archive_record_txn(self, tx: Any, stream: str) -> tuple[str, Head] | None:
        """(segment digest, head) if the stream is archived."""

    @abstractmethod
    def _save_segment(self, segment: Segment) -> None:
        """Store the segment's bytes durably (before the archive transaction)."""

    @abstractmethod
    def _load_segment(self, stream: str) -> bytes: ...

    @abstractmethod
    def _load_segment_txn(self, tx: Any, stream: str) -> bytes:
        """An archived stream's segment bytes, read inside the open transaction `tx` (backfilling summaries)."""

    @abstractmethod
    def _summary_txn(self, tx: Any, stream: str) -> RunSummary | None:
        """The run's summary row, or None (not a run, or no such stream)."""

    @abstractmethod
    def _put_summary_txn(self, tx: Any, summary: RunSummary, previous: RunSummary | None = None) -> None:
        """Write the run's summary row (insert or replace), in the caller's write transaction. `previous` is the row
        as it was read in this transaction, when the caller has it: an engine may then write only what changed."""

    @abstractmethod
    def _summaries_txn(self, tx: Any, limit: int | None, status: str | None) -> list[RunSummary]:
        """Summary rows newest created first (then stream name, descending), filtered and limited, by one query."""

    @abstractmethod
    def _summary_count_txn(self, tx: Any, status: str | None) -> int: ...

    @abstractmethod
    def _archive_txn(self, tx: Any, segment: Segment) -> None:
        """Record the archive and delete the stream's live events, in the caller's transaction."""
