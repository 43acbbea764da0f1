"""The SQLite store against the journal contract, plus what only SQLite has: pragmas, segments, processes."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from alicorn.errors import ConcurrentAppendError, JournalError, JournalIntegrityError, NotAJournalError
from alicorn.journal.events import Draft, Event, parse_line
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import Head, JournalStore
from alicorn.journal.verify import verify_journal

from ._workers import append_with_retry, batch_sizes
from .contract import JournalStoreContract
from .harness import drafts, pinned_head


class TestSQLiteStore(JournalStoreContract):
    def make_store(self) -> JournalStore:
        return self.track(SQLiteStore(self.tmp_path / f"journal-{len(self._opened)}.db"))

    def open_another(self, store: JournalStore) -> JournalStore:
        assert isinstance(store, SQLiteStore)
        return self.track(SQLiteStore(store.path, create=False))

    def reopen(self, store: JournalStore) -> JournalStore:
        assert isinstance(store, SQLiteStore)
        store.close()
        return self.track(SQLiteStore(store.path, create=False))

    # Tampering goes through the raw connection, as someone with the file and the sqlite3 shell would.

    def _conn(self, store: JournalStore) -> sqlite3.Connection:
        assert isinstance(store, SQLiteStore)
        return store.raw_connection()

    def tamper_set_line(self, store: JournalStore, stream: str, seq: int, line: str) -> None:
        # A thorough forger keeps the hash column in step with the body it writes.
        try:
            forged_hash = parse_line(line).hash
        except JournalIntegrityError:
            forged_hash = "0" * 64
        cur = self._conn(store).execute(
            "UPDATE events SET body = ?, hash = ? WHERE stream = ? AND seq = ?", (line, forged_hash, stream, seq)
        )
        assert cur.rowcount == 1

    def tamper_delete(self, store: JournalStore, stream: str, seq: int) -> None:
        cur = self._conn(store).execute("DELETE FROM events WHERE stream = ? AND seq = ?", (stream, seq))
        assert cur.rowcount == 1

    def tamper_insert(self, store: JournalStore, stream: str, seq: int, line: str) -> None:
        conn = self._conn(store)
        later = conn.execute(
            "SELECT seq FROM events WHERE stream = ? AND seq >= ? ORDER BY seq DESC", (stream, seq)
        ).fetchall()
        for (s,) in later:  # one row at a time, from the end, so the primary key never collides
            conn.execute("UPDATE events SET seq = seq + 1 WHERE stream = ? AND seq = ?", (stream, s))
        e = parse_line(line)
        conn.execute(
            "INSERT INTO events (stream, seq, kind, at, hash, body) VALUES (?, ?, ?, ?, ?, ?)",
            (stream, seq, e.kind, e.at, e.hash, line),
        )

    def test_first_and_last_at_follow_sequence_not_clock(self) -> None:
        super().test_first_and_last_at_follow_sequence_not_clock()

    def test_archive_racing_another_archiver_loses_nothing(self) -> None:
        super().test_archive_racing_another_archiver_loses_nothing()


# ---- durability settings ---------------------------------------------------------------------------------------


def _pragmas(store: SQLiteStore) -> tuple[str, int]:
    conn = store.raw_connection()
    return conn.execute("PRAGMA journal_mode").fetchone()[0], conn.execute("PRAGMA synchronous").fetchone()[0]


def test_wal_and_synchronous_full(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SQLiteStore(path) as store:
        assert _pragmas(store) == ("wal", 2)
        store.append("run-1", drafts(1), expect=0)
    with SQLiteStore(path, create=False) as again:
        assert _pragmas(again) == ("wal", 2)
    with sqlite3.connect(path) as plain:  # WAL is a property of the file, not only of the store's connection
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    plain.close()


def test_missing_journal_with_create_false(tmp_path: Path) -> None:
    for path in [tmp_path / "j.db", tmp_path / "no" / "such" / "dir" / "j.db"]:
        with pytest.raises(JournalError, match="no journal at"):
            SQLiteStore(path, create=False)
    assert list(tmp_path.iterdir()) == []


def test_create_makes_missing_directories(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "a" / "b" / "j.db") as store:
        store.append("run-1", drafts(1), expect=0)
    with SQLiteStore(tmp_path / "a" / "b" / "j.db", create=False) as store:
        assert store.last_seq("run-1") == 1


def test_failed_insert_rolls_back_the_whole_batch(tmp_path: Path) -> None:
    # A crash point inside the INSERT: the second row of the batch is refused by a trigger.
    with SQLiteStore(tmp_path / "j.db") as store:
        before = store.append("run-1", drafts(2), expect=0)
        conn = store.raw_connection()
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.seq = 4 BEGIN SELECT RAISE(ABORT, 'boom'); END"
        )
        with pytest.raises(sqlite3.IntegrityError, match="boom"):
            store.append("run-1", drafts(3, start=2), expect=2)
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 2
        assert store.read("run-1") == before
        conn.execute("DROP TRIGGER refuse")
        assert [e.seq for e in store.append("run-1", drafts(3, start=2), expect=2)] == [3, 4, 5]
    with SQLiteStore(tmp_path / "j.db", create=False) as store:
        assert store.last_seq("run-1") == 5 and verify_journal(store).ok


def test_an_empty_file_another_program_holds_is_never_made_a_journal(tmp_path: Path) -> None:
    """Alicorn links a new journal into place whole (never an empty file first), so an empty file another program
    has open and locked is that program's: refused at once, not waited for and filled."""
    path = tmp_path / "j.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(NotAJournalError, match="is an empty file, not an Alicorn journal; nothing was changed"):
            SQLiteStore(path)
        assert path.stat().st_size == 0
    finally:
        other.execute("COMMIT")
        other.close()


