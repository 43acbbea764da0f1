"""A child process for the PostgreSQL crash tests: runs (or resumes) a plan of built-in operations until killed.

Usage: python -m tests.runtime.pg_crash_child URL SCHEMA WORKDIR PLAN.json [RUN_ID]
"""

from __future__ import annotations

import sys
from pathlib import Path

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.validate import parse_plan
from alicorn.runtime.executor import Executor, RunEnvironment


def main() -> None:
    url, schema, workdir, plan_file = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    with PostgresJournalStore(url, schema=schema) as store:
        executor = Executor(store, builtin_registry(), RunEnvironment(workdir / "ws", workdir, max_parallel=3))
        if len(sys.argv) > 5:
            state = executor.resume(sys.argv[5])
        else:
            state = executor.start(parse_plan(plan_file.read_text()), run_id="run-crash-test")
    print(state.status, flush=True)


if __name__ == "__main__":
    main()
