"""The typed plan DSL: what a model may propose and the runtime will execute.

A Plan is data, never code. Every node names an operation from the registry; its inputs are JSON literals or typed
references to outputs of upstream nodes; its completion criterion is a small declarative predicate. The JSON Schema
(`alicorn schema plan`) is exported from these models and constrains model output at decoding time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, JsonValue, Tag

from alicorn import canonical

DSL_VERSION: Literal["alicorn.plan/1"] = "alicorn.plan/1"

EffectClass = Literal[
    "none", "read", "local_write", "code_execution", "external_transmission", "publication", "installation", "physical"
]
#: Effect classes in increasing order of risk. `code_execution` runs code a plan may have written (a candidate's
#: tests), in a sandbox without network, environment or files beyond its own folder: more than a local write, since
#: the code is not the operator's, less than sending anything out (a sandbox granted a host counts as that).
EFFECT_ORDER: tuple[EffectClass, ...] = (
    "none",
    "read",
    "local_write",
    "code_execution",
    "external_transmission",
    "publication",
    "installation",
    "physical",
)

IdempotencyClass = Literal["repeatable", "idempotent", "keyed", "unsafe"]
#: repeatable: no effect, run again freely; idempotent: a repeat has the same effect as one run; keyed: the
#: receiving system deduplicates by the idempotency key; unsafe: never repeated without a lookup or a human.
IDEMPOTENCY_ORDER: tuple[IdempotencyClass, ...] = ("repeatable", "idempotent", "keyed", "unsafe")

Role = Literal["planner", "executor", "researcher", "decision"]

NodeId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$", description="lower-case id, unique in the plan")]
FieldName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
Sha256Hex = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
ResourceName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_.:/-]{0,127}$")]

# NaN and infinities cannot be encoded as canonical JSON, so a plan may not hold them anywhere.
_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


def effect_rank(effect: EffectClass) -> int:
    return EFFECT_ORDER.index(effect)


class RetryPolicy(BaseModel):
    """How often a failed attempt is retried, and how long to wait between attempts."""

    model_config = _FROZEN
    max_attempts: int = Field(1, ge=1, le=20, description="total attempts, the first included")
    backoff_s: float = Field(0.0, ge=0, le=3600, description="wait before the second attempt")
    multiplier: float = Field(2.0, ge=1, le=10, description="each later wait is this many times the previous")
    max_backoff_s: float = Field(300.0, ge=0, le=86400)

    def delay_after(self, failed_attempt: int) -> float:
        """Seconds to wait after attempt number `failed_attempt` (1-based) failed."""
        return float(min(self.max_backoff_s, self.backoff_s * self.multiplier ** (failed_attempt - 1)))


class OutputRef(BaseModel):
    """A named output of another node."""

    model_config = _FROZEN
    node: NodeId
    output: FieldName


class RefInput(BaseModel):
    """An input bound to an upstream node's output: `{"ref": {"node": "load", "output": "records"}}`."""

    model_config = _FROZEN
    ref: OutputRef


class LiteralInput(BaseModel):
    """An input given as a JSON literal: `{"value": ...}`."""

    model_config = _FROZEN
    value: JsonValue


Binding = RefInput | LiteralInput

CheckOp = Literal[
    "eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "contains", "exists", "len_eq", "len_gte", "len_lte"
]


class Check(BaseModel):
    """Compare the value at `path` (dotted: `records.0.id`) with `value`."""

    model_config = _FROZEN
    kind: Literal["check"] = "check"
    path: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            pattern=r"^[^.\x00-\x1f]+(\.[^.\x00-\x1f]+)*$",
            description="dotted path; segments may hold any printable character but '.'",
        ),
    ]
    op: CheckOp
    value: JsonValue = None


class AllOf(BaseModel):
    model_config = _FROZEN
    kind: Literal["all"] = "all"
    of: Annotated[list[Criterion], Field(min_length=1, max_length=32)]


class AnyOf(BaseModel):
    model_config = _FROZEN
    kind: Literal["any"] = "any"
    of: Annotated[list[Criterion], Field(min_length=1, max_length=32)]


class Not(BaseModel):
    model_config = _FROZEN
    kind: Literal["not"] = "not"
    of: Criterion


def _criterion_kind(value: Any) -> str | None:
    """The tag of a criterion; a bare `{"path", "op", "value"}` is a check (weak models often omit the tag)."""
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind is None and "path" in value:
            return "check"
        return kind if isinstance(kind, str) else None
    return getattr(value, "kind", None)


Criterion = Annotated[
    Annotated[Check, Tag("check")]
    | Annotated[AllOf, Tag("all")]
    | Annotated[AnyOf, Tag("any")]
    | Annotated[Not, Tag("not")],
    Discriminator(_criterion_kind),
]


class StopCondition(BaseModel):
    """Stop the whole run, with `reason`, when the node fails for good, or when its output satisfies `when`."""

    model_config = _FROZEN
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    when: Criterion | None = None


class Node(BaseModel):
    """One step of a plan. Every field the seed names is here; defaults come from the operation's declaration."""

    model_config = _FROZEN
    node_id: NodeId
    operation: Annotated[str, Field(min_length=1, max_length=128)]
    inputs: dict[FieldName, Binding] = Field(default_factory=dict)
    expected_outputs: list[FieldName] = Field(default_factory=list, max_length=64)
    executor_role: Role = "executor"
    completion: Criterion | None = Field(None, description="predicate over the output that must hold for success")
    timeout_s: float | None = Field(None, gt=0, le=86400, description="defaults to the operation's")
    idempotency: IdempotencyClass | None = Field(None, description="may only be stricter than the operation's")
    retry: RetryPolicy | None = Field(None, description="defaults to the operation's")
    resources: list[ResourceName] = Field(default_factory=list, max_length=32)
    provides: list[ResourceName] = Field(default_factory=list, max_length=32)
    depends_on: list[NodeId] = Field(default_factory=list, max_length=1000)
    critical: bool = False
    alternative: NodeId | None = Field(None, description="node that runs instead if this one fails for good")
    stop: StopCondition | None = None
    description: Annotated[str, Field(max_length=1000)] = ""

    def refs(self) -> list[OutputRef]:
        return [b.ref for b in self.inputs.values() if isinstance(b, RefInput)]

    def upstream(self) -> set[str]:
        """Nodes this one waits for: explicit dependencies and every node it references."""
        return set(self.depends_on) | {r.node for r in self.refs()}


class Plan(BaseModel):
    """A goal (and its immutable hash) with the DAG of nodes that reaches it."""

    model_config = _FROZEN
    dsl: Literal["alicorn.plan/1"] = DSL_VERSION
    goal: Annotated[str, Field(min_length=1, max_length=4000)]
    goal_hash: Sha256Hex
    nodes: Annotated[list[Node], Field(min_length=1, max_length=1000)]

    def plan_hash(self) -> str:
        """SHA-256 of the plan's canonical JSON; approvals are bound to it."""
        return canonical.digest(self.model_dump(mode="json"))

    def node(self, node_id: str) -> Node:
        for n in self.nodes:
            if n.node_id == node_id:
                return n
        raise KeyError(node_id)


def goal_digest(goal: str, **terms: Any) -> str:
    """The goal hash of a goal text and any further terms of its outcome contract."""
    return canonical.digest({"goal": goal, **terms})


AllOf.model_rebuild()
AnyOf.model_rebuild()
Not.model_rebuild()
StopCondition.model_rebuild()
Node.model_rebuild()
Plan.model_rebuild()
