"""A home or journal file that is not Alicorn's is refused by every command, writers included, with one sentence
naming the path and the fix, and left byte for byte as it was; a refused command leaves the home as it found it."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from ._support import ALARMS, assert_clean, fast_invocations, invoke, listing


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_invocations(monkeypatch)


def _foreign_sqlite(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


FOREIGN = {
    "empty": (lambda p: p.write_bytes(b""), "empty file"),
    "text": (lambda p: p.write_text("my notes\n"), "not an SQLite database"),
    "other app's tables": (lambda p: _foreign_sqlite(p, "CREATE TABLE t (x)"), "its tables: t"),
    "no tables, its own version": (lambda p: _foreign_sqlite(p, "PRAGMA user_version = 7"), "without tables"),
}


@pytest.mark.parametrize("kind", list(FOREIGN))
@pytest.mark.parametrize("args", [["run", str(ALARMS), "-q"], ["ask", "hello"], ["journal", "head"]])
def test_a_journal_path_holding_something_else_is_refused_untouched(tmp_path: Path, kind: str, args: list[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    make, said = FOREIGN[kind]
    make(home / "journal.db")
    before = listing(home)
    result = invoke(home, *args)
    assert_clean(result)
    assert result.exit_code == 1, result.output
    assert str(home / "journal.db") in result.stderr and said in result.stderr, result.stderr
    assert listing(home) == before


@pytest.mark.parametrize("args", [["run", str(ALARMS), "-q"], ["runs"], ["ask", "hello"]])
def test_a_home_that_is_a_file_is_refused_and_nothing_is_made(tmp_path: Path, args: list[str]) -> None:
    file = tmp_path / "afile"
    file.write_text("hi\n")
    for home in (file, file / "sub"):
        result = invoke(home, *args)
        assert_clean(result)
        assert result.exit_code == 1, result.output
        assert "is a file, not a folder" in result.stderr and "--home" in result.stderr, result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"] and file.read_text() == "hi\n"
    via_env = invoke(None, *args, env={"ALICORN_HOME": str(file)})
    assert via_env.exit_code == 1 and "ALICORN_HOME" in via_env.stderr, via_env.output


def test_a_home_where_no_folder_may_be_made_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if Path(path) == locked else real(path, mode))
    result = invoke(locked / "home", "run", str(ALARMS), "-q")
    assert_clean(result)
    assert result.exit_code == 1 and "you may not create folders in" in result.stderr, result.output
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["run", str(ALARMS), "--forbid", "nonsense"],
        ["run", str(ALARMS), "--project", "Bad Name"],
        ["run", str(ALARMS), "--allow-secret-read", "../x"],
        ["run", str(ALARMS), "--proposed-by", "agent:nobody"],
        ["ask", "--conversation", "conv-20261130-000000000000", "yes"],  # nothing to continue in a new home
    ],
)
def test_a_run_refused_for_its_terms_makes_no_home(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "fresh"
    result = invoke(home, *args)
    assert_clean(result)
    assert result.exit_code == 1, result.output
    assert not home.exists()


def test_resuming_a_finished_run_changes_no_file(tmp_path: Path) -> None:
    """Refused before the run's lock is taken (which rewrites the lock file) or an approver is enrolled."""
    home = tmp_path / "home"
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0
    [run] = json.loads(invoke(home, "runs", "--json").stdout)
    before = listing(home)
    for extra in ([], ["--approve"], ["--resolve", "save=applied"], ["--resolve", "save=maybe"]):
        result = invoke(home, "resume", str(run["run"]), *extra)
        assert_clean(result)
        assert result.exit_code == 1, result.output
        assert listing(home) == before, extra