# ---- processes -------------------------------------------------------------------------------------------------


def test_separate_processes_append_to_one_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    SQLiteStore(path).close()
    ctx = multiprocessing.get_context("spawn")
    writers, batches = 4, 6
    start = ctx.Barrier(writers)
    conflicts = ctx.Array("i", writers)
    procs = [
        ctx.Process(target=append_with_retry, args=(str(path), w, batches, start, conflicts)) for w in range(writers)
    ]
    try:
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=120)
    finally:
        for p in procs:
            if p.is_alive():  # a hung writer must not outlive the test
                p.kill()
    assert [p.exitcode for p in procs] == [0] * writers
    assert sum(conflicts[:]) > 0, "the processes never raced, so this test proved nothing"
    expected = sum(sum(batch_sizes(w, batches)) for w in range(writers))
    with SQLiteStore(path, create=False) as store:
        events = store.read("shared")
        assert [e.seq for e in events] == list(range(1, expected + 1))
        keys = [(e.data["writer"], e.data["batch"], e.data["i"]) for e in events]
        assert sorted(keys) == sorted(
            (w, b, i) for w in range(writers) for b, n in enumerate(batch_sizes(w, batches)) for i in range(n)
        )
        report = verify_journal(store)
        assert (report.ok, report.events) == (True, expected)


# ---- segments --------------------------------------------------------------------------------------------------


def _archived(tmp_path: Path) -> tuple[SQLiteStore, Path, list[Event]]:
    store = SQLiteStore(tmp_path / "j.db")
    events = store.append("run-1", drafts(5), expect=0)
    store.append("run-2", drafts(2), expect=0)
    store.archive("run-1")
    [segment] = (tmp_path / "j.db.segments").glob("run-1.*.jsonl.gz")  # named by stream and content digest
    return store, segment, events


def test_segment_file_holds_header_and_lines(tmp_path: Path) -> None:
    store, segment, events = _archived(tmp_path)
    with store:
        lines = gzip.decompress(segment.read_bytes()).decode("utf-8").split("\n")
        assert json.loads(lines[0]) == {
            "format": "alicorn-segment",
            "version": 1,
            "stream": "run-1",
            "events": 5,
            "last_seq": 5,
            "last_hash": events[-1].hash,
        }
        assert lines[1:] == [e.line for e in events] + [""]
        assert store.raw_connection().execute("SELECT count(*) FROM events WHERE stream = 'run-1'").fetchone() == (0,)
        assert sorted(p.name for p in segment.parent.iterdir()) == [segment.name]
        assert segment.name.startswith("run-1.") and segment.name.endswith(".jsonl.gz")


