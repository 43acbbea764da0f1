"""Kill a real process at many moments of a run; `resume` must finish it without redoing finished nodes."""

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

from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.verify import verify_journal
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import goal_digest
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold

ROOT = Path(__file__).resolve().parents[2]
RUN = "run-crash-test"


def crash_plan() -> dict[str, object]:
    sleep = {"seconds": {"value": 0.12}}
    nodes: list[dict[str, object]] = [{"node_id": "first", "operation": "util.sleep", "inputs": sleep}]
    nodes += [
        {"node_id": f"fan{i}", "operation": "util.sleep", "inputs": sleep, "depends_on": ["first"]} for i in range(4)
    ]
    nodes.append(
        {
            "node_id": "join",
            "operation": "util.sleep",
            "inputs": sleep,
            "depends_on": [f"fan{i}" for i in range(4)],
        }
    )
    nodes.append(
        {
            "node_id": "write",
            "operation": "workspace.write_file",
            "depends_on": ["join"],
            "inputs": {"path": {"value": "out/result.txt"}, "content": {"value": "all nodes ran\n"}},
        }
    )
    nodes.append({"node_id": "last", "operation": "util.sleep", "inputs": sleep, "depends_on": ["write"]})
    return {"goal": "crash test", "goal_hash": goal_digest("crash test"), "nodes": nodes}


def _event_count(journal: Path) -> int:
    if not journal.exists():
        return 0
    try:
        with SQLiteStore(journal, create=False) as store:
            return store.last_seq(RUN)
    except Exception:
        return 0


@pytest.mark.parametrize("kill_after_events", [1, 2, 3, 5, 8, 12, 17, 22])
def test_sigkill_at_any_moment_then_resume(tmp_path: Path, kill_after_events: int) -> None:
    journal = tmp_path / "journal.db"
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(crash_plan()))
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.runtime.crash_child", str(journal), str(tmp_path), str(plan_file)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while _event_count(journal) < kill_after_events and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)

    store = SQLiteStore(journal)
    before = store.read(RUN) if store.head(RUN) else []
    acknowledged = [e.line for e in before]
    if not before:  # killed before the first commit: nothing to resume, and nothing half-written
        assert store.streams() == []
        return
    state_before = fold(before)
    finished_before = {n for n, ns in state_before.nodes.items() if ns.status == "succeeded"}
    executor = Executor(store, builtin_registry(), RunEnvironment(tmp_path / "ws", tmp_path, max_parallel=3))
    state = fold(store.read(RUN)) if state_before.finished else executor.resume(RUN)

    assert state.status == "succeeded"
    events = store.read(RUN)
    assert [e.line for e in events[: len(acknowledged)]] == acknowledged  # nothing acknowledged was lost or changed
    succeeded = Counter(e.data["node"] for e in events if e.kind == "node.succeeded")
    assert set(succeeded) == set(state.nodes) and max(succeeded.values()) == 1
    calls_after = Counter(e.data["node"] for e in events[len(before) :] if e.kind == "tool.call")
    assert not (set(calls_after) & finished_before)  # finished nodes were not redone
    resumed = [e.data for e in events if e.kind == "run.resumed"]
    if not state_before.finished:
        assert resumed and {i["node"] for i in resumed[0]["interrupted"]} == {
            n for n, ns in state_before.nodes.items() if ns.status == "running"
        }
    assert (tmp_path / "ws" / RUN / "out" / "result.txt").read_text() == "all nodes ran\n"
    assert verify_journal(store).ok
    report = replay_run(store, RUN, builtin_registry())
    assert report.events == len(events) and report.sessions == 1 + len(resumed)
    store.close()


def test_resume_in_a_new_process_after_kill(tmp_path: Path) -> None:
    """Resume itself runs in a child process too, as an operator would after a crash."""
    journal = tmp_path / "journal.db"
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(crash_plan()))
    args = [sys.executable, "-m", "tests.runtime.crash_child", str(journal), str(tmp_path), str(plan_file)]
    child = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while _event_count(journal) < 6 and child.poll() is None:
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    done = subprocess.run([*args, RUN], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "succeeded"
    with SQLiteStore(journal) as store:
        assert verify_journal(store).ok
        assert replay_run(store, RUN, builtin_registry()).sessions == 2
