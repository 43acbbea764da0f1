"""Core submitting its runs to the job broker (`alicorn ask --queue`, `alicorn serve --queue`): the run is created
with its job in one transaction, workers drive it, and Core never does: it says where the job stands, journals a
person's approval for the worker, and reports once a worker has finished the run. Replays of such runs verify."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from alicorn.broker.submit import broker_for
from alicorn.broker.worker import Worker
from alicorn.core.intake import IntentEnvelope
from alicorn.journal.events import Draft
from alicorn.packs import pack_dir
from alicorn.runtime.replay import replay_run
from alicorn.runtime.state import fold as fold_run
from tests.broker.conftest import FakeSeconds
from tests.core.support import SEED_ALARMS, SENT, core, make_app, registry, samples_as_project_data


def _ask(text: str) -> IntentEnvelope:
    return IntentEnvelope(utterance=text, author="human:ann")


def _worker(app, seconds: FakeSeconds) -> Worker:
    broker = broker_for(app.store, clock=seconds)
    return Worker(broker, app.executor(Path(".")), name="worker:test", lease_s=30, backoff_s=0.0,
                  executor_for=lambda state: app.executor(Path(state.data_root)))  # fmt: skip


def _drain(worker: Worker) -> int:
    return worker.serve(threading.Event(), until_idle=True)


def _kinds(app, stream: str) -> list[str]:
    return [e.kind for e in app.store.read(stream)]


def test_a_queued_run_is_left_to_a_worker_and_reported_once_it_finished(tmp_path: Path) -> None:
    seconds = FakeSeconds()
    here = make_app(tmp_path / "queued")
    broker = broker_for(here.store, clock=seconds)
    turn = core(here, broker=broker).receive(_ask(SEED_ALARMS))
    assert turn.phase == "queued" and turn.run is not None and turn.report is None
    run = turn.run
    assert turn.status == "ready: the next free worker takes it"
    assert "tool.call" not in _kinds(here, run)  # created and decided, nothing called in Core's process
    job = broker.job(run)
    assert job is not None and job.state == "ready"
    conversation = [e for e in here.store.read(turn.conversation) if e.kind == "run.linked"]
    assert conversation[-1].data["queued"] is True

    # Continued by a Core that has no broker of its own: the run is still the workers', never driven here.
    again = core(here).advance(turn.conversation)
    assert again.phase == "queued" and "tool.call" not in _kinds(here, run)

    assert _drain(_worker(here, seconds)) == 1
    assert broker.job(run).state == "done"  # type: ignore[union-attr]
    done = core(here).advance(turn.conversation)
    assert done.phase == "reported" and done.report is not None and done.report.outcome == "complete"

    # The same request driven in Core's own process reports the same result.
    inline = core(make_app(tmp_path / "inline")).receive(_ask(SEED_ALARMS))
    assert inline.report is not None
    assert done.report.metrics == inline.report.metrics and done.report.headline == inline.report.headline
    assert replay_run(here.store, run, registry()).status == "succeeded"
    broker.close()


def test_an_approval_of_a_queued_run_is_journaled_for_the_worker_which_then_drives_it(tmp_path: Path) -> None:
    seconds = FakeSeconds()
    app = make_app(tmp_path)
    SENT.clear()
    broker = broker_for(app.store, clock=seconds)
    norbi = core(app, broker=broker)
    turn = norbi.receive(_ask("Send a hello to the red team"))
    assert turn.phase == "waiting" and turn.proposal is not None
    run = turn.proposal.run
    worker = _worker(app, seconds)
    assert _drain(worker) == 1  # the worker finds it waiting for a person and parks its job
    assert broker.job(run).state == "waiting"  # type: ignore[union-attr]

    before = len(app.store.read(run))
    turn = norbi.approve(turn.conversation, by="human:ann")
    assert turn.phase == "queued" and SENT == []
    decided = app.store.read(run)[before:]
    assert decided[0].kind == "run.resumed" and decided[0].data["queued"] is True
    assert "approval.granted" in [e.kind for e in decided]
    assert not {"tool.call", "effect.intended"} & {e.kind for e in decided}  # nothing called in Core's process
    assert turn.status == "ready: the next free worker takes it"  # its parked job wakes at the next look

    assert _drain(worker) == 1
    assert len(SENT) == 1 and fold_run(app.store.read(run), run).status == "succeeded"
    turn = norbi.advance(turn.conversation)
    assert turn.phase == "reported" and turn.report is not None and turn.report.outcome == "complete"
    # Replay ends the approving session where it ended (its run.resumed says queued), then the worker's.
    report = replay_run(app.store, run, registry())
    assert report.status == "succeeded" and report.sessions == 3
    assert len(SENT) == 1  # replay called nothing
    broker.close()


def _alicorn(*args: str, home: Path, now: str = "2026-11-30T08:00:00Z") -> subprocess.CompletedProcess[str]:
    """The command as a user types it, in a subprocess: a worker's leases are measured on the machine's clock,
    which the test process itself never reads. It runs in the folder above the home: the project's folder."""
    env = {**os.environ, "ALICORN_HOME": str(home), "ALICORN_NOW": now}
    command = [sys.executable, "-c", "from alicorn.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, cwd=home.parent)


def test_ask_queue_says_the_run_is_queued_and_the_report_follows_the_worker(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = tmp_path / "my-alarms.csv"
    shutil.copy(pack_dir("alarms") / "alarms.csv", data)
    asked = _alicorn("ask", "--no-input", "--model", "none", "--quiet", "--queue", "--data", str(data), SEED_ALARMS,
                     home=home)  # fmt: skip
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "is queued: a worker drives it (`alicorn worker`)" in asked.stdout
    assert "job: ready: the next free worker takes it" in asked.stdout
    conversation = asked.stdout.split("alicorn ask --conversation ")[-1].split()[0]
    worked = _alicorn("worker", "--until-idle", "--name", "worker:test", home=home)
    assert worked.returncode == 0 and "done: succeeded (driven by worker:test)" in worked.stdout, worked.stderr
    reported = _alicorn("ask", "--no-input", "--model", "none", "--quiet", "-c", conversation, home=home)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert f"read alarms (--data): {data}" in reported.stdout and "is queued" not in reported.stdout


def test_a_broker_failing_at_submission_creates_nothing_and_the_next_advance_submits_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(tmp_path)
    broker = broker_for(app.store, clock=FakeSeconds())
    norbi = core(app, broker=broker)
    real = broker.enqueue_guard

    def failing(*args, **kwargs):
        def guard(tx) -> None:
            raise OSError("the broker's table cannot be written")

        return guard

    monkeypatch.setattr(broker, "enqueue_guard", failing)
    turn = norbi.receive(_ask(SEED_ALARMS))
    assert turn.phase == "stalled" and turn.report is not None and turn.report.outcome == "stopped_safely"
    run = f"run-{turn.conversation.removeprefix('conv-')}-1"
    assert app.store.head(run) is None and broker.job(run) is None  # the run and its job are one transaction
    monkeypatch.setattr(broker, "enqueue_guard", real)
    turn = norbi.advance(turn.conversation)
    assert turn.phase == "queued" and turn.run == run
    assert [j.run for j in broker.jobs()] == [run]
    assert core(app, broker=broker).advance(turn.conversation).phase == "queued"  # idempotent: still one job
    assert len(broker.jobs()) == 1
    broker.close()


def test_the_scheduler_with_queue_leaves_its_firings_runs_to_the_workers(tmp_path: Path) -> None:
    home = samples_as_project_data(tmp_path / "home")
    added = _alicorn("schedule", "add", SEED_ALARMS, "--every", "15m", "--allow", "local_write", "--json",
                     home=home)  # fmt: skip
    assert added.returncode == 0, added.stdout + added.stderr
    fired = _alicorn("scheduler", "--ticks", "1", "--max-poll", "0.01", "--queue", home=home,
                     now="2026-11-30T08:16:00Z")  # fmt: skip
    assert fired.returncode == 0 and "after 1 tick(s)" in fired.stdout, fired.stdout + fired.stderr
    jobs = json.loads(_alicorn("jobs", "--json", home=home).stdout)["jobs"]
    assert [job["state"] for job in jobs] == ["ready"]  # the firing's run waits for a worker: nothing ran here
    worked = _alicorn("worker", "--until-idle", home=home, now="2026-11-30T08:17:00Z")
    assert worked.returncode == 0 and f"{jobs[0]['run']}: done: succeeded" in worked.stdout, worked.stderr


def test_a_queued_run_found_after_a_crash_is_linked_as_queued_and_not_submitted_again(tmp_path: Path) -> None:
    seconds = FakeSeconds()
    app = make_app(tmp_path / "first")
    broker = broker_for(app.store, clock=seconds)
    turn = core(app, broker=broker).receive(_ask(SEED_ALARMS))
    run = turn.run
    assert run is not None
    # Crash window: the run and its job were created, the conversation never linked the run. Rebuild that state.
    other = make_app(tmp_path / "second")
    events = app.store.read(turn.conversation)
    cut = next(i for i, e in enumerate(events) if e.kind == "run.linked")
    other.store.append(turn.conversation, [Draft(e.kind, e.at, e.data) for e in events[:cut]], expect=0)
    other.store.append(run, [Draft(e.kind, e.at, e.data) for e in app.store.read(run)], expect=0)
    broker.close()
    resumed = core(other).advance(turn.conversation)  # no broker given: the run's creation says it is queued
    assert resumed.phase == "queued" and resumed.run == run
    linked = [e.data for e in other.store.read(turn.conversation) if e.kind == "run.linked"]
    assert linked == [{**linked[0], "queued": True}] and linked[0]["run"] == run
    assert "tool.call" not in _kinds(other, run)  # found, never started or driven again
