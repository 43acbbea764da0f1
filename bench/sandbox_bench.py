"""Benchmark of what the sandbox adds to a test run: the same tiny unittest suite, plain and under bubblewrap.

Baseline: `python -I -B -m unittest discover` in a child process (what `build.run_tests` did before the sandbox).
Sandboxed: the same command through `alicorn.sandbox.run` (prlimit + bwrap, binds, empty environment, no network),
and once more with a network grant (the filtering proxy and the in-sandbox bridge started for the run). Both are
measured in the same run, alternating, so the machine's state affects them alike. Nothing here asserts: it prints
medians, the difference and the ratio. The bundled candidate app's 14-test suite is measured too (`--app`).

    .venv/bin/python bench/sandbox_bench.py            # 30 runs of each
    .venv/bin/python bench/sandbox_bench.py -n 100 --app
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from alicorn.sandbox import Spec, run

SUITE = """import unittest


class Tiny(unittest.TestCase):
    def test_add(self) -> None:
        self.assertEqual(1 + 1, 2)

    def test_text(self) -> None:
        self.assertIn("b", "abc")

    def test_list(self) -> None:
        self.assertEqual(sorted([3, 1, 2]), [1, 2, 3])
"""
ARGV = [sys.executable, "-I", "-B", "-m", "unittest", "discover", "-s", ".", "-p", "test*.py"]
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}


def plain(folder: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(ARGV, cwd=folder, env=ENV, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the plain run failed: {done.stderr.decode()[-500:]}")
    return elapsed


def sandboxed(folder: Path, hosts: frozenset[str] = frozenset()) -> float:
    spec = Spec(folder, folder, {**ENV, "HOME": "/workspace"}, hosts=hosts)
    start = time.perf_counter()
    done = run(spec, ARGV, 60, threading.Event())
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the sandboxed run failed: {done.output.decode()[-500:]}")
    return elapsed


def measure(folder: Path, n: int, label: str) -> None:
    sandboxed(folder)  # the first call probes bubblewrap once (cached); not counted
    base: list[float] = []
    boxed: list[float] = []
    granted: list[float] = []
    for _ in range(n):
        base.append(plain(folder))
        boxed.append(sandboxed(folder))
        granted.append(sandboxed(folder, frozenset({"example.org"})))
    b, s, g = (statistics.median(x) * 1000 for x in (base, boxed, granted))
    print(f"{label}: {n} runs each, medians")
    print(f"  plain  python -I          {b:8.1f} ms")
    print(f"  sandbox (no network)      {s:8.1f} ms   +{s - b:6.1f} ms   x{s / b:.2f}")
    print(f"  sandbox + network grant   {g:8.1f} ms   +{g - b:6.1f} ms   x{g / b:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=30, help="runs of each kind")
    parser.add_argument("--app", action="store_true", help="also measure the bundled candidate app's suite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="alicorn-sandbox-bench-") as tmp:
        tiny = Path(tmp) / "tiny"
        tiny.mkdir()
        (tiny / "test_tiny.py").write_text(SUITE, encoding="utf-8")
        measure(tiny, args.n, "tiny suite (3 tests)")
        if args.app:
            from alicorn.packs.candidate import WORKFLOW

            app = Path(tmp) / "app"
            shutil.copytree(WORKFLOW.data_dir / "app", app, ignore=shutil.ignore_patterns("__pycache__"))
            measure(app, args.n, "candidate app suite (14 tests)")


if __name__ == "__main__":
    main()
