"""Policy rules: loading and validation against the registry, and the decision of every default rule (pure)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.decide import Verdict, decide
from alicorn.anvil.errors import PolicyError, PolicyParseError, PolicyValidationError
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.policy import (
    CONTEXT_FIELDS,
    compile_policies,
    default_policy_text,
    load_policies,
    rule_sources,
    validate,
)
from alicorn.anvil.rights import HUMAN_RIGHTS, MINIMAL_AGENT_RIGHTS, Rights, Subject
from alicorn.anvil.risk import assess
from alicorn.plan.dsl import Plan
from tests.anvil.support import node, plan, ref, registry

REG = registry()
OPS = REG.names()
DEFAULT = compile_policies(default_policy_text())
HUMAN = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")
AGENT = Subject("agent:planner", "agent", True, MINIMAL_AGENT_RIGHTS, ("planner",), 0, "standard", 1)
GHOST = Subject("agent:ghost", "agent", False, Rights())

READ_ONLY = plan([node("load", "t.read", path="alarms.csv"), node("shape", "t.shape", records=ref("load"))])
WRITE = plan([node("load", "t.read", path="a.csv"), node("save", "t.write", path="out/a.txt", content="x")])
SEND = plan([node("load", "t.read", path="a.csv"), node("send", "t.send", url="https://api.example.com/x")])
GET = plan([node("get", "t.get", url="https://api.example.com/q")])
SECRET_GET = plan(
    [node("load", "t.read", path="keys/k.csv"), node("get", "t.get", url="https://x.io/q", params=ref("load"))]
)
PUBLISH = plan([node("pub", "t.publish", url="https://news.example.com/")])
LABELS = DataLabels(private=("hr/**",), secret=("keys/**",))


def facts(p: Plan, subject: Subject = HUMAN, **extra: Any) -> Facts:
    return Facts(p.plan_hash(), p.goal_hash, extra.pop("project", "default"), assess(p, REG, LABELS), subject, **extra)


def verdict(p: Plan, subject: Subject = HUMAN, policies: Any = DEFAULT, **extra: Any) -> Verdict:
    return decide(policies, facts(p, subject, **extra))


# ---------------------------------------------------------------------------------------------------- loading


def test_the_default_policy_validates_against_the_builtin_registry_and_names_every_rule() -> None:
    from alicorn.ops.builtin import builtin_registry

    policies = load_policies(None, builtin_registry().names())
    assert policies.rules == (
        "forbid-unknown-agent",
        "forbid-forbidden-effects",
        "forbid-secret-outbound",
        "untrusted-origin-needs-human",
        "schedule-destinations-need-human",
        "permit-schedule-allowed",
        "forbid-secret-read",
        "material-change-needs-approval",
        "permit-within-rights",
        "permit-human-approved",
    )
    assert len(policies.digest) == 64 and policies.source == "default"
    sources = rule_sources(policies.text)
    assert set(sources) == set(policies.rules)
    assert "permit(principal, action, resource)" in sources["permit-human-approved"].replace(" (", "(")


def test_a_policy_that_does_not_parse_is_refused() -> None:
    with pytest.raises(PolicyParseError, match="not valid Cedar"):
        compile_policies('@id("x") permit(principal, action resource);')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("permit(principal, action, resource);", "no @id"),
        (
            '@id("a") permit(principal, action, resource);\n@id("a") forbid(principal, action, resource);',
            "share the id",
        ),
        ("", "no rules"),
        ('@id("t") permit(principal == ?principal, action, resource);', "templates"),
    ],
)
def test_every_rule_needs_a_unique_id(text: str, message: str) -> None:
    with pytest.raises(PolicyParseError, match=message):
        compile_policies(text)


def test_a_rule_that_names_an_unknown_operation_is_refused_with_its_id() -> None:
    text = default_policy_text() + '\n@id("no-posts")\nforbid (principal, action == Action::"t.sendd", resource);\n'
    with pytest.raises(PolicyValidationError) as caught:
        validate(compile_policies(text, "mine.cedar"), OPS)
    assert any("no-posts" in p and "t.sendd" in p for p in caught.value.problems)
    assert "mine.cedar" in str(caught.value) and "alicorn schema operations" in str(caught.value)


def test_a_rule_that_reads_an_unknown_context_field_is_refused() -> None:
    text = '@id("typo") permit (principal, action, resource) when { context.within_right };'
    with pytest.raises(PolicyValidationError, match="typo"):
        validate(compile_policies(text), OPS)


def test_a_rule_of_the_wrong_type_is_refused() -> None:
    text = '@id("types") permit (principal, action, resource) when { context.plan_rank == "two" };'
    with pytest.raises(PolicyValidationError, match="types"):
        validate(compile_policies(text), OPS)


def test_an_unreadable_policy_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read the policy file"):
        load_policies(tmp_path / "missing.cedar", OPS)
    bad = tmp_path / "bad.cedar"
    bad.write_text("permit(")
    with pytest.raises(PolicyParseError, match=r"bad\.cedar"):
        load_policies(bad, OPS)


def test_every_context_field_is_always_given() -> None:
    request = verdict(SEND).checks[0].request
    assert set(request["context"]) == set(CONTEXT_FIELDS)


# ---------------------------------------------------------------------------------------------------- decisions


def kinds(v: Verdict) -> dict[str, str]:
    return {c.operation: c.decision for c in v.checks}


def test_a_human_plan_within_local_write_is_allowed_by_the_rights_rule() -> None:
    v = verdict(WRITE)
    assert v.decision == "allow" and kinds(v) == {"t.read": "allow", "t.write": "allow"}
    assert all(c.rules == ("permit-within-rights",) for c in v.checks)
    assert "stays within human:alice's rights" in v.checks[0].sentence


def test_an_external_transmission_needs_a_human_approval() -> None:
    v = verdict(SEND)
    assert v.decision == "needs_approval"
    check = next(c for c in v.checks if c.operation == "t.send")
    assert check.permitted_by == ("permit-human-approved",) and check.blocked_by == ()
    assert "effects above local_write (external_transmission to api.example.com)" in check.sentence
    assert check.sentence.startswith("Needs a human approval: human:alice may run t.send")


def test_with_an_approval_bound_to_the_plan_it_is_allowed() -> None:
    v = verdict(SEND, approval="granted", approved_by=("human:bob",))
    assert v.decision == "allow"
    assert all(c.rules == ("permit-human-approved",) for c in v.checks)
    assert "human:bob approved this plan's hash" in v.checks[0].sentence


def test_a_registered_agent_reads_within_its_minimal_rights() -> None:
    assert verdict(READ_ONLY, AGENT).decision == "allow"


def test_an_agent_reaching_a_host_beyond_its_rights_needs_an_approval() -> None:
    v = verdict(GET, AGENT)
    assert v.decision == "needs_approval"
    assert v.checks[0].request["context"]["rights_gaps"] == ["host:api.example.com"]
    assert "beyond agent:planner's rights (the host api.example.com)" in v.checks[0].sentence


def test_an_unknown_agent_is_denied_even_with_an_approval() -> None:
    for approval in ("none", "granted"):
        v = verdict(READ_ONLY, GHOST, approval=approval)
        assert v.decision == "deny" and v.checks[0].rules == ("forbid-unknown-agent",)
        assert "agent:ghost is not a registered agent" in v.checks[0].sentence


def test_an_effect_class_the_user_forbade_is_denied() -> None:
    v = verdict(PUBLISH, forbidden=("publication",))
    assert v.decision == "deny" and v.checks[0].rules == ("forbid-forbidden-effects",)
    assert "the plan has publication, which this run forbids" in v.checks[0].sentence


def test_secret_data_never_leaves_even_approved() -> None:
    v = verdict(SECRET_GET, approval="granted", approved_by=("human:bob",))
    assert v.decision == "deny"
    assert all(c.rules == ("forbid-secret-outbound",) for c in v.checks)


def test_a_material_replan_needs_a_new_approval_and_names_the_change() -> None:
    v = verdict(WRITE, material=True, material_reasons=("it adds effect class(es) local_write",))
    assert v.decision == "needs_approval"
    check = v.checks[0]
    assert check.blocked_by == ("material-change-needs-approval",)
    assert "it adds effect class(es) local_write" in check.sentence
    assert verdict(WRITE, material=True, approval="granted").decision == "allow"


def test_a_restricted_agent_needs_an_approval_for_local_writes() -> None:
    restricted = Subject("agent:x", "agent", True, Rights(effects=("none", "read"), operations=("*",), projects=("*",)))
    v = verdict(WRITE, restricted)
    assert v.decision == "needs_approval"
    assert "effect:local_write" in v.checks[0].request["context"]["rights_gaps"]


def test_a_project_outside_the_agents_scope_needs_an_approval() -> None:
    scoped = Subject("agent:x", "agent", True, MINIMAL_AGENT_RIGHTS.model_copy(update={"projects": ("ops",)}))
    assert verdict(READ_ONLY, scoped, project="hr").decision == "needs_approval"
    assert verdict(READ_ONLY, scoped, project="ops").decision == "allow"


def test_a_trusted_agent_within_its_rights_still_asks_a_human_for_a_transmission_by_default() -> None:
    wide = MINIMAL_AGENT_RIGHTS.model_copy(
        update={"effects": ("none", "read", "external_transmission"), "hosts": ("*",)}
    )
    trusted = Subject("agent:t", "agent", True, wide, reputation=30, tier="trusted")
    v = verdict(SEND, trusted)
    assert v.checks[0].request["context"]["within_rights"] is True
    assert v.decision == "needs_approval"


def test_an_operator_rule_can_let_trusted_agents_transmit_within_their_rights() -> None:
    text = default_policy_text() + (
        '\n@id("trusted-may-send")\npermit (principal is Agent, action, resource)\n'
        'when { context.within_rights && principal.tier == "trusted" && context.outbound_rank <= 1 };\n'
    )
    policies = compile_policies(text, "operator.cedar")
    validate(policies, OPS)
    wide = MINIMAL_AGENT_RIGHTS.model_copy(
        update={"effects": ("none", "read", "external_transmission"), "hosts": ("*",)}
    )
    trusted = Subject("agent:t", "agent", True, wide, reputation=30, tier="trusted")
    v = verdict(SEND, trusted, policies)
    assert v.decision == "allow" and v.checks[0].rules == ("trusted-may-send",)
    assert "rule 'trusted-may-send' says so" in v.checks[0].sentence


def test_an_operator_rule_can_forbid_one_operation_and_is_named() -> None:
    text = default_policy_text() + '\n@id("no-t-send")\nforbid (principal, action == Action::"t.send", resource);\n'
    policies = compile_policies(text)
    validate(policies, OPS)
    v = verdict(SEND, HUMAN, policies, approval="granted")
    assert kinds(v) == {"t.read": "allow", "t.send": "deny"} and v.decision == "deny"
    assert next(c for c in v.checks if c.operation == "t.send").rules == ("no-t-send",)


def test_what_no_rule_permits_is_denied_with_no_rule_named() -> None:
    policies = compile_policies(
        '@id("only-forbid") forbid (principal, action, resource) when { context.plan_rank > 5 };'
    )
    v = verdict(READ_ONLY, HUMAN, policies)
    assert v.decision == "deny" and v.checks[0].rules == ()
    assert "no rule permits it, even with a human approval" in v.checks[0].sentence


def test_the_plan_decision_is_the_strictest_of_its_operations() -> None:
    text = default_policy_text() + '\n@id("no-reads")\nforbid (principal, action == Action::"t.read", resource);\n'
    v = verdict(SEND, HUMAN, compile_policies(text))
    assert kinds(v) == {"t.read": "deny", "t.send": "needs_approval"} and v.decision == "deny"


def test_decisions_are_deterministic_values() -> None:
    first, second = verdict(SEND, AGENT), verdict(SEND, AGENT)
    assert [c.to_json() for c in first.checks] == [c.to_json() for c in second.checks]
