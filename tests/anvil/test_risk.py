"""Whole-plan risk and data-flow labels: splitting, renaming or reordering operations never lowers a decision."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alicorn.anvil.decide import DECISIONS, decide
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels, glob_match, propagate
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import HUMAN_RIGHTS, MINIMAL_AGENT_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.plan.dsl import Plan
from alicorn.plan.validate import validate_plan
from tests.anvil.support import node, plan, ref, registry

REG = registry()
LABELS = DataLabels(private=("hr/**",), secret=("keys/**",), public=("open/*.csv",))
POLICY = compile_policies(default_policy_text())
SUBJECTS = (
    Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human"),
    Subject("agent:planner", "agent", True, MINIMAL_AGENT_RIGHTS, ("planner",), 0, "standard", 1),
)


# ---------------------------------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("hr/**", "hr/2026/salaries.csv", True),
        ("hr/**", "hr.csv", False),
        ("*.csv", "a.csv", True),
        ("*.csv", "dir/a.csv", False),
        ("**/*.csv", "a.csv", True),
        ("**/*.csv", "x/y/a.csv", True),
        ("data/?.json", "data/a.json", True),
        ("data/?.json", "data/ab.json", False),
    ],
)
def test_glob_patterns(pattern: str, path: str, hit: bool) -> None:
    assert glob_match(pattern, path) is hit


def test_files_are_classified_by_their_most_sensitive_pattern() -> None:
    labels = DataLabels(private=("hr/**",), secret=("hr/keys/**",), default="internal")
    assert labels.classify("hr/a.csv") == "private"
    assert labels.classify("./hr//keys/k.csv") == "secret"
    assert labels.classify("alarms.csv") == "internal"
    assert labels.worst() == "secret"
    assert DataLabels().worst() == "internal"


def test_labels_flow_from_sources_through_references_and_alternatives() -> None:
    p = plan(
        [
            node("hr", "t.read", path="hr/staff.csv"),
            node("pub", "t.read", path="open/a.csv"),
            {**node("shape", "t.shape", records=ref("pub")), "alternative": "alt"},
            node("alt", "t.shape", records=ref("hr")),
            node("use", "t.shape", records=ref("shape")),
            node("lit", "t.get", url="https://x.io", params=[1, 2]),
        ]
    )
    labels = propagate(validate_plan(p, REG), REG, LABELS)
    assert labels["hr"].output == "private" and labels["pub"].output == "public"
    assert labels["shape"].output == "public"
    assert labels["use"].inputs == "private" and labels["use"].carriers == ("shape",)  # the alternative may stand in
    assert labels["lit"].inputs == "public"


def test_a_path_computed_at_run_time_is_assumed_the_most_sensitive() -> None:
    p = plan(
        [
            node("name", "t.shape"),
            {"node_id": "read", "operation": "t.read", "inputs": {"path": ref("name", "records")}},
        ]
    )
    # t.read's path wants a string; a list reference is refused by validation, so build the risk without it.
    risk = assess(Plan.model_validate(p.model_dump()), REG, LABELS)
    assert next(n for n in risk.nodes if n.node == "read").declared == "read"
    assert propagate(p, REG, LABELS)["read"].source == "secret"


# ---------------------------------------------------------------------------------------------------- risk


def test_a_read_that_carries_private_data_to_a_host_is_an_external_transmission() -> None:
    p = validate_plan(
        plan(
            [
                node("hr", "t.read", path="hr/staff.csv"),
                node("ask", "t.get", url="https://api.x.io/q", params=ref("hr")),
            ]
        ),
        REG,
    )
    risk = assess(p, REG, LABELS)
    ask = next(n for n in risk.nodes if n.node == "ask")
    assert ask.declared == "read" and ask.effective == "external_transmission"
    assert ask.upgraded_because == "sends private data from hr to api.x.io: an external transmission"
    assert risk.classes == ("read", "external_transmission") and risk.outbound == "private"
    assert risk.hosts == ("api.x.io",)


def test_five_small_sends_are_one_external_transmission_to_one_host() -> None:
    sends = [node(f"s{i}", "t.send", url=f"https://api.x.io/part/{i}", payload=i) for i in range(5)]
    risk = assess(validate_plan(plan(sends), REG), REG, LABELS)
    assert risk.classes == ("external_transmission",) and risk.hosts == ("api.x.io",)
    assert risk.destinations == ("host:api.x.io",)
    assert risk.by_class() == {"external_transmission": ["s0", "s1", "s2", "s3", "s4"]}


def test_a_destination_computed_at_run_time_is_unknown() -> None:
    p = plan([node("u", "t.shape"), {"node_id": "s", "operation": "t.send", "inputs": {"url": ref("u")}}])
    risk = assess(Plan.model_validate(p.model_dump()), REG, LABELS)
    assert risk.hosts == ("?",)


def test_amounts_add_up_over_the_plan() -> None:
    pays = [node(f"p{i}", "t.pay", account="a", amount=40) for i in range(3)]
    assert assess(validate_plan(plan(pays), REG), REG).amount == 120


# ---------------------------------------------------------------------------------------------------- properties

PATHS = ("alarms.csv", "hr/staff.csv", "keys/k.csv", "open/a.csv")
HOSTS = ("api.x.io", "b.example.com")


@st.composite
def plans(draw: Any) -> Plan:
    """A random valid plan: sources, reshapes, and operations that reach hosts or write, wired by references."""
    nodes: list[dict[str, Any]] = []
    producers: list[str] = []
    count = draw(st.integers(1, 8))
    for i in range(count):
        kind = draw(st.sampled_from(["read", "shape", "get", "send", "write", "publish"] if producers else ["read"]))
        nid = f"n{i}"
        data = ref(draw(st.sampled_from(producers))) if producers and draw(st.booleans()) else {"value": i}
        url = f"https://{draw(st.sampled_from(HOSTS))}/{i}"
        if kind == "read":
            nodes.append(node(nid, "t.read", path=draw(st.sampled_from(PATHS))))
            producers.append(nid)
        elif kind == "shape":
            nodes.append(node(nid, "t.shape", records=ref(draw(st.sampled_from(producers)))))
            producers.append(nid)
        elif kind == "get":
            nodes.append(node(nid, "t.get", url=url, params=data))
        elif kind in ("send", "publish"):
            nodes.append(node(nid, f"t.{kind}", url=url, payload=data))
        else:
            nodes.append(node(nid, "t.write", path=f"out/{i}.txt", content=data))
    return validate_plan(plan(nodes), REG)


def decisions(p: Plan, subject: Subject, forbidden: tuple[str, ...] = ()) -> dict[str, Any]:
    """Each operation's decision and its whole-plan context (what the policy sees)."""
    facts = Facts(p.plan_hash(), p.goal_hash, "default", assess(p, REG, LABELS), subject, forbidden)
    out = {}
    for check in decide(POLICY, facts).checks:
        context = dict(check.request["context"])
        out[check.operation] = (check.decision, context, check.rules)
    return out