@pytest.mark.parametrize("edit", ["flip-byte", "other-stream", "recompressed"])
def test_tampered_segment_is_refused(tmp_path: Path, edit: str) -> None:
    store, segment, _ = _archived(tmp_path)
    with store:
        data = segment.read_bytes()
        if edit == "flip-byte":
            data = data[:30] + bytes([data[30] ^ 0x01]) + data[31:]
        elif edit == "other-stream":
            store.archive("run-2")
            data = next(segment.parent.glob("run-2.*.jsonl.gz")).read_bytes()
        else:  # same events, re-compressed differently: the bytes are what the digest pins
            data = gzip.compress(gzip.decompress(data), compresslevel=1)
        segment.write_bytes(data)
        with pytest.raises(JournalIntegrityError, match="does not match the digest") as caught:
            store.read("run-1")
        assert caught.value.stream == "run-1"
        report = verify_journal(store, head=pinned_head(store))
        assert [(p.stream, p.seq) for p in report.problems] == [("run-1", 0)]
        assert store.read("run-2") == store.read("run-2", after=0) and len(store.read("run-2")) == 2


def test_missing_segment_is_a_clear_error(tmp_path: Path) -> None:
    store, segment, _ = _archived(tmp_path)
    with store:
        segment.unlink()
        with pytest.raises(JournalError, match="archive segment of 'run-1' is missing") as caught:
            store.read("run-1")
        assert type(caught.value) is JournalError
        assert str(segment) in str(caught.value)
        report = verify_journal(store)
        assert [(p.stream, p.seq) for p in report.problems] == [("run-1", 0)]
        assert "missing" in report.problems[0].reason
        assert store.head("run-1") == Head(5, store.heads()["run-1"].hash)  # the record survives the file


# ---- forensics: rows that the chain does not cover ---------------------------------------------------------------


def test_unparseable_row_is_named_by_seq(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "j.db") as store:
        store.append("run-1", drafts(4), expect=0)
        store.raw_connection().execute("UPDATE events SET body = '{\"broken' WHERE stream = 'run-1' AND seq = 3")
        report = verify_journal(store)
        assert [(p.stream, p.seq) for p in report.problems] == [("run-1", 3)]


def test_forged_hash_column_is_found(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "j.db") as store:
        store.append("run-1", drafts(3), expect=0)
        store.raw_connection().execute("UPDATE events SET hash = ? WHERE stream = 'run-1' AND seq = 3", ("0" * 64,))
        assert [(p.stream, p.seq) for p in verify_journal(store).problems] == [("run-1", 3)]


def test_conflicting_writer_sees_the_other_handle(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "j.db") as a, SQLiteStore(tmp_path / "j.db", create=False) as b:
        (first,) = a.append("run-1", drafts(1), expect=0)
        with pytest.raises(ConcurrentAppendError):
            b.append("run-1", [Draft("k", "t", {})], expect=0)
        (second,) = b.append("run-1", [Draft("k", "t", {})], expect=1)
        assert second.prev == first.hash
        assert a.read("run-1") == [first, second]


def _pages_written_since(wal: Path, offset: int, page_size: int) -> list[int]:
    """The page numbers of the WAL frames after byte `offset` (each frame: a 24-byte header, the page number in its
    first four bytes big-endian, then the page)."""
    data = wal.read_bytes()[offset:]
    frame = 24 + page_size
    return [int.from_bytes(data[i : i + 4], "big") for i in range(0, len(data) - frame + 1, frame)]


