"""The service's worker pool: keyed jobs in order, a bounded queue, failures kept; and a `serve` killed mid-run
whose run the next `serve` on the same home finishes."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from alicorn.runtime.state import fold
from alicorn.service.workers import PoolRefused, Workers
from tests.service.acting import count_reads, interrupted_run, kill_mid_run, people_and_tokens, serving, wait_for
from tests.service.conftest import StepClock, free_port


def test_jobs_of_one_key_run_in_order_and_never_at_once() -> None:
    pool = Workers(4)
    seen: list[tuple[str, int]] = []
    running: set[str] = set()
    overlap: list[str] = []
    guard = threading.Lock()

    def job(key: str, n: int) -> None:
        with guard:
            if key in running:
                overlap.append(key)
            running.add(key)
        time.sleep(0.01)
        with guard:
            seen.append((key, n))
            running.discard(key)

    for n in range(5):
        for key in ("a", "b", "c"):
            pool.submit(key, f"{key}{n}", lambda key=key, n=n: job(key, n))
    wait_for(pool.idle, "the pool to drain")
    pool.close()
    assert overlap == []
    for key in ("a", "b", "c"):
        assert [n for k, n in seen if k == key] == [0, 1, 2, 3, 4]


def test_keys_run_side_by_side_up_to_the_pool_size() -> None:
    pool = Workers(2)
    release = threading.Event()
    started: list[str] = []

    def block(key: str) -> None:
        started.append(key)
        release.wait(5)

    for key in ("a", "b", "c"):
        pool.submit(key, key, lambda key=key: block(key))
    wait_for(lambda: len(started) == 2, "two jobs to start")
    time.sleep(0.05)
    assert sorted(started) == ["a", "b"] and pool.status("c").busy  # c waits for a free thread
    release.set()
    wait_for(pool.idle, "the pool to drain")
    assert sorted(started) == ["a", "b", "c"]
    pool.close()


def test_a_full_queue_and_a_closed_pool_refuse_and_a_failure_is_kept() -> None:
    pool = Workers(1, capacity=2)
    release = threading.Event()
    pool.submit("a", "block", lambda: release.wait(5))
    pool.submit("b", "wait", lambda: None)
    with pytest.raises(PoolRefused, match="2 waiting jobs fill its queue"):
        pool.submit("c", "one too many", lambda: None)
    ran: list[str] = []
    pool.submit("d", "found unfinished at start", lambda: ran.append("d"), bounded=False)  # never refused
    release.set()
    wait_for(pool.idle, "the pool to drain")
    assert ran == ["d"]

    def broken() -> None:
        raise ValueError("the job broke")

    pool.submit("a", "break", broken)
    wait_for(pool.idle, "the failing job")
    assert pool.status("a").failure == "break: ValueError: the job broke"
    pool.submit("a", "work again", lambda: None)  # the pool goes on, and a later success clears it
    wait_for(pool.idle, "the next job")
    assert pool.status("a").failure is None
    pool.close()
    with pytest.raises(PoolRefused, match="stopping"):
        pool.submit("a", "late", lambda: None)


def test_a_serve_killed_mid_run_is_resumed_by_the_next(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = interrupted_run(home, seconds=1.5)  # `alicorn run`, killed while its first node sleeps
    tokens = people_and_tokens(home, StepClock())
    port = free_port()
    # A real `alicorn serve` finds the interrupted run and resumes it; it is killed while the sleep runs again.
    serve = ["serve", "--home", str(home), "--port", str(port), "--workers", "1", "--model", "none"]
    assert kill_mid_run(serve, home, session=2) == run
    with serving(home, tokens, workers=1) as served:  # the next service on the same home finishes it
        with served.client("vic") as client:

            def finished() -> bool:
                return bool(client.get(f"/api/v1/runs/{run}").json()["status"] == "succeeded")

            wait_for(finished, f"run {run} to succeed")
        state = fold(served.store.read(run), run)
        assert state.sessions == 3  # started, resumed by the killed serve, resumed by this one
        kinds = [e.kind for e in served.store.read(run)]
        assert kinds.count("run.resumed") == 2 and kinds[-1] == "run.finished"
        assert [n for n in state.order if state.nodes[n].status == "succeeded"] == ["nap", "after"]


def test_without_workers_requests_are_refused_and_nothing_is_journaled(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with serving(home, workers=0) as served:
        before = served.heads()
        with served.client("ada") as client:
            response = client.post("/api/v1/conversations", json={"text": "Greet the team"})
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "started without workers" in response.json()["detail"]
        assert served.heads() == before


def test_serve_refuses_an_unknown_model_choice(tmp_path: Path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "from alicorn.cli import main; main()", "serve", "--home", str(tmp_path / "h"),
         "--model", "no-such-profile"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and "no-such-profile" in result.stderr
    assert not (tmp_path / "h" / "journal.db").exists()


def test_a_request_journaled_but_never_advanced_is_taken_up_at_start(tmp_path: Path) -> None:
    from alicorn.app import open_app
    from alicorn.core.intake import IntentEnvelope
    from alicorn.core.norbi import Norbi
    from alicorn.packs.catalog import bundled_workflows
    from tests.service.acting import ALARMS, settled

    home = tmp_path / "home"
    tokens = people_and_tokens(home, StepClock())
    application = open_app(home)
    try:  # a service that died right after journaling the request: its conversation is `received`, nothing more
        conversation = Norbi(application, bundled_workflows(), clock=StepClock()).take(
            IntentEnvelope(utterance=ALARMS, author="human:ada", channel="api")
        )
        assert [e.kind for e in application.store.read(conversation)] == ["intent.received"]
    finally:
        application.close()
    with serving(home, tokens) as served, served.client("vic") as client:
        body = settled(client, conversation, phase="reported")
        assert body["report"]["outcome"] == "complete"


def _home_with_finished_work(home: Path, finished: int) -> dict[str, list[str]]:
    """A journal of `finished` finished runs, each reported by a finished conversation, plus what a killed service
    leaves: a conversation received but not reported (its run cut mid-way) and a run no conversation owns, cut
    mid-way too (both `running`)."""
    from alicorn.app import open_app
    from alicorn.journal.events import Draft
    from alicorn.journal.transfer import import_lines
    from tests.service.conftest import CORPUS, at
    from tests.service.test_runs import clone_run

    application = open_app(home)
    store = application.store
    try:
        crashed = import_lines(store, (CORPUS / "crash-resumed.jsonl").read_text().splitlines())[0]
        stopped = import_lines(store, (CORPUS / "stop.jsonl").read_text().splitlines())[0]
        cut = [Draft(e.kind, e.at, e.data) for e in store.read(crashed)[:10]]  # before its resume: `running`
        envelope = {"utterance": "greet the team", "author": "human:ada", "channel": "api", "project": "default"}
        done_runs, done_conversations = [], []
        for i in range(finished):
            run, conversation = f"run-20261201-{i:012x}-1", f"conv-20261201-{i:012x}"
            clone_run(store, stopped, run, at(1))
            store.append(conversation, [
                Draft("intent.received", at(1), {"envelope": envelope}),
                Draft("run.linked", at(1), {"run": run}),
                Draft("report.written", at(1), {"outcome": "complete"}),
            ], expect=0)  # fmt: skip
            done_runs.append(run)
            done_conversations.append(conversation)
        open_run, open_conversation = "run-20261202-00000000000a-1", "conv-20261202-00000000000a"
        store.append(open_run, cut, expect=0)
        store.append(open_conversation, [
            Draft("intent.received", at(2), {"envelope": envelope}), Draft("run.linked", at(2), {"run": open_run}),
        ], expect=0)  # fmt: skip
        store.append("run-loose", cut, expect=0)
    finally:
        application.close()
    return {
        "finished": [*done_runs, *done_conversations, stopped, crashed],
        "advanced": [open_conversation],
        "resumed": ["run-loose"],
    }


def test_a_start_finds_unfinished_work_in_the_run_index_without_folding_finished_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alicorn.service.actions import Actions
    from alicorn.service.app import create_app

    home = tmp_path / "home"
    made = _home_with_finished_work(home, finished=60)
    done: dict[str, list[str]] = {"advanced": [], "resumed": []}
    monkeypatch.setattr(Actions, "_advance", lambda self, name: done["advanced"].append(name))  # what it would drive
    monkeypatch.setattr(Actions, "_resume", lambda self, name: done["resumed"].append(name))
    lookers: list[threading.Thread | None] = []
    look = Actions.resume_in_background
    monkeypatch.setattr(Actions, "resume_in_background", lambda self: lookers.append(look(self)) or lookers[-1])

    def start() -> None:
        service = create_app(home, clock=StepClock(), workers=1).state.service
        try:
            thread = lookers[-1]
            assert thread is not None
            thread.join(30)
            wait_for(lambda: len(done["advanced"]) + len(done["resumed"]) == 2, "the unfinished work")
        finally:
            service.close()

    start()  # the first start builds the run index (once: it is kept in the home)
    assert done == {"advanced": made["advanced"], "resumed": made["resumed"]}
    reads = count_reads(monkeypatch)
    done = {"advanced": [], "resumed": []}
    start()  # the next start reads no finished stream at all: the index knows their heads did not move
    assert done == {"advanced": made["advanced"], "resumed": made["resumed"]}
    assert not set(reads) & set(made["finished"]), sorted(set(reads) & set(made["finished"]))[:5]


def test_the_server_answers_while_the_start_looks_for_unfinished_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alicorn.service.index import RunIndex

    answered = threading.Event()
    seen: list[bool] = []
    unfinished = RunIndex.unfinished

    def slow(self: RunIndex) -> object:  # a long look at a big journal: it ends once a request was answered
        seen.append(answered.wait(10))
        return unfinished(self)

    monkeypatch.setattr(RunIndex, "unfinished", slow)
    with serving(tmp_path / "home", workers=1) as served, served.client("vic") as client:
        assert client.get("/api/v1/me").status_code == 200
        answered.set()
        wait_for(lambda: seen, "the look for unfinished work")
    assert seen == [True]
