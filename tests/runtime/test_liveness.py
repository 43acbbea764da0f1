"""`alicorn show` / `alicorn runs` tell a run whose driver is alive from one whose driver was killed.

The driver holds an OS lock on `<journal>.locks/RUN.lock` (the kernel drops it when the process dies) and names
itself in the file; a read-only probe of that lock says "running (driver pid N, alive)" or "interrupted — `alicorn
resume RUN`", and creates or changes no file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.plan.dsl import goal_digest
from alicorn.runtime.liveness import lock_path, probe

RUN = "run-live"
runner = CliRunner()


def cli(home: Path, *args: str) -> Any:
    return runner.invoke(app, [*args, "--home", str(home)], catch_exceptions=False)


def snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and folder under `root`: size, modification time and content digest. SQLite's shared-memory
    index of the WAL (`-shm`), which every reader of a WAL journal updates, is not a file of the journal's."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.name.endswith("-shm"):
            continue
        stat = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns, digest)
    return found


def _tool_calls(journal: Path) -> int:
    try:
        with SQLiteStore(journal, read_only=True) as store:
            return sum(1 for e in store.read(RUN) if e.kind == "tool.call") if store.head(RUN) else 0
    except Exception:  # the journal may not exist yet, or be mid-creation
        return 0


@pytest.fixture
def driven(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    """A run driven by another process, waiting in a long call."""
    home = tmp_path / "home"
    home.mkdir()
    plan = tmp_path / "plan.json"
    nodes = [{"node_id": "wait", "operation": "util.sleep", "inputs": {"seconds": {"value": 120}}}]
    plan.write_text(json.dumps({"goal": "wait", "goal_hash": goal_digest("wait"), "nodes": nodes}))
    start = ["--plan", str(plan), "--run-id", RUN]
    child = subprocess.Popen(
        [sys.executable, "-m", "alicorn.testing.child", str(home / "journal.db"), str(tmp_path), *start],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while _tool_calls(home / "journal.db") < 1:
        assert child.poll() is None and time.monotonic() < deadline, "the driver did not start the run"
        time.sleep(0.05)
    yield home, child
    if child.poll() is None:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()


def test_a_live_driver_and_a_killed_one(driven: tuple[Path, subprocess.Popen[bytes]]) -> None:
    home, child = driven
    alive = f"running (driver pid {child.pid}, alive)"
    assert alive in cli(home, "show", RUN).stdout
    assert alive in cli(home, "runs").stdout
    [listed] = json.loads(cli(home, "runs", "--json").stdout)
    assert listed["status"] == "running" and listed["driver"]["alive"] and listed["driver"]["pid"] == child.pid

    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    before = snapshot(home)
    interrupted = f"interrupted — `alicorn resume {RUN}`"
    shown = cli(home, "show", RUN)
    assert shown.exit_code == 0 and interrupted in shown.stdout and "alive" not in shown.stdout
    assert interrupted in cli(home, "runs").stdout
    [listed] = json.loads(cli(home, "runs", "--json").stdout)
    assert listed["status"] == "running" and listed["driver"] == {
        "alive": False,
        "pid": child.pid,  # the last holder, as its lock file names it
        "holder": listed["driver"]["holder"],
    }
    assert snapshot(home) == before  # read-only: nothing created or changed, the lock file included


def test_runs_lists_the_interrupted_ones_by_the_status_it_shows(driven: tuple[Path, subprocess.Popen[bytes]]) -> None:
    home, child = driven
    assert json.loads(cli(home, "runs", "--status", "interrupted", "--json").stdout) == []  # its driver is alive
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    [listed] = json.loads(cli(home, "runs", "--status", "interrupted", "--json").stdout)
    assert listed["run"] == RUN and listed["driver"]["alive"] is False
    assert f"interrupted — `alicorn resume {RUN}`" in cli(home, "runs", "--status", "interrupted").stdout


def test_the_probe_never_creates_a_missing_lock(driven: tuple[Path, subprocess.Popen[bytes]]) -> None:
    home, child = driven
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    locks = lock_path(home / "journal.db", RUN).parent
    shutil.rmtree(locks)  # a journal copied from elsewhere has no lock files
    before = snapshot(home)
    assert f"interrupted — `alicorn resume {RUN}`" in cli(home, "show", RUN).stdout
    assert "interrupted" in cli(home, "runs").stdout
    assert not locks.exists() and snapshot(home) == before


def test_a_finished_run_is_not_probed_and_memory_journals_cannot_say(tmp_path: Path) -> None:
    assert probe(InMemoryStore(), RUN) is None
    with SQLiteStore(tmp_path / "journal.db") as store:
        found = probe(store, RUN)
        assert found is not None and not found.alive and found.pid is None
        assert not lock_path(tmp_path / "journal.db", RUN).parent.exists()
        with store.lock(RUN):
            held = probe(store, RUN)
            assert held is not None and held.alive and held.pid == os.getpid()
        after = probe(store, RUN)
        assert after is not None and not after.alive and after.pid == os.getpid()
