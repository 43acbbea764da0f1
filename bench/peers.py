"""Peers for the benchmark: the same workload (N sequential durable no-op steps on SQLite) in DBOS and LangGraph.

Each peer is imported only when asked for, so the benchmark runs without them. A peer's run returns the wall time of
each repetition and a one-line description of the SQLite settings it actually ran with (read back from its own
connection where the peer lets us), so the comparison with Alicorn (WAL, synchronous=FULL) is stated, not assumed.
"""

from __future__ import annotations

import importlib.util
import logging
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

INSTALL_HINT = "pip install -e '.[bench]'"
Baseline = Callable[[], float]  # runs the baseline workload once and returns its wall time
WARMUP_STEPS = 10


@dataclass
class PeerRun:
    """What one peer configuration measured."""

    seconds: list[float] = field(default_factory=list)  # one wall time per repetition, for N steps
    paired: list[float] = field(default_factory=list)  # the baseline's wall time, measured just before each one
    settings: str = "unknown"  # the SQLite settings read back from the peer's connection
    notes: list[str] = field(default_factory=list)
    comparable: bool = True  # same durability settings as Alicorn (WAL, synchronous=FULL): the target applies


def missing(*modules: str) -> str | None:
    """The first of `modules` that is not installed, or None when all are."""
    for module in modules:
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except ModuleNotFoundError:  # a missing parent package
            return module
    return None


def _pragmas(execute: Callable[[str], Any]) -> str:
    mode = execute("PRAGMA journal_mode")
    sync = execute("PRAGMA synchronous")
    names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
    return f"journal_mode={mode}, synchronous={names.get(sync, sync)}"


def _scalar(conn: sqlite3.Connection, sql: str) -> Any:
    return conn.execute(sql).fetchone()[0]


# ---- DBOS -----------------------------------------------------------------------------------------------------


def run_dbos(workdir: Path, steps: int, reps: int, modes: tuple[str, ...], paired: Baseline) -> dict[str, PeerRun]:
    """A DBOS workflow calling a no-op `@DBOS.step()` `steps` times, on DBOS's SQLite system database.

    Modes: "wal" pre-creates the system database in WAL mode (a persistent setting of the file; DBOS's SQLite engine
    sets no journal mode itself) so DBOS runs with the same settings as Alicorn; "default" leaves the file to DBOS
    (SQLite's rollback journal). Each repetition launches DBOS on a fresh file and destroys it afterwards; `paired`
    runs just before each launch, so drift hits both alike.
    """
    from dbos import DBOS

    logging.getLogger("dbos").setLevel(logging.WARNING)

    @DBOS.step()
    def bench_noop_step(i: int) -> None:
        return None

    @DBOS.workflow()
    def bench_chain_workflow(n: int) -> int:
        for i in range(n):
            bench_noop_step(i)
        return n

    results: dict[str, PeerRun] = {}
    try:
        for mode in modes:
            run = results[mode] = PeerRun(comparable=mode == "wal")
            for rep in range(reps):
                run.paired.append(paired())
                db = workdir / f"dbos-{mode}-{rep}.sqlite"
                if mode == "wal":
                    with closing(sqlite3.connect(db)) as conn:
                        conn.execute("PRAGMA journal_mode = WAL")
                dbos = DBOS(
                    config={"name": "alicorn-bench", "system_database_url": f"sqlite:///{db}", "log_level": "WARNING"}
                )
                try:
                    DBOS.launch()
                    bench_chain_workflow(WARMUP_STEPS)
                    started = time.perf_counter()
                    done = bench_chain_workflow(steps)
                    run.seconds.append(time.perf_counter() - started)
                    if done != steps:
                        raise RuntimeError(f"DBOS workflow returned {done}, expected {steps}")
                    run.settings = _dbos_settings(dbos)
                finally:
                    DBOS.destroy()
    finally:
        DBOS.destroy(destroy_registry=True)
    return results


def _dbos_settings(dbos: Any) -> str:
    """Read the pragmas through DBOS's own engine (a private attribute: 'unknown' if a release renames it)."""
    try:
        import sqlalchemy as sa

        with dbos._sys_db.engine.connect() as conn:
            return _pragmas(lambda sql: conn.execute(sa.text(sql)).scalar())
    except Exception as exc:
        return f"unknown ({type(exc).__name__}: {exc})"


# ---- LangGraph ------------------------------------------------------------------------------------------------


class _Counter(TypedDict):
    i: int


def run_langgraph(workdir: Path, steps: int, reps: int, paired: Baseline) -> PeerRun:
    """One LangGraph node looping `steps` times (a counter), checkpointed by SqliteSaver with durability="sync".

    SqliteSaver puts its connection in WAL mode itself (in `setup`); we set synchronous=FULL on the connection we
    hand it (the stdlib default is already FULL) and read both back. Each repetition uses a fresh file; `paired`
    runs just before each.
    """
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    def graph(limit: int) -> Any:
        def step(state: _Counter) -> dict[str, int]:
            return {"i": state["i"] + 1}

        def route(state: _Counter) -> str:
            return "step" if state["i"] < limit else END

        builder = StateGraph(_Counter)
        builder.add_node("step", step)
        builder.add_edge(START, "step")
        builder.add_conditional_edges("step", route)
        return builder

    warmup, bench = graph(WARMUP_STEPS), graph(steps)

    run = PeerRun()
    for rep in range(reps):
        run.paired.append(paired())
        conn = sqlite3.connect(workdir / f"langgraph-{rep}.sqlite", check_same_thread=False)
        try:
            saver = SqliteSaver(conn)
            saver.setup()
            conn.execute("PRAGMA synchronous = FULL")
            warmup.compile(checkpointer=saver).invoke(
                {"i": 0},
                {"configurable": {"thread_id": "warmup"}, "recursion_limit": WARMUP_STEPS + 10},
                durability="sync",
            )
            app = bench.compile(checkpointer=saver)
            started = time.perf_counter()
            out = app.invoke(
                {"i": 0},
                {"configurable": {"thread_id": "bench"}, "recursion_limit": steps + 10},
                durability="sync",
            )
            run.seconds.append(time.perf_counter() - started)
            if out["i"] != steps:
                raise RuntimeError(f"LangGraph counter ended at {out['i']}, expected {steps}")
            run.settings = _pragmas(partial(_scalar, conn))
            if rep == 0:
                (checkpoints,) = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = 'bench'").fetchone()
                (writes,) = conn.execute("SELECT count(*) FROM writes WHERE thread_id = 'bench'").fetchone()
                run.notes.append(f"{checkpoints} checkpoints + {writes} pending writes stored for {steps} steps")
        finally:
            conn.close()
    return run
