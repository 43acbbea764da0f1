"""How fast `alicorn runs` lists a journal of many runs, now that each append keeps its run's summary row.

    .venv/bin/python bench/runs_list_bench.py                 # 100,000 runs (building the journal: a few minutes)
    .venv/bin/python bench/runs_list_bench.py --runs 10000    # quicker
    .venv/bin/python bench/runs_list_bench.py --dir /somewhere/on/disk --keep

The journal is built fast but through the real write path: one small plan (two `workspace.write_file` steps) is run
through the app (`alicorn run`, a subprocess), then its event drafts are appended under new run ids, each created a
second after the last, with the store's own append (`JournalStore._append_txn`: the same checks, chaining, summary
row and crash point as `append`), 1,000 runs per write transaction (one fsync each, instead of one per run).

Then, each a fresh `alicorn` process, best and median of `--reps` (5), interleaved round by round so a busy machine
slows every row alike: `alicorn runs` (the newest 50, as a table), `alicorn runs --json --limit 50`, against two
baselines measured in the same run: `alicorn --help` (the process floor: interpreter and imports) and the old
brute-force listing (`store.streams()` and a fold of every run), timed in-process on the first 2,000 runs, shown per
run and projected to the whole journal (the aggregate `streams()` is timed whole). Last, the one-off cost of filling
the table of a journal made before it (the first writable open after the table and its meta key are dropped).
It prints figures and ratios; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.plan.dsl import goal_digest
from alicorn.runtime.state import fold

PYTHON = Path(sys.executable)
ALICORN = PYTHON.parent / "alicorn"
BATCH = 1_000
BRUTE_RUNS = 2_000


def _plan(where: Path) -> Path:
    goal = "write a note and its copy"
    nodes = [
        {"node_id": "note", "operation": "workspace.write_file", "inputs": {"path": {"value": "note.txt"},
         "content": {"value": "a small run for the listing benchmark\n"}}},
        {"node_id": "copy", "operation": "workspace.write_file", "depends_on": ["note"],
         "inputs": {"path": {"value": "copy.txt"}, "content": {"value": "and its copy\n"}}},
    ]  # fmt: skip
    path = where / "plan.json"
    path.write_text(json.dumps({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}), encoding="utf-8")
    return path


def build(home: Path, runs: int, env: dict[str, str]) -> tuple[int, float]:
    """A home whose journal holds `runs` runs; (bytes of one run, seconds it took)."""
    started = time.perf_counter()
    subprocess.run(
        [str(ALICORN), "run", str(_plan(home.parent)), "-q", "--home", str(home)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with SQLiteStore(home / "journal.db") as store:
        (source,) = store.run_summaries(limit=None)
        events = store.read(source.stream)
        origin = datetime(2026, 1, 1, tzinfo=UTC)
        for first in range(0, runs - 1, BATCH):
            with store._write_transaction() as tx:
                for i in range(first, min(first + BATCH, runs - 1)):
                    at = (origin + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                    drafts, texts = store.encoded([Draft(e.kind, at, e.data) for e in events])
                    store._append_txn(tx, f"run-bench-{i:06d}", drafts, texts, 0)
            if (first // BATCH) % 10 == 9:
                print(f"  built {first + BATCH:,} runs ({time.perf_counter() - started:.0f} s)", flush=True)
        assert store.run_count() == runs
    return source.bytes, time.perf_counter() - started


def _timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - start


def brute_force(journal: Path) -> tuple[float, float]:
    """The old listing's two parts: (seconds of `streams()` over the whole journal, seconds per run folded)."""
    with SQLiteStore(journal, read_only=True) as store:
        started = time.perf_counter()
        infos = store.streams()
        aggregate = time.perf_counter() - started
        started = time.perf_counter()
        for info in infos[:BRUTE_RUNS]:
            state = fold(store.read(info.stream), info.stream)
            assert state.plan
        per_run = (time.perf_counter() - started) / min(BRUTE_RUNS, len(infos))
    return aggregate, per_run


def backfill(journal: Path) -> float:
    """Seconds the first writable open of the journal takes once its summaries are dropped (an older journal)."""
    conn = sqlite3.connect(journal)
    try:
        with conn:
            conn.execute("DROP TABLE run_summaries")
            conn.execute("DELETE FROM alicorn_meta WHERE key = 'run_summaries'")
    finally:
        conn.close()
    started = time.perf_counter()
    with SQLiteStore(journal) as store:
        elapsed = time.perf_counter() - started
        assert store.summaries_kept
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None, help="where the journal goes (default: a temporary dir)")
    parser.add_argument("--keep", action="store_true", help="keep the journal afterwards")
    args = parser.parse_args()
    where = Path(tempfile.mkdtemp(prefix="alicorn-runs-bench-", dir=args.dir))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    home = where / "home"
    try:
        print(f"building a journal of {args.runs:,} runs in {where} ...", flush=True)
        one_run, seconds = build(home, args.runs, env)
        size = (home / "journal.db").stat().st_size
        print(f"built in {seconds:.0f} s: {one_run:,} B per run, journal file {size / 1e6:,.0f} MB")
        commands = {
            "alicorn --help (process floor)": [str(ALICORN), "--help"],
            "alicorn runs": [str(ALICORN), "runs", "--home", str(home)],
            "alicorn runs --json --limit 50": [str(ALICORN), "runs", "--json", "--limit", "50", "--home", str(home)],
        }
        for argv in commands.values():  # warm-up: bytecode written, pages in the OS cache
            _timed(argv, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.reps):
            for name, argv in commands.items():
                times[name].append(_timed(argv, env))
        floor = min(times["alicorn --help (process floor)"])
        print(f"\n{'command':34s} {'best':>9s} {'median':>9s} {'best / floor':>13s} {'above floor':>12s}")
        for name, samples in times.items():
            best, median = min(samples), statistics.median(samples)
            above = (best - floor) * 1e3
            print(f"{name:34s} {best * 1e3:7.0f} ms {median * 1e3:7.0f} ms {best / floor:12.2f}x {above:9.0f} ms")
        aggregate, per_run = brute_force(home / "journal.db")
        projected = aggregate + per_run * args.runs
        best_listing = min(times["alicorn runs"])
        print(f"\nold brute-force listing: streams() over {args.runs:,} runs {aggregate:.2f} s;", end=" ")
        print(f"fold {per_run * 1e3:.3f} ms")
        print(
            f"  per run (first {min(BRUTE_RUNS, args.runs):,} runs); projected for the whole journal {projected:,.0f} s"
        )
        print(f"  = {projected / best_listing:,.0f}x `alicorn runs` (best), which includes the process floor")
        print(f"\nfilling the table of an older journal (first writable open): {backfill(home / 'journal.db'):.1f} s")
    finally:
        if args.keep:
            print(f"kept {where}")
        else:
            shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
