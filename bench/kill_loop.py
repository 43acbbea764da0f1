"""Randomized kill loop for exactly-once effects (issue: crash safety).

Each iteration starts a run that posts to a real SQLite ledger with the three effect contracts (keyed, unsafe with
lookup, unsafe without), kills its process with SIGKILL at a random moment — and, half of the time, kills its
resumes too — then resumes it in fresh processes until it ends (an operator resolves unknown outcomes by checking
the ledger). After each run it checks: no effect applied twice per key, no acknowledged event lost, chain and
replay verify, and the run ended in an explained state.

    python bench/kill_loop.py --kills 10000        # the documented long run
    python bench/kill_loop.py --kills 200          # what CI runs (tests/effects/test_kill_loop.py)
    python bench/kill_loop.py --kills 1000 --durability grouped   # runs as the executor's default commits them

Figures from a 10,000-kill run are kept in bench/README.md.
"""

from __future__ import annotations

import argparse
import sys

from alicorn.testing.kill_loop import kill_loop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=1000, help="stop after this many kills (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-kill-s", type=float, default=0.25, help="kill within this many seconds of a start")
    parser.add_argument(
        "--durability",
        choices=["step", "grouped"],
        default="step",
        help="how the runs commit: every step (default), or effect-free steps in groups (the executor's default)",
    )
    args = parser.parse_args()
    report = kill_loop(
        args.kills, seed=args.seed, max_kill_s=args.max_kill_s, progress=True, durability=args.durability
    )
    print(report.summary())
    for problem in report.problems[:20]:
        print("PROBLEM", problem)
    print("PASS" if report.ok() else "FAIL")
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