def test_a_step_that_keeps_the_run_status_writes_no_page_of_the_summary_indexes(tmp_path: Path) -> None:
    """Each append rewrites the run's summary row; an append that changes neither indexed column (status, created:
    nearly every step of a run) must leave both indexes' pages alone, else every durable step writes and fsyncs
    two more pages (SQLite rewrites an index whose column an UPDATE sets, even to the value it had)."""
    path = tmp_path / "j.db"
    with SQLiteStore(path) as store:
        plan = {"goal": "g", "nodes": [{"node_id": "a"}, {"node_id": "b"}]}
        store.append("run-1", [Draft("run.created", "2026-12-01T08:00:00Z", {"plan": plan})], expect=0)
        conn = store.raw_connection()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        roots = {
            name: page
            for name, page in conn.execute(
                "SELECT name, rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'run_summaries' "
                "AND name NOT LIKE 'sqlite_autoindex%'"  # the primary key's: `stream` never changes
            )
        }
        assert set(roots) == {"run_summaries_by_created", "run_summaries_by_status"}
        wal = path.with_name(path.name + "-wal")
        before = wal.stat().st_size
        step = [Draft("node.succeeded", "2026-12-01T08:00:01Z", {"node": "a", "attempt": 1})]
        store.append("run-1", step, expect=1)
        written = _pages_written_since(wal, before, page_size)
        assert written, "the step's commit wrote no page to the WAL"
        assert not set(written) & set(roots.values()), f"index pages rewritten: {written} (roots {roots})"
        (summary,) = store.run_summaries(limit=None)
        assert (summary.succeeded, summary.events, summary.status) == (1, 2, "running")
        # A change of status still moves the row in the status index.
        store.append("run-1", [Draft("run.blocked", "2026-12-01T08:00:02Z", {"nodes": ["b"], "reason": "r"})], expect=2)
        assert [s.status for s in store.run_summaries(limit=None, status="blocked")] == ["blocked"]


def _run_created() -> Draft:
    plan = {"goal": "g", "nodes": [{"node_id": "a"}, {"node_id": "b"}, {"node_id": "c"}]}
    return Draft("run.created", "2026-12-01T08:00:00Z", {"plan": plan})


def _succeeded(node: str) -> list[Draft]:
    return [Draft("node.succeeded", "2026-12-01T08:00:01Z", {"node": node, "attempt": 1})]


def test_a_store_reads_again_what_another_connection_appended(tmp_path: Path) -> None:
    """A store remembers the head and summary row its own appends left, and trusts them only while no other
    connection has committed: another process's step must be seen, in the expected seq, the chain and the summary."""
    with SQLiteStore(tmp_path / "j.db") as a, SQLiteStore(tmp_path / "j.db", create=False) as b:
        a.append("run-1", [_run_created()], expect=0)
        a.append("run-1", _succeeded("a"), expect=1)
        assert a.head("run-1") is not None
        (theirs,) = b.append("run-1", _succeeded("b"), expect=2)
        with pytest.raises(ConcurrentAppendError):
            a.append("run-1", _succeeded("c"), expect=2)
        (mine,) = a.append("run-1", _succeeded("c"), expect=3)
        assert a.head("run-1") == Head(4, mine.hash)
        (last,) = b.append("run-1", _succeeded("a"), expect=4)
        assert a.head("run-1") == Head(5, last.hash)
        assert mine.prev == theirs.hash
        (summary,) = a.run_summaries(limit=None)
        assert (summary.succeeded, summary.events, summary.last_seq) == (4, 5, 5)
        assert verify_journal(a).ok


def test_a_runs_own_steps_read_neither_its_head_nor_its_summary(tmp_path: Path) -> None:
    """What a step costs: while only this store writes, an append reads neither the stream's last event nor its
    summary row (it remembers both from its previous commit), and a control stream's head costs no transaction."""
    with SQLiteStore(tmp_path / "j.db") as store:
        store.append("run-1", [_run_created()], expect=0)
        assert store.head("run-1.control") is None
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)  # not raw_connection(): that turns remembering off
        store.append("run-1", _succeeded("a"), expect=1)
        assert store.head("run-1.control") is None
        assert [s for s in statements if s.lstrip().upper().startswith(("SELECT", "BEGIN"))] == ["BEGIN IMMEDIATE"]
        store._conn.set_trace_callback(None)
        # The raw connection can write behind the store's back: from then on it reads again.
        store.raw_connection().execute("DELETE FROM events WHERE stream = 'run-1' AND seq = 2")
        with pytest.raises(ConcurrentAppendError):
            store.append("run-1", _succeeded("b"), expect=2)
