"""Signed decisions: each approval and rejection is signed by an enrolled approver's Ed25519 key, replay reads the
signature back, and `alicorn verify` names every bad, tampered, unknown or out-of-date signature by run and seq."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.anvil import signing
from alicorn.anvil.errors import RoleError, SigningKeyError, UnknownPersonError
from alicorn.anvil.identity import claimed
from alicorn.anvil.people import People
from alicorn.anvil.terms import RunTerms
from alicorn.cli import app as cli_app
from alicorn.journal.events import Draft, chain
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.verify import verify_journal
from alicorn.runtime.executor import Approval, Executor, Rejection, RunEnvironment
from alicorn.runtime.replay import replay_run
from alicorn.runtime.signatures import audit_decisions
from alicorn.testing.people import TEST_ADMIN, enrol
from tests.anvil.support import node, plan, register, registry

AGENT = RunTerms(proposed_by="agent:planner")
SEND = plan([node("send", "t.send", url="https://api.x.io/in", payload=1)], goal="signed decisions")


@pytest.fixture
def home(tmp_path: Path) -> Any:
    """A home journal with alice and bob (approvers) and vic (a viewer), and an executor that signs with them."""
    store = SQLiteStore(tmp_path / "journal.db")
    register(store, "agent:planner")
    people = enrol(People(store, tmp_path / "keys"), "alice", "bob")
    enrol(people, "vic", role="viewer")
    executor = Executor(store, registry(), RunEnvironment(tmp_path / "ws", tmp_path), approvers=people)
    yield store, people, executor
    store.close()


def _waiting(executor: Executor, run_id: str) -> str:
    assert executor.start(SEND, terms=AGENT, run_id=run_id).status == "awaiting_approval"
    return run_id


def _event(store: SQLiteStore, run_id: str, kind: str) -> Any:
    return next(e for e in store.read(run_id) if e.kind == kind)


def test_an_approval_is_signed_replays_byte_for_byte_and_verifies(home: Any) -> None:
    store, people, executor = home
    run = _waiting(executor, "run-ok")
    assert executor.resume(run, approvals=[Approval("human:Alice", "fine")]).status == "succeeded"
    granted = _event(store, run, "approval.granted")
    seal = granted.data["seal"]
    assert granted.data["by"] == "human:alice" and seal["signer"] == "human:alice"
    assert seal["fingerprint"] == people.roster().people["human:alice"].fingerprint
    assert replay_run(store, run, registry()).events == len(store.read(run))  # the seal is read back, not remade
    assert audit_decisions(store) == [] and verify_journal(store).ok


@pytest.mark.parametrize(
    ("who", "error", "says"),
    [
        ("human:mallory", UnknownPersonError, "not one of this home's people"),
        ("human:vic", RoleError, "is a viewer"),
    ],
)
def test_an_unknown_person_or_a_viewer_cannot_approve_and_nothing_is_journaled(
    home: Any, who: str, error: type[Exception], says: str
) -> None:
    store, _, executor = home
    run = _waiting(executor, f"run-{who[6:]}")
    before = len(store.read(run))
    with pytest.raises(error, match=says) as refused:
        executor.resume(run, approvals=[Approval(who)])
    assert "alicorn people add" in str(refused.value)
    with pytest.raises(error, match=says):
        executor.resume(run, rejection=Rejection(who, "no"))
    assert len(store.read(run)) == before  # nothing journaled, nothing ran


def test_a_missing_or_replaced_key_file_is_a_clear_refusal(home: Any, tmp_path: Path) -> None:
    store, people, executor = home
    run = _waiting(executor, "run-key")
    people.key_file("human:bob").unlink()
    with pytest.raises(SigningKeyError, match=r"human:bob has no signing key at .*bob\.ed25519"):
        executor.resume(run, approvals=[Approval("human:bob")])
    private, _ = signing.new_key()
    signing.write_private(people.key_file("human:bob"), private)  # someone else's key in bob's file
    with pytest.raises(SigningKeyError, match="is not the key journaled for human:bob"):
        executor.resume(run, approvals=[Approval("human:bob")])
    assert [e.kind for e in store.read(run)].count("approval.granted") == 0


def test_a_key_file_is_readable_by_its_owner_only(home: Any) -> None:
    _, people, _ = home
    assert people.key_file("human:alice").stat().st_mode & 0o777 == 0o600
    assert people.key_file("human:alice").parent.stat().st_mode & 0o777 == 0o700


def test_a_rejection_is_signed_too(home: Any) -> None:
    store, _, executor = home
    run = _waiting(executor, "run-no")
    assert executor.resume(run, rejection=Rejection("human:bob", "wrong host")).status == "rejected"
    rejected = _event(store, run, "approval.rejected")
    assert rejected.data["seal"]["signer"] == "human:bob"
    assert replay_run(store, run, registry()).events == len(store.read(run))
    assert audit_decisions(store) == []


def _edit_row(path: Path, stream: str, seq: int, old: str, new: str) -> None:
    with sqlite3.connect(path) as db:
        (body,) = db.execute("SELECT body FROM events WHERE stream = ? AND seq = ?", (stream, seq)).fetchone()
        assert old in body
        db.execute("UPDATE events SET body = ? WHERE stream = ? AND seq = ?", (body.replace(old, new), stream, seq))


def _rewrite(path: Path, stream: str, seq: int, change: dict[str, Any]) -> None:
    """Change one event's data and recompute the hashes of it and every later event: the chain stays valid, as
    after someone rewrote the tail of a stream."""
    with SQLiteStore(path) as store:
        events = store.read(stream)
    kept = events[: seq - 1]
    drafts = [Draft(e.kind, e.at, {**e.data, **change} if e.seq == seq else e.data) for e in events[seq - 1 :]]
    prev = kept[-1].hash if kept else None
    resealed = chain(stream, seq - 1, prev, drafts)
    with sqlite3.connect(path) as db:
        for event in resealed:
            db.execute(
                "UPDATE events SET hash = ?, body = ? WHERE stream = ? AND seq = ?",
                (event.hash, event.line, stream, event.seq),
            )


def _verify(path: Path) -> Any:
    return CliRunner().invoke(cli_app, ["verify", "--home", str(path.parent)], catch_exceptions=False)


def test_a_tampered_approval_row_is_named_by_verify(home: Any, tmp_path: Path) -> None:
    store, _, executor = home
    run = _waiting(executor, "run-edit")
    executor.resume(run, approvals=[Approval("human:alice")])
    seq = _event(store, run, "approval.granted").seq
    store.close()
    _edit_row(tmp_path / "journal.db", run, seq, '"by":"human:alice"', '"by":"human:bob"')
    result = _verify(tmp_path / "journal.db")
    assert result.exit_code == 1
    assert f"stream '{run}', event #{seq}: the decision names human:bob but is signed by human:alice" in result.stderr


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"plan_hash": "0" * 64}, "names plan hash 0000000000000000…, but the run's plan is"),
        ({"comment": "approved something else"}, "does not verify: it was changed after it was signed"),
    ],
)
def test_a_rewritten_approval_passes_the_chain_but_not_its_signature(
    home: Any, tmp_path: Path, change: dict[str, Any], says: str
) -> None:
    store, _, executor = home
    run = _waiting(executor, "run-rewritten")
    executor.resume(run, approvals=[Approval("human:alice", "fine")])
    seq = _event(store, run, "approval.granted").seq
    store.close()
    _rewrite(tmp_path / "journal.db", run, seq, change)
    with SQLiteStore(tmp_path / "journal.db") as reopened:
        assert verify_journal(reopened).ok  # the hash chain alone cannot tell
    result = _verify(tmp_path / "journal.db")
    assert result.exit_code == 1 and f"stream '{run}', event #{seq}: " in result.stderr and says in result.stderr


def test_a_signature_by_a_key_the_people_stream_never_had_is_an_unknown_signer(home: Any, tmp_path: Path) -> None:
    store, _, executor = home
    run = _waiting(executor, "run-forged")
    executor.resume(run, approvals=[Approval("human:alice")])
    granted = _event(store, run, "approval.granted")
    _, public = signing.new_key()
    forged = {**granted.data["seal"], "fingerprint": signing.fingerprint(public), "signature": "AAAA"}
    store.close()
    _rewrite(tmp_path / "journal.db", run, granted.seq, {"seal": forged})
    result = _verify(tmp_path / "journal.db")
    assert result.exit_code == 1 and "which the people stream never journaled (unknown signer)" in result.stderr


def test_a_key_not_valid_at_that_point_and_an_unsigned_approval_are_named(home: Any, tmp_path: Path) -> None:
    store, people, executor = home
    run = _waiting(executor, "run-late")
    executor.resume(run, approvals=[Approval("human:alice")])
    granted = _event(store, run, "approval.granted")
    people.remove("alice", by=claimed(TEST_ADMIN))  # her key ends here; a seal naming a later point is refused
    late = {**granted.data["seal"], "people_seq": people.roster().seq}
    unsigned = _waiting(Executor(store, registry(), RunEnvironment(tmp_path / "ws", tmp_path)), "run-unsigned")
    Executor(store, registry(), RunEnvironment(tmp_path / "ws", tmp_path)).resume(
        unsigned, approvals=[Approval("human:bob")]
    )
    store.close()
    _rewrite(tmp_path / "journal.db", run, granted.seq, {"seal": late})
    result = _verify(tmp_path / "journal.db")
    assert result.exit_code == 1
    assert f"stream '{run}', event #{granted.seq}: human:alice's key" in result.stderr
    assert "was not valid at that point" in result.stderr
    assert "stream 'run-unsigned'" in result.stderr and "is not signed" in result.stderr


def test_a_home_whose_decisions_are_all_signed_verifies(home: Any, tmp_path: Path) -> None:
    store, _, executor = home
    executor.resume(_waiting(executor, "run-a"), approvals=[Approval("human:alice")])
    executor.resume(_waiting(executor, "run-b"), rejection=Rejection("human:bob", "no"))
    store.close()
    clean = _verify(tmp_path / "journal.db")
    assert clean.exit_code == 0 and clean.stdout.startswith("ok: ")


def test_a_carried_approval_names_the_signed_original_and_verify_checks_it(home: Any, tmp_path: Path) -> None:
    store, _, executor = home
    run = _waiting(executor, "run-first")
    executor.resume(run, approvals=[Approval("human:alice", "ship it")])
    # The approved send under another node id: the same effect, so its approval carries over.
    again = plan([node("send_again", "t.send", url="https://api.x.io/in", payload=1)], goal="signed decisions")
    assert executor.replan(run, again, new_run_id="run-second").status == "succeeded"
    original = _event(store, run, "approval.granted").data["seal"]
    carried = _event(store, "run-second", "approval.carried")
    assert carried.data["from_seal"] == original and carried.data["from_run"] == run
    assert replay_run(store, "run-second", registry()).events == len(store.read("run-second"))
    assert audit_decisions(store) == []
    store.close()
    _rewrite(tmp_path / "journal.db", "run-second", carried.seq, {"from_seal": {**original, "signature": "AAAA"}})
    result = _verify(tmp_path / "journal.db")
    assert result.exit_code == 1 and f"stream 'run-second', event #{carried.seq}: " in result.stderr
    assert "names a signed approval that run run-first does not have" in result.stderr