def strictest(found: dict[str, Any]) -> int:
    return max((DECISIONS.index(d) for d, _, _ in found.values()), default=0)


def rename(p: Plan, rnd: random.Random) -> Plan:
    ids = [n.node_id for n in p.nodes]
    new = dict(zip(ids, rnd.sample([f"x{i}-{rnd.randrange(1000)}" for i in range(len(ids))], len(ids)), strict=True))
    text = p.model_dump_json()
    for old in sorted(ids, key=len, reverse=True):
        text = text.replace(f'"{old}"', f'"{new[old]}"')
    return validate_plan(text, REG)


def reorder(p: Plan, rnd: random.Random) -> Plan:
    nodes = [n.model_dump(mode="json") for n in p.nodes]
    rnd.shuffle(nodes)
    return validate_plan(plan(nodes, p.goal), REG)


def split(p: Plan, rnd: random.Random, pieces: int) -> Plan:
    """Split every node that reaches a host or writes into `pieces` small nodes of the same operation; put
    `pieces` reshapes between every source and its consumers (laundering data through small steps)."""
    out: list[dict[str, Any]] = []
    for n in p.nodes:
        data = n.model_dump(mode="json")
        if n.operation in ("t.send", "t.get", "t.write", "t.publish"):
            for k in range(pieces):
                part = {**data, "node_id": f"{n.node_id}-part{k}"}
                if n.operation == "t.write":
                    part["inputs"] = {**data["inputs"], "path": {"value": f"out/{n.node_id}-{k}.txt"}}
                out.append(part)
        elif n.operation == "t.shape":
            source = data["inputs"]["records"]["ref"]["node"]
            previous = source
            for k in range(pieces):
                out.append(node(f"{n.node_id}-step{k}", "t.shape", records=ref(previous)))
                previous = f"{n.node_id}-step{k}"
            out.append({**data, "inputs": {"records": ref(previous)}})
        else:
            out.append(data)
    rnd.shuffle(out)
    return validate_plan(plan(out, p.goal), REG)


