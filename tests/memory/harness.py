"""What the memory contract suites share: a controllable clock, provenance values and the engine hooks.

`MemoryHarness` declares the hooks an engine's test class implements (`make_engine`, `another_engine`); the
contract gets stores bound to projects through `store()`, all closed after the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from alicorn.memory.embedders import Embedder, EmbedderSpec, HashingEmbedder, Purpose, Vectors
from alicorn.memory.engine import Engine
from alicorn.memory.models import Provenance
from alicorn.memory.store import MemoryStore

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
DIM = 64
OPERATOR = Provenance(origin="operator", ref="cli:tester")
WEB = Provenance(origin="web", ref="https://example.org/page")
AGENT = Provenance(origin="agent", ref="journal:run-1#4")

# Contract tests are inherited by one class per engine: hypothesis sees one test run by several executors.
MEMORY_SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.differing_executors, HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


class Clock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


class Counter:
    """Deterministic ids: m-000001, r-000002 ... (a prefix of `dup` makes every record id collide on purpose)."""

    def __init__(self) -> None:
        self.n = 0
        self.collide = False

    def __call__(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}-dup" if self.collide and prefix == "m" else f"{prefix}-{self.n:06d}"


class WrongSizeEmbedder(Embedder):
    """An embedder that claims 64 dimensions and returns 65 (a misconfigured endpoint)."""

    def __init__(self) -> None:
        self.spec = EmbedderSpec(kind="hashing", dim=DIM)

    def embed(self, texts: Any, purpose: Purpose = "document") -> Vectors:
        return np.ones((len(texts), DIM + 1), dtype=np.float32)


class MemoryHarness:
    """Hooks per engine, and bookkeeping."""

    tmp_path: Path
    clock: Clock
    ids: Counter
    _opened: list[MemoryStore]

    @pytest.fixture(autouse=True)
    def _harness(self, tmp_path: Path) -> Iterator[None]:
        self.tmp_path = tmp_path
        self.clock = Clock()
        self.ids = Counter()
        self._opened = []
        self._engine: Engine | None = None
        yield
        for store in reversed(self._opened):
            store.close()

    def make_engine(self) -> Engine:
        """A fresh, empty storage (a new file, a new schema)."""
        raise NotImplementedError

    def another_engine(self, engine: Engine) -> Engine:
        """A second connection to the same storage (another process would have one)."""
        raise NotImplementedError

    def store(self, project: str = "alpha", *, fresh: bool = False, **kwargs: Any) -> MemoryStore:
        """A handle on `project` over this test's storage (each call opens its own connection)."""
        if self._engine is None or fresh:
            engine = self._engine = self.make_engine()
        else:
            engine = self.another_engine(self._engine)
        kwargs.setdefault("embedder", HashingEmbedder(DIM))
        kwargs.setdefault("clock", self.clock)
        kwargs.setdefault("ids", self.ids)
        try:
            store = MemoryStore(engine, project, **kwargs)
        except BaseException:
            engine.close()
            raise
        self._opened.append(store)
        return store
