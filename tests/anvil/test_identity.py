"""Identities and the two rules no policy can change: agents never approve; the proposer never approves."""

from __future__ import annotations

import pytest

from alicorn.anvil.errors import AgentApprovalError, IdentityError, ProposerApprovalError
from alicorn.anvil.identity import check_approver, claimed, parse_principal


def test_identities_are_human_or_agent() -> None:
    alice = parse_principal("human:alice")
    assert (alice.kind, alice.name, alice.id, alice.is_human) == ("human", "alice", "human:alice", True)
    planner = parse_principal("agent:planner")
    assert planner.is_builtin_role and planner.cedar_uid() == {"type": "Agent", "id": "agent:planner"}
    assert not parse_principal("agent:scout").is_builtin_role
    for bad in ("alice", "robot:x", "human:", "human:a b", "agent:" + "x" * 64):
        with pytest.raises(IdentityError, match="human:NAME or agent:NAME"):
            parse_principal(bad)


def test_a_claimed_name_is_a_human_unless_it_says_otherwise() -> None:
    assert claimed("bob").id == "human:bob"
    assert claimed("human:bob").id == "human:bob"
    assert claimed("agent:decision").id == "agent:decision"


def test_only_a_human_who_did_not_propose_may_approve() -> None:
    assert check_approver("human:bob", "agent:planner", "run-1").id == "human:bob"
    with pytest.raises(ProposerApprovalError, match="human:alice proposed run run-1"):
        check_approver("human:alice", "human:alice", "run-1")
    with pytest.raises(AgentApprovalError, match="agents never approve"):
        check_approver("agent:decision", "human:alice", "run-1")
    with pytest.raises(AgentApprovalError, match="agents never reject"):
        check_approver("agent:decision", "human:alice", "run-1", action="reject")
    assert check_approver("human:alice", "human:alice", "run-1", action="reject").id == "human:alice"
