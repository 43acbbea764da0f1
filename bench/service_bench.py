"""`alicorn serve` over real HTTP: run list and run detail latency at 1,000 and 100,000 runs, SSE throughput and
append-to-client latency, and as the baseline in the same run, the brute-force list (fold every run stream).

    .venv/bin/python bench/service_bench.py               # 1,000 and 100,000 runs (several minutes)
    .venv/bin/python bench/service_bench.py --runs 1000   # one size only
    .venv/bin/python bench/service_bench.py --runs 1000 --runs 20000 --reps 100

The journals are written fast, straight through the SQLite store's transaction hooks, 1,000 runs per transaction:
each run is the recorded `tests/corpus/stop.jsonl` run without its Anvil events (7 events, ~3.7 KB), its status,
project, proposer and created time varied. The service runs as `alicorn serve` in a child process; the client is
httpx in this one. It prints figures and ratios; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.people import People
from alicorn.clock import format_time
from alicorn.journal.events import Draft, chain, parse_line
from alicorn.journal.sqlite import SQLiteStore
from alicorn.runtime.state import fold
from alicorn.service.tokens import Tokens

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "tests" / "corpus" / "stop.jsonl"
BATCH = 1000
STATUSES = ("succeeded", "failed", "partial", "stopped", "cancelled")


class _Clock:
    def __init__(self) -> None:
        self.at = "2026-12-01T00:00:00.000000Z"

    def now(self) -> str:
        return self.at

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _fold_every_run(store: SQLiteStore) -> int:
    """The brute-force listing: fold every run stream (what `alicorn runs` did before the summary projection)."""
    return sum(1 for info in store.streams() if fold(store.read(info.stream), info.stream).plan)


def _template() -> list[Draft]:
    events = [parse_line(line) for line in TEMPLATE.read_text().splitlines() if line.strip()]
    return [Draft(e.kind, e.at, e.data) for e in events if not e.kind.startswith("anvil.")]


def build(home: Path, runs: int) -> float:
    """A home whose journal holds `runs` runs; returns the seconds it took."""
    started = time.perf_counter()
    template = _template()
    base = datetime(2026, 1, 1, tzinfo=UTC)
    home.mkdir(parents=True)
    with SQLiteStore(home / "journal.db") as store:
        for first in range(0, runs, BATCH):
            with store._write_transaction() as tx:  # the bench's fast path: many streams per transaction
                for i in range(first, min(first + BATCH, runs)):
                    status = STATUSES[i % len(STATUSES)]
                    at = format_time(base + timedelta(seconds=37 * i))
                    drafts = []
                    for draft in template:
                        data = draft.data
                        if draft.kind == "run.created":
                            data = {**data, "project": f"p{i % 10}", "proposed_by": f"agent:a{i % 5}"}
                        elif draft.kind == "run.finished":
                            data = {**data, "status": status}
                        drafts.append(Draft(draft.kind, at, data))
                    store._insert_txn(tx, chain(f"run-{i:06d}", 0, None, drafts))
        clock = _Clock()
        people = People(store, home / "keys", clock)
        people.bootstrap(parse_principal("human:bench"))
        token = Tokens(people, clock).create(
            "bench", scope="read", expires_days=None, by=parse_principal("human:bench")
        )
    (home / "token").write_text(token.token)
    return time.perf_counter() - started


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _port()
    env = {**os.environ, "ALICORN_NOW": "2026-12-01T00:00:00Z"}
    code = "from alicorn.cli import main; main()"
    args = [sys.executable, "-c", code, "serve", "--home", str(home), "--port", str(port), "--model", "none"]
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    while True:
        try:
            httpx.get(url + "/openapi.json", timeout=1)
            print(f"alicorn serve answered {time.monotonic() - started:.1f} s after it was started")
            return child, url
        except httpx.TransportError:
            if time.monotonic() - started > 900 or child.poll() is not None:
                said = child.stderr.read() if child.stderr else b""
                raise SystemExit(f"alicorn serve did not start: {said!r}") from None
            time.sleep(0.1)


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def timed(client: httpx.Client, path: str, params: Any, reps: int, before: Any = None) -> tuple[float, float]:
    samples = []
    for i in range(reps):
        if before is not None:
            before(i)
        started = time.perf_counter()
        response = client.get(path, params=params(i) if callable(params) else params)
        samples.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.text[:300]}")
    return _percentiles(samples)


def _ms(pair: tuple[float, float]) -> str:
    return f"p50 {pair[0] * 1000:7.2f} ms   p95 {pair[1] * 1000:7.2f} ms"


def measure(runs: int, reps: int, workdir: Path) -> dict[str, Any]:
    home = workdir / f"home-{runs}"
    built = build(home, runs)
    size = (home / "journal.db").stat().st_size
    print(f"\n## {runs:,} runs  (journal {size / 1e6:,.0f} MB, written in {built:.1f} s)")
    child, url = serve(home)
    out: dict[str, Any] = {"runs": runs}
    try:
        headers = {"Authorization": f"Bearer {(home / 'token').read_text()}"}
        with httpx.Client(base_url=url, headers=headers, timeout=600) as client:
            started = time.perf_counter()
            first = client.get("/api/v1/runs", params={"limit": 50}).json()
            out["index_build_s"] = time.perf_counter() - started
            print(f"first request (folds the whole journal into the run index): {out['index_build_s']:.2f} s")
            assert len(first["runs"]) == 50
            # A cursor about 90% of the way down the list, reached by paging 500 at a time.
            cursor, seen = None, 0
            while seen < int(runs * 0.9):
                limit = min(500, int(runs * 0.9) - seen)
                page = client.get("/api/v1/runs", params={"limit": limit, **({"cursor": cursor} if cursor else {})})
                body = page.json()
                seen += len(body["runs"])
                cursor = body["next_cursor"]
            figures = {
                "list, first page (50)": timed(client, "/api/v1/runs", {"limit": 50}, reps),
                "list, filtered (status + project)": timed(
                    client, "/api/v1/runs", {"limit": 50, "status": "failed", "project": "p1"}, reps
                ),
                "list, filter matching nothing (worst case)": timed(
                    client, "/api/v1/runs", {"limit": 50, "status": "failed", "project": "p3"}, reps
                ),
                "list, filtered (agent, since)": timed(
                    client, "/api/v1/runs", {"limit": 50, "agent": "agent:a2", "since": "2026-01-15"}, reps
                ),
                f"list, deep page (after {seen:,})": timed(
                    client, "/api/v1/runs", {"limit": 50, "cursor": cursor}, reps
                ),
            }
            rng = random.Random(runs)
            ids = [f"run-{rng.randrange(runs):06d}" for _ in range(reps)]
            figures["run detail"] = _detail(client, ids)
            store = SQLiteStore(home / "journal.db")
            try:
                counter = iter(range(10**9))

                def append_elsewhere(_: int) -> None:  # another connection commits: the index must catch up
                    n = next(counter)
                    head = store.require("run-000000").seq
                    store.append(
                        "run-000000", [Draft("bench.tick", "2026-12-01T00:00:00.000000Z", {"n": n})], expect=head
                    )

                figures["list right after an append elsewhere"] = timed(
                    client, "/api/v1/runs", {"limit": 50}, max(10, reps // 5), append_elsewhere
                )
                out["visible_after_s"] = _staleness(client, store, runs)
                for name, pair in figures.items():
                    print(f"{name:44s} {_ms(pair)}")
                out["figures"] = {k: [v[0] * 1000, v[1] * 1000] for k, v in figures.items()}
                reps_brute = 3 if runs <= 10_000 else 1
                brute = []
                for _ in range(reps_brute):
                    started = time.perf_counter()
                    _fold_every_run(store)
                    brute.append(time.perf_counter() - started)
                med = statistics.median(brute)
                out["brute_force_s"] = med
                p95 = figures["list, first page (50)"][1]
                print(
                    f"{'baseline: brute-force list (fold every run)':44s} median {med * 1000:,.0f} ms over {reps_brute}"
                    f" rep(s); indexed list p95 is {med / p95:,.0f}x faster"
                )
                print(
                    f"{'a run written by another process is listed':44s} {out['visible_after_s'] * 1000:,.0f} ms "
                    "after its commit"
                )
                out.update(_sse(client, store))
            finally:
                store.close()
    finally:
        child.terminate()
        child.wait(10)
    return out


def _staleness(client: httpx.Client, store: SQLiteStore, runs: int) -> float:
    """How long after another process commits a new run the list shows it (the index's walk of the heads)."""
    template = _template()
    at = "2027-01-01T00:00:00.000000Z"
    store.append("run-late", [Draft(d.kind, at, d.data) for d in template], expect=0)
    committed = time.perf_counter()
    while client.get("/api/v1/runs", params={"limit": 1}).json()["runs"][0]["run"] != "run-late":
        time.sleep(0.005)
    return time.perf_counter() - committed


def _detail(client: httpx.Client, ids: list[str]) -> tuple[float, float]:
    samples = []
    for run in ids:
        started = time.perf_counter()
        client.get(f"/api/v1/runs/{run}")
        samples.append(time.perf_counter() - started)
    return _percentiles(samples)


def _sse(client: httpx.Client, store: SQLiteStore, burst: int = 5000, latency_samples: int = 200) -> dict[str, Any]:
    """Events per second through one SSE stream, and the time from a committed append to the client reading it."""
    run = "run-000001"
    base = store.require(run).seq
    received: dict[int, float] = {}
    ready = threading.Event()
    total = burst + latency_samples

    def reader() -> None:
        with client.stream("GET", f"/api/v1/runs/{run}/events", headers={"Last-Event-ID": str(base)}) as response:
            ready.set()
            for line in response.iter_lines():
                if line.startswith("id: "):
                    seq = int(line[4:])
                    received[seq] = time.perf_counter()
                    if seq >= base + total:
                        return

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    ready.wait(10)
    at = "2026-12-01T00:00:00.000000Z"
    started = time.perf_counter()
    for first in range(0, burst, 50):  # appends of 50 events, as fast as the journal commits them
        store.append(run, [Draft("bench.tick", at, {"n": first + k}) for k in range(50)], expect=base + first)
    appended = time.perf_counter()
    while len(received) < burst and time.perf_counter() - started < 120:
        time.sleep(0.005)
    delivered = max(received.values()) - started if received else float("nan")
    rate = burst / delivered
    committed: dict[int, float] = {}
    for i in range(latency_samples):  # one event at a time, spaced out: each waits for the service's next look
        seq = base + burst + i + 1
        store.append(run, [Draft("bench.tick", at, {"n": seq})], expect=seq - 1)
        committed[seq] = time.perf_counter()
        time.sleep(0.013)
    thread.join(30)
    lags = [received[s] - committed[s] for s in committed if s in received]
    p50, p95 = _percentiles(lags)
    backlog = _backlog(client, run, base + total)
    print(
        f"{'SSE: events delivered per second, live':44s} {rate:,.0f} events/s ({burst:,} events appended 50 per "
        f"commit; the appends alone took {appended - started:.2f} s)"
    )
    print(f"{'SSE: events delivered per second, backlog':44s} {backlog:,.0f} events/s ({base + total:,} events)")
    print(f"{'SSE: journal append -> client has it':44s} {_ms((p50, p95))}  ({len(lags)} events, poll 50 ms)")
    return {
        "sse_backlog_events_per_s": backlog,
        "sse_events_per_s": rate,
        "sse_latency_ms": [p50 * 1000, p95 * 1000],
        "sse_lost": latency_samples - len(lags),
    }


def _backlog(client: httpx.Client, run: str, last: int) -> float:
    """Events per second when they are all in the journal already (a client catching up from Last-Event-ID: 0)."""
    started = time.perf_counter()
    with client.stream("GET", f"/api/v1/runs/{run}/events", headers={"Last-Event-ID": "0"}) as response:
        for line in response.iter_lines():
            if line == f"id: {last}":
                break
    return last / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, action="append", help="journal sizes (default 1,000 and 100,000)")
    parser.add_argument("--reps", type=int, default=200, help="requests per figure")
    parser.add_argument("--dir", type=Path, help="where the journals go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the journals")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="alicorn-service-bench-", dir=args.dir))
    print("# alicorn serve: run list, run detail, SSE (target: run list p95 < 200 ms at 100,000 runs)")
    results = []
    try:
        for runs in args.runs or [1000, 100_000]:
            results.append(measure(runs, args.reps, workdir))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
