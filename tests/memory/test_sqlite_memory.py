"""The SQLite engine against the memory contract, plus what only SQLite has: files that are not stores,
damaged files, and a second connection seeing the first one's writes."""

from __future__ import annotations

import sqlite3

import pytest

from alicorn.memory.engine import Engine
from alicorn.memory.errors import StoreUnavailableError
from alicorn.memory.models import NewRecord
from alicorn.memory.open import open_memory
from alicorn.memory.sqlite import SQLiteEngine

from .contract import MemoryStoreContract
from .harness import OPERATOR, MemoryHarness


class TestSQLiteMemory(MemoryHarness, MemoryStoreContract):
    def make_engine(self) -> Engine:
        return SQLiteEngine(self.tmp_path / f"memory-{len(self._opened)}.db")

    def another_engine(self, engine: Engine) -> Engine:
        assert isinstance(engine, SQLiteEngine) and engine.path is not None
        return SQLiteEngine(engine.path, create=False)

    def test_a_second_connection_sees_new_records_at_its_next_search(self) -> None:
        reader, writer = self.store(), self.store()
        assert reader.search("forklift", mode="vector").hits == ()
        rid = writer.add(NewRecord(text="forklift inspection on Monday", provenance=OPERATOR)).record.id
        assert [h.record.id for h in reader.search("forklift", mode="vector").hits] == [rid]

    def test_a_file_that_is_not_sqlite_is_refused_untouched(self) -> None:
        path = self.tmp_path / "notes.txt"
        path.write_bytes(b"just some notes, not a database\n")
        with pytest.raises(StoreUnavailableError, match="not an Alicorn memory store"):
            open_memory(path, project="alpha")
        assert path.read_bytes() == b"just some notes, not a database\n"

    def test_a_foreign_sqlite_database_is_refused(self) -> None:
        path = self.tmp_path / "other.db"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE customers (id INTEGER)")
        with pytest.raises(StoreUnavailableError, match=r"not an Alicorn memory store .*customers"):
            open_memory(path, project="alpha")

    def test_a_damaged_file_is_reported_with_what_to_do(self) -> None:
        store = self.store()
        store.add_many(
            [NewRecord(text=f"record number {i} " * 20, provenance=OPERATOR) for i in range(200)], dedupe=False
        )
        engine = store.engine
        assert isinstance(engine, SQLiteEngine) and engine.path is not None
        path = engine.path
        for opened in self._opened:
            opened.close()
        self._opened.clear()
        data = bytearray(path.read_bytes())
        data[4096:] = b"\xff" * (len(data) - 4096)  # every page after the first is garbage
        path.write_bytes(bytes(data))
        for suffix in ("-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        with pytest.raises(StoreUnavailableError, match=r"damaged|cannot be read|malformed"):
            broken = open_memory(path, project="alpha")
            broken.search("record number 5")

    def test_a_missing_store_is_not_created_when_asked_not_to(self) -> None:
        with pytest.raises(StoreUnavailableError, match="no memory store at"):
            open_memory(self.tmp_path / "absent.db", project="alpha", create=False)
        assert not (self.tmp_path / "absent.db").exists()
