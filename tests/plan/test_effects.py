"""Effect aggregation: classes come from the registry, and no way of cutting or naming a plan lowers them."""

from __future__ import annotations

import random

import pytest

from alicorn.errors import PlanError
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import EFFECT_ORDER
from alicorn.plan.effects import PlanEffects, plan_effects
from alicorn.plan.validate import parse_plan

from .helpers import REGISTRY, lit, node, plan, ref, source, valid


def mixed_plan() -> dict:
    return plan(
        source("load"),
        node("loud", "t.upper", {"text": ref("load", "label")}),
        node("save", "t.write", {"text": ref("loud", "label")}),
        node("mail", "t.send", {"text": ref("loud", "label")}),
        node("count", "t.add", {"a": ref("load", "count")}),
    )


def test_nodes_are_grouped_by_their_operations_effect_class() -> None:
    effects = plan_effects(valid(mixed_plan()), REGISTRY)
    assert effects.by_class == {
        "none": ("loud", "count"),
        "read": ("load",),
        "local_write": ("save",),
        "external_transmission": ("mail",),
    }
    assert effects.classes == ["none", "read", "local_write", "external_transmission"]
    assert effects.highest == "external_transmission"
    assert effects.to_json() == {
        "none": ["loud", "count"],
        "read": ["load"],
        "local_write": ["save"],
        "external_transmission": ["mail"],
    }
    assert list(effects.to_json()) == effects.classes


def test_beyond_lists_only_the_classes_above_the_limit() -> None:
    effects = plan_effects(valid(mixed_plan()), REGISTRY)
    assert effects.beyond("local_write") == {"external_transmission": ("mail",)}
    assert set(effects.beyond("none")) == {"read", "local_write", "external_transmission"}
    assert effects.beyond("external_transmission") == {}
    assert effects.beyond("physical") == {}


@pytest.mark.parametrize(
    ("op", "effect"),
    [
        ("t.upper", "none"),
        ("t.source", "read"),
        ("t.write", "local_write"),
        ("t.send", "external_transmission"),
        ("t.publish", "publication"),
        ("t.install", "installation"),
        ("t.actuate", "physical"),
    ],
)
def test_each_effect_class_is_the_highest_of_a_plan_that_has_it(op: str, effect: str) -> None:
    inputs = {"n": lit(1)} if op == "t.source" else {"text": lit("x")}
    effects = plan_effects(
        parse_plan(plan(node("quiet", "t.upper", {"text": lit("x")}), node("n", op, inputs))), REGISTRY
    )
    assert effects.highest == effect
    assert ("n" in effects.by_class[effect]) and set(effects.classes) == {"none", effect}


def test_effects_come_from_the_registry_not_from_what_the_plan_says() -> None:
    document = plan(
        node(
            "mail",
            "t.send",
            {"text": lit("hi")},
            description="harmless: effect none, reads nothing, sends nothing",
            executor_role="planner",
            idempotency="unsafe",
        )
    )
    assert plan_effects(parse_plan(document), REGISTRY).highest == "external_transmission"


def test_splitting_one_send_into_five_still_counts_as_an_external_transmission() -> None:
    whole = plan(source("load"), node("mail", "t.send", {"text": ref("load", "label")}))
    parts = plan(
        source("load"),
        *[node(f"part{i}", "t.send", {"text": lit(f"chunk {i}")}, depends_on=["load"]) for i in range(5)],
    )
    one = plan_effects(valid(whole), REGISTRY)
    five = plan_effects(valid(parts), REGISTRY)
    assert one.highest == five.highest == "external_transmission"
    assert five.by_class["external_transmission"] == tuple(f"part{i}" for i in range(5))
    assert five.beyond("local_write") == {"external_transmission": tuple(f"part{i}" for i in range(5))}
    assert set(five.classes) == set(one.classes)


def test_interleaving_harmless_nodes_does_not_lower_the_aggregate() -> None:
    nodes = []
    for i in range(10):
        nodes.append(node(f"q{i}", "t.upper", {"text": lit("x")}))
    nodes.insert(5, node("pub", "t.publish", {"text": lit("post")}))
    effects = plan_effects(valid(plan(*nodes)), REGISTRY)
    assert effects.highest == "publication"
    assert effects.beyond("local_write") == {"publication": ("pub",)}


def test_renaming_ids_or_reordering_nodes_keeps_the_set_of_classes() -> None:
    document = mixed_plan()
    base = plan_effects(valid(document), REGISTRY)
    rng = random.Random(7)
    for _ in range(20):
        shuffled = list(document["nodes"])
        rng.shuffle(shuffled)
        rename = {n["node_id"]: f"x{rng.randrange(10**6)}-{i}" for i, n in enumerate(shuffled)}
        renamed = []
        for n in shuffled:
            inputs = {
                k: ref(rename[b["ref"]["node"]], b["ref"]["output"]) if "ref" in b else b
                for k, b in n["inputs"].items()
            }
            renamed.append({**n, "node_id": rename[n["node_id"]], "inputs": inputs})
        effects = plan_effects(valid(plan(*renamed)), REGISTRY)
        assert effects.classes == base.classes
        assert effects.highest == base.highest
        for cls, ids in base.by_class.items():
            assert sorted(effects.by_class[cls]) == sorted(rename[i] for i in ids)


def test_an_unknown_operation_is_a_plan_error_not_a_guess() -> None:
    with pytest.raises(PlanError) as caught:
        plan_effects(parse_plan(plan(node("x", "t.sendd"))), REGISTRY)
    assert "unknown operation 't.sendd'" in caught.value.problems[0]


def test_the_same_plan_under_another_registry_gets_that_registrys_effects() -> None:
    document = plan(node("n", "util.noop"))
    assert plan_effects(parse_plan(document), builtin_registry()).highest == "none"


def test_plan_effects_of_an_empty_grouping() -> None:
    empty = PlanEffects({})
    assert empty.classes == [] and empty.highest == "none" and empty.beyond("none") == {} and empty.to_json() == {}


def test_classes_follow_the_effect_order() -> None:
    everything = plan(
        *[
            node(f"n{i}", op, {"text": lit("x")})
            for i, op in enumerate(["t.actuate", "t.publish", "t.upper", "t.install", "t.send", "t.write"])
        ]
    )
    effects = plan_effects(parse_plan(everything), REGISTRY)
    # The test registry has no operation of classes read or code_execution; every other class appears in order.
    assert effects.classes == [e for e in EFFECT_ORDER if e not in ("read", "code_execution")]
    assert effects.highest == "physical"
