"""Fixtures of the observability tests: one real finished run (made once, on a pinned clock) and one embedded
ClickHouse session (chdb allows one per process)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import alicorn.clock
from alicorn.journal.sqlite import SQLiteStore
from tests.conftest import TEST_NOW
from tests.observe.support import Ran, alarms_home


@dataclass(frozen=True)
class Journal:
    home: Path
    store: SQLiteStore
    ran: Ran


def _refuse() -> object:
    raise AssertionError("the wall clock was read while making the observability fixture")


@pytest.fixture(scope="session")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journal]:
    """A home whose journal holds the alarms request's conversation and its run (no export while it ran)."""
    home = tmp_path_factory.mktemp("observe-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(alicorn.clock, "wall_now", _refuse)
        mp.setenv(alicorn.clock.PIN_VARIABLE, f"{TEST_NOW}@{time.monotonic()}")
        mp.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
        mp.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
        application, ran = alarms_home(home)
        application.close()
    store = SQLiteStore(home / "journal.db", read_only=True)
    yield Journal(home, store, ran)
    store.close()


@pytest.fixture(scope="session")
def chdb_session() -> Iterator[Any]:
    """The one embedded ClickHouse of the test process, in memory."""
    from alicorn.observe.clickhouse import connect

    db = connect()
    yield db
    db.close()


@pytest.fixture(autouse=True)
def _no_collector_from_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """A collector configured on the machine running the tests must not receive their spans."""
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
