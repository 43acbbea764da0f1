"""Faults of the environment under the real command line: a full disk, I/O errors and a journal locked by another
process, each ending in one sentence and exit code 5, never in a traceback; then the randomized fault loop, which
injects them at random points of real `alicorn run` / `alicorn resume` processes and checks what the crash harness
checks after a kill (no duplicated effect, no acknowledged event lost, `verify` and replay pass, every run ends in an
explained state)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import sqlite3
import subprocess
import sys
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import alicorn.journal.sqlite as journal_sqlite
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.runtime.executor import Executor
from alicorn.runtime.state import TERMINAL_RUN, fold
from alicorn.testing import crashes, ledger

from ._support import ALARMS, assert_clean, fast_invocations, invoke, journal_pages_limited

CAMERA_REQUEST = "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human"


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_invocations(monkeypatch)


def _runs(home: Path) -> list[dict[str, Any]]:
    listed = invoke(home, "runs", "--json")
    assert listed.exit_code == 0, listed.output
    return list(json.loads(listed.stdout))


# ---- 1: a full disk -------------------------------------------------------------------------------------------


def test_a_full_disk_stops_run_and_resume_with_a_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal may not grow (SQLite's max_page_count, the same "database or disk is full" as a full disk):
    `run` stops part-way and `resume` cannot go on, both with exit 5 and a sentence; with room again, `resume`
    finishes the run, which verifies and replays."""
    home = tmp_path / "home"
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0
    with journal_pages_limited(monkeypatch, extra_pages=15):  # room for the first steps only
        stopped = invoke(home, "run", str(ALARMS), "-q")
    assert_clean(stopped)
    assert stopped.exit_code == 5, stopped.output
    journal = str(home / "journal.db")
    assert f"error: {journal}: the disk is full (database or disk is full)" in stopped.stderr
    assert "Free some space" in stopped.stderr
    [partial] = [r for r in _runs(home) if r["status"] != "succeeded"]
    with journal_pages_limited(monkeypatch, extra_pages=0):
        again = invoke(home, "resume", partial["run"], "-q")
    assert_clean(again)
    assert again.exit_code == 5 and "the disk is full" in again.stderr, again.output
    assert invoke(home, "verify").exit_code == 0  # what was journaled is whole steps only
    done = invoke(home, "resume", partial["run"], "-q")
    assert done.exit_code == 0, done.output
    assert invoke(home, "verify").exit_code == 0
    assert invoke(home, "replay", partial["run"]).exit_code == 0


# ---- 7: a journal locked by another process -------------------------------------------------------------------


@contextmanager
def locked(path: Path, *, delay_s: float = 0.0, hold_s: float | None = None) -> Iterator[subprocess.Popen[str]]:
    """Another process holding `BEGIN EXCLUSIVE` on the journal (after `delay_s`, for `hold_s` or until the block
    ends)."""
    script = (
        "import sqlite3, sys, time\n"
        f"time.sleep({delay_s})\n"
        "c = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        "print('locked', flush=True)\n"
        + (f"time.sleep({hold_s})\n" if hold_s is not None else "sys.stdin.read()\n")
        + "c.execute('ROLLBACK')\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        if hold_s is None:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        try:
            holder.wait(timeout=15)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()


def test_ask_and_run_on_a_locked_journal_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_sqlite, "BUSY_TIMEOUT_S", 0.2)
    home = tmp_path / "home"
    SQLiteStore(home / "journal.db").close()
    journal = home / "journal.db"
    with locked(journal):
        asked = invoke(home, "ask", "--no-input", "--model", "none", CAMERA_REQUEST)
        ran = invoke(home, "run", str(ALARMS), "-q")
        listed = invoke(home, "runs")  # readers are not blocked by a writer's lock (WAL)
    for result in (asked, ran):
        assert_clean(result)
        assert result.exit_code == 5, result.output
        assert f"error: {journal} is locked by another process (database is locked)" in result.stderr
        assert "Let the other process finish" in result.stderr
    assert listed.exit_code == 0
    assert invoke(home, "ask", "--no-input", "--model", "none", CAMERA_REQUEST).exit_code in (0, 3, 4)


