"""Identities and the two rules no policy can change: agents never approve; the proposer never approves."""

from __future__ import annotations

import re

import pytest

from alicorn.anvil.errors import AgentApprovalError, IdentityError, ProposerApprovalError
from alicorn.anvil.identity import acting_human, check_approver, claimed, os_user, parse_principal
from alicorn.testing.people import act_as


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


@pytest.mark.parametrize(
    "variant",
    [
        "human:carol",
        "human:Carol",
        "human:CAROL",
        "HUMAN:carol",
        "  human:carol  ",
        "human:ｃａｒｏｌ",  # fullwidth letters: NFKC makes them ASCII
        "human：carol",  # a fullwidth colon
        "human:carol",
    ],
)
def test_every_spelling_of_a_person_is_one_canonical_id(variant: str) -> None:
    assert parse_principal(variant).id == "human:carol"
    with pytest.raises(ProposerApprovalError, match="human:carol proposed run"):
        check_approver(variant, "human:carol", "run-1")
    with pytest.raises(ProposerApprovalError):
        check_approver("human:carol", variant, "run-1")


def test_non_latin_names_are_canonical_too_and_mixed_scripts_are_refused() -> None:
    assert parse_principal("human:Łukasz").id == "human:łukasz"
    assert parse_principal("human:ИВАН").id == "human:иван"
    assert parse_principal("human:STRASSE").id == parse_principal("human:straße").id == "human:strasse"
    for trick, says in (
        ("human:cаrol", "mixes scripts (Cyrillic, Latin)"),  # a Cyrillic а
        ("human:ali\u200bce", "invisible or control character U+200B"),
        ("human:bob\u202e", "invisible or control character U+202E"),
    ):
        with pytest.raises(IdentityError, match=re.escape(says)):
            parse_principal(trick)


def test_the_acting_human_is_the_os_user_and_as_only_repeats_it(monkeypatch: pytest.MonkeyPatch) -> None:
    act_as(monkeypatch, "Dana")
    assert acting_human().id == "human:dana"
    assert acting_human("DANA").id == acting_human("human:dana").id == "human:dana"
    with pytest.raises(IdentityError, match=r"--as erin says you are human:erin, but this process runs as the OS"):
        acting_human("erin")
    with pytest.raises(IdentityError, match="runs as the OS user"):
        acting_human("agent:decision")


def test_the_os_user_is_read_from_the_effective_uid_not_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import pwd

    monkeypatch.setenv("USER", "someone-else")
    monkeypatch.setenv("LOGNAME", "someone-else")
    assert os_user() == pwd.getpwuid(os.geteuid()).pw_name != "someone-else"
