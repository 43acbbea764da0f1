"""Appending this part's events (context.built, artifact.stored, llm.*, model.routed) to one journal stream.

A `JournalTap` is bound to one stream and keeps the number of the last event it knows about, so it appends with
the journal's optimistic concurrency: if another writer appended to the same stream in between, the store raises
`ConcurrentAppendError` and nothing is written. Give each writer its own stream (e.g. ``run-…:models``), or share a
tap between the writers of one process.
"""

from __future__ import annotations

import threading
from typing import Any

from alicorn.clock import Clock, default_clock
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore


class JournalTap:
    """Appends events to `stream` of `store`, reading the time from the injected clock."""

    def __init__(self, store: JournalStore, stream: str, clock: Clock | None = None) -> None:
        self.store = store
        self.stream = stream
        self.clock: Clock = clock or default_clock()
        self._lock = threading.Lock()
        self._seq = store.last_seq(stream)

    @property
    def seq(self) -> int:
        """The number of the last event this tap knows of in its stream."""
        return self._seq

    def now(self) -> str:
        """A clock reading, in the journal's `at` form."""
        return self.clock.now()

    def append(self, kind: str, data: dict[str, Any], *, at: str | None = None) -> Event:
        """Append one event; returns it (its `seq` makes a good reference for later events)."""
        with self._lock:
            events = self.store.append(self.stream, [Draft(kind, at or self.clock.now(), data)], expect=self._seq)
            self._seq = events[-1].seq
            return events[-1]
