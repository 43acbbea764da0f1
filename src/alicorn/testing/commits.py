"""Counting a journal store's commits, for the group-commit tests and benchmark (alicorn.journal.store)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from alicorn.journal.store import JournalStore


def count_commits(store: JournalStore) -> list[int]:
    """Count `store`'s committed write transactions from here on (the list's one item): the engine's transaction
    hook is wrapped, so a transaction counts only when it committed."""
    count = [0]
    inner = store._write_transaction

    @contextlib.contextmanager
    def counted() -> Iterator[Any]:
        with inner() as tx:
            yield tx
        count[0] += 1  # reached only when the transaction committed

    store._write_transaction = counted  # type: ignore[method-assign]
    return count
