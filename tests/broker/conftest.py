from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from tests.pgserver import next_schema
from tests.runtime.support import Behaviour


class FakeSeconds:
    """The broker's clock in a test: seconds that move only when the test says."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JournalStore]:
    """Both engines a broker lives on; PostgreSQL in a schema of its own on the session's server."""
    s: JournalStore
    if request.param == "postgres":
        s = PostgresJournalStore(request.getfixturevalue("pg_url"), schema=next_schema("b"))
    else:
        s = SQLiteStore(tmp_path / "journal.db")
    yield s
    s.close()


@pytest.fixture
def seconds() -> FakeSeconds:
    return FakeSeconds()


@pytest.fixture
def behaviour() -> Behaviour:
    return Behaviour()
