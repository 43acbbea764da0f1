"""Run summaries (journal/summaries.py): the projection each append keeps in its own transaction, on every engine.

What it pins: a row says exactly what `runtime.state.fold` says of the run, for runs of every outcome; a crash
inside the append, a refused append and a refused guard change no row; a journal made before the projection lists
correctly read-only and is filled on its first writable open; `alicorn runs` pages, filters and refuses clearly.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.crashpoints import CrashPoints
from alicorn.errors import ConcurrentAppendError, JournalError
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.journal.summaries import RunSummary, summarize
from alicorn.packs import pack_dir
from alicorn.runtime.executor import Approval, Resolution, request_cancel
from alicorn.runtime.state import fold
from tests.cli._support import listing
from tests.pgserver import next_schema
from tests.runtime.support import Behaviour, executor, make_plan, val

AT = "2026-11-30T09:00:00.000000Z"
ENGINES = ["memory", "sqlite", "postgres"]


@dataclass
class Engine:
    """One engine's journal, opened as often as a test needs (the in-memory one is always the same object)."""

    kind: str
    tmp: Path
    url: str = ""
    schema: str = ""
    memory: InMemoryStore | None = None

    def open(self, *, read_only: bool = False) -> JournalStore:
        if self.kind == "memory":
            self.memory = self.memory or InMemoryStore()
            return self.memory
        if self.kind == "sqlite":
            return SQLiteStore(self.tmp / "journal.db", read_only=read_only)
        return PostgresJournalStore(self.url, schema=self.schema, read_only=read_only)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Engine:
    if request.param == "postgres":
        return Engine("postgres", tmp_path, request.getfixturevalue("pg_url"), next_schema("rs"))
    return Engine(request.param, tmp_path)


@pytest.fixture
def store(engine: Engine) -> Iterator[JournalStore]:
    s = engine.open()
    yield s
    s.close()


# ---- real runs of every outcome ---------------------------------------------------------------------------------


class Crash(BaseException):
    """What a test's crash point raises: the append in flight is abandoned (its transaction rolls back)."""


class CrashAt:
    """Raise Crash at the `nth` append: the process driving the run "dies" there, as with `mid_append:N`."""

    def __init__(self, nth: int) -> None:
        self.nth, self.hits = nth, 0

    def hit(self, name: str) -> None:
        if name == "mid_append":
            self.hits += 1
            if self.hits == self.nth:
                raise Crash


def make_runs(store: JournalStore, tmp_path: Path) -> dict[str, str]:
    """Runs of every outcome, made by the executor: {run id: what happened to it}."""
    reg = Behaviour().registry()
    # Every step its own append: the crash below is placed by counting appends.
    ex = executor(store, reg, tmp_path, durability="step")
    chain = [
        {"node_id": "a", "operation": "t.inc", "inputs": {"x": val(1)}},
        {"node_id": "b", "operation": "t.inc", "depends_on": ["a"]},
    ]
    unsafe = [
        {"node_id": "u", "operation": "t.unsafe", "inputs": {"seconds": val(5)}, "timeout_s": 0.2},
        {"node_id": "after", "operation": "t.inc", "depends_on": ["u"]},
    ]
    assert ex.start(make_plan(chain, "two steps"), run_id="r-ok").status == "succeeded"
    assert ex.start(make_plan([{"node_id": "bug", "operation": "t.crash"}]), run_id="r-failed").status == "failed"
    send = make_plan([{"node_id": "send", "operation": "t.send", "inputs": {"x": val(5)}}], "send once")
    assert ex.start(send, run_id="r-approved").status == "awaiting_approval"
    assert ex.resume("r-approved", approvals=[Approval("human:alice")]).status == "succeeded"
    assert ex.start(send, run_id="r-waiting").status == "awaiting_approval"
    approved = [Approval("human:t")]
    assert ex.start(make_plan(unsafe, "unsafe"), approvals=approved, run_id="r-resumed").status == "blocked"
    resolved = [Resolution("u", True, "human:t", {"slept": 0})]
    assert ex.resume("r-resumed", resolutions=resolved).status == "succeeded"
    assert ex.start(make_plan(unsafe, "stays blocked"), approvals=approved, run_id="r-blocked").status == "blocked"
    assert ex.start(make_plan(unsafe, "cancelled"), approvals=approved, run_id="r-cancelled").status == "blocked"
    request_cancel(store, "r-cancelled", "human:bob", "not needed", AT)
    assert ex.resume("r-cancelled").status == "cancelled"
    store.crash = CrashAt(3)  # type: ignore[assignment]
    with pytest.raises(Crash):
        ex.start(make_plan(chain, "crashed"), run_id="r-crashed")
    store.crash = CrashPoints()
    assert fold(store.read("r-crashed")).status == "running"
    assert executor(store, reg, tmp_path, durability="step").resume("r-crashed").status == "succeeded"
    assert ex.start(make_plan(chain, "archived"), run_id="r-archived").status == "succeeded"
    store.archive("r-archived")
    store.append("agent:planner", [Draft("conversation.started", AT, {"by": "human:alice"})], expect=0)
    return {
        "r-ok": "succeeded",
        "r-failed": "failed",
        "r-approved": "succeeded",
        "r-waiting": "awaiting_approval",
        "r-resumed": "succeeded",
        "r-blocked": "blocked",
        "r-cancelled": "cancelled",
        "r-crashed": "succeeded",
        "r-archived": "succeeded",
    }


