"""The workloads the benchmark times: Alicorn plans and runs, and the baselines measured beside them."""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import Node, Plan, goal_digest
from alicorn.runtime.executor import Durability, Executor, RunEnvironment


def chain_plan(n: int) -> Plan:
    nodes: list[dict[str, Any]] = [{"node_id": "n0", "operation": "util.noop"}]
    nodes += [{"node_id": f"n{i}", "operation": "util.noop", "depends_on": [f"n{i - 1}"]} for i in range(1, n)]
    return Plan.model_validate({"goal": "bench", "goal_hash": goal_digest("bench"), "nodes": nodes})


def max_length(model: type[BaseModel], name: str) -> int:
    """A list field's `max_length` in the plan schema (the limits that shape the workloads)."""
    for meta in model.model_fields[name].metadata:
        if isinstance(getattr(meta, "max_length", None), int):
            return int(meta.max_length)
    raise LookupError(f"{model.__name__}.{name} has no max_length")


def fanout_plan(width: int) -> tuple[Plan, list[str]]:
    """One root, `width` no-op nodes depending on it, one join depending on all of them.

    A node may name at most `Node.depends_on`'s max_length dependencies, so a wider fan-in goes through
    intermediate joins of at most that many nodes each; they are returned, to be reported.
    """
    cap = max_length(Node, "depends_on")
    fan = [f"f{i:03d}" for i in range(width)]
    nodes: list[dict[str, Any]] = [{"node_id": "root", "operation": "util.noop"}]
    nodes += [{"node_id": f, "operation": "util.noop", "depends_on": ["root"]} for f in fan]
    joins: list[str] = []
    if width > cap:
        groups = -(-width // cap)
        size = -(-width // groups)
        for g in range(groups):
            joins.append(f"join{g}")
            nodes.append({"node_id": joins[-1], "operation": "util.noop", "depends_on": fan[g * size : (g + 1) * size]})
    nodes.append({"node_id": "join", "operation": "util.noop", "depends_on": joins or fan})
    plan = Plan.model_validate({"goal": "bench", "goal_hash": goal_digest("bench"), "nodes": nodes})
    return plan, joins


def run_alicorn(
    workdir: Path, plan: Plan, registry: Registry, durability: Durability = "step"
) -> tuple[float, SQLiteStore, str]:
    """Run `plan` on a fresh journal in `workdir`; the wall time of `Executor.start`, the store and the run id."""
    workdir.mkdir(parents=True)
    store = SQLiteStore(workdir / "journal.db")
    environment = RunEnvironment(workspace_root=workdir / "ws", data_root=workdir, max_parallel=4)
    executor = Executor(store, registry, environment, durability=durability)
    try:
        started = time.perf_counter()
        state = executor.start(plan)
        elapsed = time.perf_counter() - started
        if state.status != "succeeded":
            raise RuntimeError(f"run {state.run_id} ended {state.status}, expected succeeded")
    except BaseException:
        store.close()
        raise
    return elapsed, store, state.run_id


def _durable_connection(path: Path) -> sqlite3.Connection:
    """A stdlib sqlite3 connection in autocommit, WAL and synchronous=FULL (what Alicorn's journal uses); raises if
    SQLite refused either setting, so a floor is never measured at a lower durability."""
    conn = sqlite3.connect(path, isolation_level=None)
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    conn.execute("PRAGMA synchronous = FULL")
    sync = conn.execute("PRAGMA synchronous").fetchone()[0]
    if mode != "wal" or sync != 2:
        conn.close()
        raise RuntimeError(f"SQLite refused WAL/FULL (journal_mode={mode}, synchronous={sync})")
    return conn


def raw_floor(path: Path, steps: int, kinds: tuple[str, ...] = ("started", "finished")) -> float:
    """stdlib sqlite3, WAL, synchronous=FULL, fresh file: per step one single-row INSERT per kind (two by default),
    each its own transaction; `kinds=("finished",)` is the one-commit floor."""
    conn = _durable_connection(path)
    try:
        conn.execute("CREATE TABLE steps (id INTEGER PRIMARY KEY, step INTEGER NOT NULL, kind TEXT NOT NULL, at REAL)")
        insert = "INSERT INTO steps (step, kind, at) VALUES (?, ?, ?)"
        started = time.perf_counter()
        for step in range(steps):
            for kind in kinds:
                conn.execute("BEGIN")
                conn.execute(insert, (step, kind, time.time()))
                conn.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        conn.close()


def raw_batched_floor(path: Path, steps: int, rows_per_step: int = 3) -> float:
    """stdlib sqlite3, WAL, synchronous=FULL, fresh file: `rows_per_step` rows per step (a 64-character hash and a
    small JSON body each, what a no-op node journals), all in one durable transaction: the floor of a chain whose
    effect-free steps are committed in groups."""
    conn = _durable_connection(path)
    try:
        conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, body TEXT NOT NULL)")
        insert = "INSERT INTO events (seq, hash, body) VALUES (?, ?, ?)"
        started = time.perf_counter()
        conn.execute("BEGIN")
        for step in range(steps):
            for row in range(rows_per_step):
                body = json.dumps({"node": f"n{step:04d}", "attempt": 1, "row": row}, sort_keys=True)
                conn.execute(insert, (step * rows_per_step + row, hashlib.sha256(body.encode()).hexdigest(), body))
        conn.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        conn.close()


def journal_alone(path: Path, journal: SQLiteStore, run_id: str) -> float:
    """Seconds to append the events of `run_id` (read from `journal`) again, as drafts, to a fresh SQLite journal
    at `path` in one append: the journal's own work for those events (redaction probe, canonical JSON, hash chain,
    run summary, insert, one durable commit) with no runtime deciding anything: the floor under a grouped chain."""
    drafts = [Draft(e.kind, e.at, e.data) for e in journal.read(run_id)]
    store = SQLiteStore(path)
    try:
        started = time.perf_counter()
        store.append(run_id, drafts, expect=0)
        return time.perf_counter() - started
    finally:
        store.close()


def raw_read(path: Path, run_id: str) -> int:
    """The same journal read with stdlib sqlite3 and json.loads, without Alicorn (the read+fold baseline)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT body FROM events WHERE stream = ? ORDER BY seq", (run_id,)).fetchall()
        return len([json.loads(body) for (body,) in rows])
    finally:
        conn.close()


def timed_threads(count: int, work: Callable[[int, Callable[[], None]], None]) -> float:
    """Seconds from the moment `count` threads are all ready to the end of the last one: thread `i` runs
    `work(i, ready)`, prepares what it must (untimed), then calls `ready()`, which returns once every thread has;
    the first error of any thread is raised after all have ended."""
    start = threading.Barrier(count + 1)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            work(i, start.wait)
        except threading.BrokenBarrierError:
            pass  # another thread failed before it was ready: its error is the one raised
        except BaseException as exc:  # raised below, in the caller's thread
            errors.append(exc)
            start.abort()  # a thread that fails before it is ready must not leave the others waiting

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    took = time.perf_counter() - began
    if errors:
        raise errors[0]
    return took


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def command_times(argv: list[str], reps: int) -> list[float]:
    """Wall time of `argv` run `reps` times (after one untimed warm-up run); a non-zero exit raises."""
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return times
