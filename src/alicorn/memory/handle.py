"""`StoreHandle`: what the parts of memory (graph, search, journaling) need of a project's store.

The store (`alicorn.memory.store.MemoryStore`) uses those parts for its search and graph methods and its journal
outbox; they are typed against this protocol, not against the store, so the arrows run one way (store -> graph,
search, journaling -> handle) and a part never imports the store that uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy.typing as npt

from alicorn.memory.engine import Engine, Vector
from alicorn.memory.writes import WriteBatch

if TYPE_CHECKING:
    from alicorn.journal.store import JournalStore


class StoreHandle(Protocol):
    """One project's memory, as its parts see it: the engine, the bound project, the clock and the journal."""

    engine: Engine
    project: str
    clock: Callable[[], datetime]
    journal: JournalStore | None

    def embed(self, texts: Sequence[str], purpose: Literal["query", "document"] = "document") -> Vector:
        """Unit vectors for `texts` from the store's embedder, checked."""
        ...

    def check_vectors(self, vectors: npt.ArrayLike, count: int, what: str) -> Vector:
        """`count` caller-given vectors of the store's size, finite, as unit vectors (else MemoryInputError)."""
        ...

    def write_batch(self, tx: Any, now: datetime, capacity: int, name_vectors: dict[str, Vector]) -> WriteBatch:
        """The writes of one transaction (`tx`), gated by the store's policy."""
        ...

    def after_write(self) -> None:
        """Called after a write transaction commits: copies the new history into the journal, if there is one."""
        ...
