"""A run goes on only from the history that was recorded: a resume or a replan over an edited event is refused
before anything is appended or called."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from alicorn.errors import JournalIntegrityError
from alicorn.journal.sqlite import SQLiteStore
from alicorn.runtime.executor import Approval
from tests.runtime.support import Behaviour, executor, make_plan, val


def _edit(path: Path, stream: str, seq: int, old: str, new: str) -> None:
    """Change one stored event's text the way a hand with a text editor would: valid JSON, hash left as it was."""
    conn = sqlite3.connect(path)
    (body,) = conn.execute("SELECT body FROM events WHERE stream = ? AND seq = ?", (stream, seq)).fetchone()
    assert old in body
    conn.execute("UPDATE events SET body = ? WHERE stream = ? AND seq = ?", (body.replace(old, new), stream, seq))
    conn.commit()
    conn.close()


def test_an_approval_never_resumes_a_run_whose_plan_was_edited(behaviour: Behaviour, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    reg = behaviour.registry()
    with SQLiteStore(path) as store:
        ex = executor(store, reg, tmp_path)
        state = ex.start(make_plan([{"node_id": "send", "operation": "t.send", "inputs": {"x": val(5)}}]))
        assert state.status == "awaiting_approval"
        _edit(path, state.run_id, 1, '"value":5', '"value":6')
        before = store.last_seq(state.run_id)
        with pytest.raises(JournalIntegrityError, match=r"history does not verify .*event #1.*nothing was resumed"):
            ex.resume(state.run_id, approvals=[Approval("human:alice", "ok")])
        assert store.last_seq(state.run_id) == before
        assert behaviour.calls["send"] == 0


def test_a_replan_is_refused_over_an_edited_result(behaviour: Behaviour, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    reg = behaviour.registry()
    plan = make_plan([{"node_id": "a", "operation": "t.inc", "inputs": {"x": val(1)}}])
    with SQLiteStore(path) as store:
        ex = executor(store, reg, tmp_path)
        state = ex.start(plan)
        assert state.status == "succeeded"
        result = next(e for e in store.read(state.run_id) if e.kind == "tool.result")
        _edit(path, state.run_id, result.seq, '"x":2', '"x":3')
        before = store.last_seq(state.run_id)
        with pytest.raises(JournalIntegrityError, match=r"event #\d+: its content does not match its hash.*replanned"):
            ex.replan(state.run_id, make_plan([{"node_id": "b", "operation": "t.inc", "inputs": {"x": val(1)}}]))
        assert store.last_seq(state.run_id) == before
