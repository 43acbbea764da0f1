"""parse_plan: every malformed plan becomes a PlanError naming where it is wrong; no pydantic error leaks out."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from alicorn.errors import PlanError
from alicorn.plan.dsl import DSL_VERSION, Plan
from alicorn.plan.validate import parse_plan, validate_plan

from .helpers import GOAL_HASH, REGISTRY, check, lit, node, plan, ref, source


def parse_problems(document: Any) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(document)
    found = caught.value.problems
    assert found and all(isinstance(p, str) and p for p in found)
    return found


def test_a_minimal_plan_parses_with_defaults() -> None:
    parsed = parse_plan(plan(node("a", "t.upper", {"text": lit("x")})))
    assert isinstance(parsed, Plan)
    assert parsed.dsl == DSL_VERSION
    only = parsed.nodes[0]
    assert only.executor_role == "executor"
    assert (only.critical, only.alternative, only.stop, only.retry, only.timeout_s, only.idempotency) == (
        False,
        None,
        None,
        None,
        None,
        None,
    )
    assert only.depends_on == [] and only.resources == [] and only.expected_outputs == []


@pytest.mark.parametrize("text", ["{", '{"goal": }', "", "plan: yes", b"\xff\xfe\x00"])
def test_malformed_json(text: str | bytes) -> None:
    (message,) = parse_problems(text)
    assert message.startswith("the plan is not valid JSON")


@pytest.mark.parametrize(("text", "kind"), [("[]", "list"), ("3", "int"), ("null", "NoneType"), ('"plan"', "str")])
def test_json_that_is_not_an_object(text: str, kind: str) -> None:
    (message,) = parse_problems(text)
    assert "a plan must be a JSON object with goal, goal_hash and nodes" in message
    assert message.endswith(kind)


def test_validate_plan_reports_parse_problems_as_plan_errors() -> None:
    with pytest.raises(PlanError) as caught:
        validate_plan("[1, 2]", REGISTRY)
    assert "must be a JSON object" in caught.value.problems[0]


@pytest.mark.parametrize("bad_id", ["Load", "1load", "load step", "", "a" * 65, "lōad", "load!"])
def test_bad_node_id_names_the_node_and_its_position(bad_id: str) -> None:
    document = plan(source("first"), source("second"), node(bad_id, "t.upper", {"text": lit("x")}))
    (message,) = parse_problems(document)
    assert message.startswith(f"node {bad_id!r} (nodes[2]) field node_id:")
    assert "pattern" in message


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"colour": "blue"}, "field colour: Extra inputs are not permitted"),
        ({"retry": {"max_attempts": 2, "jitter": 1}}, "field retry.jitter: Extra inputs are not permitted"),
        ({"stop": {"reason": "r", "why": "w"}}, "field stop.why: Extra inputs are not permitted"),
        ({"completion": {**check("count", "eq", 1), "strict": True}}, "field completion.check.strict: Extra inputs"),
    ],
)
def test_extra_fields_on_a_node_are_rejected(change: dict, where: str) -> None:
    document = plan(source("load", **change))
    found = parse_problems(document)
    assert any(p.startswith("node 'load' (nodes[0]) ") and where in p for p in found), found


def test_extra_fields_on_a_binding_or_a_reference_are_rejected() -> None:
    document = plan(
        source("load"),
        node("u", "t.upper", {"text": {"ref": {"node": "load", "output": "label", "index": 0}}}),
        node("v", "t.upper", {"text": {"value": "x", "ref": {"node": "load", "output": "label"}}}),
    )
    found = parse_problems(document)
    assert any(p.startswith("node 'u' (nodes[1]) field inputs.text") and "index" in p for p in found), found
    assert any(p.startswith("node 'v' (nodes[2]) field inputs.text") for p in found), found


def test_extra_top_level_fields_are_rejected() -> None:
    found = parse_problems({**plan(source()), "author": "model"})
    assert found == ["author: Extra inputs are not permitted"]


@pytest.mark.parametrize("goal_hash", ["abc", GOAL_HASH.upper(), GOAL_HASH[:-1], GOAL_HASH + "0", "g" * 64, 7])
def test_goal_hash_must_be_64_lower_case_hex(goal_hash: Any) -> None:
    found = parse_problems({**plan(source()), "goal_hash": goal_hash})
    assert len(found) == 1 and found[0].startswith("goal_hash: ")


@pytest.mark.parametrize(
    ("change", "start"),
    [
        ({"dsl": "alicorn.plan/2"}, "dsl: "),
        ({"goal": ""}, "goal: "),
        ({"nodes": []}, "nodes: "),
        ({"nodes": {"load": source()}}, "nodes: "),
        ({"nodes": [5]}, "nodes.0: "),
    ],
)
def test_bad_plan_level_fields(change: dict, start: str) -> None:
    found = parse_problems({**plan(source()), **change})
    assert found[0].startswith(start), found


@pytest.mark.parametrize("missing", ["goal", "goal_hash", "nodes"])
def test_missing_plan_level_fields(missing: str) -> None:
    document = plan(source())
    del document[missing]
    assert parse_problems(document) == [f"{missing}: Field required"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"operation": ""}, "operation"),
        ({"executor_role": "god"}, "executor_role"),
        ({"timeout_s": 0}, "timeout_s"),
        ({"timeout_s": -5}, "timeout_s"),
        ({"timeout_s": 86401}, "timeout_s"),
        ({"idempotency": "sometimes"}, "idempotency"),
        ({"retry": {"max_attempts": 0}}, "retry.max_attempts"),
        ({"retry": {"max_attempts": 21}}, "retry.max_attempts"),
        ({"retry": {"multiplier": 0.5}}, "retry.multiplier"),
        ({"resources": ["GPU"]}, "resources.0"),
        ({"provides": ["bad resource"]}, "provides.0"),
        ({"depends_on": ["Not-An-Id"]}, "depends_on.0"),
        ({"alternative": "X"}, "alternative"),
        ({"critical": "very"}, "critical"),
        ({"stop": {"reason": ""}}, "stop.reason"),
        ({"expected_outputs": ["has space"]}, "expected_outputs.0"),
        ({"inputs": {"bad-name": lit(1)}}, "inputs.bad-name.[key]"),
        ({"completion": check("a..b", "eq", 1)}, "completion.check.path"),
        ({"completion": check("count", "approx", 1)}, "completion.check.op"),
        ({"completion": {"kind": "xor", "of": []}}, "completion"),
        ({"completion": {"kind": "all", "of": []}}, "completion.all.of"),
        ({"description": "x" * 1001}, "description"),
    ],
)
def test_bad_node_fields_name_the_node_and_the_field(change: dict, field: str) -> None:
    found = parse_problems(plan(source("a"), {**source("load"), **change}))
    assert any(p.startswith(f"node 'load' (nodes[1]) field {field}") for p in found), found


def test_a_node_without_an_id_is_still_located() -> None:
    found = parse_problems(plan(source("a"), {"operation": "t.upper"}))
    assert found == ["node None (nodes[1]) field node_id: Field required"]


def test_a_binding_that_is_neither_value_nor_ref() -> None:
    found = parse_problems(plan(node("u", "t.upper", {"text": "plain string"})))
    assert all(p.startswith("node 'u' (nodes[0]) field inputs.text") for p in found), found


def test_a_ref_missing_its_output() -> None:
    found = parse_problems(plan(source(), node("u", "t.upper", {"text": {"ref": {"node": "load"}}})))
    assert any("inputs.text.RefInput.ref.output: Field required" in p for p in found), found


def test_text_bytes_and_mapping_parse_to_the_same_plan() -> None:
    document = plan(source(), node("u", "t.upper", {"text": ref("load", "label")}))
    text = json.dumps(document)
    assert parse_plan(text) == parse_plan(text.encode()) == parse_plan(document)


def test_a_literal_that_looks_like_a_ref_stays_a_literal() -> None:
    parsed = parse_plan(plan(node("l", "t.loose", {"data": lit({"ref": {"node": "x", "output": "y"}})})))
    assert parsed.nodes[0].refs() == []


def test_utf8_bytes_with_or_without_a_bom_parse() -> None:
    text = json.dumps(plan(source(), goal="три варианта расписания ✓"), ensure_ascii=False)
    assert parse_plan(text.encode()).goal == "три варианта расписания ✓"
    assert parse_plan(b"\xef\xbb\xbf" + text.encode()) == parse_plan(text)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_rejected_by_parse(constant: str) -> None:
    text = json.dumps(plan(node("l", "t.loose", {"data": lit("PLACEHOLDER")}))).replace('"PLACEHOLDER"', constant)
    parse_problems(text)


def test_non_finite_floats_in_a_mapping_are_rejected() -> None:
    parse_problems(plan(node("l", "t.loose", {"data": lit(math.inf)})))


def test_deeply_nested_json_text_is_a_plan_error() -> None:
    parse_problems("[" * 100_000 + "]" * 100_000)


def test_deeply_nested_mapping_is_a_plan_error() -> None:
    criterion: dict = check("count", "exists")
    for _ in range(1_000):
        criterion = {"kind": "not", "of": criterion}
    found = parse_problems(plan(source("load", completion=criterion)))
    assert found[0].startswith("node 'load' (nodes[0]) field completion")
