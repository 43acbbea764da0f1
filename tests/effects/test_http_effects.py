"""`http.post_json` against a real loopback receiver that applies each request and answers late.

An operation reports what it knows: a request the target may have received and applied (a timeout after sending,
a reset, a 5xx) is an *unknown* outcome, never "not applied". So an unsafe post is applied once and left for a human
(`effect.unknown`, the run blocked); a keyed one is repeated with its key; and `may_be_pending` names every effect
whose outcome is not known when the run ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Approval, Executor, RunEnvironment
from alicorn.runtime.replay import replay_run
from alicorn.testing.ledger import testing_registry as registry

APPROVE = [Approval("human:tester")]


class Receiver:
    """A loopback HTTP receiver: it applies every POST as soon as it has read it (once per Idempotency-Key when
    `dedupe`), then answers only after `answer_after_s` (or when released at the end of the test)."""

    def __init__(self, *, dedupe: bool, answer_after_s: float) -> None:
        self.dedupe = dedupe
        self.answer_after_s = answer_after_s
        self.applied: list[str] = []  # one entry per application: a duplicate shows as a repeated key
        self.deliveries = 0
        self.release = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                key = self.headers["Idempotency-Key"]
                with receiver._lock:
                    receiver.deliveries += 1
                    if not (receiver.dedupe and key in receiver.applied):
                        receiver.applied.append(key)
                receiver.release.wait(receiver.answer_after_s)
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(json.dumps({"applied": key}).encode())
                except OSError:
                    pass  # the client gave up waiting; the request was applied all the same

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/apply"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def wait_applied(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.applied) < count:
            assert time.monotonic() < deadline, "the receiver never got the request"
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop listening: from now on the host refuses connections."""
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(tmp_path / "journal.db")
    yield s
    s.close()


def _receiver(request: pytest.FixtureRequest, *, dedupe: bool, answer_after_s: float = 1.5) -> Receiver:
    receiver = Receiver(dedupe=dedupe, answer_after_s=answer_after_s)
    request.addfinalizer(receiver.stop)
    return receiver


def _plan(url: str, **node: Any) -> Plan:
    goal = "post a document"
    send = {
        "node_id": "send",
        "operation": "http.post_json",
        "inputs": {"url": {"value": url}, "payload": {"value": {"n": 1}}, "timeout_s": {"value": 0.5}},
        **node,
    }
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": [send]})


def _executor(store: JournalStore, tmp_path: Path) -> Executor:
    return Executor(store, registry(), RunEnvironment(tmp_path / "ws", tmp_path), poll_s=0.02)


def _events(store: JournalStore, run_id: str, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in store.read(run_id) if e.kind == kind]


def test_an_unsafe_post_answered_late_is_applied_once_and_left_for_a_human(
    store: SQLiteStore, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    receiver = _receiver(request, dedupe=False)
    state = _executor(store, tmp_path).start(_plan(receiver.url, idempotency="unsafe"), approvals=APPROVE)
    assert state.status == "blocked"
    assert state.nodes["send"].status == "blocked"
    assert state.effects_log["send"].status == "unknown"
    assert len(_events(store, state.run_id, "tool.call")) == 1  # never repeated
    assert not [f for f in _events(store, state.run_id, "effect.failed") if f["certain"]]  # never "not applied"
    [unknown] = _events(store, state.run_id, "effect.unknown")
    assert "timed out" in unknown["reason"] and "--resolve send=applied|not-applied" in unknown["reason"]
    [result] = _events(store, state.run_id, "tool.result")
    assert result["error"]["type"] == "outcome_unknown"
    receiver.release.set()
    time.sleep(0.1)  # nothing else arrives once the late answers are let go
    assert receiver.applied == [state.effects_log["send"].key] and receiver.deliveries == 1
    assert replay_run(store, state.run_id, registry()).events == len(store.read(state.run_id))


def test_a_keyed_post_answered_late_is_repeated_with_its_key_and_reported_pending(
    store: SQLiteStore, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    receiver = _receiver(request, dedupe=True)
    plan = _plan(receiver.url, retry={"max_attempts": 2, "backoff_s": 0})
    state = _executor(store, tmp_path).start(plan, approvals=APPROVE)
    assert state.status == "failed"
    failed = _events(store, state.run_id, "effect.failed")
    assert [f["certain"] for f in failed] == [False, False]  # each attempt may have applied it
    calls = _events(store, state.run_id, "tool.call")
    assert len(calls) == 2 and len({c["key"] for c in calls}) == 1
    assert receiver.deliveries == 2 and receiver.applied == [calls[0]["key"]]  # the key made the repeat safe
    effects = store.read(state.run_id)[-1].data["effects"]
    assert effects["may_be_pending"] == ["send"]
    assert [e["node"] for e in effects["left_undone"]] == ["send"]
    assert replay_run(store, state.run_id, registry()).events == len(store.read(state.run_id))


def test_a_refused_connection_is_certainly_not_applied(store: SQLiteStore, tmp_path: Path) -> None:
    plan = _plan("http://127.0.0.1:9/none", idempotency="unsafe", retry={"max_attempts": 2, "backoff_s": 0})
    state = _executor(store, tmp_path).start(plan, approvals=APPROVE)
    assert state.status == "failed"  # nothing was sent, so it was retried and nobody needs to check anything
    assert [f["certain"] for f in _events(store, state.run_id, "effect.failed")] == [True, True]
    assert store.read(state.run_id)[-1].data["effects"]["may_be_pending"] == []


def test_an_effect_applied_before_a_crash_stays_pending_when_the_target_is_gone(
    store: SQLiteStore, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A keyed post applied by the receiver, the driver killed before the answer, the receiver then unreachable:
    the resumed run fails, and its end says the effect may be pending (the later refusals say nothing of it)."""
    receiver = _receiver(request, dedupe=True, answer_after_s=60)
    plan_file = tmp_path / "plan.json"
    plan = _plan(receiver.url, retry={"max_attempts": 2, "backoff_s": 0})
    plan_file.write_text(plan.model_dump_json())
    start = ["--plan", str(plan_file), "--run-id", "run-killed"]
    child = subprocess.Popen(
        [sys.executable, "-m", "alicorn.testing.child", str(tmp_path / "journal.db"), str(tmp_path), *start],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        receiver.wait_applied(1)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    receiver.stop()
    state = _executor(store, tmp_path).resume("run-killed")
    assert state.status == "failed"
    assert len(receiver.applied) == 1
    finished = store.read("run-killed")[-1].data
    assert finished["effects"]["may_be_pending"] == ["send"]
    [left] = finished["effects"]["left_undone"]
    assert left["node"] == "send" and "may have applied it" in left["reason"]
    assert replay_run(store, "run-killed", registry()).sessions == 2
