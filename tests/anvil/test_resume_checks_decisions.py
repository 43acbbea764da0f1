"""A run goes on only from decisions that were really made about the plan it records: before a resume acts, the
run's plan must be the one its plan hash names, and (with the home's people) every recorded decision must carry a
valid signature. A chain that verifies is not enough: an event appended with a fresh hash, or a rewritten tail,
passes it (the red team's findings 1 and 2)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.people import People
from alicorn.anvil.terms import RunTerms
from alicorn.errors import JournalIntegrityError
from alicorn.journal.events import Draft, chain
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.verify import verify_journal
from alicorn.runtime.executor import Approval, Executor, RunEnvironment
from alicorn.runtime.signatures import audit_decisions
from alicorn.testing.people import enrol
from tests.anvil.support import node, plan, register, registry

AGENT = RunTerms(proposed_by="agent:planner")
SEND = plan([node("send", "t.send", url="https://api.x.io/in", payload=1)], goal="resume checks decisions")


@pytest.fixture
def home(tmp_path: Path) -> Any:
    store = SQLiteStore(tmp_path / "journal.db")
    register(store, "agent:planner")
    people = enrol(People(store, tmp_path / "keys"), "alice", "bob")
    calls: Counter[str] = Counter()
    executor = Executor(store, registry(calls), RunEnvironment(tmp_path / "ws", tmp_path), approvers=people)
    yield store, executor, calls
    store.close()


def _reseal_from(store: SQLiteStore, run: str, seq: int, data: dict[str, Any]) -> None:
    """Replace event `seq`'s data and recompute every later hash, as someone rewriting a stream's tail would."""
    events = store.read(run)
    drafts = [Draft(e.kind, e.at, data if e.seq == seq else e.data) for e in events[seq - 1 :]]
    resealed = chain(run, seq - 1, events[seq - 2].hash if seq > 1 else None, drafts)
    conn = store.raw_connection()
    with conn:
        for event in resealed:
            conn.execute(
                "UPDATE events SET hash = ?, body = ? WHERE stream = ? AND seq = ?",
                (event.hash, event.line, run, event.seq),
            )


def test_an_unsigned_approval_appended_to_a_waiting_run_is_never_acted_on(home: Any) -> None:
    store, executor, calls = home
    run = "run-forged"
    assert executor.start(SEND, terms=AGENT, run_id=run).status == "awaiting_approval"
    last = store.read(run)[-1]
    forged = {
        "by": "human:alice",
        "comment": "forged",
        "plan_hash": SEND.plan_hash(),
        "effects": ["external_transmission"],
    }
    store.append(run, [Draft("approval.granted", last.at, forged)], expect=last.seq)
    assert verify_journal(store).ok  # the chain alone cannot tell
    before = store.last_seq(run)
    with pytest.raises(JournalIntegrityError, match=r"event #\d+: the approved decision by human:alice is not signed"):
        executor.resume(run)
    assert calls["send"] == 0 and store.last_seq(run) == before


def test_a_plan_edited_under_its_hash_is_refused_before_any_approval(home: Any) -> None:
    store, executor, calls = home
    run = "run-edited"
    assert executor.start(SEND, terms=AGENT, run_id=run).status == "awaiting_approval"
    created = store.read(run)[0]
    edited = dict(created.data)
    edited["plan"] = {**created.data["plan"]}
    edited["plan"]["nodes"] = [
        {**n, "inputs": {**n["inputs"], "url": {"value": "https://evil.example/in"}}}
        for n in created.data["plan"]["nodes"]
    ]
    _reseal_from(store, run, 1, edited)
    assert verify_journal(store).ok  # a rewritten chain verifies
    assert any("not to the plan hash" in p.reason for p in audit_decisions(store, [run]))  # verify names it
    before = store.last_seq(run)
    with pytest.raises(JournalIntegrityError, match=r"event #1: its plan hashes to .* \(the plan was edited\)"):
        executor.resume(run, approvals=[Approval("human:alice", "looks fine")])
    assert calls["send"] == 0 and store.last_seq(run) == before


def test_honest_decisions_still_resume(home: Any) -> None:
    store, executor, calls = home
    run = "run-honest"
    assert executor.start(SEND, terms=AGENT, run_id=run).status == "awaiting_approval"
    assert executor.resume(run, approvals=[Approval("human:bob", "ok")]).status == "succeeded"
    assert calls["send"] == 1 and audit_decisions(store, [run]) == []
