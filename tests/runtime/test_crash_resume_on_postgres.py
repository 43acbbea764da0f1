"""SIGKILL at any moment, then resume, on a PostgreSQL journal: nothing acknowledged is lost, nothing is redone.

The same checks as test_crash_resume.py (its plan), with the child writing to a schema of its own on the session's
server; fewer kill points, since each costs a process start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.verify import verify_journal
from alicorn.ops.builtin import builtin_registry
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold
from tests.pgserver import next_schema
from tests.runtime.test_crash_resume import RUN, crash_plan

ROOT = Path(__file__).resolve().parents[2]


def _child(url: str, schema: str, tmp_path: Path, *extra: str) -> list[str]:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(crash_plan()))
    return [sys.executable, "-m", "tests.runtime.pg_crash_child", url, schema, str(tmp_path), str(plan_file), *extra]


def _kill_after(child: subprocess.Popen[bytes], store: PostgresJournalStore, events: int) -> None:
    deadline = time.monotonic() + 30
    while store.last_seq(RUN) < events and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)


@pytest.mark.parametrize("kill_after_events", [2, 8, 17])
def test_sigkill_at_any_moment_then_resume(pg_url: str, tmp_path: Path, kill_after_events: int) -> None:
    schema = next_schema("c")
    with PostgresJournalStore(pg_url, schema=schema) as store:
        args = _child(pg_url, schema, tmp_path)
        child = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _kill_after(child, store, kill_after_events)
        before = store.read(RUN)
        assert before, "the child never committed, so this test proved nothing"
        acknowledged = [e.line for e in before]
        state_before = fold(before)
        finished_before = {n for n, ns in state_before.nodes.items() if ns.status == "succeeded"}
        executor = Executor(store, builtin_registry(), RunEnvironment(tmp_path / "ws", tmp_path, max_parallel=3))
        state = fold(store.read(RUN)) if state_before.finished else executor.resume(RUN)

        assert state.status == "succeeded"
        events = store.read(RUN)
        assert [e.line for e in events[: len(acknowledged)]] == acknowledged
        succeeded = Counter(e.data["node"] for e in events if e.kind == "node.succeeded")
        assert set(succeeded) == set(state.nodes) and max(succeeded.values()) == 1
        calls_after = Counter(e.data["node"] for e in events[len(before) :] if e.kind == "tool.call")
        assert not (set(calls_after) & finished_before)  # finished nodes were not redone
        resumed = [e.data for e in events if e.kind == "run.resumed"]
        assert (tmp_path / "ws" / RUN / "out" / "result.txt").read_text() == "all nodes ran\n"
        assert verify_journal(store).ok
        assert replay_run(store, RUN, builtin_registry()).sessions == 1 + len(resumed)


def test_resume_in_a_new_process_after_kill(pg_url: str, tmp_path: Path) -> None:
    schema = next_schema("c")
    with PostgresJournalStore(pg_url, schema=schema) as store:
        args = _child(pg_url, schema, tmp_path)
        _kill_after(subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE), store, 6)
        done = subprocess.run([*args, RUN], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "succeeded"
        assert verify_journal(store).ok
        assert replay_run(store, RUN, builtin_registry()).sessions == 2
