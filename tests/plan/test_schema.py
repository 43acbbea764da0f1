"""The plan's JSON Schema (what constrains model output) and round trips through JSON with a stable plan hash."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from alicorn.plan.dsl import Plan
from alicorn.plan.validate import parse_plan

from .helpers import check, lit, node, plan, ref, source, valid
from .test_validate import rich_plan

SEED_FIELDS = {
    "node_id",
    "operation",
    "inputs",
    "expected_outputs",
    "executor_role",
    "completion",
    "timeout_s",
    "idempotency",
    "retry",
    "resources",
    "depends_on",
    "critical",
    "alternative",
    "stop",
}
JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return Plan.model_json_schema()


def _walk(value: Any) -> Any:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def test_schema_is_plain_json(schema: dict[str, Any]) -> None:
    assert json.loads(json.dumps(schema, allow_nan=False)) == schema


def test_schema_is_structurally_sound(schema: dict[str, Any]) -> None:
    defs = schema["$defs"]
    for part in _walk(schema):
        if not isinstance(part, dict):
            continue
        if "$ref" in part:
            assert part["$ref"].startswith("#/$defs/"), part
            assert part["$ref"].removeprefix("#/$defs/") in defs, part["$ref"]
        if isinstance(part.get("type"), str):
            assert part["type"] in JSON_TYPES, part
        if isinstance(part.get("pattern"), str):
            re.compile(part["pattern"])
        for key in ("anyOf", "oneOf", "allOf"):
            if key in part:
                assert isinstance(part[key], list) and part[key]
        if "required" in part:
            assert set(part["required"]) <= set(part.get("properties", {})), part


def test_schema_is_valid_json_schema_when_jsonschema_is_installed(schema: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator_cls = jsonschema.validators.validator_for(schema)
    validator_cls.check_schema(schema)
    validator = validator_cls(schema)
    validator.validate(json.loads(json.dumps(rich_plan())))
    assert not validator.is_valid({**rich_plan(), "extra": 1})
    assert not validator.is_valid({**rich_plan(), "goal_hash": "abc"})


def test_plan_schema_fields(schema: dict[str, Any]) -> None:
    assert set(schema["properties"]) == {"dsl", "goal", "goal_hash", "nodes"}
    assert set(schema["required"]) == {"goal", "goal_hash", "nodes"}
    assert schema["additionalProperties"] is False
    assert schema["properties"]["goal_hash"]["pattern"] == "^[0-9a-f]{64}$"
    assert schema["properties"]["nodes"]["minItems"] == 1


def test_node_schema_has_every_field_the_seed_names(schema: dict[str, Any]) -> None:
    node_schema = schema["$defs"]["Node"]
    assert set(node_schema["properties"]) >= SEED_FIELDS
    assert set(node_schema["required"]) == {"node_id", "operation"}
    assert node_schema["additionalProperties"] is False
    assert node_schema["properties"]["node_id"]["pattern"] == "^[a-z][a-z0-9_-]{0,63}$"
    assert set(node_schema["properties"]["executor_role"]["enum"]) == {"planner", "executor", "researcher", "decision"}


def test_every_object_in_the_schema_forbids_extra_fields(schema: dict[str, Any]) -> None:
    for name, definition in schema["$defs"].items():
        if definition.get("type") == "object" and "properties" in definition:
            assert definition.get("additionalProperties") is False, name


def test_criteria_are_a_tagged_union(schema: dict[str, Any]) -> None:
    completion = json.dumps(schema["$defs"]["Node"]["properties"]["completion"])
    for tag in ("Check", "AllOf", "AnyOf", "Not"):
        assert f"#/$defs/{tag}" in completion
    assert '"oneOf"' in completion
    tags = {schema["$defs"][t]["properties"]["kind"].get("const") for t in ("Check", "AllOf", "AnyOf", "Not")}
    assert tags == {"check", "all", "any", "not"}
    assert set(schema["$defs"]["Check"]["properties"]["op"]["enum"]) >= {"eq", "exists", "len_lte", "not_in"}


def test_a_valid_plan_round_trips_through_json(schema: dict[str, Any]) -> None:
    original = valid(rich_plan())
    dumped = original.model_dump(mode="json")
    text = json.dumps(dumped)
    again = parse_plan(text)
    assert again == original
    assert again.plan_hash() == original.plan_hash()
    assert again.model_dump(mode="json") == dumped
    assert valid(again) == original


def test_plan_hash_ignores_spelling_out_defaults_and_key_order() -> None:
    terse = plan(source("load"), node("u", "t.join", {"items": ref("load", "items"), "sep": lit(",")}))
    verbose = copy.deepcopy(terse)
    verbose["dsl"] = "alicorn.plan/1"
    verbose["nodes"][0].update(executor_role="executor", critical=False, depends_on=[], alternative=None)
    verbose["nodes"][1]["inputs"] = dict(reversed(list(verbose["nodes"][1]["inputs"].items())))
    verbose = dict(reversed(list(verbose.items())))
    assert parse_plan(terse).plan_hash() == parse_plan(verbose).plan_hash()
    assert re.fullmatch(r"[0-9a-f]{64}", parse_plan(terse).plan_hash())


CHANGES: list[tuple[str, Any]] = [
    ("node_id", "renamed"),
    ("operation", "t.send"),
    ("inputs", {"text": lit("other")}),
    ("expected_outputs", ["label"]),
    ("executor_role", "researcher"),
    ("completion", check("label", "exists")),
    ("timeout_s", 12.5),
    ("idempotency", "unsafe"),
    ("retry", {"max_attempts": 2}),
    ("resources", ["cpu"]),
    ("provides", ["gpu"]),
    ("depends_on", ["load"]),
    ("critical", True),
    ("alternative", "load"),
    ("stop", {"reason": "enough"}),
    ("description", "a note"),
]


def test_changes_cover_every_node_field() -> None:
    from alicorn.plan.dsl import Node

    assert {name for name, _ in CHANGES} == set(Node.model_fields)


@pytest.mark.parametrize(("field", "value"), CHANGES, ids=[name for name, _ in CHANGES])
def test_plan_hash_changes_when_any_node_field_changes(field: str, value: Any) -> None:
    base = plan(source("load"), node("u", "t.upper", {"text": lit("x")}))
    changed = copy.deepcopy(base)
    changed["nodes"][1][field] = value
    assert parse_plan(changed).plan_hash() != parse_plan(base).plan_hash()


def test_plan_hash_changes_with_the_goal_the_literal_values_and_the_node_order() -> None:
    base = plan(source("load"), node("u", "t.upper", {"text": lit("x")}))
    hashes = {parse_plan(base).plan_hash()}
    hashes.add(parse_plan(plan(*base["nodes"], goal="another goal")).plan_hash())
    hashes.add(parse_plan(plan(source("load"), node("u", "t.upper", {"text": lit("y")}))).plan_hash())
    hashes.add(parse_plan(plan(source("load"), node("u", "t.upper", {"text": lit(1)}))).plan_hash())
    hashes.add(parse_plan(plan(node("u", "t.upper", {"text": lit("x")}), source("load"))).plan_hash())
    hashes.add(parse_plan(plan(source("load"), node("u", "t.upper", {"text": ref("load", "label")}))).plan_hash())
    assert len(hashes) == 6


def test_a_literal_true_and_a_literal_one_hash_differently() -> None:
    one = parse_plan(plan(node("l", "t.loose", {"data": lit(1)})))
    true = parse_plan(plan(node("l", "t.loose", {"data": lit(True)})))
    assert one.plan_hash() != true.plan_hash()
