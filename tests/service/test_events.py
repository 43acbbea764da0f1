"""Live progress as Server-Sent Events: `id: <seq>`, and a reconnect with Last-Event-ID loses and repeats nothing."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import httpx

from alicorn.journal.events import Draft
from tests.service.conftest import Served, at
from tests.service.test_problems import _problem
from tests.service.test_runs import clone_run


def _read(
    client: httpx.Client, run: str, last: int | None, take: int, params: dict[str, int] | None = None
) -> list[tuple[int, str]]:
    """`take` events from the stream (resuming after `last`), then the connection is dropped."""
    headers = {"Last-Event-ID": str(last)} if last is not None else {}
    got: list[tuple[int, str]] = []
    seq: int | None = None
    with client.stream("GET", f"/api/v1/runs/{run}/events", headers=headers, params=params) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("id: "):
                seq = int(line[4:])
            elif line.startswith("data: ") and seq is not None:
                got.append((seq, line[6:]))
                seq = None
                if len(got) >= take:
                    break
    return got


def test_the_stream_sends_the_journal_lines_with_their_seq(served: Served) -> None:
    run = "corpus-fan-out"
    stored = served.store.read(run)
    with served.client("vic") as client:
        got = _read(client, run, None, len(stored))
        assert got == [(e.seq, e.line) for e in stored]
        resumed = _read(client, run, stored[4].seq, len(stored) - 5)
        assert resumed == [(e.seq, e.line) for e in stored[5:]]
        by_query = _read(client, run, None, 1, params={"after": stored[-2].seq})
        assert by_query == [(stored[-1].seq, stored[-1].line)]
        header_wins = _read(client, run, stored[-2].seq, 1, params={"after": 0})
        assert header_wins == by_query


def test_a_hundred_forced_reconnects_lose_and_repeat_nothing(served: Served) -> None:
    run = "run-live"
    clone_run(served.store, "corpus-stop", run, at(27))
    total_appended = 600
    rng = random.Random(15)
    done = threading.Event()
    failures: list[BaseException] = []

    def writer() -> None:  # another connection appends while the client keeps dropping and resuming
        try:
            for i in range(total_appended // 3):
                head = served.store.require(run).seq
                drafts = [Draft("run.progress", at(27), {"i": 3 * i + k}) for k in range(3)]
                served.store.append(run, drafts, expect=head)
                if i % 10 == 0:
                    done.wait(0.005)
        except BaseException as exc:  # said by the test, not lost in a thread
            failures.append(exc)
        finally:
            done.set()

    expected = served.store.require(run).seq + total_appended  # read before the writer starts
    thread = threading.Thread(target=writer)
    thread.start()
    received: list[int] = []
    reconnects = 0
    last: int | None = None
    with served.client("vic") as client:
        while not received or received[-1] < expected:
            assert not failures, failures
            try:
                chunk = _read(client, run, last, min(rng.randint(1, 6), expected - (last or 0)))
            except httpx.ReadTimeout:
                head = served.store.require(run).seq
                raise AssertionError(
                    f"stalled after {reconnects} reconnects: last {last}, expected {expected}, head {head}, "
                    f"writer done {done.is_set()}, streams open {served.service.open_streams}"
                ) from None
            received.extend(seq for seq, _ in chunk)
            if chunk:
                last = chunk[-1][0]
            reconnects += 1
    thread.join()
    final = served.store.require(run).seq
    counts = Counter(received)
    lost = [seq for seq in range(1, final + 1) if seq not in counts]
    repeated = [seq for seq, n in counts.items() if n > 1]
    assert reconnects >= 100
    assert (lost, repeated) == ([], [])
    assert received == sorted(received) and final == expected


def test_a_stream_whose_client_left_ends(served: Served) -> None:
    run = "corpus-stop"  # finished: nothing more will be written, so only the client's leaving can end a stream
    with served.client("vic") as client:
        for _ in range(20):
            assert len(_read(client, run, None, 3)) == 3
    deadline = time.monotonic() + 5
    while served.service.open_streams:
        assert time.monotonic() < deadline, f"{served.service.open_streams} abandoned streams still open"
        time.sleep(0.01)


def test_refusals_are_problems(served: Served) -> None:
    with served.client("vic") as client:
        _problem(client.get("/api/v1/runs/run-nope/events"), 404, "unknown-run")
        bad = client.get(f"/api/v1/runs/{served.runs[0]}/events", headers={"Last-Event-ID": "seven"})
        _problem(bad, 422, "invalid-last-event-id")
        # a start point past the largest seq a journal holds was a 200 cut short by the journal's OverflowError
        huge = client.get(f"/api/v1/runs/{served.runs[0]}/events", headers={"Last-Event-ID": "9" * 23})
        _problem(huge, 422, "invalid-last-event-id")
        too_far = client.get(f"/api/v1/runs/{served.runs[0]}/events", params={"after": 2**63})
        assert too_far.status_code == 422, too_far.text
    with served.client(None) as anonymous:
        _problem(anonymous.get(f"/api/v1/runs/{served.runs[0]}/events"), 401, "not-signed-in")
