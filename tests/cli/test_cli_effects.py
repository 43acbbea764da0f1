"""Cancellation and human resolution of unknown effects, from the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from alicorn.journal.sqlite import SQLiteStore
from alicorn.plan.dsl import goal_digest
from alicorn.testing import ledger
from alicorn.testing.crashes import run_forked

ALICORN = str(Path(sys.executable).with_name("alicorn"))
LEDGER_CONFIG = '[operations]\nmodules = ["alicorn.testing.ledger:ledger_operations"]\n'


def _events(home: Path, run_id: str) -> list[str]:
    with SQLiteStore(home / "journal.db", create=False) as store:
        return [e.kind for e in store.read(run_id)]


def _wait_for(predicate: object, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def _plan(tmp_path: Path) -> Path:
    goal = "post, wait, post"
    nodes = [
        {
            "node_id": "paid",
            "operation": "ledger.post",
            "inputs": {"ledger": {"value": "ledger.db"}, "account": {"value": "a"}, "amount": {"value": 5}},
        },
        {"node_id": "wait", "operation": "util.sleep", "inputs": {"seconds": {"value": 60}}, "depends_on": ["paid"]},
        {
            "node_id": "later",
            "operation": "ledger.post",
            "depends_on": ["wait"],
            "inputs": {"ledger": {"value": "ledger.db"}, "account": {"value": "b"}, "amount": {"value": 6}},
        },
    ]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}))
    return path


def _started(home: Path) -> bool:
    """The run exists and its second call (the long wait) has been journaled."""
    try:
        runs = _runs(home)
        return bool(runs) and _events(home, runs[0]).count("tool.call") >= 2
    except Exception:  # the journal may not exist yet, or be mid-creation
        return False


def _runs(home: Path) -> list[str]:
    with SQLiteStore(home / "journal.db", create=False) as store:
        return [i.stream for i in store.streams() if i.stream.startswith("run-")]


def _start_long_run(home: Path, tmp_path: Path) -> subprocess.Popen[str]:
    """The post-wait-post plan, proposed by the planner (`alicorn run`, which waits for an approval), then approved
    and driven in another process by the OS user (`alicorn resume --approve`: never the process that proposed)."""
    home.mkdir(exist_ok=True)
    (home / "alicorn.toml").write_text(LEDGER_CONFIG)
    command = [ALICORN, "run", str(_plan(tmp_path)), "--home", str(home), "--data", str(tmp_path), "-q"]
    proposed = subprocess.run([*command, "--proposed-by", "agent:planner"], capture_output=True, text=True, timeout=60)
    assert proposed.returncode == 4, proposed.stderr
    return subprocess.Popen(
        [ALICORN, "resume", _runs(home)[0], "--home", str(home), "--approve", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_cancel_a_run_driven_by_another_process(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = _start_long_run(home, tmp_path)
    _wait_for(lambda: _started(home))
    run_id = _runs(home)[0]
    _wait_for(lambda: _events(home, run_id).count("tool.call") >= 2)
    cancel = subprocess.run(
        [ALICORN, "cancel", run_id, "--home", str(home), "--reason", "wrong account"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cancel.returncode == 0, cancel.stderr
    assert "cancellation requested" in cancel.stdout
    out, err = runner.communicate(timeout=60)
    assert runner.returncode == 3, err  # the run ended without succeeding
    kinds = _events(home, run_id)
    assert "run.cancelled" in kinds and kinds[-1] == "run.finished"
    assert kinds.count("effect.intended") == 1  # "later" never started
    assert len(ledger.reverted_keys(tmp_path / "ledger.db")) == 1  # "paid" was compensated
    assert "cancelled" in out


def test_cancel_a_run_nobody_drives(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = _start_long_run(home, tmp_path)
    _wait_for(lambda: _started(home))
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    run_id = _runs(home)[0]
    cancel = subprocess.run(
        [ALICORN, "cancel", run_id, "--home", str(home)], capture_output=True, text=True, timeout=60
    )
    assert cancel.returncode == 0, cancel.stderr
    assert "cancelled" in cancel.stdout
    kinds = _events(home, run_id)
    assert kinds[-1] == "run.finished" and "run.cancelled" in kinds and "effect.compensated" in kinds
    again = subprocess.run([ALICORN, "cancel", run_id, "--home", str(home)], capture_output=True, text=True)
    assert again.returncode == 1 and "already finished" in again.stderr


def test_resolve_an_unknown_effect_from_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(LEDGER_CONFIG)
    goal = "blind post"
    inputs = {"ledger": {"value": "ledger.db"}, "account": {"value": "acct"}, "amount": {"value": 7}}
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "goal": goal,
                "goal_hash": goal_digest(goal),
                "nodes": [{"node_id": "blind", "operation": "ledger.post_blind", "inputs": inputs}],
            }
        )
    )
    # The process dies right after the post is applied, before its result is journaled.
    first = run_forked(
        [str(home / "journal.db"), str(home), "--plan", str(plan), "--run-id", "run-blind"], crash_point="after_effect"
    )
    assert first.returncode == -signal.SIGKILL
    resumed = subprocess.run(
        [ALICORN, "resume", "run-blind", "--home", str(home), "-q"], capture_output=True, text=True, timeout=60
    )
    assert resumed.returncode == 4 and "blocked" in resumed.stdout and "may be pending" in resumed.stdout
    refused = subprocess.run([ALICORN, "resume", "run-blind", "--home", str(home)], capture_output=True, text=True)
    assert refused.returncode == 1 and "--resolve" in refused.stderr
    bad = subprocess.run(
        [ALICORN, "resume", "run-blind", "--home", str(home), "--resolve", "blind=maybe"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "NODE=applied" in bad.stderr
    output = json.dumps({"entry": 1, "account": "acct", "amount": 7})
    done = subprocess.run(
        [
            ALICORN,
            "resume",
            "run-blind",
            "--home",
            str(home),
            "--resolve",
            "blind=applied",
            "--output",
            f"blind={output}",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert ledger.duplicates(home / "ledger.db") == {}
    assert list(ledger.applied_keys(home / "ledger.db").values()) == [1]
    kinds = _events(home, "run-blind")
    assert kinds.index("effect.unknown") < kinds.index("effect.resolved") < kinds.index("run.finished")
    replayed = subprocess.run([ALICORN, "replay", "run-blind", "--home", str(home)], capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stderr
