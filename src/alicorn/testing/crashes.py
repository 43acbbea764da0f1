"""Crash harness: run a run in a forked child, kill it (at a crash point or at a random moment), resume it in
fresh children until it ends, then check what must hold after any crash.

Checks (`check_run`): no effect applied twice for one key (the ledger counts), no acknowledged event lost (every
`ack SEQ HASH` a child printed is in the journal unchanged), the chain verifies, the run replays byte for byte, and
the run ended in an explained state: finished (succeeded, partial, stopped, failed, cancelled — with what was
compensated and what is left undone), or blocked on effects reported as unknown.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alicorn.crashpoints import ENV_VAR
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.verify import verify_journal
from alicorn.plan.dsl import goal_digest
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import TERMINAL_RUN, fold
from alicorn.testing import child, ledger

LEDGER = "ledger.db"


@dataclass
class ChildResult:
    """How a child ended: its exit (negative: killed by that signal), its acknowledgements and final status."""

    returncode: int
    acked: list[tuple[int, str]]
    status: str | None
    output: str


def run_forked(argv: list[str], *, crash_point: str | None = None, kill_after_s: float | None = None) -> ChildResult:
    """Run `alicorn.testing.child.main(argv)` in a forked process (fast: modules are already imported)."""
    child.warm()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_end)
            os.dup2(write_end, 1)
            # The parent's sys.stdout may not be fd 1 (pytest captures it): write to the pipe itself.
            sys.stdout = open(1, "w", buffering=1, encoding="utf-8", closefd=False)  # noqa: SIM115
            if crash_point:
                os.environ[ENV_VAR] = crash_point
            else:
                os.environ.pop(ENV_VAR, None)
            code = child.main(argv)
        except BaseException:
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
        finally:
            os._exit(code)
    os.close(write_end)
    timer = None
    reaped = threading.Event()
    if kill_after_s is not None:
        timer = threading.Timer(kill_after_s, lambda: _kill(pid, reaped))
        timer.start()
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(65536):
            chunks.append(chunk)
    with _REAP_LOCK:
        _, status = os.waitpid(pid, 0)
        reaped.set()
    if timer is not None:
        timer.cancel()
    text = b"".join(chunks).decode("utf-8", "replace")
    acked, final = [], None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "ack":
            acked.append((int(parts[1]), parts[2]))
        elif len(parts) == 2 and parts[0] == "status":
            final = parts[1]
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return ChildResult(code, acked, final, text)


def _kill(pid: int, reaped: threading.Event) -> None:
    # Never signal a pid after it was reaped: the number could belong to another process by then.
    with _REAP_LOCK:
        if not reaped.is_set():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


_REAP_LOCK = threading.Lock()


def effects_plan(*, fail_at_end: bool, sleep_s: float = 0.02) -> dict[str, Any]:
    """Three posts with the three effect contracts, some work between them, optionally a failing last step."""

    def post(node_id: str, op: str, amount: int, after: list[str]) -> dict[str, Any]:
        inputs = {"ledger": {"value": LEDGER}, "account": {"value": node_id}, "amount": {"value": amount}}
        return {"node_id": node_id, "operation": op, "inputs": inputs, "depends_on": after}

    nodes = [
        {"node_id": "prepare", "operation": "util.sleep", "inputs": {"seconds": {"value": sleep_s}}},
        post("keyed", "ledger.post", 10, ["prepare"]),
        post("checked", "ledger.post_once", 20, ["prepare"]),
        post("blind", "ledger.post_blind", 30, ["keyed", "checked"]),
        {
            "node_id": "settle",
            "operation": "util.sleep",
            "inputs": {"seconds": {"value": sleep_s}},
            "depends_on": ["blind"],
        },
    ]
    if fail_at_end:
        nodes.append(
            {
                "node_id": "verify",
                "operation": "testing.fail",
                "depends_on": ["settle"],
                "critical": True,
                "stop": {"reason": "verification failed: undo the posts"},
            }
        )
    goal = "post three entries" + (" and fail" if fail_at_end else "")
    return {"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}


@dataclass
class Outcome:
    """What one crash scenario produced, for reporting."""

    run_id: str
    status: str
    kills: int
    rounds: int
    acked: int
    duplicates: dict[str, int] = field(default_factory=dict)
    lost: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def start_args(workdir: Path, plan_file: Path, run_id: str, durability: str = "step") -> list[str]:
    return [
        str(workdir / "journal.db"),
        str(workdir),
        "--plan",
        str(plan_file),
        "--run-id",
        run_id,
        "--durability",
        durability,
    ]


def resume_args(workdir: Path, run_id: str, durability: str = "step") -> list[str]:
    return [
        str(workdir / "journal.db"),
        str(workdir),
        "--resume",
        run_id,
        "--resolve-from-ledger",
        str(workdir / LEDGER),
        "--durability",
        durability,
    ]


def drive(
    workdir: Path,
    run_id: str,
    acked: list[tuple[int, str]],
    *,
    max_rounds: int = 25,
    kill_after_s: float | None = None,
    must_finish: bool = True,
    durability: str = "step",
) -> tuple[int, int]:
    """Resume until the run has finished; returns (rounds, kills). Each round may be killed after `kill_after_s`;
    with `must_finish=False` it simply stops after `max_rounds`. Resumes run with `durability`."""
    rounds = kills = 0
    while rounds < max_rounds:
        with SQLiteStore(workdir / "journal.db") as store:
            if not store.head(run_id):
                return rounds, kills
            state = fold(store.read(run_id), run_id)
        if state.status in TERMINAL_RUN:
            return rounds, kills
        rounds += 1
        result = run_forked(resume_args(workdir, run_id, durability), kill_after_s=kill_after_s)
        acked.extend(result.acked)
        if result.returncode == -signal.SIGKILL:
            kills += 1
        elif result.returncode != 0:
            raise RuntimeError(f"resume of {run_id} failed ({result.returncode}):\n{result.output[-3000:]}")
    if must_finish:
        raise RuntimeError(f"run {run_id} did not finish within {max_rounds} resumes")
    return rounds, kills


def check_run(workdir: Path, run_id: str, acked: list[tuple[int, str]], kills: int, rounds: int) -> Outcome:
    """Every property a crash must not break, as counts (empty lists when all is well)."""
    path = workdir / LEDGER
    with SQLiteStore(workdir / "journal.db") as store:
        if store.head(run_id) is None:  # killed before the first commit: nothing may exist anywhere
            problems = [] if not ledger.applied_keys(path) else ["effects applied for a run that was never journaled"]
            return Outcome(run_id, "never-started", kills, rounds, len(acked), problems=problems)
        events = store.read(run_id)
        by_seq = {e.seq: e.hash for e in events}
        lost = sorted({seq for seq, digest in acked if by_seq.get(seq) != digest})
        state = fold(events, run_id)
        problems = [str(p) for p in verify_journal(store, streams=[run_id]).problems]
        try:
            replay_run(store, run_id, ledger.testing_registry())
        except Exception as exc:  # reported, not raised: the caller counts problems
            problems.append(f"replay: {exc}")
    if state.status not in TERMINAL_RUN:
        problems.append(f"run ended {state.status}, not finished")
    journaled = {e.key for e in state.effects_log.values()}
    stray = set(ledger.applied_keys(path)) - journaled
    if stray:
        problems.append(f"{len(stray)} effect(s) applied with keys the journal never intended")
    if state.status in ("stopped", "failed", "cancelled"):
        done = {e.key for e in state.effects_log.values() if e.status == "done"}
        if done:
            problems.append(f"effects left done after a failed run: {sorted(done)}")
        compensated = {e.key for e in state.effects_log.values() if e.status == "compensated"}
        if compensated - ledger.reverted_keys(path):
            problems.append("compensations journaled as done but not applied")
    if state.status == "succeeded" and set(ledger.applied_keys(path)) != journaled:
        problems.append("a succeeded run whose effects are not all applied")
    return Outcome(run_id, state.status, kills, rounds, len(acked), ledger.duplicates(path), lost, problems)


def write_plan(workdir: Path, fail_at_end: bool) -> Path:
    plan_file = workdir / "plan.json"
    plan_file.write_text(json.dumps(effects_plan(fail_at_end=fail_at_end)), encoding="utf-8")
    return plan_file
