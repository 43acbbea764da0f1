from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JournalStore]:
    """Anvil's folds and decisions run the same on every journal engine (a contract, per engine)."""
    s: JournalStore = SQLiteStore(tmp_path / "journal.db") if request.param == "sqlite" else InMemoryStore()
    yield s
    s.close()