def folded(store: JournalStore) -> dict[str, RunSummary]:
    """What fold (and the stream listing) says of every run: the summary each row must equal."""
    out = {}
    for info in store.streams():
        events = store.read(info.stream)
        state = fold(events)
        if not state.plan:
            continue
        out[info.stream] = RunSummary(
            stream=info.stream,
            status=state.status,
            goal=state.plan.get("goal", ""),
            nodes=len(state.nodes),
            succeeded=sum(1 for n in state.nodes.values() if n.status == "succeeded"),
            events=info.events,
            bytes=info.bytes,
            created=state.created_at,
            finished=state.finished_at,
            last_seq=state.last_seq,
            archived_bytes=info.archived_bytes if info.archived else None,
        )
    return out


def test_every_row_is_what_fold_says_of_the_run(store: JournalStore, tmp_path: Path) -> None:
    outcomes = make_runs(store, tmp_path)
    expected = folded(store)
    rows = {r.stream: r for r in store.run_summaries(limit=None)}
    assert set(rows) == set(expected) == set(outcomes)  # agent:planner is not a run: no row
    for run, row in rows.items():
        assert row == expected[run], run
        assert row.status == outcomes[run]
    assert rows["r-archived"].archived_bytes and rows["r-ok"].archived_bytes is None
    assert store.run_count() == len(outcomes) and store.run_count(status="succeeded") == 5


def test_the_reducer_mirrors_fold_after_every_event_of_every_run(store: JournalStore, tmp_path: Path) -> None:
    make_runs(store, tmp_path)
    for info in store.streams():
        events = store.read(info.stream)
        for end in range(1, len(events) + 1):
            state, summary = fold(events[:end]), summarize(events[:end])
            if summary is None:
                assert not state.plan, info.stream
                continue
            seen = (summary.status, summary.goal, summary.nodes, summary.succeeded, summary.created)
            succeeded = sum(1 for n in state.nodes.values() if n.status == "succeeded")
            assert seen == (state.status, state.plan["goal"], len(state.nodes), succeeded, state.created_at)
            assert (summary.finished, summary.last_seq, summary.events) == (state.finished_at, end, end)


def test_the_listing_is_newest_first_limited_and_filtered(store: JournalStore, tmp_path: Path) -> None:
    make_runs(store, tmp_path)
    every = store.run_summaries(limit=None)
    assert [(r.created, r.stream) for r in every] == sorted(((r.created, r.stream) for r in every), reverse=True)
    assert store.run_summaries(limit=3) == every[:3]
    assert store.run_summaries(limit=0) == []
    blocked = store.run_summaries(limit=None, status="blocked")
    assert [r.stream for r in blocked] == ["r-blocked"]
    assert store.run_summaries(limit=None, status="withdrawn") == [] and store.run_count(status="withdrawn") == 0
    with pytest.raises(JournalError, match="limit"):
        store.run_summaries(limit=-1)


