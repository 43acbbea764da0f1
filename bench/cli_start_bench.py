"""How fast the ordinary `alicorn` commands start: each is a fresh interpreter, so its time is almost all imports.

    .venv/bin/python bench/cli_start_bench.py             # 15 runs of each command (about 40 s)
    .venv/bin/python bench/cli_start_bench.py --reps 5    # quicker
    .venv/bin/python bench/cli_start_bench.py --importtime show   # and the 25 slowest imports of one command
    git archive HEAD src | tar -x -C /tmp/before             # another version's source, e.g. the last commit,
    .venv/bin/python bench/cli_start_bench.py --compare /tmp/before/src   # timed in the same rounds ("then:" rows)

It makes a fresh home with one run (the alarms pack's plan, through `alicorn run`), then times `--version`, `--help`,
`runs`, `show RUN`, `journal RUN` and `why RUN` as subprocesses of the venv's `alicorn` script, against
`python -c pass` and `python -c "import alicorn"` measured in the same run, interleaved round by round so a busy
machine slows every row alike. It prints best-of-N and median per command and both as ratios to `python -c pass`.
Bytecode is cached as in an install (the warm-up writes it; PYTHONDONTWRITEBYTECODE is dropped for the children).
Target (issue 17): `alicorn show` <= 250 ms. It prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "src" / "alicorn" / "packs" / "alarms" / "plan.json"
PYTHON = Path(sys.executable)
ALICORN = PYTHON.parent / "alicorn"


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float] | None:
    """Wall and CPU seconds (user + system) one subprocess takes from start to exit, its output discarded; None when
    it does not exit 0. CPU time moves less than wall time when other processes share the machine."""
    cpu, start = _cpu(), time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    elapsed = time.perf_counter() - start
    return (elapsed, _cpu() - cpu) if done.returncode == 0 else None


def _home(where: Path, env: dict[str, str]) -> str:
    """A fresh home holding one finished run; returns its id."""
    home = where / "home"
    subprocess.run(
        [str(ALICORN), "run", str(PLAN), "-q", "--home", str(home)], env=env, check=True, stdout=subprocess.DEVNULL
    )
    listed = subprocess.run(
        [str(ALICORN), "runs", "--json", "--home", str(home)], env=env, check=True, capture_output=True, text=True
    )
    return str(json.loads(listed.stdout)[0]["run"])


def _importtime(argv: list[str], env: dict[str, str], top: int) -> None:
    """The slowest imports (cumulative) of one command, from `python -X importtime`."""
    script = f"import sys; sys.argv = {argv!r}; from alicorn.cli import main; main()"
    done = subprocess.run(
        [str(PYTHON), "-X", "importtime", "-c", script], env=env, capture_output=True, text=True, check=False
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), int(parts[0]), parts[2].rstrip()))
    print(f"\nslowest imports of `alicorn {' '.join(argv[1:])}` (cumulative / self, ms):")
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:7.1f} {own / 1000:7.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=15, help="runs of each command (default 15)")
    parser.add_argument("--importtime", metavar="COMMAND", help="also list the slowest imports of one command")
    parser.add_argument("--compare", metavar="SRC", help="also time the alicorn commands with PYTHONPATH=SRC")
    args = parser.parse_args()
    if not ALICORN.exists():
        raise SystemExit(f"{ALICORN} is missing: install the package into this venv (pip install -e .)")
    # PYTHONDONTWRITEBYTECODE (set in some dev shells) would make every start compile every module again: a user's
    # install has its bytecode cached, so the warm-up writes the caches and the timed starts read them.
    dropped = ("ALICORN_HOME", "ALICORN_DEBUG", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    with tempfile.TemporaryDirectory(prefix="alicorn-start-") as tmp:
        run_id = _home(Path(tmp), env)
        home = ["--home", str(Path(tmp) / "home")]
        rows: dict[str, list[str]] = {
            "python -c pass": [str(PYTHON), "-c", "pass"],
            'python -c "import alicorn"': [str(PYTHON), "-c", "import alicorn"],
            "alicorn --version": [str(ALICORN), "--version"],
            "alicorn --help": [str(ALICORN), "--help"],
            "alicorn runs": [str(ALICORN), "runs", *home],
            "alicorn show RUN": [str(ALICORN), "show", run_id, *home],
            "alicorn journal RUN": [str(ALICORN), "journal", run_id, *home],
            "alicorn why RUN": [str(ALICORN), "why", run_id, *home],
        }
        envs = {name: env for name in rows}
        if args.compare:  # the same commands on another source tree (its modules come first on the path)
            then = {**env, "PYTHONPATH": str(Path(args.compare).resolve())}
            for name, argv in list(rows.items()):
                if name.startswith("alicorn"):
                    rows[f"then: {name}"], envs[f"then: {name}"] = argv, then
        # One warm-up each (the first start reads the files from disk); a command that fails (one this version does
        # not have, like `--version` before it was added) is reported and left out.
        failing = [name for name, argv in rows.items() if _timed(argv, envs[name]) is None]
        for name in failing:
            print(f"{name}: does not exit 0 in this version; left out")
            del rows[name]
        times: dict[str, list[float]] = {name: [] for name in rows}
        cpu: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(args.reps):
            for name, argv in rows.items():
                timed = _timed(argv, envs[name])
                if timed is None:
                    raise SystemExit(f"{' '.join(argv)} failed after its warm-up succeeded")
                times[name].append(timed[0])
                cpu[name].append(timed[1])
        floor = min(times["python -c pass"])
        floor_median = statistics.median(times["python -c pass"])
        print(f"start times over {args.reps} runs each, interleaved (one run in the home: {run_id})")
        print(f"{'command':28} {'best ms':>8} {'median ms':>10} {'best/pass':>10} {'median/pass':>12} {'cpu ms':>7}")
        for name, samples in times.items():
            best, median = min(samples), statistics.median(samples)
            ratios = f"{best / floor:9.1f}x {median / floor_median:11.1f}x"
            print(f"{name:28} {best * 1000:8.0f} {median * 1000:10.0f} {ratios} {min(cpu[name]) * 1000:7.0f}")
        print("(cpu ms: the least user + system time of one start)")
        show = min(times["alicorn show RUN"])
        verdict = "met" if show <= 0.25 else "NOT met"
        print(f"\n`alicorn show` best {show * 1000:.0f} ms against the 250 ms target: {verdict}")
        if args.importtime:
            command = {"show": ["show", run_id], "journal": ["journal", run_id], "why": ["why", run_id]}.get(
                args.importtime, args.importtime.split()
            )
            _importtime(["alicorn", *command, *home], env, 25)


if __name__ == "__main__":
    main()
