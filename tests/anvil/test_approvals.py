"""Approvals bound to the plan hash, refusals that change nothing, rejections, and replans (material or not)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from alicorn.anvil.errors import (
    AgentApprovalError,
    NotAwaitingApprovalError,
    ProposerApprovalError,
    StaleApprovalError,
)
from alicorn.anvil.proposals import envelope, list_proposals
from alicorn.anvil.replan import material_change
from alicorn.anvil.terms import RunTerms
from alicorn.errors import ApprovalRequiredError, RunError
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import JournalStore
from alicorn.journal.transfer import import_lines
from alicorn.runtime.executor import Approval, Rejection
from alicorn.runtime.humans import Withdrawal
from tests.anvil.support import checks, executor, kinds, node, plan, register, registry, replays

SEND = plan([node("load", "t.read", path="a.csv"), node("send", "t.send", url="https://api.x.io/in", payload=1)])
AGENT = RunTerms(proposed_by="agent:planner")


@pytest.fixture
def calls() -> Counter[str]:
    return Counter()


def test_a_waiting_run_is_a_proposal_envelope_bound_to_its_plan_hash(store: JournalStore, tmp_path: Path) -> None:
    register(store, "agent:planner")
    state = executor(store, registry(), tmp_path).start(SEND, terms=AGENT)
    assert state.status == "awaiting_approval"
    found = list_proposals(store)
    assert [p.run for p in found] == [state.run_id]
    proposal = found[0]
    assert proposal.plan_hash == SEND.plan_hash() and proposal.proposed_by == "agent:planner"
    assert proposal.classes == ["read", "external_transmission"] and proposal.destinations == ["host:api.x.io"]
    assert proposal.effects == {"external_transmission": ["send"]}
    assert proposal.rules == ["permit-human-approved"] and len(proposal.checks) == 2
    assert all(ref.startswith(f"{state.run_id}#") for ref in proposal.checks)
    assert "beyond agent:planner's rights" in proposal.reasons[0]


def test_approvals_by_the_proposer_or_an_agent_or_of_a_stale_hash_are_refused_and_change_nothing(
    store: JournalStore, tmp_path: Path, calls: Counter[str]
) -> None:
    reg = registry(calls)
    ex = executor(store, reg, tmp_path)
    human_terms = RunTerms(proposed_by="human:alice")
    with pytest.raises(ProposerApprovalError, match="human:alice proposed run"):
        ex.start(SEND, terms=human_terms, approvals=[Approval("human:alice")], run_id="run-self")
    assert store.head("run-self") is None  # nothing journaled
    with pytest.raises(AgentApprovalError, match="agents never approve"):
        ex.start(SEND, terms=human_terms, approvals=[Approval("agent:decision")], run_id="run-agent")
    with pytest.raises(StaleApprovalError, match="bound to the plan it was given for"):
        ex.start(SEND, terms=human_terms, approvals=[Approval("human:bob", plan_hash="0" * 64)], run_id="run-stale")
    state = ex.start(SEND, terms=human_terms)
    before = [e.line for e in store.read(state.run_id)]
    for bad, error in (
        (Approval("human:alice"), ProposerApprovalError),
        (Approval("agent:planner"), AgentApprovalError),
        (Approval("human:bob", plan_hash="f" * 64), StaleApprovalError),
    ):
        with pytest.raises(error):
            ex.resume(state.run_id, approvals=[bad])
    with pytest.raises(ApprovalRequiredError, match=f"alicorn approve {state.run_id}"):
        ex.resume(state.run_id)
    assert [e.line for e in store.read(state.run_id)] == before and calls["send"] == 0
    done = ex.resume(state.run_id, approvals=[Approval("human:bob", "ok", SEND.plan_hash())])
    assert done.status == "succeeded" and calls["send"] == 1
    granted = next(e.data for e in store.read(state.run_id) if e.kind == "approval.granted")
    assert granted["by"] == "human:bob" and granted["plan_hash"] == SEND.plan_hash()
    recheck = checks(store, state.run_id)[-2:]
    assert [c["decision"] for c in recheck] == ["allow", "allow"]
    assert all(c["rules"] == ["permit-human-approved"] for c in recheck)
    replays(store, state.run_id, reg)


def test_no_effect_runs_without_a_journaled_allow(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    state = executor(store, reg, tmp_path).start(SEND, approvals=[Approval("human:bob")])
    events = store.read(state.run_id)
    first_call = next(e.seq for e in events if e.kind == "tool.call")
    allows = {e.data["operation"] for e in events if e.kind == "anvil.check" and e.seq < first_call}
    assert allows == {"t.read", "t.send"}
    assert all(e.data["decision"] == "allow" for e in events if e.kind == "anvil.check")


def test_a_rejected_proposal_finishes_with_no_effect(store: JournalStore, tmp_path: Path, calls: Counter[str]) -> None:
    reg = registry(calls)
    ex = executor(store, reg, tmp_path)
    state = ex.start(SEND)
    with pytest.raises(AgentApprovalError, match="agents never reject"):
        ex.reject(state.run_id, Rejection("agent:decision", "no"))
    with pytest.raises(RunError, match="needs a reason"):
        Rejection("human:bob", " ")
    done = ex.reject(state.run_id, Rejection("human:bob", "not this month"))
    assert done.status == "rejected" and calls == Counter()
    assert kinds(store, state.run_id)[-5:] == [
        "run.resumed",
        "approval.rejected",
        "node.skipped",
        "node.skipped",
        "run.finished",
    ]
    assert store.read(state.run_id)[-1].data["reason"] == "rejected by human:bob: not this month"
    with pytest.raises(RunError, match="already finished"):
        ex.reject(state.run_id, Rejection("human:bob", "again"))
    replays(store, state.run_id, reg)


def test_its_proposer_withdraws_a_waiting_proposal_with_no_effect(
    store: JournalStore, tmp_path: Path, calls: Counter[str]
) -> None:
    reg = registry(calls)
    ex = executor(store, reg, tmp_path)
    register(store, "agent:planner")
    state = ex.start(SEND, terms=AGENT)
    assert state.status == "awaiting_approval"
    with pytest.raises(RunError, match="only its proposer"):
        ex.withdraw(state.run_id, Withdrawal("agent:decision", "not mine to close"))
    with pytest.raises(RunError, match="needs a reason"):
        Withdrawal("agent:planner", "")
    done = ex.withdraw(state.run_id, Withdrawal("agent:planner", "cannot continue safely"))
    assert done.status == "withdrawn" and done.finished and calls == Counter()
    assert kinds(store, state.run_id)[-3:-1] == ["node.skipped", "node.skipped"]
    assert "proposal.withdrawn" in kinds(store, state.run_id)
    assert state.run_id not in {p.run for p in list_proposals(store)}
    with pytest.raises(RunError, match="already finished"):
        ex.withdraw(state.run_id, Withdrawal("agent:planner", "again"))
    replays(store, state.run_id, reg)
    finished = ex.start(plan([node("a", "t.shape")]))
    with pytest.raises(RunError, match="already finished"):
        ex.withdraw(finished.run_id, Withdrawal("human:bob", "no"))


def test_only_a_waiting_proposal_can_be_rejected(store: JournalStore, tmp_path: Path) -> None:
    ex = executor(store, registry(), tmp_path, max_parallel=1)
    state = ex.start(plan([node("a", "t.shape")]))
    with pytest.raises(RunError, match="already finished"):
        ex.reject(state.run_id, Rejection("human:bob", "no"))
    blocked = ex.start(SEND)
    ex.resume(blocked.run_id, approvals=[Approval("human:bob")])
    assert blocked.run_id not in {p.run for p in list_proposals(store)}


def test_a_denied_plan_finishes_with_no_effect(store: JournalStore, tmp_path: Path, calls: Counter[str]) -> None:
    reg = registry(calls)
    state = executor(store, reg, tmp_path).start(SEND, terms=RunTerms(forbidden=("external_transmission",)))
    assert state.status == "denied" and calls == Counter()
    assert kinds(store, state.run_id)[-1] == "run.finished"
    assert "forbids" in store.read(state.run_id)[-1].data["reason"]
    assert envelope(store.read(state.run_id)) is None
    replays(store, state.run_id, reg)


def test_an_unknown_agent_is_denied_and_journaled(store: JournalStore, tmp_path: Path, calls: Counter[str]) -> None:
    reg = registry(calls)
    state = executor(store, reg, tmp_path).start(plan([node("a", "t.shape")]), terms=RunTerms(proposed_by="agent:x"))
    assert state.status == "denied" and calls == Counter()
    assert checks(store, state.run_id)[0]["rules"] == ["forbid-unknown-agent"]


# ---------------------------------------------------------------------------------------------------- replans


def test_material_change_of_a_replan() -> None:
    reg = registry()
    base = plan([node("load", "t.read", path="a.csv"), node("w", "t.write", path="o.txt")])
    same = plan([node("load2", "t.read", path="a.csv"), node("w2", "t.write", path="o.txt")])
    assert material_change(base, same, reg).material is False
    send = material_change(base, SEND, reg)
    assert send.material and send.added_effects == ("external_transmission",) and send.new_hosts == ("api.x.io",)
    other_goal = material_change(base, plan([node("w", "t.write", path="o.txt")], goal="something else"), reg)
    assert other_goal.material and "it changes the goal" in other_goal.reasons[0]
    split = plan([node("load", "t.read", path="a.csv"), *[node(f"w{i}", "t.write", path="o.txt") for i in range(3)]])
    grown = material_change(base, split, reg)
    assert grown.material and any("raises the effects from 1 to 3" in r for r in grown.reasons)
    assert material_change(base, split, reg, threshold=5).material is False


def test_a_non_material_replan_proceeds_under_the_carried_approval(
    store: JournalStore, tmp_path: Path, calls: Counter[str]
) -> None:
    reg = registry(calls)
    ex = executor(store, reg, tmp_path)
    first = ex.start(SEND, approvals=[Approval("human:bob", "ship it")], run_id="run-one")
    assert first.status == "succeeded"
    # Only what the plan reads changes; the approved send is the same, so its approval carries over.
    again = plan([node("load", "t.read", path="b.csv"), node("send", "t.send", url="https://api.x.io/in", payload=1)])
    second = ex.replan("run-one", again, new_run_id="run-two")
    assert second.status == "succeeded" and calls["send"] == 2
    created = store.read("run-two")[0].data
    assert created["replan_of"]["run"] == "run-one" and created["change"]["material"] is False
    carried = next(e.data for e in store.read("run-two") if e.kind == "approval.carried")
    assert carried == {
        "by": "human:bob",
        "comment": "ship it",
        "from_run": "run-one",
        "from_plan_hash": SEND.plan_hash(),
        "plan_hash": again.plan_hash(),
    }
    assert all(c["request"]["context"]["approval"] == "carried" for c in checks(store, "run-two"))
    replays(store, "run-two", reg)


def test_a_material_replan_waits_for_a_new_approval_and_replaces_the_old_proposal(
    store: JournalStore, tmp_path: Path, calls: Counter[str]
) -> None:
    reg = registry(calls)
    register(store, "agent:planner")
    ex = executor(store, reg, tmp_path)
    local = plan([node("load", "t.read", path="a.csv"), node("w", "t.write", path="o.txt")])
    first = ex.start(local, terms=AGENT, run_id="run-a")
    assert first.status == "succeeded"
    bigger = ex.replan("run-a", SEND, new_run_id="run-b")  # adds an external transmission
    assert bigger.status == "awaiting_approval" and calls["send"] == 0
    waiting = list_proposals(store)[0]
    assert waiting.replan_of == "run-a" and waiting.change is not None and waiting.change["material"]
    assert any("material-change-needs-approval" in c["rules"] for c in checks(store, "run-b"))
    with pytest.raises(AgentApprovalError):  # a refused approval changes nothing, not even the old proposal
        ex.replan("run-b", SEND, new_run_id="run-c", approvals=[Approval("agent:planner")])
    assert store.read("run-b")[-1].kind == "run.awaiting_approval" and store.head("run-c") is None
    third = ex.replan("run-b", SEND, new_run_id="run-c")  # replanning a waiting proposal replaces it
    assert third.status == "awaiting_approval"
    replaced = store.read("run-b")[-1].data
    assert replaced["status"] == "replaced" and replaced["replaced_by"] == "run-c"
    with pytest.raises(RunError, match="already replaced by run-c"):
        ex.replan("run-b", SEND)
    done = ex.resume("run-c", approvals=[Approval("human:bob")])
    assert done.status == "succeeded" and calls["send"] == 1
    for run in ("run-b", "run-c"):
        replays(store, run, reg)


def test_a_run_in_progress_can_be_neither_rejected_nor_replanned(tmp_path: Path) -> None:
    source = InMemoryStore()
    reg = registry()
    finished = executor(source, reg, tmp_path).start(plan([node("a", "t.shape"), node("b", "t.shape")]))
    lines = [e.line for e in source.read(finished.run_id)]
    cut = next(i for i, e in enumerate(source.read(finished.run_id)) if e.kind == "tool.result")
    crashed = InMemoryStore()  # the journal of a process that died with its calls in flight
    import_lines(crashed, lines[:cut])
    ex = executor(crashed, reg, tmp_path)
    with pytest.raises(NotAwaitingApprovalError, match="is running, not waiting for an approval"):
        ex.reject(finished.run_id, Rejection("human:bob", "no"))
    with pytest.raises(RunError, match="cancel it first"):
        ex.replan(finished.run_id, SEND)
    assert [e.line for e in crashed.read(finished.run_id)] == lines[:cut]