# ---- the row commits with the events, or not at all -------------------------------------------------------------


def _step(at: str = AT) -> list[Draft]:
    return [Draft("run.finished", at, {"status": "failed"})]


def _crash_child(kind: str, where: str, schema: str, stream: str, expect: int) -> None:
    """In a child process: append with the `mid_append` crash point armed; it dies there by SIGKILL."""
    s: JournalStore
    s = SQLiteStore(where) if kind == "sqlite" else PostgresJournalStore(where, schema=schema)
    s.crash = CrashPoints("mid_append")
    s.append(stream, _step(), expect=expect)
    os._exit(0)  # not reached: the crash point kills the process


def test_a_crash_mid_append_leaves_neither_the_events_nor_the_row_changed(engine: Engine, tmp_path: Path) -> None:
    store = engine.open()
    try:
        ok = executor(store, Behaviour().registry(), tmp_path).start(
            make_plan([{"node_id": "a", "operation": "t.inc"}], "crash target"), run_id="r-target"
        )
        assert ok.status == "succeeded"
        before_events, before_row = store.read("r-target"), store.run_summaries(limit=None)
        head = store.last_seq("r-target")
        if engine.kind == "memory":  # one process: the crash is the append abandoned where the point is
            store.crash = CrashAt(1)  # type: ignore[assignment]
            with pytest.raises(Crash):
                store.append("r-target", _step(), expect=head)
            store.crash = CrashPoints()
        else:
            where = str(tmp_path / "journal.db") if engine.kind == "sqlite" else engine.url
            child = multiprocessing.get_context("fork").Process(
                target=_crash_child, args=(engine.kind, where, engine.schema, "r-target", head)
            )
            child.start()
            child.join(60)
            assert child.exitcode == -9, "the crash point never fired"
            store.close()
            store = engine.open()
        assert [e.line for e in store.read("r-target")] == [e.line for e in before_events]
        assert store.run_summaries(limit=None) == before_row
        store.append("r-target", _step(), expect=head)  # the next append after the crash keeps the row in step
        assert store.run_summaries(limit=None) == list(folded(store).values())
    finally:
        store.close()


def test_a_refused_append_changes_no_row(store: JournalStore, tmp_path: Path) -> None:
    executor(store, Behaviour().registry(), tmp_path).start(
        make_plan([{"node_id": "a", "operation": "t.inc"}]), run_id="r-one"
    )
    before = store.run_summaries(limit=None)
    with pytest.raises(ConcurrentAppendError):
        store.append("r-one", _step(), expect=1)

    def refuse(tx: Any) -> None:
        raise JournalError("the lease moved on")

    with store.guard_appends("r-one", refuse), pytest.raises(JournalError, match="lease"):
        store.append("r-one", _step(), expect=store.last_seq("r-one"))
    assert store.run_summaries(limit=None) == before == list(folded(store).values())


# ---- a journal made before the projection -------------------------------------------------------------------------


