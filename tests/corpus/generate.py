"""Record the replay corpus: real runs of built-in operations, exported exactly as journaled.

Run from the repository root: `python -m tests.corpus.generate`. CI replays every file here (tests/runtime/
test_corpus.py); a change to the executor that alters any decision makes that test fail. Regenerate only for an
intended change of the journal format or of the runtime's decisions, and say so in the commit message.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from alicorn.anvil.agents import PermissionRegistry
from alicorn.anvil.budget import Budget
from alicorn.anvil.rights import RightsChange
from alicorn.anvil.terms import RunTerms
from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.builtin import builtin_registry
from alicorn.packs import pack_dir
from alicorn.plan.dsl import goal_digest
from alicorn.plan.validate import parse_plan
from alicorn.runtime.executor import Approval, Executor, Rejection, RunEnvironment

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def _plan(goal: str, nodes: list[dict[str, Any]]) -> Any:
    return parse_plan({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes})


def _sleep(seconds: float) -> dict[str, Any]:
    return {"seconds": {"value": seconds}}


def _export(store: SQLiteStore, run_id: str, name: str) -> None:
    lines = [e.line for e in store.read(run_id)]
    (HERE / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{name}: {len(lines)} events")


def _anvil_runs(store: SQLiteStore, executor: Any, work: Path) -> None:
    """Anvil's decisions: an approval in a second session, a rejection, a denial and a budget stop."""
    agents = PermissionRegistry(store, now=lambda: "2026-11-30T00:00:00.000000Z")
    agents.register("agent:scribe", ("executor",), cause="corpus", by="human:corpus")
    agents.change("agent:scribe", RightsChange(effects=("local_write",)), grant=False, cause="corpus", by="human:c")
    write = _plan(
        "write a note",
        [
            {
                "node_id": "note",
                "operation": "workspace.write_file",
                "inputs": {"path": {"value": "note.txt"}, "content": {"value": "hi"}},
            },
        ],
    )
    scribe = RunTerms(proposed_by="agent:scribe")
    state = executor(work).start(write, run_id="corpus-anvil-approved", terms=scribe)
    assert state.status == "awaiting_approval", state.status
    executor(work).resume(state.run_id, approvals=[Approval("human:reviewer", "fine", write.plan_hash())])
    _export(store, state.run_id, "anvil-approved")
    state = executor(work).start(write, run_id="corpus-anvil-rejected", terms=scribe)
    executor(work).reject(state.run_id, Rejection("human:reviewer", "not this week"))
    _export(store, state.run_id, "anvil-rejected")
    denied = executor(work).start(write, run_id="corpus-anvil-denied", terms=RunTerms(forbidden=("local_write",)))
    _export(store, denied.run_id, "anvil-denied")
    chain = _plan(
        "a chain of five",
        [{"node_id": f"n{i}", "operation": "util.noop", "depends_on": [f"n{i - 1}"] if i else []} for i in range(5)],
    )
    limited = executor(work).start(chain, run_id="corpus-anvil-budget", terms=RunTerms(budget=Budget(steps=3)))
    _export(store, limited.run_id, "anvil-budget")


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="alicorn-corpus-"))
    store = SQLiteStore(work / "journal.db")
    registry = builtin_registry()

    def executor(data_root: Path, parallel: int = 4) -> Executor:
        return Executor(store, registry, RunEnvironment(work / "ws", data_root, max_parallel=parallel))

    alarms = pack_dir("alarms")
    state = executor(alarms).start(parse_plan((alarms / "plan.json").read_text()), run_id="corpus-alarms")
    _export(store, state.run_id, "alarms")

    plan = _plan(
        "timeouts, retries and an alternative",
        [
            {
                "node_id": "slow",
                "operation": "util.sleep",
                "inputs": _sleep(5),
                "timeout_s": 0.05,
                "retry": {"max_attempts": 2, "backoff_s": 0.01},
                "critical": True,
                "alternative": "quick",
            },
            {"node_id": "quick", "operation": "util.sleep", "inputs": _sleep(0.01)},
            {"node_id": "after", "operation": "util.noop", "depends_on": ["slow"]},
        ],
    )
    _export(store, executor(work).start(plan, run_id="corpus-retry-alternative").run_id, "retry-alternative")

    plan = _plan(
        "fan out and join",
        [
            {"node_id": "root", "operation": "util.noop"},
            *[
                {
                    "node_id": f"leaf{i}",
                    "operation": "util.sleep",
                    "inputs": _sleep(0.002 * (i % 3)),
                    "depends_on": ["root"],
                }
                for i in range(12)
            ],
            {"node_id": "join", "operation": "util.noop", "depends_on": [f"leaf{i}" for i in range(12)]},
        ],
    )
    _export(store, executor(work, parallel=4).start(plan, run_id="corpus-fan-out").run_id, "fan-out")

    (work / "empty.csv").write_text("id,ts\n")
    plan = _plan(
        "stop when there is no data",
        [
            {
                "node_id": "load",
                "operation": "data.read_csv",
                "inputs": {"path": {"value": "empty.csv"}},
                "critical": True,
                "stop": {"reason": "no data", "when": {"kind": "check", "path": "count", "op": "lt", "value": 1}},
            },
            {"node_id": "report", "operation": "util.noop", "depends_on": ["load"]},
        ],
    )
    _export(store, executor(work).start(plan, run_id="corpus-stop").run_id, "stop")

    _anvil_runs(store, executor, work)

    plan_file = work / "crash-plan.json"
    from tests.runtime.test_crash_resume import RUN, crash_plan

    plan_file.write_text(json.dumps(crash_plan()))
    child_journal = work / "crash.db"
    args = [sys.executable, "-m", "tests.runtime.crash_child", str(child_journal), str(work), str(plan_file)]
    child = subprocess.Popen(args, cwd=ROOT)
    while True:
        time.sleep(0.01)
        if child_journal.exists():
            with SQLiteStore(child_journal) as probe:
                if probe.last_seq(RUN) >= 9:
                    break
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    subprocess.run([*args, RUN], cwd=ROOT, check=True)
    with SQLiteStore(child_journal) as crashed:
        _export(crashed, RUN, "crash-resumed")


if __name__ == "__main__":
    main()
