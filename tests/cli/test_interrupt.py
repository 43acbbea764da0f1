"""Ctrl-C during a command (SIGINT from a terminal or a script) ends it with one sentence saying where to go on and
the shell's code 130; `alicorn run` interrupted from a script used to exit silently, never naming what to resume."""

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


def _started(journal: Path) -> bool:
    try:
        with SQLiteStore(journal, read_only=True) as store:
            return any(e.kind == "tool.call" for s in store.streams() for e in store.read(s.stream))
    except Exception:  # not there yet, or mid-creation
        return False


def test_an_interrupted_run_says_how_to_find_and_resume_it(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    nodes = [{"node_id": "wait", "operation": "util.sleep", "inputs": {"seconds": {"value": 60}}}]
    plan.write_text(json.dumps({"goal": "wait", "goal_hash": goal_digest("wait"), "nodes": nodes}))
    home = tmp_path / "home"
    env = {**os.environ, "ALICORN_NOW": "2026-11-30T09:00:00+00:00", "ALICORN_HOME": str(home)}
    exe = Path(sys.executable).with_name("alicorn")
    child = subprocess.Popen([exe, "run", str(plan), "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not _started(home / "journal.db"):
        assert child.poll() is None and time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, (out, err)
    said = err.decode()
    assert "Traceback" not in said and "alicorn runs --status interrupted" in said and "alicorn resume" in said
    asked = [exe, "runs", "--status", "interrupted", "--json"]
    listed = subprocess.run(asked, env=env, capture_output=True, timeout=60)
    assert [r["status"] for r in json.loads(listed.stdout)] == ["running"]
