"""Benchmark of Alicorn's durable runtime, with every figure set against a baseline measured in the same run.

Absolute times drift on shared machines, so each figure comes with a ratio to something measured alongside it: a raw
SQLite floor (two durable single-row transactions per step), a raw read of the same journal, a bare interpreter
start, and, when installed, peer runtimes (DBOS, LangGraph) doing the same work. Nothing here asserts: it prints.

    python bench/runtime_bench.py            # the default run (N=1000; one to two minutes with peers)
    python bench/runtime_bench.py --quick    # a smaller run
    python bench/runtime_bench.py --compare ../before/src   # also: this tree's chain against another tree's
    make bench                               # in .venv-bench, with the peers installed

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import peers
from workloads import (
    chain_plan,
    command_times,
    fanout_plan,
    journal_alone,
    max_length,
    raw_batched_floor,
    raw_floor,
    raw_read,
    run_alicorn,
    timed,
)

from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import Node, Plan
from alicorn.runtime import plan_decisions
from alicorn.runtime.executor import DEFAULT_DURABILITY, Durability
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold

FLOOR_TARGET = 1.5  # Alicorn's time per node / the raw floor's time per step
#: Issue 17's figure: Alicorn's time per node against the one-commit floor (one fsync'd transaction per step, which
#: is what Alicorn commits per node of a chain), at equal durability.
ONE_COMMIT_TARGET = 1.25
#: Issue 17's figure for a chain of effect-free nodes in the executor's default durability (grouped commits).
DEFAULT_MODE_TARGET_S = 40e-6
FOLD_TARGET = 50_000  # events per second, read + fold
CLI_TARGET = 0.3  # seconds for `alicorn --help`
PEER_TARGET = 10.0  # peer's time per step / Alicorn's time per node
RUN_TRIES = 3  # an Alicorn run that raises is reported and tried again, so one failure does not void a figure


@dataclass(frozen=True)
class Row:
    """One line of the final table."""

    workload: str
    figure: str
    baseline: str
    ratio: str
    target: str
    verdict: str  # PASS | MISS | info | ERROR | skipped


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} us"


def say(line: str = "") -> None:
    print(line, flush=True)


# ---- the benchmark --------------------------------------------------------------------------------------------


class Bench:
    """Runs the workloads in order, prints as it goes, and collects the rows of the final table."""

    def __init__(self, args: argparse.Namespace, root: Path) -> None:
        self.args = args
        self.root = root
        self.n: int = args.nodes
        self.reps: int = args.reps
        self.rows: list[Row] = []
        self.floor_s: float | None = None  # the floor's median seconds per step
        self.journal: tuple[SQLiteStore, str] | None = None  # the last chain run, for the replay figures
        self._dirs = 0
        self.runs = 0  # Alicorn runs started, and those that raised (each is retried, up to RUN_TRIES in all)
        self.failures: list[str] = []
        # One registry for the whole process, as a long-lived executor would hold; its first use is timed apart.
        self.registry = builtin_registry()

    def fresh(self, name: str) -> Path:
        self._dirs += 1
        return self.root / f"{self._dirs:03d}-{name}"

    def alicorn(self, name: str, plan: Plan, durability: Durability | None = None) -> tuple[float, SQLiteStore, str]:
        """`run_alicorn` on a fresh folder (with --durability unless told otherwise); a run that raises is reported,
        counted and tried again."""
        for attempt in range(1, RUN_TRIES + 1):
            self.runs += 1
            try:
                return run_alicorn(self.fresh(name), plan, self.registry, durability or self.args.durability)
            except Exception as exc:
                self.failures.append(f"{name}: {type(exc).__name__}: {exc}")
                say(f"   Alicorn run FAILED (try {attempt} of {RUN_TRIES}): {type(exc).__name__}: {exc}")
                if attempt == RUN_TRIES:
                    raise
        raise AssertionError("unreachable")

    def section(self, name: str, fn: Callable[[], None]) -> None:
        say(f"\n== {name}")
        try:
            fn()
        except Exception as exc:
            say(f"   ERROR: {type(exc).__name__}: {exc}")
            self.rows.append(Row(name, "error", "-", "-", "-", "ERROR"))

    def warm_up(self) -> None:
        """Imports, schema building and first-file effects, out of the timed runs."""
        first = timed(self.registry.fingerprint)
        say(f"   registry fingerprint, computed once per new Registry (at its first start): {first * 1e3:.1f} ms")
        _, store, _ = self.alicorn("warmup", chain_plan(50))
        store.close()
        workdir = self.fresh("warmup")
        workdir.mkdir(parents=True)
        raw_floor(workdir / "floor.db", 50)

    def chain_and_floor(self) -> None:
        plan = chain_plan(self.n)
        chain, floor, ratios, one, one_ratios = [], [], [], [], []
        computed = Counter(plan_decisions.COMPUTED)
        for rep in range(self.reps):  # interleaved, so drift hits both alike; the ratio is taken per repetition
            workdir = self.fresh("floor")
            workdir.mkdir(parents=True)
            floor.append(raw_floor(workdir / "floor.db", self.n) / self.n)
            one.append(raw_floor(workdir / "one.db", self.n, kinds=("finished",)) / self.n)
            elapsed, store, run_id = self.alicorn("chain", plan)
            chain.append(elapsed / self.n)
            if self.journal is not None:
                self.journal[0].close()
            self.journal = (store, run_id)
            ratios.append(chain[-1] / floor[-1])
            one_ratios.append(chain[-1] / one[-1])
            say(
                f"   rep {rep + 1}: Alicorn {us(chain[-1])}/node, floor {us(floor[-1])}/step ({ratios[-1]:.2f}x), "
                f"one-commit floor {us(one[-1])}/step ({one_ratios[-1]:.2f}x)"
            )
        computed = Counter(plan_decisions.COMPUTED) - computed
        say(
            f"   decided once per plan, over the {self.reps} runs of this plan: risk {computed['risk']}x, verdict "
            f"{computed['verdict']}x; each run's call gate {computed['gate'] / self.reps:g}x (not per node)"
        )
        node_s, self.floor_s = statistics.median(chain), statistics.median(floor)
        ratio = statistics.median(ratios)
        say(f"   Alicorn chain of {self.n} no-op nodes: median {us(node_s)} per node")
        say(f"   raw SQLite floor, 2 durable INSERT transactions per step: median {us(self.floor_s)} per step")
        say(f"   ratio Alicorn per node / floor per step (median of the per-rep ratios): {ratio:.2f}x")
        one_s, one_ratio = statistics.median(one), statistics.median(one_ratios)
        say(f"   one-commit floor, 1 durable INSERT transaction per step: median {us(one_s)} per step")
        say(f"   ratio Alicorn per node / one-commit floor per step (issue 17's figure): {one_ratio:.2f}x")
        self.rows.append(
            Row(
                f"sequential chain, N={self.n}",
                f"{us(node_s)}/node",
                f"floor {us(self.floor_s)}/step",
                f"{ratio:.2f}x",
                f"<= {FLOOR_TARGET}x",
                verdict(ratio <= FLOOR_TARGET),
            )
        )
        self.rows.append(
            Row(
                f"sequential chain, N={self.n}",
                f"{us(node_s)}/node",
                f"one-commit floor {us(one_s)}/step",
                f"{one_ratio:.2f}x",
                f"<= {ONE_COMMIT_TARGET}x",
                verdict(one_ratio <= ONE_COMMIT_TARGET),
            )
        )

    def default_mode_chain(self) -> None:
        """The same chain in the executor's default durability, where its effect-free steps are committed in groups,
        against SQLite inserting the same number of rows in one durable transaction."""
        plan = chain_plan(self.n)
        chain, floor, alone = [], [], []
        for _ in range(self.reps):
            workdir = self.fresh("batched-floor")
            workdir.mkdir(parents=True)
            floor.append(raw_batched_floor(workdir / "floor.db", self.n) / self.n)
            elapsed, store, run_id = self.alicorn("default-chain", plan, DEFAULT_DURABILITY)
            alone.append(journal_alone(workdir / "alone.db", store, run_id) / self.n)
            store.close()
            chain.append(elapsed / self.n)
        node_s, floor_s, alone_s = statistics.median(chain), statistics.median(floor), statistics.median(alone)
        ratio = statistics.median(c / f for c, f in zip(chain, floor, strict=True))
        say(
            f"   Alicorn chain of {self.n} no-op nodes, durability {DEFAULT_DURABILITY!r}: median {us(node_s)} per node"
        )
        say(f"   (per rep: {', '.join(us(c) for c in chain)})")
        say(f"   raw SQLite, 3 rows per step in one durable transaction: median {us(floor_s)} per step")
        say(f"   ratio (median of the per-rep ratios): {ratio:.1f}x; target {us(DEFAULT_MODE_TARGET_S)} per node")
        say(
            f"   the journal alone, the same run's events appended again in one append (no runtime): median "
            f"{us(alone_s)} per node ({alone_s / DEFAULT_MODE_TARGET_S:.0%} of the target); the runtime's own share "
            f"{us(node_s - alone_s)} per node"
        )
        self.rows.append(
            Row(
                f"effect-free chain, {DEFAULT_DURABILITY}",
                f"{us(node_s)}/node",
                f"3 rows/step, 1 commit: {us(floor_s)}/step",
                f"{ratio:.1f}x",
                f"<= {us(DEFAULT_MODE_TARGET_S)}/node",
                verdict(node_s <= DEFAULT_MODE_TARGET_S),
            )
        )

    def fanout(self) -> None:
        width = self.args.width
        plan, joins = fanout_plan(width)
        nodes = len(plan.nodes)
        shape = f"1 -> {width} -> 1" if not joins else f"1 -> {width} -> {len(joins)} -> 1"
        if joins:
            cap = max_length(Node, "depends_on")
            say(f"   a node may depend on at most {cap} nodes (Node.depends_on), so the fan-in goes through")
            say(f"   {len(joins)} intermediate joins: the plan is {shape}")
        totals = []
        for _ in range(self.reps):
            elapsed, store, _ = self.alicorn("fanout", plan)
            store.close()
            totals.append(elapsed)
        total = statistics.median(totals)
        per_node = total / nodes
        say(f"   {shape} ({nodes} nodes, max_parallel=4): median total {total * 1e3:.1f} ms, {us(per_node)} per node")
        baseline, ratio = "-", "-"
        if self.floor_s is not None:
            baseline, ratio = f"floor {us(self.floor_s)}/step", f"{per_node / self.floor_s:.2f}x"
            say(f"   ratio per node / floor per step: {ratio}")
        self.rows.append(
            Row(
                f"fan-out {shape.replace(' ', '')}",
                f"{us(per_node)}/node, {total * 1e3:.1f} ms total",
                baseline,
                ratio,
                "-",
                "info",
            )
        )

    def replay(self) -> None:
        if self.journal is None:
            raise RuntimeError("no chain run to replay (the chain workload failed)")
        store, run_id = self.journal
        events = len(store.read(run_id))

        def read_and_fold() -> None:
            state = fold(store.read(run_id))
            if state.status != "succeeded":
                raise RuntimeError(f"fold gave status {state.status}")

        folds = [timed(read_and_fold) for _ in range(self.reps)]
        raws = [timed(lambda: raw_read(store.path, run_id)) for _ in range(self.reps)]
        replays = []
        for _ in range(max(3, self.reps // 2)):
            started = time.perf_counter()
            report = replay_run(store, run_id, self.registry)
            replays.append(time.perf_counter() - started)
            if report.status != "succeeded" or report.events != events:
                raise RuntimeError(f"replay gave {report.status} over {report.events} events")
        fold_rate, raw_rate, replay_rate = (events / statistics.median(t) for t in (folds, raws, replays))
        say(f"   journal of the {self.n}-node chain: {events} events")
        say(f"   read + fold:      {fold_rate:>9,.0f} events/s (target >= {FOLD_TARGET:,})")
        say(f"   raw read:         {raw_rate:>9,.0f} events/s (sqlite3 + json.loads, the baseline)")
        say(f"   verified replay:  {replay_rate:>9,.0f} events/s")
        say(f"   read + fold takes {raw_rate / fold_rate:.2f}x the raw read's time")
        say(f"   verified replay takes {fold_rate / replay_rate:.1f}x read + fold's time")
        self.rows.append(
            Row(
                "replay: read + fold",
                f"{fold_rate:,.0f} ev/s",
                f"raw read {raw_rate:,.0f} ev/s",
                f"{raw_rate / fold_rate:.2f}x the time",
                f">= {FOLD_TARGET:,} ev/s",
                verdict(fold_rate >= FOLD_TARGET),
            )
        )
        self.rows.append(
            Row(
                "replay: verified (replay_run)",
                f"{replay_rate:,.0f} ev/s",
                f"read+fold {fold_rate:,.0f} ev/s",
                f"{fold_rate / replay_rate:.1f}x the time",
                "-",
                "info",
            )
        )

    def cli(self) -> None:
        alicorn = Path(sys.prefix) / "bin" / "alicorn"
        if not alicorn.exists():
            found = shutil.which("alicorn")
            if found is None:
                raise RuntimeError(f"no `alicorn` script in {alicorn.parent} or on PATH; pip install -e . first")
            alicorn = Path(found)
        reps = self.args.cli_reps
        cli = statistics.median(command_times([str(alicorn), "--help"], reps))
        bare = statistics.median(command_times([sys.executable, "-c", "pass"], reps))
        say(f"   {alicorn} --help: median {cli * 1e3:.0f} ms over {reps} runs (target < {CLI_TARGET * 1e3:.0f} ms)")
        say(f"   {sys.executable} -c pass: median {bare * 1e3:.0f} ms (baseline); ratio {cli / bare:.1f}x")
        self.rows.append(
            Row(
                "`alicorn --help` start-up",
                f"{cli * 1e3:.0f} ms",
                f"python -c pass {bare * 1e3:.0f} ms",
                f"{cli / bare:.1f}x",
                f"< {CLI_TARGET * 1e3:.0f} ms",
                verdict(cli < CLI_TARGET),
            )
        )

    def peer(self, name: str, modules: tuple[str, ...], measure: Callable[[Path], dict[str, peers.PeerRun]]) -> None:
        say(f"\n== peer: {name}")
        absent = peers.missing(*modules)
        if absent is not None:
            say(f"   {name}: not installed ({peers.INSTALL_HINT}); missing module {absent!r}")
            self.rows.append(Row(f"peer: {name}", "not installed", "-", "-", "-", "skipped"))
            return
        try:
            workdir = self.fresh(name.lower())
            workdir.mkdir(parents=True)
            runs = measure(workdir)
        except Exception as exc:
            say(f"   {name} failed: {type(exc).__name__}: {exc}")
            self.rows.append(Row(f"peer: {name}", "error", "-", "-", "-", "ERROR"))
            return
        for label, run in runs.items():
            per_step = statistics.median(run.seconds) / self.n
            alicorn = statistics.median(run.paired) / self.n
            ratio = statistics.median(p / a for p, a in zip(run.seconds, run.paired, strict=True))
            say(f"   {label}:")
            for rep, (p, a) in enumerate(zip(run.seconds, run.paired, strict=True), 1):
                say(f"      rep {rep}: {name} {us(p / self.n)}/step, Alicorn {us(a / self.n)}/node, ratio {p / a:.1f}x")
            say(f"      median {us(per_step)} per step over {len(run.seconds)} runs of {self.n} steps")
            say(f"      SQLite settings read back: {run.settings}")
            for note in run.notes:
                say(f"      {note}")
            say(f"      Alicorn's chain, run just before each: median {us(alicorn)} per node")
            say(f"      ratio {name} per step / Alicorn per node (median of the per-rep ratios): {ratio:.1f}x")
            self.rows.append(
                Row(
                    f"peer: {label}",
                    f"{us(per_step)}/step",
                    f"Alicorn {us(alicorn)}/node",
                    f"{ratio:.1f}x",
                    f">= {PEER_TARGET:g}x" if run.comparable else "-",
                    verdict(ratio >= PEER_TARGET) if run.comparable else "info",
                )
            )

    def peers(self) -> None:
        reps, n, plan = self.args.peer_reps, self.n, chain_plan(self.n)

        def alicorn() -> float:
            """Alicorn's chain of the same N, run just before each peer run (the ratios are taken per pair)."""
            elapsed, store, _ = self.alicorn("paired", plan)
            store.close()
            return elapsed

        def dbos(workdir: Path) -> dict[str, peers.PeerRun]:
            runs = peers.run_dbos(workdir, n, reps, ("wal", "default"), alicorn)
            return {"DBOS (WAL, same as Alicorn)": runs["wal"], "DBOS (its default journal)": runs["default"]}

        def langgraph(workdir: Path) -> dict[str, peers.PeerRun]:
            return {"LangGraph SqliteSaver (WAL), durability=sync": peers.run_langgraph(workdir, n, reps, alicorn)}

        self.peer("DBOS", ("dbos",), dbos)
        self.peer("LangGraph", ("langgraph", "langgraph.checkpoint.sqlite"), langgraph)

    def compare(self) -> None:
        """The chain's time per node with another Alicorn tree and with this one, each in a fresh process, alternating
        (so drift hits both alike): a before/after figure from one run on one machine."""
        other = self.args.compare.resolve()
        mine = Path(plan_decisions.__file__).resolve().parents[2]
        wall: dict[str, list[float]] = {"other": [], "this": []}
        cpu: dict[str, list[float]] = {"other": [], "this": []}
        for rep in range(self.reps):
            for name, src in (("other", other), ("this", mine))[:: 1 if rep % 2 == 0 else -1]:
                found = chain_elsewhere(src, self.n, self.fresh(f"compare-{name}"), self.args.durability)
                wall[name].append(found[0])
                cpu[name].append(found[1])
            say(
                f"   rep {rep + 1}: other {us(wall['other'][-1])}/node (CPU {us(cpu['other'][-1])}), this tree "
                f"{us(wall['this'][-1])}/node (CPU {us(cpu['this'][-1])})"
            )
        for label, found in (("wall", wall), ("CPU", cpu)):
            before, after = statistics.median(found["other"]), statistics.median(found["this"])
            ratio = statistics.median([a / b for a, b in zip(found["this"], found["other"], strict=True)])
            say(f"   {label} per node, median: {other} {us(before)}, this tree {us(after)}; this / other {ratio:.3f}x")
            self.rows.append(
                Row(
                    f"chain N={self.n} vs --compare, {label}",
                    f"{us(after)}/node",
                    f"{us(before)}/node",
                    f"{ratio:.3f}x",
                    "-",
                    "info",
                )
            )

    def profile(self) -> None:
        """One chain run under cProfile (main thread only; `util.noop` is `inline`, so it runs there too, while an
        operation that is not runs on a worker thread the profile does not see)."""
        plan = chain_plan(self.n)
        for attempt in range(1, 4):
            profiler = cProfile.Profile()
            profiler.enable()
            try:
                run_alicorn(self.fresh("profile"), plan, self.registry)[1].close()
                break
            except RuntimeError as exc:  # the profiler widens a known dispatcher race (bench/README.md)
                say(f"   attempt {attempt} failed under the profiler: {exc}")
                if attempt == 3:
                    raise
            finally:
                profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(15)
        stats.sort_stats("cumulative").print_stats(25)

    def table(self) -> None:
        failed = len(self.failures)
        self.rows.append(
            Row(
                "Alicorn runs that raised",
                f"{failed} of {self.runs}",
                "-",
                "-",
                "0",
                "ERROR" if failed else "PASS",
            )
        )
        header = Row("workload", "figure", "baseline (same run)", "ratio", "target", "result")
        rows = [header, *self.rows]
        widths = [max(len(getattr(r, f)) for r in rows) for f in Row.__dataclass_fields__]
        say("\n== summary")
        for i, row in enumerate(rows):
            cells = [getattr(row, f).ljust(w) for f, w in zip(Row.__dataclass_fields__, widths, strict=True)]
            say("   " + "  ".join(cells).rstrip())
            if i == 0:
                say("   " + "  ".join("-" * w for w in widths))
        for failure in self.failures:
            say(f"   an Alicorn run raised (then tried again): {failure}")