def same_decisions(before: dict[str, Any], after: dict[str, Any], *, paths_may_grow: bool = False) -> None:
    assert strictest(after) >= strictest(before)
    assert set(after) == set(before)
    for op, (decision, context, rules) in before.items():
        got_decision, got_context, got_rules = after[op]
        if paths_may_grow:  # split writes go to more files: the same or a stricter decision, never a lower one
            for key in ("destinations", "rights_gaps"):
                context, got_context = {**context, key: None}, {**got_context, key: None}
            assert DECISIONS.index(got_decision) >= DECISIONS.index(decision)
        else:
            assert (got_decision, got_rules) == (decision, rules)
        assert got_context == context


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.randoms(use_true_random=False), st.sampled_from(SUBJECTS))
def test_renaming_nodes_changes_no_decision(p: Plan, rnd: random.Random, subject: Subject) -> None:
    same_decisions(decisions(p, subject), decisions(rename(p, rnd), subject))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.randoms(use_true_random=False), st.sampled_from(SUBJECTS))
def test_reordering_nodes_changes_no_decision(p: Plan, rnd: random.Random, subject: Subject) -> None:
    same_decisions(decisions(p, subject), decisions(reorder(p, rnd), subject))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.randoms(use_true_random=False), st.sampled_from(SUBJECTS), st.integers(2, 5))
def test_splitting_operations_never_lowers_a_decision(p: Plan, rnd: random.Random, subject: Subject, k: int) -> None:
    same_decisions(decisions(p, subject), decisions(split(p, rnd, k), subject), paths_may_grow=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.sampled_from(SUBJECTS), st.sampled_from(["external_transmission", "publication", "local_write"]))
def test_a_forbidden_class_is_denied_however_the_plan_is_cut(p: Plan, subject: Subject, banned: str) -> None:
    found = decisions(split(p, random.Random(0), 3), subject, (banned,))
    risk = assess(p, REG, LABELS)
    if banned in risk.classes:
        assert all(d == "deny" for d, _, _ in found.values())


def test_laundering_private_data_through_small_steps_still_counts_as_a_transmission() -> None:
    direct = plan(
        [node("hr", "t.read", path="hr/staff.csv"), node("ask", "t.get", url="https://a.io", params=ref("hr"))]
    )
    chained = split(validate_plan(direct, REG), random.Random(1), 4)
    risk = assess(chained, REG, LABELS)
    assert "external_transmission" in risk.classes and risk.outbound == "private"
    assert strictest(decisions(chained, SUBJECTS[1])) == DECISIONS.index("needs_approval")
