"""Once `alicorn verify` finds the journal damaged or edited, writers refuse it (appending would spread the damage
over the copy kept for forensics, and build on a history that is not the recorded one); readers warn; a journal
restored from a backup that verifies again is written to again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from alicorn.journal.sqlite import SQLiteStore

from ._support import ALARMS, assert_clean, digest, fast_invocations, invoke


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_invocations(monkeypatch)


def _edit_one_event(journal: Path, run: str) -> None:
    conn = sqlite3.connect(journal)
    (body,) = conn.execute("SELECT body FROM events WHERE stream = ? AND seq = 1", (run,)).fetchone()
    assert '"goal":' in body
    conn.execute("UPDATE events SET body = ? WHERE stream = ? AND seq = 1", (body.replace('"goal":', '"goal" :'), run))
    conn.commit()
    conn.close()


def test_writers_refuse_a_journal_verify_found_edited_until_it_verifies_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0
    [run] = json.loads(invoke(home, "runs", "--json").stdout)
    journal = home / "journal.db"
    backup = journal.read_bytes()
    _edit_one_event(journal, run["run"])
    mark = home / "journal.db.damaged"

    # Verifying one run says nothing of the others: no mark.
    assert invoke(home, "verify", run["run"]).exit_code == 1
    assert not mark.exists()

    verified = invoke(home, "verify")
    assert_clean(verified)
    assert verified.exit_code == 1 and "Writers now refuse it" in verified.output
    assert "event #1" in mark.read_text()

    edited = digest(journal)
    refused = invoke(home, "run", str(ALARMS), "-q")
    assert_clean(refused)
    assert refused.exit_code == 5
    assert "found damaged by `alicorn verify`" in refused.output and "journal.db.damaged" in refused.output
    assert digest(journal) == edited  # nothing appended
    with pytest.raises(Exception, match="found damaged"):
        SQLiteStore(journal)  # every writer, not only the command line

    listed = invoke(home, "runs")
    assert listed.exit_code == 0 and "warning: `alicorn verify` found this journal damaged" in listed.stderr

    journal.write_bytes(backup)  # restored from a backup
    restored = invoke(home, "verify")
    assert restored.exit_code == 0 and "mark left by an earlier verification was removed" in restored.output
    assert not mark.exists()
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0


def test_a_mark_that_cannot_be_written_is_said(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0
    [run] = json.loads(invoke(home, "runs", "--json").stdout)
    _edit_one_event(home / "journal.db", run["run"])
    (home / "journal.db.damaged").mkdir()  # something in the way of the mark's file
    verified = invoke(home, "verify")
    assert_clean(verified)
    assert verified.exit_code == 1 and "could not be written" in verified.output


def test_show_warns_about_a_run_whose_history_does_not_verify(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert invoke(home, "run", str(ALARMS), "-q").exit_code == 0
    [run] = json.loads(invoke(home, "runs", "--json").stdout)
    assert "does not verify" not in invoke(home, "show", run["run"]).output
    _edit_one_event(home / "journal.db", run["run"])
    shown = invoke(home, "show", run["run"])
    assert_clean(shown)
    assert shown.exit_code == 0 and "warning: this run's history does not verify (stream" in shown.stderr
