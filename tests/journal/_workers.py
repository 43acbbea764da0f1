"""Code run in child processes (multiprocessing with spawn imports it by name, so it stays small)."""

from __future__ import annotations

import random
import time
from multiprocessing.synchronize import Barrier
from typing import Any

from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft
from alicorn.journal.postgres import PostgresJournalStore, is_postgres_url
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore


def batch_sizes(writer: int, batches: int) -> list[int]:
    """How many events writer `writer` appends in each batch (known to the parent, to check the sum)."""
    return [1 + (writer + b) % 3 for b in range(batches)]


def append_with_retry(
    path: str, writer: int, batches: int, start: Barrier, conflicts: Any, schema: str = "public"
) -> None:
    """Open the journal in this process and append every batch to one shared stream, retrying on conflicts.

    `path` is an SQLite file or a PostgreSQL URL (then `schema` names the journal's schema). `conflicts` is a
    shared integer array; slot `writer` counts this process's lost races.
    """
    think = random.Random(writer)
    store: JournalStore = (
        PostgresJournalStore(path, schema=schema, create=False)
        if is_postgres_url(path)
        else SQLiteStore(path, create=False)
    )
    try:
        start.wait(timeout=120)  # every process has opened the journal: now they race
        for b, size in enumerate(batch_sizes(writer, batches)):
            batch = [Draft("k", "2024-05-01T08:00:00Z", {"writer": writer, "batch": b, "i": i}) for i in range(size)]
            while True:
                expect = store.last_seq("shared")
                time.sleep(think.random() / 500)
                try:
                    store.append("shared", batch, expect=expect)
                    break
                except ConcurrentAppendError:
                    conflicts[writer] += 1
    finally:
        store.close()
