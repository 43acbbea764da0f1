"""A small operation registry and plan builders for plan tests (DSL, validation, criteria, effects).

The registry is built here, not taken from the built-ins, so every test controls the operations' input and output
types, effect classes, idempotency and resources it relies on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from alicorn.errors import OperationError, PlanError
from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.plan.dsl import EffectClass, IdempotencyClass, Plan, goal_digest
from alicorn.plan.validate import DEFAULT_RESOURCES, validate_plan

GOAL = "prepare three schedule variants, don't publish"
GOAL_HASH = goal_digest(GOAL)


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceIn(_M):
    n: int = Field(ge=0, le=100)
    tag: str = "src"


class SourceOut(_M):
    items: list[str]
    count: int
    label: str


class JoinIn(_M):
    items: list[str]
    sep: str = Field(",", max_length=3)


class JoinOut(_M):
    label: str
    count: int


class TextIn(_M):
    text: str


class LabelOut(_M):
    label: str


class AddIn(_M):
    a: int
    b: int = 0


class CountOut(_M):
    count: int


class ScaleIn(_M):
    x: float
    factor: float = 1.0


class ScaleOut(_M):
    value: float


class SendIn(_M):
    text: str
    to: str = "ops@example.org"


class Receipt(_M):
    receipt: str


class AnyIn(_M):
    data: JsonValue = None


class LooseOut(_M):
    maybe: str | None = None
    anything: Any = None
    items: list[int] = Field(default_factory=list)


def never_runs(inputs: Any, ctx: OperationContext) -> BaseModel:
    raise OperationError("plan tests never run operations")


def _op(
    name: str,
    inputs: type[BaseModel],
    outputs: type[BaseModel],
    effect: EffectClass = "none",
    idempotency: IdempotencyClass = "repeatable",
    resources: tuple[str, ...] = (),
) -> Operation:
    return Operation(
        name, f"test operation {name}", inputs, outputs, effect, idempotency, never_runs, resources=resources
    )


def make_operations() -> list[Operation]:
    """Operations over three JSON types (string, integer, list of strings) with every effect class."""
    return [
        _op("t.source", SourceIn, SourceOut, "read"),
        _op("t.join", JoinIn, JoinOut),
        _op("t.upper", TextIn, LabelOut),
        _op("t.add", AddIn, CountOut),
        _op("t.scale", ScaleIn, ScaleOut),
        _op("t.loose", AnyIn, LooseOut),
        _op("t.write", TextIn, LabelOut, "local_write", "idempotent", resources=("workspace",)),
        _op("t.send", SendIn, Receipt, "external_transmission", "keyed"),
        _op("t.publish", TextIn, Receipt, "publication", "unsafe"),
        _op("t.install", TextIn, Receipt, "installation", "unsafe"),
        _op("t.actuate", TextIn, Receipt, "physical", "unsafe"),
        _op("t.train", AddIn, CountOut, "none", "repeatable", resources=("gpu",)),
    ]


REGISTRY = Registry(make_operations())


def lit(value: Any) -> dict[str, Any]:
    return {"value": value}


def ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def node(node_id: str, operation: str, inputs: Mapping[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"node_id": node_id, "operation": operation, "inputs": dict(inputs or {}), **fields}


def source(node_id: str = "load", **fields: Any) -> dict[str, Any]:
    return node(node_id, "t.source", {"n": lit(3)}, **fields)


def plan(*nodes: dict[str, Any], goal: str = GOAL) -> dict[str, Any]:
    return {"goal": goal, "goal_hash": goal_digest(goal), "nodes": list(nodes)}


def check(path: str, op: str, value: Any = None) -> dict[str, Any]:
    return {"kind": "check", "path": path, "op": op, "value": value}


def valid(document: Mapping[str, Any] | Plan, resources: Iterable[str] = DEFAULT_RESOURCES) -> Plan:
    return validate_plan(document, REGISTRY, resources)


def problems(document: Any, resources: Iterable[str] = DEFAULT_RESOURCES) -> list[str]:
    """The problems validation reports for `document` (which must be rejected)."""
    with pytest.raises(PlanError) as caught:
        validate_plan(document, REGISTRY, resources)
    found = caught.value.problems
    assert found, "a PlanError must list at least one problem"
    assert all(isinstance(p, str) and p.strip() for p in found)
    return found


def the_problem(found: list[str], node_id: str, *fragments: str) -> str:
    """The one problem that names `node_id` and contains every fragment; fails showing all problems if none does."""
    named = f"node {node_id!r}"
    matching = [p for p in found if named in p and all(f in p for f in fragments)]
    assert matching, f"no problem names {named} with {fragments!r}; got:\n" + "\n".join(found)
    return matching[0]
