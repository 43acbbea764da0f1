"""A child process for crash tests: runs (or resumes) a plan of built-in operations until it is killed.

Usage: python -m tests.runtime.crash_child JOURNAL WORKDIR PLAN.json [RUN_ID]
"""

from __future__ import annotations

import sys
from pathlib import Path

from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.validate import parse_plan
from alicorn.runtime.executor import Executor, RunEnvironment


def main() -> None:
    journal, workdir, plan_file = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    store = SQLiteStore(journal)
    env = RunEnvironment(workdir / "ws", workdir, max_parallel=3)
    executor = Executor(store, builtin_registry(), env)
    if len(sys.argv) > 4:
        state = executor.resume(sys.argv[4])
    else:
        state = executor.start(parse_plan(plan_file.read_text()), run_id="run-crash-test")
    print(state.status, flush=True)


if __name__ == "__main__":
    main()