#: A fresh process timing one chain with the Alicorn found on its PYTHONPATH (argv: nodes, workdir, durability).
_CHAIN_SCRIPT = """
import sys
import time
from pathlib import Path
import alicorn
from workloads import chain_plan, run_alicorn
from alicorn.ops.builtin import builtin_registry
n, workdir, durability = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
registry = builtin_registry()
run_alicorn(workdir / "warmup", chain_plan(50), registry, durability)[1].close()
cpu = time.process_time()
elapsed, store, _ = run_alicorn(workdir / "chain", chain_plan(n), registry, durability)
cpu = time.process_time() - cpu
store.close()
print(alicorn.__file__)
print(elapsed / n, cpu / n)
"""


def chain_elsewhere(src: Path, n: int, workdir: Path, durability: str) -> tuple[float, float]:
    """Seconds per node (wall, and CPU of the whole process) of an N-node chain run by the Alicorn in `src` (a
    tree's src/ folder), in a fresh process after one warm-up run, so two trees timed alike can be set side by side.
    CPU time moves less than wall time on a loaded machine, and fsync waits are not in it."""
    bench = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(bench)])}
    argv = [sys.executable, "-c", _CHAIN_SCRIPT, str(n), str(workdir), durability]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the chain with Alicorn from {src} failed: {done.stderr.strip()[-500:]}")
    found, wall, cpu = done.stdout.split()[-3:]
    if not Path(found).resolve().is_relative_to(src):
        raise RuntimeError(f"asked for the Alicorn in {src}, the process imported {found}")
    return float(wall), float(cpu)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a smaller, faster run (N=200, fewer repetitions)")
    parser.add_argument("-n", "--nodes", type=int, help="N: nodes in the chain and steps per peer run (default 1000)")
    parser.add_argument("--width", type=int, default=100, help="parallel nodes in the fan-out (default 100)")
    parser.add_argument("--reps", type=int, help="repetitions of the Alicorn workloads (default 9; --quick 3)")
    parser.add_argument("--peer-reps", type=int, help="repetitions of each peer run (default 5; --quick 3)")
    parser.add_argument("--cli-reps", type=int, help="runs of `alicorn --help` (default 7; --quick 5)")
    parser.add_argument("--no-peers", action="store_true", help="skip DBOS and LangGraph")
    parser.add_argument(
        "--durability",
        choices=["step", "grouped"],
        default="step",
        help="Alicorn's durability: every step durable before the next (default, the peers' guarantee), or "
        "effect-free steps made durable in groups (at most 50 ms late; effects never grouped)",
    )
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of one chain run")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="SRC",
        help="also time the chain with the Alicorn in SRC (another tree's src/ folder, e.g. a copy of the last "
        "commit) against this tree's, each in a fresh process, alternating; prints both and their ratio",
    )
    parser.add_argument("--dir", type=Path, help="where to put the journals (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the journals and databases afterwards")
    args = parser.parse_args(argv)
    args.nodes = args.nodes or (200 if args.quick else 1000)
    args.reps = args.reps or (3 if args.quick else 9)
    args.peer_reps = args.peer_reps or (3 if args.quick else 5)
    args.cli_reps = args.cli_reps or (5 if args.quick else 7)
    for name in ("nodes", "width", "reps", "peer_reps", "cli_reps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    most = max_length(Plan, "nodes")
    if args.nodes > most:
        parser.error(f"--nodes {args.nodes}: an Alicorn plan holds at most {most} nodes")
    if args.width + 3 + args.width // max_length(Node, "depends_on") > most:
        parser.error(f"--width {args.width}: the fan-out plan would exceed {most} nodes")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="alicorn-bench-", dir=args.dir))
    say("Alicorn runtime benchmark")
    say(f"   python {platform.python_version()} ({sys.executable}), SQLite {sqlite3.sqlite_version}")
    say(f"   {platform.platform()}, {platform.processor() or platform.machine()}")
    say(f"   N={args.nodes}, fan-out width {args.width}, {args.reps} reps (medians), files in {root}")
    bench = Bench(args, root)
    started = time.perf_counter()
    try:
        bench.section("warm-up", bench.warm_up)
        bench.section("sequential durable chain vs raw SQLite floor", bench.chain_and_floor)
        bench.section("effect-free chain in the default durability", bench.default_mode_chain)
        bench.section("fan-out", bench.fanout)
        bench.section("replay", bench.replay)
        bench.section("CLI start-up", bench.cli)
        if args.no_peers:
            say("\n== peers: skipped (--no-peers)")
        else:
            bench.peers()
        if args.compare is not None:
            bench.section(f"chain: this tree against {args.compare}", bench.compare)
        if args.profile:
            bench.section("cProfile of one chain run", bench.profile)
        bench.table()
        say(f"\n   total {time.perf_counter() - started:.0f} s")
    finally:
        if bench.journal is not None:
            bench.journal[0].close()
        if args.keep:
            say(f"   kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
