"""Opening a memory store from a location: a PostgreSQL URL or an SQLite file path (the embedded default)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from alicorn.memory.embedders import Embedder
from alicorn.memory.engine import Engine
from alicorn.memory.gate import GatePolicy
from alicorn.memory.models import utc_now
from alicorn.memory.store import Clock, IdFactory, MemoryStore, random_id

if TYPE_CHECKING:
    from alicorn.journal.store import JournalStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_engine(location: str | os.PathLike[str], *, create: bool = True, schema: str = "public") -> Engine:
    """The engine for `location`: `postgresql://...` (pgvector) or a file path (SQLite; `:memory:` for a
    throw-away store)."""
    text = os.fspath(location)
    if text.startswith(POSTGRES_SCHEMES):
        from alicorn.memory.postgres import PostgresEngine

        return PostgresEngine(text, schema=schema)
    from alicorn.memory.sqlite import SQLiteEngine

    return SQLiteEngine(text, create=create)


def open_memory(
    location: str | os.PathLike[str],
    *,
    project: str,
    embedder: Embedder | None = None,
    create: bool = True,
    schema: str = "public",
    clock: Clock = utc_now,
    ids: IdFactory = random_id,
    policy: GatePolicy | None = None,
    journal: JournalStore | None = None,
) -> MemoryStore:
    """A handle on `project`'s memory at `location` (closing the handle closes the connection)."""
    engine = open_engine(location, create=create, schema=schema)
    try:
        return MemoryStore(engine, project, embedder=embedder, clock=clock, ids=ids, policy=policy, journal=journal)
    except BaseException:
        engine.close()
        raise
