"""Properties of validation: any plan the validator accepts is acyclic and every reference in it resolves.

(a) Random well-typed DAG plans over the test registry are accepted and sound.
(b) Random mutations of such plans (as JSON) are either accepted, and then still sound, or rejected with a PlanError
    that lists at least one message; no other exception ever escapes.
"""

from __future__ import annotations

import copy
import graphlib
import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alicorn.errors import PlanError
from alicorn.plan.dsl import IDEMPOTENCY_ORDER, Plan, RefInput, goal_digest
from alicorn.plan.validate import DEFAULT_RESOURCES, find_cycle, parse_plan, validate_plan

from .helpers import REGISTRY, check, lit, ref

#: PLAN_PROPERTY_EXAMPLES=5000 runs a longer search locally; the default keeps this file well under 30 s.
SETTINGS = settings(
    max_examples=int(os.environ.get("PLAN_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# The generator's view of the test registry: each input's kind and whether it is required; each output's kind.
INPUTS: dict[str, dict[str, tuple[str, bool]]] = {
    "t.source": {"n": ("int", True), "tag": ("str", False)},
    "t.join": {"items": ("list", True), "sep": ("sep", False)},
    "t.upper": {"text": ("str", True)},
    "t.add": {"a": ("int", True), "b": ("int", False)},
    "t.scale": {"x": ("num", True), "factor": ("num", False)},
    "t.write": {"text": ("str", True)},
    "t.send": {"text": ("str", True), "to": ("str", False)},
    "t.publish": {"text": ("str", True)},
    "t.train": {"a": ("int", True), "b": ("int", False)},
}
OUTPUTS: dict[str, dict[str, str]] = {
    "t.source": {"items": "list", "count": "int", "label": "str"},
    "t.join": {"label": "str", "count": "int"},
    "t.upper": {"label": "str"},
    "t.add": {"count": "int"},
    "t.scale": {"value": "num"},
    "t.write": {"label": "str"},
    "t.send": {"receipt": "str"},
    "t.publish": {"receipt": "str"},
    "t.train": {"count": "int"},
}
#: Which produced kinds a wanted kind accepts through a reference.
FITS = {"int": {"int"}, "str": {"str"}, "sep": {"str"}, "list": {"list"}, "num": {"num", "int"}}
LITERALS = {
    "int": st.integers(0, 100),
    "str": st.text(max_size=8),
    "sep": st.text(max_size=3),
    "list": st.lists(st.text(max_size=4), max_size=3),
    "num": st.integers(-5, 5) | st.floats(-1e6, 1e6, allow_nan=False),
}
NODE_IDS = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def test_the_generators_view_matches_the_registry() -> None:
    for name, inputs in INPUTS.items():
        op = REGISTRY.get(name)
        assert {k: v.is_required() for k, v in op.inputs.model_fields.items()} == {k: r for k, (_, r) in inputs.items()}
        assert set(op.outputs.model_fields) == set(OUTPUTS[name])


@st.composite
def dag_plans(draw: st.DrawFn) -> dict[str, Any]:
    """A valid plan, as JSON: typed refs and dependencies only to earlier nodes, alternatives, stops, resources."""
    count = draw(st.integers(1, 15))
    ids = draw(st.lists(NODE_IDS, min_size=count, max_size=count, unique=True))
    nodes: list[dict[str, Any]] = []
    ancestors: list[set[int]] = []
    standby: set[int] = set()
    has_alternative: set[int] = set()
    providers: set[int] = set()
    for i in range(count):
        # Maybe this node stands in for an earlier one: same operation, nothing downstream of the primary upstream.
        primary = None
        eligible = [j for j in range(i) if j not in has_alternative]
        if eligible and draw(st.integers(0, 5)) == 3:
            primary = draw(st.sampled_from(eligible))
        forbidden = set(standby)
        if primary is not None:
            forbidden |= {primary} | {j for j in range(i) if primary in ancestors[j]}
        usable = [j for j in range(i) if j not in forbidden]
        choices = sorted(INPUTS)
        if not any(p in usable for p in providers):
            choices.remove("t.train")
        op = nodes[primary]["operation"] if primary is not None else draw(st.sampled_from(choices))
        if op == "t.train" and not any(p in usable for p in providers):
            op = "t.add"  # the primary was a trainer but no provider is usable here
        inputs: dict[str, Any] = {}
        ups: set[int] = set()
        for name, (kind, required) in INPUTS[op].items():
            if not required and not draw(st.booleans()):
                continue
            sources = [
                (j, out) for j in usable for out, got in OUTPUTS[nodes[j]["operation"]].items() if got in FITS[kind]
            ]
            if sources and draw(st.booleans()):
                j, out = draw(st.sampled_from(sources))
                inputs[name] = ref(ids[j], out)
                ups.add(j)
            else:
                inputs[name] = lit(draw(LITERALS[kind]))
        depends = draw(st.lists(st.sampled_from(usable), max_size=3, unique=True)) if usable else []
        if op == "t.train":
            provider = draw(st.sampled_from([p for p in providers if p in usable]))
            depends = [*depends, provider] if provider not in depends else depends
        ups |= set(depends)
        body: dict[str, Any] = {"node_id": ids[i], "operation": op, "inputs": inputs}
        if depends:
            body["depends_on"] = [ids[j] for j in depends]
        outputs = sorted(OUTPUTS[op])
        if draw(st.booleans()):
            body["expected_outputs"] = draw(st.lists(st.sampled_from(outputs), max_size=len(outputs), unique=True))
        if draw(st.booleans()):
            body["completion"] = check(draw(st.sampled_from(outputs)), draw(st.sampled_from(["exists", "ne"])), 0)
        if draw(st.booleans()):
            when = draw(st.none() | st.sampled_from(outputs).map(lambda o: check(o, "eq", "stop")))
            body["stop"] = {"reason": "cannot go on", **({"when": when} if when else {})}
            body["critical"] = draw(st.booleans())
        minimum = IDEMPOTENCY_ORDER.index(REGISTRY.get(op).idempotency)
        if draw(st.booleans()):
            body["idempotency"] = draw(st.sampled_from(IDEMPOTENCY_ORDER[minimum:]))
        if draw(st.integers(0, 3)) == 0:
            body["provides"] = ["gpu"]
            providers.add(i)
        if draw(st.booleans()):
            body["retry"] = {"max_attempts": draw(st.integers(1, 5)), "backoff_s": draw(st.floats(0, 10))}
        if draw(st.booleans()):
            body["timeout_s"] = draw(st.floats(0.5, 600))
        if primary is not None:
            nodes[primary]["alternative"] = ids[i]
            if draw(st.booleans()):
                nodes[primary]["critical"] = True
            has_alternative.add(primary)
            standby.add(i)
        nodes.append(body)
        ancestors.append(ups | {a for j in ups for a in ancestors[j]})
    order = draw(st.permutations(range(count)))
    goal = draw(st.text(min_size=1, max_size=30))
    return {"goal": goal, "goal_hash": goal_digest(goal), "nodes": [nodes[k] for k in order]}


def assert_sound(plan: Plan) -> None:
    """What every accepted plan must satisfy, checked independently of the validator's own code."""
    ids = [n.node_id for n in plan.nodes]
    assert len(ids) == len(set(ids)), "node ids are unique"
    by_id = {n.node_id: n for n in plan.nodes}
    graph = {n.node_id: n.upstream() for n in plan.nodes}
    for node_id, ups in graph.items():
        assert ups <= set(by_id), f"{node_id} waits for a node that is not in the plan"
    order = list(graphlib.TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
    position = {node_id: k for k, node_id in enumerate(order)}
    assert find_cycle(plan.nodes) is None
    standby = {n.alternative for n in plan.nodes if n.alternative}
    for node in plan.nodes:
        op = REGISTRY.get(node.operation)
        assert set(node.inputs) <= set(op.inputs.model_fields)
        for name, info in op.inputs.model_fields.items():
            assert not info.is_required() or name in node.inputs, f"{node.node_id} lacks {name}"
        for binding in node.inputs.values():
            if isinstance(binding, RefInput):
                source = by_id[binding.ref.node]
                assert source.node_id != node.node_id
                assert position[source.node_id] < position[node.node_id], "refs point upstream"
                assert binding.ref.output in REGISTRY.get(source.operation).outputs.model_fields
                assert source.node_id not in standby, "no ref to a standby node"
        assert set(node.expected_outputs) <= set(op.outputs.model_fields)
        if node.critical:
            assert node.alternative is not None or node.stop is not None
        if node.alternative is not None:
            assert node.alternative in by_id and node.alternative != node.node_id
            assert by_id[node.alternative].node_id not in graph[node.node_id]
        standby = {n.alternative for n in plan.nodes if n.alternative}
        assert not (set(node.depends_on) & standby), f"{node.node_id} depends on a standby node"
        needed = set(node.resources) | set(op.resources)
        for resource in needed - DEFAULT_RESOURCES:
            providers = {n.node_id for n in plan.nodes if resource in n.provides}
            assert providers & _ancestors(graph, node.node_id), f"{node.node_id} lacks {resource}"
    assert parse_plan(plan.model_dump(mode="json")).plan_hash() == plan.plan_hash()


def _ancestors(graph: dict[str, set[str]], node_id: str) -> set[str]:
    seen: set[str] = set()
    frontier = [node_id]
    while frontier:
        for up in graph[frontier.pop()]:
            if up not in seen:
                seen.add(up)
                frontier.append(up)
    return seen


@SETTINGS
@given(document=dag_plans())
def test_random_dag_plans_are_accepted_and_sound(document: dict[str, Any]) -> None:
    accepted = validate_plan(document, REGISTRY)
    assert_sound(accepted)
    assert validate_plan(json.dumps(document), REGISTRY) == accepted


# ---------------------------------------------------------------------------------------------------- mutations

MUTATIONS = [
    "delete_node",
    "rename_id",
    "retarget_ref",
    "back_edge",
    "drop_input",
    "change_operation",
    "wrong_literal",
    "flip_critical",
    "duplicate_node",
    "garbage",
    "set_alternative",
    "clear_field",
]


def _positions(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every value inside a JSON document (the document itself excluded)."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((*path, key))
            found.extend(_positions(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.append((*path, index))
            found.extend(_positions(item, (*path, index)))
    return found


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path] if isinstance(value, (dict, list)) else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        found.extend(_containers(item, (*path, key)))
    return found


def _at(document: Any, path: tuple) -> Any:
    for part in path:
        document = document[part]
    return document


def mutate(draw: st.DrawFn, document: dict[str, Any], kind: str) -> None:
    nodes = document.get("nodes")
    if not isinstance(nodes, list) or not nodes or not all(isinstance(n, dict) for n in nodes):
        kind = "garbage"
    if kind == "garbage":
        _garbage(draw, document)
        return
    index = draw(st.integers(0, len(nodes) - 1))
    target = nodes[index]
    ids = [n.get("node_id") for n in nodes]
    some_id = st.sampled_from([*ids, "ghost", "a", "Not-Valid", ""]) | NODE_IDS
    if kind == "delete_node":
        del nodes[index]
    elif kind == "rename_id":
        target["node_id"] = draw(some_id)
    elif kind == "retarget_ref":
        inputs = target.setdefault("inputs", {}) if isinstance(target.get("inputs", {}), dict) else {}
        name = draw(st.sampled_from([*inputs, "text", "items", "a", "n"]))
        output = draw(st.sampled_from(["label", "items", "count", "value", "receipt", "nope"]))
        inputs[name] = ref(draw(some_id), output)
    elif kind == "back_edge":
        depends = target.get("depends_on")
        target["depends_on"] = [*(depends if isinstance(depends, list) else []), draw(some_id)]
    elif kind == "drop_input":
        inputs = target.get("inputs")
        if isinstance(inputs, dict) and inputs:
            del inputs[draw(st.sampled_from(sorted(inputs)))]
        else:
            target.pop("inputs", None)
    elif kind == "change_operation":
        target["operation"] = draw(st.sampled_from([*sorted(INPUTS), "t.sourc", "nope", "", "T.SOURCE"]) | st.text())
    elif kind == "wrong_literal":
        inputs = target.setdefault("inputs", {}) if isinstance(target.get("inputs", {}), dict) else {}
        name = draw(st.sampled_from([*inputs, "text", "n"]))
        inputs[name] = lit(draw(JSON))
    elif kind == "flip_critical":
        target["critical"] = not target.get("critical", False)
    elif kind == "duplicate_node":
        nodes.insert(draw(st.integers(0, len(nodes))), copy.deepcopy(target))
    elif kind == "set_alternative":
        target["alternative"] = draw(some_id)
    elif kind == "clear_field":
        field = draw(st.sampled_from(["node_id", "operation", "stop", "alternative", "depends_on", "completion"]))
        target.pop(field, None)


def _garbage(draw: st.DrawFn, document: dict[str, Any]) -> None:
    junk = draw(JSON | st.sampled_from([None, "", "🦄", -1, 10**30, 1e308, [], {}]))
    if draw(st.booleans()):
        positions = _positions(document)
        if positions:
            path = draw(st.sampled_from(positions))
            _at(document, path[:-1])[path[-1]] = junk
            return
    container = _at(document, draw(st.sampled_from(_containers(document))))
    if isinstance(container, dict):
        container[draw(st.text(max_size=8) | st.sampled_from(["node_id", "value", "ref", "kind", "of"]))] = junk
    else:
        container.insert(draw(st.integers(0, len(container))), junk)


@SETTINGS
@given(document=dag_plans(), data=st.data())
def test_mutated_plans_are_accepted_soundly_or_rejected_with_messages(
    document: dict[str, Any], data: st.DataObject
) -> None:
    mutated = copy.deepcopy(document)
    for kind in data.draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3), label="mutations"):
        mutate(data.draw, mutated, kind)
    given_as = data.draw(st.sampled_from(["mapping", "text", "truncated text"]), label="given as")
    source: Any = mutated
    if given_as != "mapping":
        source = json.dumps(mutated)
        if given_as == "truncated text":
            source = source[: data.draw(st.integers(0, len(source)), label="cut")]
    try:
        accepted = validate_plan(source, REGISTRY)
    except PlanError as exc:
        assert exc.problems, "a PlanError lists at least one problem"
        assert all(isinstance(p, str) and p.strip() for p in exc.problems)
        assert str(exc).startswith("the plan is invalid")
        return
    assert_sound(accepted)


@pytest.mark.parametrize("kind", MUTATIONS)
def test_every_mutation_kind_applies(kind: str) -> None:
    """Each mutation runs on a fixed plan without raising, so the property test exercises all of them."""

    @settings(max_examples=10, deadline=None)
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        document = {
            "goal": "g",
            "goal_hash": goal_digest("g"),
            "nodes": [
                {"node_id": "load", "operation": "t.source", "inputs": {"n": lit(1)}},
                {"node_id": "up", "operation": "t.upper", "inputs": {"text": ref("load", "label")}},
            ],
        }
        mutate(data.draw, document, kind)
        try:
            assert_sound(validate_plan(document, REGISTRY))
        except PlanError as exc:
            assert exc.problems

    run()
