"""Plan validation against the operation catalogue: every problem named, with the node and the fix.

Checks: duplicate ids; unknown operations; inputs against each operation's input schema (unknown, missing, wrongly
typed literals, references to missing, non-upstream or standby nodes, to outputs that do not exist or do not fit;
literal paths that would leave the run's data root or workspace);
expected outputs; dependencies; cycles; criticality (an alternative or a stop condition); alternatives; resources
nobody provides; idempotency weaker than the operation's. Valid plans are acyclic and every reference resolves.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, TypeAdapter, ValidationError

from alicorn.errors import PlanError
from alicorn.plan.confined import ConfinedPath, path_problem
from alicorn.plan.criteria import paths
from alicorn.plan.dsl import IDEMPOTENCY_ORDER, EffectClass, IdempotencyClass, Node, Plan
from alicorn.plan.schema_types import json_types


class OperationSpec(Protocol):
    """What validation needs to know of an operation (the registry's Operation satisfies it)."""

    @property
    def name(self) -> str: ...
    @property
    def inputs(self) -> type[BaseModel]: ...
    @property
    def outputs(self) -> type[BaseModel]: ...
    @property
    def effect(self) -> EffectClass: ...
    @property
    def idempotency(self) -> IdempotencyClass: ...
    @property
    def resources(self) -> tuple[str, ...]: ...


class Catalog(Protocol):
    def __contains__(self, name: object) -> bool: ...
    def get(self, name: str) -> Any: ...
    def unknown_message(self, name: str, where: str = "") -> str: ...


#: Resources the runtime itself provides to every run.
DEFAULT_RESOURCES = frozenset({"workspace", "cpu"})


def parse_plan(source: str | bytes | Mapping[str, Any]) -> Plan:
    """Parse plan JSON (text or a decoded object) into a Plan, or raise PlanError naming each bad field."""
    if isinstance(source, (str, bytes)):
        try:
            source = json.loads(source, parse_constant=_refuse_constant)
        except RecursionError:
            raise PlanError(["the plan's JSON is nested too deeply to read; a plan is a few levels deep"]) from None
        except ValueError as exc:
            raise PlanError([f"the plan is not valid JSON: {exc}"]) from None
    if not isinstance(source, Mapping):
        raise PlanError([f"a plan must be a JSON object with goal, goal_hash and nodes; got {type(source).__name__}"])
    try:
        return Plan.model_validate(source)
    except ValidationError as exc:
        raise PlanError([_describe_error(source, err) for err in exc.errors()]) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (JSON has no NaN or infinity)")


def _describe_error(source: Mapping[str, Any], err: Any) -> str:
    loc = list(err["loc"])
    where = ".".join(str(p) for p in loc) or "plan"
    if len(loc) >= 2 and loc[0] == "nodes" and isinstance(loc[1], int):
        nodes = source.get("nodes")
        if isinstance(nodes, list) and loc[1] < len(nodes) and isinstance(nodes[loc[1]], Mapping):
            node_id = nodes[loc[1]].get("node_id")
            rest = ".".join(str(p) for p in loc[2:]) or "(the node)"
            where = f"node {node_id!r} (nodes[{loc[1]}]) field {rest}"
    return f"{where}: {err['msg']}"


def validate_plan(
    plan: Plan | str | bytes | Mapping[str, Any],
    catalog: Catalog,
    resources: Iterable[str] = DEFAULT_RESOURCES,
) -> Plan:
    """Return the plan if it is valid for `catalog` and the environment's `resources`; else raise PlanError."""
    if not isinstance(plan, Plan):
        plan = parse_plan(plan)
    problems: list[str] = []
    by_id: dict[str, Node] = {}
    for node in plan.nodes:
        if node.node_id in by_id:
            problems.append(f"node {node.node_id!r}: duplicate node_id; give every node its own id")
        by_id.setdefault(node.node_id, node)  # references to a duplicated id resolve to its first node
    ops: dict[str, OperationSpec] = {}  # by node id (first node of an id), for the sources of references
    node_ops: list[OperationSpec | None] = []  # by position: every node is checked against its own operation
    for node in plan.nodes:
        if node.operation in catalog:
            node_ops.append(catalog.get(node.operation))
            ops.setdefault(node.node_id, catalog.get(node.operation))
        else:
            node_ops.append(None)
            problems.append(catalog.unknown_message(node.operation, f"node {node.node_id!r}: "))
    standby = {n.alternative: n.node_id for n in plan.nodes if n.alternative}
    for node in plan.nodes:
        problems.extend(_check_edges(node, by_id, standby))
    cycle = find_cycle(plan.nodes)
    if cycle:
        problems.append("cycle: " + " -> ".join(cycle) + "; a node may only use outputs of nodes that run before it")
    for node, op in zip(plan.nodes, node_ops, strict=True):
        if op is not None:
            problems.extend(_check_node_against_op(node, op, by_id, ops))
        problems.extend(_check_criticality(node, by_id, ops, standby, plan))
    if not cycle:
        problems.extend(_check_resources(plan, by_id, ops, set(resources)))
    if problems:
        raise PlanError(problems)
    return plan


def _check_edges(node: Node, by_id: dict[str, Node], standby: dict[str, str]) -> list[str]:
    out = []
    for dep in node.depends_on:
        if dep == node.node_id:
            out.append(f"node {node.node_id!r}: depends on itself; remove it from depends_on")
        elif dep not in by_id:
            out.append(
                f"node {node.node_id!r}: depends_on names {dep!r}, which is not a node of this plan; "
                "fix the id or remove it"
            )
        elif dep in standby:
            out.append(
                f"node {node.node_id!r}: depends on {dep!r}, which runs only if {standby[dep]!r} fails; "
                f"depend on {standby[dep]!r} instead (its alternative stands in for it)"
            )
    for name, binding in node.inputs.items():
        ref = getattr(binding, "ref", None)
        if ref is None:
            continue
        if ref.node == node.node_id:
            out.append(
                f"node {node.node_id!r}: input {name!r} refers to the node's own output; "
                "refer to an upstream node or give a literal value"
            )
        elif ref.node not in by_id:
            out.append(f"node {node.node_id!r}: input {name!r} refers to node {ref.node!r}, which is not in the plan")
        elif ref.node in standby:
            out.append(
                f"node {node.node_id!r}: input {name!r} refers to {ref.node!r}, which runs only if "
                f"{standby[ref.node]!r} fails; refer to {standby[ref.node]!r} (its alternative's output replaces it)"
            )
    return out


def find_cycle(nodes: list[Node]) -> list[str] | None:
    """A cycle through dependencies and references, as a list of ids (first == last), or None."""
    graph = {n.node_id: sorted(n.upstream()) for n in nodes}
    state: dict[str, int] = {}
    for start in graph:
        if state.get(start):
            continue
        stack: list[tuple[str, int]] = [(start, 0)]
        path: list[str] = []
        while stack:
            current, index = stack.pop()
            if index == 0:
                state[current] = 1
                path.append(current)
            ups = [u for u in graph.get(current, []) if u in graph]
            if index < len(ups):
                stack.append((current, index + 1))
                nxt = ups[index]
                if state.get(nxt) == 1:
                    cycle = [*path[path.index(nxt) :], nxt]
                    return list(reversed(cycle))
                if not state.get(nxt):
                    stack.append((nxt, 0))
            else:
                state[current] = 2
                path.pop()
    return None


@functools.lru_cache(maxsize=1024)
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    info = model.model_fields[name]
    annotation: Any = info.annotation
    if info.metadata:
        annotation = Annotated[(annotation, *info.metadata)]
    return TypeAdapter(annotation)


@functools.lru_cache(maxsize=1024)
def _field_schema(model: type[BaseModel], name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = model.model_json_schema()
    return schema.get("properties", {}).get(name, {}), schema.get("$defs", {})


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in prop:
        prop = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
    return prop


def _compatible(
    produced: dict[str, Any],
    produced_defs: dict[str, Any],
    wanted: dict[str, Any],
    wanted_defs: dict[str, Any],
    depth: int = 0,
) -> bool:
    """Whether values of schema `produced` fit schema `wanted`, judged by JSON types, down into list items."""
    produced, wanted = _resolve(produced, produced_defs), _resolve(wanted, wanted_defs)
    have, want = json_types(produced, produced_defs), json_types(wanted, wanted_defs)
    if not have or not want:
        return True
    widened = set(have) | ({"number"} if "integer" in have else set())
    if not (widened & want or ("integer" in want and "number" in have)):
        return False
    if depth < 8 and have == {"array"} and "array" in want and "items" in produced and "items" in wanted:
        return _compatible(produced["items"], produced_defs, wanted["items"], wanted_defs, depth + 1)
    return True


def _type_name(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    prop = _resolve(prop, defs)
    kinds = "/".join(sorted(json_types(prop, defs))) or "any"
    if kinds == "array" and "items" in prop:
        return f"array of {_type_name(prop['items'], defs)}"
    return kinds


def _literal_problems(model: type[BaseModel], literals: dict[str, Any], complete: bool) -> list[tuple[str, str]]:
    """(where, message) for literal inputs the model refuses, its own field and model validators included."""
    if complete:
        try:
            model.model_validate(literals)
        except ValidationError as exc:
            return [(".".join(str(p) for p in err["loc"]), err["msg"]) for err in exc.errors()]
        return []
    out = []
    blank = model.model_construct()
    for name, value in literals.items():
        try:
            _field_adapter(model, name).validate_python(value)
            model.__pydantic_validator__.validate_assignment(blank, name, value)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or name
            out.append((where if where.startswith(name) else f"{name}.{where}", err["msg"]))
        except (AttributeError, TypeError, ValueError):
            continue  # a model validator that needs the other fields: checked when the node runs
    return out


def _check_node_against_op(
    node: Node, op: OperationSpec, by_id: dict[str, Node], ops: dict[str, OperationSpec]
) -> list[str]:
    out: list[str] = []
    where = f"node {node.node_id!r} ({op.name})"
    fields = op.inputs.model_fields
    literals: dict[str, Any] = {}
    for name, binding in node.inputs.items():
        if name not in fields:
            known = ", ".join(sorted(fields)) or "none"
            out.append(f"{where}: unknown input {name!r}; the operation takes: {known}")
            continue
        ref = getattr(binding, "ref", None)
        if ref is None:
            literals[name] = binding.value  # type: ignore[union-attr]
            continue
        source_op = ops.get(ref.node)
        if source_op is None or ref.node not in by_id:
            continue
        if ref.output not in source_op.outputs.model_fields:
            known = ", ".join(sorted(source_op.outputs.model_fields)) or "none"
            out.append(
                f"{where}: input {name!r} refers to output {ref.output!r} of {ref.node!r}, which "
                f"{source_op.name} does not produce; it produces: {known}"
            )
            continue
        produced, produced_defs = _field_schema(source_op.outputs, ref.output)
        wanted, wanted_defs = _field_schema(op.inputs, name)
        if not _compatible(produced, produced_defs, wanted, wanted_defs):
            out.append(
                f"{where}: input {name!r} wants {_type_name(wanted, wanted_defs)} but {ref.node}.{ref.output} is "
                f"{_type_name(produced, produced_defs)}; refer to an output of that type or convert it first"
            )
    out.extend(_path_problems(where, op, literals))
    missing = [n for n, info in fields.items() if info.is_required() and n not in node.inputs]
    complete = not missing and len(literals) == len(node.inputs)
    for field_path, message in _literal_problems(op.inputs, literals, complete):
        out.append(f"{where}: input {field_path!r}: {message}")
    for name, info in fields.items():
        if info.is_required() and name not in node.inputs:
            out.append(f"{where}: missing required input {name!r}")
    produced_fields = op.outputs.model_fields
    for name in node.expected_outputs:
        if name not in produced_fields:
            out.append(
                f"{where}: expected output {name!r} is not produced by {op.name}; it produces: "
                f"{', '.join(sorted(produced_fields)) or 'none'}"
            )
    criteria = [("completion criterion", node.completion)]
    if node.stop is not None:
        criteria.append(("stop condition", node.stop.when))
    for label, criterion in criteria:
        if criterion is None:
            continue
        for path in paths(criterion):
            if path.split(".")[0] not in produced_fields:
                out.append(f"{where}: {label} reads {path!r}, but {op.name} has no output {path.split('.')[0]!r}")
    if node.idempotency is not None and IDEMPOTENCY_ORDER.index(node.idempotency) < IDEMPOTENCY_ORDER.index(
        op.idempotency
    ):
        out.append(
            f"{where}: idempotency {node.idempotency!r} is weaker than the operation's {op.idempotency!r}; "
            "a plan may only make it stricter (or leave it out)"
        )
    return out


def _path_problems(where: str, op: OperationSpec, literals: dict[str, Any]) -> list[str]:
    """Literal paths into the run's data root or workspace that could only fail when the node runs: inputs marked
    CONFINED (the built-ins' RelativePath) and the one the operation declares as its `path_input`."""
    fields = op.inputs.model_fields
    declared = getattr(op, "path_input", None)
    out = []
    for name, value in sorted(literals.items()):
        if not isinstance(value, str) or name not in fields:
            continue
        if name != declared and not any(isinstance(m, ConfinedPath) for m in fields[name].metadata):
            continue
        problem = path_problem(value)
        if problem is not None:
            out.append(f"{where}: input {name!r}: path {value!r} {problem}")
    return out


def _check_criticality(
    node: Node, by_id: dict[str, Node], ops: dict[str, OperationSpec], standby: dict[str, str], plan: Plan
) -> list[str]:
    out: list[str] = []
    where = f"node {node.node_id!r}"
    if node.critical and node.alternative is None and node.stop is None:
        out.append(f"{where}: critical node needs an alternative node or an explicit stop condition")
    alt_id = node.alternative
    if alt_id is None:
        return out
    if alt_id == node.node_id:
        return [*out, f"{where}: cannot be its own alternative"]
    alt = by_id.get(alt_id)
    if alt is None:
        return [*out, f"{where}: alternative {alt_id!r} is not a node of this plan"]
    chain: list[str] = [node.node_id]
    current: str | None = alt_id
    while current is not None and current in by_id:
        if current in chain:
            return [
                *out,
                f"{where}: alternatives form a loop ({' -> '.join([*chain, current])}); no node in it would ever "
                "run first. End the chain with a node that has no alternative",
            ]
        chain.append(current)
        current = by_id[current].alternative
    owners = [n.node_id for n in plan.nodes if n.alternative == alt_id]
    if len(owners) > 1 and owners[0] != node.node_id:
        out.append(f"{where}: alternative {alt_id!r} already stands in for {owners[0]!r}; give each its own")
    if _reaches(by_id, alt_id, node.node_id) or _reaches(by_id, node.node_id, alt_id):
        out.append(
            f"{where}: alternative {alt_id!r} must not depend on it or be upstream of it; "
            "it runs only when this node has failed"
        )
    if node.node_id in ops and alt_id in ops:
        needed = set(node.expected_outputs) | {r.output for n in plan.nodes for r in n.refs() if r.node == node.node_id}
        missing = sorted(needed - set(ops[alt_id].outputs.model_fields))
        if missing:
            out.append(
                f"{where}: alternative {alt_id!r} ({ops[alt_id].name}) does not produce {', '.join(missing)}, "
                "which this node's consumers need"
            )
    return out


def _reaches(by_id: dict[str, Node], start: str, target: str) -> bool:
    """Whether `target` is upstream of `start`."""
    seen: set[str] = set()
    frontier = [start]
    while frontier:
        current = frontier.pop()
        for up in by_id[current].upstream() if current in by_id else ():
            if up == target:
                return True
            if up not in seen:
                seen.add(up)
                frontier.append(up)
    return False


def _check_resources(
    plan: Plan, by_id: dict[str, Node], ops: dict[str, OperationSpec], available: set[str]
) -> list[str]:
    out: list[str] = []
    for node in plan.nodes:
        needed = set(node.resources) | set(ops[node.node_id].resources if node.node_id in ops else ())
        for resource in sorted(needed - available):
            providers = [n.node_id for n in plan.nodes if resource in n.provides]
            if not any(_reaches(by_id, node.node_id, p) for p in providers):
                hint = (
                    f"; {', '.join(providers)} provide(s) it but do(es) not run before it — add to depends_on"
                    if providers
                    else f"; the environment provides: {', '.join(sorted(available)) or 'nothing'}"
                )
                out.append(f"node {node.node_id!r}: requires resource {resource!r} that nobody provides{hint}")
    return out