def test_a_lock_met_by_cores_broker_is_a_stopped_safely_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Core's promise (norbi.BROKER_FAILURES): the journal locked while the broker starts the run is a report that
    says so and what to do, exit 5 (the environment failed, as for every locked journal); asking again once the
    lock is gone goes on from there."""
    import re
    import shutil

    from alicorn.packs import pack_dir

    monkeypatch.setattr(journal_sqlite, "BUSY_TIMEOUT_S", 0.2)
    shutil.copy(pack_dir("alarms") / "alarms.csv", tmp_path / "alarms.csv")
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    original = Executor.start

    def start_while_locked(self: Executor, *args: Any, **kwargs: Any) -> Any:
        with locked(home / "journal.db"):
            return original(self, *args, **kwargs)

    monkeypatch.setattr(Executor, "start", start_while_locked)
    stalled = invoke(home, "ask", "--no-input", "--model", "none", "--data", "alarms.csv", CAMERA_REQUEST)
    assert_clean(stalled)
    assert stalled.exit_code == 5, stalled.output
    assert "stopped safely: the job broker failed (StorageLockedError:" in stalled.stdout
    assert f"{home / 'journal.db'} is locked by another process" in stalled.stdout
    monkeypatch.setattr(Executor, "start", original)
    conversation = re.search(r"alicorn ask --conversation (conv-\S+)", stalled.stdout)
    assert conversation is not None
    resumed = invoke(home, "ask", "--no-input", "--model", "none", "--conversation", conversation.group(1))
    assert_clean(resumed)
    assert resumed.exit_code == 0, resumed.output


# ---- the mapping, through a real command ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raised", "said"),
    [
        (sqlite3.OperationalError("database or disk is full"), "the disk is full"),
        (sqlite3.OperationalError("database is locked"), "is locked by another process"),
        (sqlite3.OperationalError("disk I/O error"), "the disk or filesystem reported an error"),
        (sqlite3.OperationalError("unable to open database file"), "cannot be opened"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "is read-only"),
        (sqlite3.DatabaseError("file is not a database"), "is damaged"),
        (sqlite3.DatabaseError("database disk image is malformed"), "is damaged"),
        (OSError(errno.ENOSPC, "No space left on device", "ws/report.txt"), "ws/report.txt: the disk is full"),
        (OSError(errno.EIO, "Input/output error"), "reported an error"),
        (OSError(errno.EACCES, "Permission denied", "x.db"), "x.db may not be used (Permission denied)"),
        (OSError(errno.EROFS, "Read-only file system"), "read-only filesystem"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else None,
)
def test_every_environment_failure_is_a_sentence_and_exit_5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raised: BaseException, said: str
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise raised

    monkeypatch.setattr(Executor, "start", fail)
    home = tmp_path / "home"
    result = invoke(home, "run", str(ALARMS), "-q")
    assert_clean(result)
    assert result.exit_code == 5 and said in result.stderr, result.output
    assert result.stderr.count("error:") == 1
    debug = invoke(None, "--debug", "run", str(ALARMS), "-q", "--home", str(home))
    assert debug.exit_code == 5 and "Traceback" in debug.stderr and said in debug.stderr


def test_memory_commands_share_the_boundary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import alicorn.memory.open

    def full(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(alicorn.memory.open, "open_memory", full)
    result = invoke(tmp_path, "memory", "add", "alarms")  # a command that opens (and may create) the store
    assert_clean(result)
    assert result.exit_code == 5 and f"{tmp_path / 'memory.db'}: the disk is full" in result.stderr, result.output


def test_an_io_error_inside_an_append_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0
    original = SQLiteStore._insert_txn

    def insert_then_fail(self: SQLiteStore, tx: sqlite3.Connection, events: list[Any]) -> None:
        original(self, tx, events)
        raise sqlite3.OperationalError("disk I/O error")

    before = invoke(home, "journal", "head").stdout
    monkeypatch.setattr(SQLiteStore, "_insert_txn", insert_then_fail)
    result = invoke(home, "run", str(ALARMS), "-q")
    monkeypatch.setattr(SQLiteStore, "_insert_txn", original)
    assert_clean(result)
    assert result.exit_code == 5 and f"{home / 'journal.db'}: the disk or filesystem reported an error" in result.stderr
    assert invoke(home, "journal", "head").stdout == before  # rolled back: no event of the failed append is there


# ---- 9: the randomized fault loop -----------------------------------------------------------------------------

FAULTS = ("full", "io-begin", "io-commit", "io-after-commit", "locked", "no-space-for-lock")


@dataclass
class Fault:
    """One fault to arm in a child process: which, and where (a page budget or the N-th write transaction)."""

    kind: str
    at: int = 0
    delay_s: float = 0.0
    hold_s: float = 0.0

    @staticmethod
    def draw(rng: random.Random) -> Fault:
        kind = rng.choices(FAULTS, weights=(3, 2, 2, 2, 3, 2))[0]
        if kind == "full":
            return Fault(kind, rng.randint(1, 6))
        if kind.startswith("io"):
            return Fault(kind, rng.randint(2, 10))
        return Fault(kind, delay_s=rng.uniform(0.0, 0.25), hold_s=rng.uniform(0.05, 0.8))

    def arm(self) -> None:
        """In the child: make the fault happen there."""
        if self.kind == "full":
            original_open = journal_sqlite._open
            extra = self.at

            def limited(*args: Any) -> sqlite3.Connection:
                conn = original_open(*args)
                pages = conn.execute("PRAGMA page_count").fetchone()[0]
                conn.execute(f"PRAGMA max_page_count = {pages + extra}")
                return conn

            journal_sqlite._open = limited  # type: ignore[assignment]
        elif self.kind.startswith("io"):
            self._arm_io()
        elif self.kind == "locked":
            journal_sqlite.BUSY_TIMEOUT_S = 0.25
        elif self.kind == "no-space-for-lock":

            def pwrite(*args: object) -> int:
                raise OSError(errno.ENOSPC, "No space left on device")

            os.pwrite = pwrite  # type: ignore[assignment]

    def _arm_io(self) -> None:
        """The journal's connection fails the N-th write transaction with "disk I/O error": at its BEGIN, at its
        COMMIT (the rows are written, then rolled back), or right after its COMMIT (committed, but the writer is
        told it failed, as when the disk reports an error once the log is written)."""
        original_open = journal_sqlite._open
        phase, target = self.kind.removeprefix("io-"), self.at

        def faulty_open(*args: Any) -> sqlite3.Connection:
            return _FaultyConnection(original_open(*args), phase, target)  # type: ignore[return-value]

        journal_sqlite._open = faulty_open  # type: ignore[assignment]


class _FaultyConnection:
    """A journal connection that fails one write transaction, as a disk would."""

    writes = 0  # over every connection of the process: the N-th write transaction of the command

    def __init__(self, conn: sqlite3.Connection, phase: str, target: int) -> None:
        self._conn, self._phase, self._target = conn, phase, target
        self._hit = False

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "BEGIN IMMEDIATE":
            _FaultyConnection.writes += 1
            self._hit = _FaultyConnection.writes == self._target
            if self._hit and self._phase == "begin":
                raise sqlite3.OperationalError("disk I/O error")
        if sql == "COMMIT" and self._hit:
            self._hit = False
            if self._phase == "commit":
                raise sqlite3.OperationalError("disk I/O error")
            if self._phase == "after":
                self._conn.execute(sql, *args)
                raise sqlite3.OperationalError("disk I/O error")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@dataclass
class Child:
    returncode: int
    output: str
    acked: list[tuple[str, int, str]] = field(default_factory=list)


def _warm() -> None:
    crashes.child.warm()
    import alicorn.cli
    import alicorn.render  # noqa: F401


def _cli_child(argv: list[str], fault: Fault | None) -> Child:
    """`alicorn ARGV` in a forked process with `fault` armed; every event the journal acknowledges is printed as
    `ack STREAM SEQ HASH` (so the parent can check none is lost), as is everything the command says."""
    _warm()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            os.close(read_end)
            os.dup2(write_end, 1)
            os.dup2(write_end, 2)
            sys.stdout = open(1, "w", buffering=1, encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", buffering=1, encoding="utf-8", closefd=False)  # noqa: SIM115
            _print_acks()
            if fault is not None:
                fault.arm()
            from alicorn.cli import app

            try:
                app(argv, prog_name="alicorn")
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(65536):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8", "replace")
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    acked = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "ack":
            acked.append((parts[1], int(parts[2]), parts[3]))
    return Child(code, text, acked)


def _print_acks() -> None:
    original = JournalStore.append

    def acking(self: JournalStore, stream: str, drafts: Any, *, expect: int) -> Any:
        events = original(self, stream, drafts, expect=expect)
        sys.stdout.write("".join(f"ack {e.stream} {e.seq} {e.hash}\n" for e in events))
        sys.stdout.flush()
        return events

    JournalStore.append = acking  # type: ignore[method-assign]


def _run_id(workdir: Path) -> str | None:
    if not (workdir / "journal.db").exists():
        return None
    with SQLiteStore(workdir / "journal.db", read_only=True) as store:
        runs = [i.stream for i in store.streams() if i.stream.startswith("run-")]
    return runs[0] if runs else None


def _resolutions(workdir: Path, run_id: str) -> list[str]:
    """`--resolve`/`--output` for each blocked node, found by looking its key up in the ledger (the human's job)."""
    with SQLiteStore(workdir / "journal.db", read_only=True) as store:
        state = fold(store.read(run_id), run_id)
    args: list[str] = []
    for node_id in state.blocked():
        with ledger.connect(workdir / crashes.LEDGER) as db:
            row = db.execute(
                "SELECT id, account, amount FROM applied WHERE key = ?", (state.nodes[node_id].key,)
            ).fetchone()
        if row is None:
            args += ["--resolve", f"{node_id}=not-applied"]
        else:
            output = json.dumps({"entry": row[0], "account": row[1], "amount": row[2]})
            args += ["--resolve", f"{node_id}=applied", "--output", f"{node_id}={output}"]
    return args


def _decisions(workdir: Path, run_id: str) -> list[str]:
    """What the human at the terminal decides before a resume: approve a waiting run (the planner proposed it, the
    OS user approves), or resolve its blocked effects."""
    return ["--approve"] if _status(workdir, run_id) == "awaiting_approval" else _resolutions(workdir, run_id)


def _status(workdir: Path, run_id: str) -> str:
    with SQLiteStore(workdir / "journal.db", read_only=True) as store:
        return fold(store.read(run_id), run_id).status


@dataclass
class FaultReport:
    scenarios: int = 0
    faulted_commands: int = 0
    environment_exits: int = 0
    survived: int = 0
    resumes: int = 0
    never_started: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    exits: Counter[int] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    acked: int = 0
    duplicates: int = 0
    lost: int = 0
    problems: list[str] = field(default_factory=list)


def _faulted(report: FaultReport, argv: list[str], fault: Fault, lock_path: Path) -> Child:
    report.faulted_commands += 1
    report.by_kind[fault.kind] += 1
    if fault.kind == "locked" and lock_path.exists():
        with locked(lock_path, delay_s=fault.delay_s, hold_s=fault.hold_s):
            result = _cli_child(argv, fault)
    else:
        result = _cli_child(argv, fault)
    report.exits[result.returncode] += 1
    _check_said(report, result, argv)
    if result.returncode == 5:
        report.environment_exits += 1
    else:
        report.survived += 1
    return result


def _check_said(report: FaultReport, result: Child, argv: list[str]) -> None:
    if "Traceback" in result.output or result.returncode not in (0, 3, 4, 5):
        report.problems.append(f"{argv[0]} exit {result.returncode}: {result.output[-1500:]}")
    if result.returncode == 5:
        said = [line for line in result.output.splitlines() if line.startswith("error:")]
        if len(said) != 1 or not ("journal.db" in said[0] and ("disk" in said[0] or "locked" in said[0])):
            report.problems.append(f"{argv[0]} said {said!r}")


def fault_loop(scenarios: int, *, seed: int, base: Path) -> FaultReport:
    """`scenarios` runs of the ledger plan (three effects, one of each contract, sometimes failing at the end and
    compensating), each started by a faulted `alicorn run`, sometimes resumed by a faulted `alicorn resume`, then
    resumed without faults until it ends, and checked like a killed run."""
    rng = random.Random(seed)
    report = FaultReport()
    for i in range(scenarios):
        workdir = base / f"s{i}"
        workdir.mkdir()
        (workdir / "alicorn.toml").write_text('[operations]\nmodules = ["alicorn.testing.ledger:ledger_operations"]\n')
        plan = crashes.write_plan(workdir, rng.random() < 0.4)
        home = ["--home", str(workdir)]
        if rng.random() < 0.5:  # a journal that exists already (locks need one to lock)
            SQLiteStore(workdir / "journal.db").close()
        first = _faulted(
            report,
            ["run", str(plan), *home, "-q", "--proposed-by", "agent:planner"],
            Fault.draw(rng),
            workdir / "journal.db",
        )
        acked = list(first.acked)
        run_id = _run_id(workdir)
        report.scenarios += 1
        if run_id is None:
            report.never_started += 1
            if (workdir / crashes.LEDGER).exists() and ledger.applied_keys(workdir / crashes.LEDGER):
                report.problems.append(f"s{i}: effects applied for a run that was never journaled")
            continue
        rounds = 0
        while rounds < 2 and rng.random() < 0.7 and _status(workdir, run_id) not in TERMINAL_RUN:
            again = _faulted(
                report,
                ["resume", run_id, *home, "-q", *_decisions(workdir, run_id)],
                Fault.draw(rng),
                workdir / "journal.db",
            )
            acked += again.acked
            rounds += 1
        while _status(workdir, run_id) not in TERMINAL_RUN and rounds < 12:
            plain = _cli_child(["resume", run_id, *home, "-q", *_decisions(workdir, run_id)], None)
            _check_said(report, plain, ["resume"])
            acked += plain.acked
            rounds += 1
        report.resumes += rounds
        run_acks = [(seq, digest) for stream, seq, digest in acked if stream == run_id]
        outcome = crashes.check_run(workdir, run_id, run_acks, 0, rounds)
        report.statuses[outcome.status] += 1
        report.acked += outcome.acked
        report.duplicates += sum(n - 1 for n in outcome.duplicates.values())
        report.lost += len(outcome.lost)
        report.problems.extend(f"s{i} {run_id}: {p}" for p in outcome.problems)
        verified = _cli_child(["verify", *home], None)
        if verified.returncode != 0:
            report.problems.append(f"s{i}: verify exit {verified.returncode}: {verified.output[-800:]}")
    return report


@pytest.mark.slow
def test_faults_at_random_points_of_real_runs_and_resumes(tmp_path: Path) -> None:
    """60 runs, each started by an `alicorn run` with a fault at a random point (a journal that may not grow,
    a disk I/O error at the BEGIN or the COMMIT of the N-th write or right after it, the journal locked by another
    process for longer or shorter than Alicorn waits, no space for the run's lock file), those not finished resumed
    by up to two more faulted `alicorn resume`s, then resumed until they end. No traceback, exit 5 with one sentence
    for every failure, no duplicated effect, no acknowledged event lost, verify and replay pass, every run explained.
    (With this seed: 70-80 faulted commands, half or more of them ending with exit 5, and 1,200-1,700
    acknowledged events checked; lock timings make the counts vary from run to run.)"""
    report = fault_loop(60, seed=20261130, base=tmp_path)
    assert report.problems == [], (summary(report), report.problems[:5])
    assert report.duplicates == 0 and report.lost == 0
    assert report.scenarios == 60 and report.faulted_commands >= 60, summary(report)
    assert report.environment_exits >= 25 and report.survived >= 10, summary(report)
    assert set(report.by_kind) == set(FAULTS), summary(report)
    assert sum(report.statuses.values()) + report.never_started == 60
    assert report.statuses["succeeded"] and report.statuses["stopped"], summary(report)


def summary(report: FaultReport) -> str:
    return (
        f"{report.scenarios} scenarios, {report.faulted_commands} faulted commands {dict(report.by_kind)}: "
        f"{report.environment_exits} ended with exit 5, {report.survived} went on ({dict(report.exits)}); "
        f"{report.resumes} resumes; final {dict(report.statuses)}, {report.never_started} never started; "
        f"{report.acked} acknowledged events checked, {report.duplicates} duplicated effects, {report.lost} lost"
    )
