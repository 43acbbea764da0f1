"""SQLiteStore refuses files that are not Alicorn journals, and leaves them exactly as they were."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from alicorn.errors import JournalError, NotAJournalError
from alicorn.journal.sqlite import SQLiteStore


def _sqlite_db(path: Path, *statements: str, wal: bool = False) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _text(path: Path) -> None:
    path.write_text("meeting notes\nZażółć gęślą jaźń\n" * 50, encoding="utf-8")


def _short_text(path: Path) -> None:
    path.write_text("hi\n")


def _random_binary(path: Path) -> None:
    path.write_bytes(random.Random(1).randbytes(10_000))


def _sqlite_magic_then_garbage(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + random.Random(2).randbytes(8_000))


def _foreign_db(path: Path) -> None:
    _sqlite_db(
        path, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)", "INSERT INTO invoices VALUES (1, 9.5)"
    )


def _foreign_wal_db(path: Path) -> None:
    _sqlite_db(path, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('keep me')", wal=True)


def _foreign_db_with_events_table(path: Path) -> None:
    _sqlite_db(path, "CREATE TABLE events (stream TEXT, seq INTEGER)")


def _meta_of_another_format(path: Path) -> None:
    _sqlite_db(
        path,
        "CREATE TABLE alicorn_meta (key TEXT PRIMARY KEY, value TEXT)",
        "INSERT INTO alicorn_meta VALUES ('format', 'x')",
    )


def _meta_without_key_column(path: Path) -> None:
    _sqlite_db(path, "CREATE TABLE alicorn_meta (name TEXT)")


def _journal_of_another_version(path: Path) -> None:
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE alicorn_meta SET value = '99' WHERE key = 'version'")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


NOT_JOURNALS: list[object] = [
    pytest.param(_text, id="text"),
    pytest.param(_short_text, id="short-text"),
    pytest.param(_random_binary, id="random-binary"),
    pytest.param(_sqlite_magic_then_garbage, id="sqlite-magic-then-garbage"),
    pytest.param(_foreign_db, id="foreign-db"),
    pytest.param(_foreign_wal_db, id="foreign-wal-db"),
    pytest.param(_foreign_db_with_events_table, id="foreign-events-table"),
    pytest.param(_meta_of_another_format, id="meta-of-another-format"),
    pytest.param(_meta_without_key_column, id="meta-without-key-column"),
    pytest.param(_journal_of_another_version, id="journal-of-another-version"),
]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("create", [True, False], ids=["create", "no-create"])
@pytest.mark.parametrize("make", NOT_JOURNALS)
def test_not_a_journal_is_refused_untouched(tmp_path: Path, make: Callable[[Path], None], create: bool) -> None:
    path = tmp_path / "file.db"
    make(path)
    before = _snapshot(tmp_path)
    with pytest.raises(NotAJournalError, match=r"nothing was changed|not an Alicorn journal|version"):
        SQLiteStore(path, create=create)
    assert _snapshot(tmp_path) == before  # byte-identical, and no -wal, -shm or .segments left beside it


def test_directory_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "journal.db"
    folder.mkdir()
    (folder / "inside.txt").write_text("x")
    with pytest.raises(NotAJournalError, match="is a directory"):
        SQLiteStore(folder)
    assert [p.name for p in tmp_path.iterdir()] == ["journal.db"]
    assert _snapshot(folder) == {"inside.txt": b"x"}


def test_refusal_is_a_journal_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    _text(path)
    with pytest.raises(JournalError):
        SQLiteStore(path)