def _forget_summaries(engine: Engine) -> None:
    """Make the journal as an Alicorn before run summaries left it: no table, no meta key."""
    if engine.kind == "sqlite":
        conn = sqlite3.connect(engine.tmp / "journal.db")
        try:
            with conn:
                conn.execute("DROP TABLE run_summaries")
                conn.execute("DELETE FROM alicorn_meta WHERE key = 'run_summaries'")
        finally:
            conn.close()  # the last connection: its -wal and -shm files go with it
        return
    import psycopg

    with psycopg.connect(engine.url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {engine.schema}.journal_run_summaries")
        conn.execute(f"DELETE FROM {engine.schema}.journal_meta WHERE key = 'run_summaries'")


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_old_journal_lists_read_only_and_is_filled_on_its_first_writable_open(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("pg_url") if kind == "postgres" else ""
    engine = Engine(kind, tmp_path, url, next_schema("old"))
    with engine.open() as store:
        make_runs(store, tmp_path)
        expected = store.run_summaries(limit=None)
        assert expected == sorted(folded(store).values(), key=lambda r: (r.created, r.stream), reverse=True)
    _forget_summaries(engine)
    files = listing(tmp_path)
    with engine.open(read_only=True) as old:
        assert not old.summaries_kept
        assert old.run_summaries(limit=None) == expected
        assert old.run_summaries(limit=2, status="succeeded") == [r for r in expected if r.status == "succeeded"][:2]
        assert old.run_count() == len(expected)
    assert listing(tmp_path) == files  # read-only: nothing was written
    with engine.open() as writer:
        assert writer.summaries_kept
        assert writer.run_summaries(limit=None) == expected
    with engine.open(read_only=True) as reader:
        assert reader.summaries_kept and reader.run_summaries(limit=None) == expected


# ---- alicorn runs ---------------------------------------------------------------------------------------------------

runner = CliRunner()


def _home_with_runs(tmp_path: Path, count: int) -> Path:
    """A home whose journal holds `count` runs: one real run of the alarms pack, and copies of it under new ids."""
    home = tmp_path / "home"
    made = runner.invoke(app, ["run", str(pack_dir("alarms") / "plan.json"), "-q", "--home", str(home)])
    assert made.exit_code == 0, made.output
    with SQLiteStore(home / "journal.db") as store:
        (source,) = [r.stream for r in store.run_summaries(limit=None)]
        events = store.read(source)
        for i in range(count - 1):
            at = f"2026-11-29T10:{i // 60:02d}:{i % 60:02d}.000000Z"
            store.append(f"run-copy-{i:03d}", [Draft(e.kind, at, e.data) for e in events], expect=0)
    return home


def _runs(home: Path, *args: str) -> Any:
    return runner.invoke(app, ["runs", *args, "--home", str(home)])


def test_alicorn_runs_shows_the_newest_fifty_and_says_how_to_see_more(tmp_path: Path) -> None:
    home = _home_with_runs(tmp_path, 60)
    listed = _runs(home)
    assert listed.exit_code == 0, listed.output
    assert "50 of 60 runs; --all or --limit N for more" in listed.stdout
    assert "run-copy-000" not in listed.stdout and "run-copy-059" not in listed.stdout  # the oldest copies
    shown = json.loads(_runs(home, "--json", "--limit", "3").stdout)
    assert [r["run"] for r in shown[1:]] == ["run-copy-058", "run-copy-057"]  # after the real run, the newest
    assert set(shown[0]) == {"run", "status", "goal", "nodes", "succeeded", "events", "bytes", "archived_bytes",
                             "created", "finished"}  # fmt: skip
    every = json.loads(_runs(home, "--json", "--all").stdout)
    assert len(every) == 60 and "for more" not in _runs(home, "--all").stdout
    assert "3 of 60 succeeded runs" in _runs(home, "--status", "succeeded", "--limit", "3").stdout
    assert "no run is failed" in _runs(home, "--status", "failed").stdout


def test_alicorn_runs_refuses_a_status_no_run_can_have(tmp_path: Path) -> None:
    home = _home_with_runs(tmp_path, 2)
    before = listing(home)
    refused = _runs(home, "--status", "finished")
    assert refused.exit_code == 2, refused.output
    message = refused.stderr.strip()
    assert message.startswith("error: no run can have status 'finished'; use one of: running,")
    assert "succeeded" in message and "Traceback" not in refused.output and len(message.splitlines()) == 1
    assert _runs(home, "--limit", "0").exit_code == 2
    assert listing(home) == before


def test_a_run_created_without_a_whole_plan_never_refuses_the_append() -> None:
    """The journal stores what callers append; its projection must not turn a partial run.created (a test's, a later
    format's) or an odd run.finished into a failed append."""
    from alicorn.journal.events import Draft
    from alicorn.journal.memory import InMemoryStore

    store = InMemoryStore()
    at = "2026-11-30T08:00:00.000000Z"
    store.append("run-odd", [Draft("run.created", at, {"plan": {"goal_hash": "g" * 64}})], expect=0)
    store.append("run-odd", [Draft("run.finished", at, {"reason": "no status"})], expect=1)
    store.append("run-bare", [Draft("run.created", at, {})], expect=0)
    rows = {r.stream: r for r in store.run_summaries(limit=None)}
    assert (rows["run-odd"].nodes, rows["run-odd"].goal, rows["run-odd"].status) == (0, "", "running")
    assert rows["run-odd"].finished == at and rows["run-bare"].events == 1
