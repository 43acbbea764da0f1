"""The in-memory store against the journal contract: it is a verified fake, so it must pass what SQLite passes."""

from __future__ import annotations

import pytest

from alicorn.journal.events import Event, parse_line
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import JournalStore

from .contract import JournalStoreContract


class TestInMemoryStore(JournalStoreContract):
    def make_store(self) -> JournalStore:
        return self.track(InMemoryStore())

    def open_another(self, store: JournalStore) -> JournalStore:
        return store  # one process, one store: concurrent writers share it

    def reopen(self, store: JournalStore) -> JournalStore:
        pytest.skip("the in-memory store keeps nothing after close: durability does not apply")

    # The fake's storage is its per-stream lists; tampering edits them directly.

    def _events(self, store: JournalStore, stream: str) -> list[Event]:
        assert isinstance(store, InMemoryStore)
        return store._streams[stream]

    def tamper_set_line(self, store: JournalStore, stream: str, seq: int, line: str) -> None:
        self._events(store, stream)[seq - 1] = parse_line(line)

    def tamper_delete(self, store: JournalStore, stream: str, seq: int) -> None:
        del self._events(store, stream)[seq - 1]

    def tamper_insert(self, store: JournalStore, stream: str, seq: int, line: str) -> None:
        self._events(store, stream).insert(seq - 1, parse_line(line))

    def test_stored_events_do_not_alias_caller_data(self) -> None:
        super().test_stored_events_do_not_alias_caller_data()

    def test_read_data_is_the_decoded_stored_form(self) -> None:
        super().test_read_data_is_the_decoded_stored_form()
