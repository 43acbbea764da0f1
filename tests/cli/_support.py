"""Helpers for the tests of the command line's error boundary: invoking it in-process, and faults injected into
the journal's SQLite connection."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner

import alicorn.journal.sqlite as journal_sqlite
from alicorn.cli import app
from alicorn.packs import pack_dir

ALARMS = pack_dir("alarms") / "plan.json"
EXIT_CODES = {0, 1, 2, 3, 4, 5}
runner = CliRunner()
_command: Any = None


def fast_invocations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build the click command once (typer rebuilds it from the functions' signatures on every invoke: ~0.1 s)."""
    global _command
    if _command is None:
        _command = typer.main.get_command(app)
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: _command)


def invoke(home: Path | None, *args: str, **kwargs: Any) -> Any:
    """The CLI as a user types it, exceptions caught (a traceback would show in `result.exception`)."""
    argv = [*args, "--home", str(home)] if home is not None else list(args)
    return runner.invoke(app, argv, **kwargs)


def problems(result: Any) -> list[str]:
    """What must never happen at the boundary: an escaped exception, a traceback, an exit code of no meaning."""
    found = []
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        found.append(f"escaped {type(result.exception).__name__}: {result.exception}")
    if "Traceback" in result.output:
        found.append("a traceback in the output")
    if result.exit_code not in EXIT_CODES:
        found.append(f"exit code {result.exit_code}")
    return found


def assert_clean(result: Any) -> None:
    assert not problems(result), (problems(result), result.output[-3000:])


def digest(path: Path) -> str | None:
    """The file's bytes, hashed (None when it does not exist)."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def listing(folder: Path) -> dict[str, str | None]:
    """Every file under `folder` with its digest: what a read-only command must leave exactly as it was."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): digest(p) if p.is_file() else None for p in sorted(folder.rglob("*"))}


@contextmanager
def journal_pages_limited(monkeypatch: pytest.MonkeyPatch, extra_pages: int) -> Iterator[None]:
    """Every journal connection opened meanwhile may grow the file by `extra_pages` pages only: SQLite then fails
    the write that needs one more with "database or disk is full", exactly as on a full disk."""
    original = journal_sqlite._open

    def limited(*args: Any) -> sqlite3.Connection:
        conn = original(*args)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + extra_pages}")
        return conn

    with monkeypatch.context() as patch:
        patch.setattr(journal_sqlite, "_open", limited)
        yield
