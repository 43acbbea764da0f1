from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from tests.pgserver import next_schema
from tests.runtime.support import Behaviour


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JournalStore]:
    """Each engine in turn; the PostgreSQL one in a schema of its own on the session's server (tests/pgserver.py)."""
    s: JournalStore
    if request.param == "postgres":
        s = PostgresJournalStore(request.getfixturevalue("pg_url"), schema=next_schema("r"))
    else:
        s = SQLiteStore(tmp_path / "journal.db") if request.param == "sqlite" else InMemoryStore()
    yield s
    s.close()


@pytest.fixture
def behaviour() -> Behaviour:
    return Behaviour()
