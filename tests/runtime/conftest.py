from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from tests.runtime.support import Behaviour


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JournalStore]:
    s: JournalStore = SQLiteStore(tmp_path / "journal.db") if request.param == "sqlite" else InMemoryStore()
    yield s
    s.close()


@pytest.fixture
def behaviour() -> Behaviour:
    return Behaviour()
