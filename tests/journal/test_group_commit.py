"""Group commit on every engine: appends of many threads share one transaction, each with its own guarantees.

Most tests here form a group on purpose, without timing: a first append ("gate") holds its transaction open with an
append guard until the appends under test have all queued behind it, so they are the next group, in a known order.
Commits are counted at the engine's write-transaction hook, outside the code under test.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest

from alicorn.errors import ConcurrentAppendError, JournalError, StreamArchivedError
from alicorn.journal.events import Draft, Event
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.postgres import JournalServerError, PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.journal.verify import verify_journal
from alicorn.testing.commits import count_commits
from tests.pgserver import next_schema

from .harness import at, drafts

Append = tuple[str, Sequence[Draft], int]
Result = list[Event] | BaseException
WAIT_S = 60.0  # how long a test waits for threads to queue before it fails (never reached when all is well)


class Engine:
    """Opens group-committing stores of one engine, and second handles on them (closed after the test)."""

    def __init__(self, name: str, tmp_path: Path, pg_url: str | None) -> None:
        self.name, self.tmp_path, self.pg_url = name, tmp_path, pg_url
        self.opened: list[JournalStore] = []
        self._names = itertools.count()

    def store(self) -> JournalStore:
        store: JournalStore
        if self.name == "memory":
            store = InMemoryStore(group_commit=True)
        elif self.name == "sqlite":
            store = SQLiteStore(self.tmp_path / f"journal-{next(self._names)}.db")
        else:
            assert self.pg_url is not None
            store = PostgresJournalStore(self.pg_url, schema=next_schema("g"))
        assert store.group_commit, "group commit is on by default in every engine that has it"
        self.opened.append(store)
        return store

    def reader(self, store: JournalStore) -> JournalStore:
        """Another handle on the same journal: it sees only what has committed."""
        other: JournalStore
        if isinstance(store, SQLiteStore):
            other = SQLiteStore(store.path, create=False)
        elif isinstance(store, PostgresJournalStore):
            other = PostgresJournalStore(store.url, schema=store.schema, create=False)
        else:
            pytest.skip("the in-memory store cannot be opened twice")
        self.opened.append(other)
        return other


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    made = Engine(request.param, tmp_path, url)
    yield made
    for store in reversed(made.opened):
        store.close()


def wait_until(store: JournalStore, ready: Callable[[], bool]) -> None:
    """Poll `ready` (read under the store's group lock) every millisecond, for at most about WAIT_S."""
    for _ in range(int(WAIT_S * 1000)):
        with store._group:
            if ready():
                return
        time.sleep(0.001)
    raise AssertionError("the appends never queued")


def run_grouped(store: JournalStore, appends: Sequence[Append]) -> list[Result]:
    """Make `appends` (one thread each, queued in this order) while a first append to "gate" holds its transaction
    open, so that they queue behind it and form the next group; each one's events or error."""
    results: list[Result] = [JournalError("never ran")] * len(appends)

    holding = threading.Event()

    def hold(tx: Any) -> None:
        holding.set()
        wait_until(store, lambda: len(store._queue) >= len(appends))

    def call(i: int, stream: str, batch: Sequence[Draft], expect: int) -> None:
        try:
            results[i] = store.append(stream, batch, expect=expect)
        except BaseException as exc:  # collected: each append's own outcome is what the tests look at
            results[i] = exc

    gate_seq = store.last_seq("gate")
    threads = []
    with store.guard_appends("gate", hold):
        gate = threading.Thread(
            target=store.append, args=("gate", drafts(1, start=gate_seq)), kwargs={"expect": gate_seq}
        )
        gate.start()
        assert holding.wait(WAIT_S), "the gate's append never reached its transaction"  # its group is taken
        for i, (stream, batch, expect) in enumerate(appends):
            threads.append(threading.Thread(target=call, args=(i, stream, batch, expect)))
            threads[-1].start()
            if i < len(appends) - 1:  # queued before the next starts (after the last, the gate may be gone already)
                wait_until(store, lambda i=i: len(store._queue) > i)  # type: ignore[misc]
        for t in [gate, *threads]:
            t.join(timeout=WAIT_S)
    return results


def one(stream: str, n: int, expect: int = 0) -> Append:
    return (stream, drafts(n, start=expect, tag=stream), expect)


def test_concurrent_appends_of_many_runs_share_one_commit(engine: Engine) -> None:
    store = engine.store()
    commits = count_commits(store)
    seen: list[tuple[str, int]] = []
    store.observe(lambda stream, events: seen.extend((stream, e.seq) for e in events))
    results = run_grouped(store, [one(f"run-{i}", 1 + i % 3) for i in range(12)])
    assert commits == [2]  # the gate's transaction, then one for all twelve
    for i, result in enumerate(results):
        assert isinstance(result, list), result
        assert [e.seq for e in result] == list(range(1, 2 + i % 3))
        assert store.read(f"run-{i}") == result
    assert sorted(seen) == sorted([("gate", 1), *((f"run-{i}", s) for i in range(12) for s in range(1, 2 + i % 3))])
    assert verify_journal(store).ok


def test_free_running_threads_commit_in_fewer_transactions_and_every_chain_holds(engine: Engine) -> None:
    if engine.name == "memory":
        pytest.skip("an in-memory commit takes no time, so no append ever queues behind one: nothing to group")
    store = engine.store()
    store.group_window_s = 0.05  # generous, so that grouping does not hang on the machine's scheduling
    commits = count_commits(store)
    threads, appends = 16, 25
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def write(t: int) -> None:
        try:
            start.wait()
            for i in range(appends):
                store.append(f"run-{t}", [Draft("node.done", at(i), {"run": t, "node": i})], expect=i)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    workers = [threading.Thread(target=write, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=WAIT_S)
    assert errors == []
    assert commits[0] < threads * appends / 2, commits
    for t in range(threads):
        events = store.read(f"run-{t}")
        assert [(e.seq, e.data["node"]) for e in events] == [(i + 1, i) for i in range(appends)]
    assert verify_journal(store).ok


def test_an_appends_own_failure_fails_it_alone(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    store = engine.store()
    store.append("run-b", drafts(2), expect=0)
    store.append("run-e", drafts(1), expect=0)
    store.archive("run-e")
    insert = store._insert_txn

    def insert_then_fail(tx: Any, events: list[Event]) -> None:
        insert(tx, events)  # its rows are written inside the group's transaction: its savepoint must undo them
        if events[0].stream == "run-d":
            raise ValueError("a bug after the rows were written")

    monkeypatch.setattr(store, "_insert_txn", insert_then_fail)

    def refuse(tx: Any) -> None:
        raise JournalError("the lease on run-c was taken over by worker:new")

    commits = count_commits(store)
    seen: list[str] = []
    store.observe(lambda stream, events: seen.append(stream))
    appends = [
        one("run-a", 2),
        one("run-b", 1, expect=1),  # its head is #2: a conflict
        one("run-c", 1),  # refused by its guard
        one("run-d", 3),  # fails after inserting
        one("run-e", 1),  # archived
        one("run-g", 1),
    ]
    with store.guard_appends("run-c", refuse):
        results = run_grouped(store, appends)
    assert commits == [2]
    assert isinstance(results[1], ConcurrentAppendError) and "found #2" in str(results[1])
    assert isinstance(results[2], JournalError) and "taken over" in str(results[2])
    assert isinstance(results[3], ValueError)
    assert isinstance(results[4], StreamArchivedError)
    for i, stream in ((0, "run-a"), (5, "run-g")):
        assert isinstance(results[i], list) and store.read(stream) == results[i]
    assert [e.seq for e in store.read("run-b")] == [1, 2]
    assert store.head("run-c") is None and store.head("run-d") is None and store.head("run-f") is None
    assert sorted(seen) == ["gate", "run-a", "run-g"]
    with pytest.raises(ValueError):  # data that is not JSON fails where it is encoded, before it joins a group
        store.append("run-f", [Draft("k", at(0), {"bad": float("nan")})], expect=0)
    assert commits == [2] and store.head("run-f") is None
    monkeypatch.undo()
    assert verify_journal(store).ok
    assert [e.seq for e in store.append("run-d", drafts(3), expect=0)] == [1, 2, 3]  # nothing of it was left


def test_a_failed_commit_fails_every_append_of_the_group_and_stores_nothing(engine: Engine) -> None:
    store = engine.store()
    inner = store._write_transaction
    calls = itertools.count(1)

    @contextlib.contextmanager
    def full_at_second_commit() -> Iterator[Any]:
        with inner() as tx:
            yield tx
            if next(calls) == 2:  # the group's: every append in it ran, then the commit fails
                raise OSError(errno.ENOSPC, "No space left on device")

    store._write_transaction = full_at_second_commit  # type: ignore[method-assign]
    results = run_grouped(store, [one(f"run-{i}", 2) for i in range(5)])
    assert all(isinstance(r, OSError) and "space" in str(r).lower() for r in results), results
    assert len({id(r) for r in results}) == len(results)  # each appender raises its own error object
    assert [store.head(f"run-{i}") for i in range(5)] == [None] * 5
    store._write_transaction = inner  # type: ignore[method-assign]
    for i in range(5):  # nothing was left half-written: the same appends go through
        assert [e.seq for e in store.append(f"run-{i}", drafts(2, tag=f"run-{i}"), expect=0)] == [1, 2]
    assert verify_journal(store).ok


def test_appends_to_one_stream_are_never_in_one_group_and_stay_ordered(engine: Engine) -> None:
    store = engine.store()
    commits = count_commits(store)
    results = run_grouped(store, [one("run-s", 2), one("run-t", 1), one("run-s", 1, expect=2), one("run-s", 1)])
    assert commits == [3]  # the gate; run-s #1-2 with run-t; run-s #3 (its second append waited for the next group)
    assert [e.seq for e in results[0]] == [1, 2]  # type: ignore[union-attr]
    assert [e.seq for e in results[2]] == [3]  # type: ignore[union-attr]
    assert isinstance(results[3], ConcurrentAppendError)  # checked against the committed head, as alone
    assert store.read("run-s") == [*results[0], *results[2]]  # type: ignore[misc]
    assert verify_journal(store).ok


def test_a_lone_appender_never_waits_and_a_leader_waits_at_most_the_window(engine: Engine) -> None:
    store = engine.store()
    waits: list[float] = []
    wait = store._group.wait

    def recorded(timeout: float | None = None) -> bool:
        waits.append(-1.0 if timeout is None else timeout)
        return wait(timeout)

    store._group.wait = recorded  # type: ignore[method-assign]
    store.group_window_s = 3600.0
    for i in range(10):
        store.append("run-alone", drafts(1, start=i), expect=i)
    assert waits == []  # one run appending alone pays no window
    run_grouped(store, [one(f"run-{i}", 1) for i in range(3)])
    waits.clear()
    store.group_window_s = 0.01
    store.append("run-alone", drafts(1, start=10), expect=10)  # expects three appends, as in the last group
    assert waits and all(0 < w <= 0.01 for w in waits)
    waits.clear()
    store.append("run-alone", drafts(1, start=11), expect=11)  # the last group was one append: no wait again
    assert waits == [] and store.last_seq("run-alone") == 12


def test_the_crash_point_is_inside_the_group_transaction_before_its_commit(engine: Engine) -> None:
    store = engine.store()
    reader = engine.reader(store)
    streams = [f"run-{i}" for i in range(4)]
    seen_at_hit: list[list[int]] = []

    class Recorder:
        def hit(self, name: str) -> None:
            if name == "mid_append":
                seen_at_hit.append([reader.last_seq(s) for s in streams])

    store.crash = Recorder()  # type: ignore[assignment]
    results = run_grouped(store, [one(s, 1) for s in streams])
    assert all(isinstance(r, list) for r in results)
    # once per append, as ungrouped (so `mid_append:N` counts the same); none of the group committed yet
    assert seen_at_hit == [[0, 0, 0, 0]] * 5
    assert [reader.last_seq(s) for s in streams] == [1, 1, 1, 1]


# ---- PostgreSQL: a failed commit leaves each append of the group in doubt, and its retry is safe -------------


def _terminate(url: str, conn: psycopg.Connection[Any]) -> None:
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s, 5000)", (conn.info.backend_pid,))


@pytest.mark.parametrize("landed", [False, True])
def test_postgres_group_lost_at_commit_is_in_doubt_for_each_append(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, landed: bool
) -> None:
    with PostgresJournalStore(pg_url, schema=next_schema("g")) as store:
        store.append("run-0", drafts(1, tag="run-0"), expect=0)
        seen: list[tuple[str, int]] = []
        store.observe(lambda stream, events: seen.extend((stream, e.seq) for e in events))
        conn = store.raw_connection()
        commit = conn.commit
        calls = itertools.count(1)

        def lost_at_second_commit() -> None:
            if next(calls) != 2:
                return commit()
            if landed:  # the commit reached the server, its confirmation did not reach us
                commit()
                _terminate(pg_url, conn)
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            _terminate(pg_url, conn)  # the server is lost before the commit: the real commit fails
            commit()

        monkeypatch.setattr(conn, "commit", lost_at_second_commit)
        appends = [one("run-0", 2, expect=1), one("run-1", 1), one("run-2", 3)]
        results = run_grouped(store, appends)
        monkeypatch.undo()
        for (stream, _, expect), result in zip(appends, results, strict=True):
            assert isinstance(result, JournalServerError), result
            said = str(result)
            assert "may or may not have been written" in said and f"of {stream!r}" in said
            assert f"same expected seq ({expect})" in said
        assert seen == [("gate", 1)]  # nobody was told of appends in doubt
        assert [store.last_seq(s) for s in ("run-0", "run-1", "run-2")] == ([3, 1, 3] if landed else [1, 0, 0])
        again = [store.append(stream, batch, expect=expect) for stream, batch, expect in appends]
        assert [[e.seq for e in events] for events in again] == [[2, 3], [1], [1, 2, 3]]  # written once, either way
        assert sorted(seen) == sorted(
            [("gate", 1), ("run-0", 2), ("run-0", 3), ("run-1", 1), *(("run-2", s) for s in (1, 2, 3))]
        )
        assert verify_journal(store).ok


def test_a_guard_that_only_reads_keeps_its_group_batched_and_refuses_only_its_own_append(engine: Engine) -> None:
    """A worker's fence reads its job's row and may refuse (`reads_only=True`): the group's writes stay batched (no
    savepoint), the refused append writes nothing, the others commit. A guard that writes keeps its savepoint."""
    store = engine.store()
    savepoints = [0]
    take = store._savepoint_txn

    def counted(tx: Any) -> None:
        savepoints[0] += 1
        take(tx)

    store._savepoint_txn = counted  # type: ignore[method-assign]
    seen: list[str] = []

    def allow(tx: Any) -> None:
        seen.append("allow")

    def refuse(tx: Any) -> None:
        raise JournalError("the lease on run-y was taken over by worker:new")

    with store.guard_appends("run-x", allow, reads_only=True), store.guard_appends("run-y", refuse, reads_only=True):
        answers = store.append_together([("run-x", drafts(2), 0), ("run-y", drafts(1), 0), ("run-z", drafts(1), 0)])
    assert isinstance(answers[1], JournalError) and "taken over" in str(answers[1])
    assert [len(a) for a in (answers[0], answers[2])] == [2, 1]  # type: ignore[arg-type]
    assert store.head("run-y") is None and seen == ["allow"]
    if store.batched_group_writes:
        assert savepoints == [0]  # batched: the guards ran while the group only read
        with store.guard_appends("run-w", allow):  # may write: the group keeps a savepoint per append
            store.append_together([("run-w", drafts(1), 0), ("run-v", drafts(1), 0)])
        assert savepoints[0] >= 2
    assert verify_journal(store).ok
