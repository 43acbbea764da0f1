"""Material change: when a new plan for the same goal needs a new human decision.

A replan is material when it changes the goal hash, adds effect classes, uses operations the old plan did not,
reaches hosts or writes paths the old plan did not, routes data differently (an operation's output now feeds one it
did not feed), sends more sensitive data outside, or raises the plan's cost (its most possible calls, its effects,
the money it moves) by more than `threshold` (a fraction: 0.25 is +25 %). It is material whatever it costs when its
cause came from data or a tool's output (an error message, a failed check's detail): text an attacker may have
written decided what the new plan is. Everything is compared on whole-plan aggregates, so a replan that splits one
send into five is caught by the cost rule even though its effect classes did not change. Anything else may proceed
within the approved goal. Core calls `material_change`; `Executor.replan` applies it.

Summaries journaled before operations, flows and paths were compared lack those keys; they are compared on what
they hold, so their runs replay as they ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from alicorn.anvil.labels import DataLabels, label_rank
from alicorn.anvil.risk import PlanRisk, assess
from alicorn.plan.dsl import EFFECT_ORDER, Plan

#: Default growth of a plan's cost above which a replan is material (+25 %).
DEFAULT_THRESHOLD = 0.25


@dataclass(frozen=True)
class PlanCost:
    """What a plan may cost at most: calls (every node's attempts), effects (nodes with one), money moved."""

    steps: int
    effects: int
    amount: float

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "effects": self.effects, "amount": self.amount}


def plan_cost(plan: Plan, catalog: Any, risk: PlanRisk) -> PlanCost:
    steps = 0
    for node in plan.nodes:
        policy = node.retry or catalog.get(node.operation).retry
        steps += policy.max_attempts
    effects = sum(1 for n in risk.nodes if n.effective not in ("none", "read"))
    return PlanCost(steps, effects, risk.amount)


def data_flows(plan: Plan) -> list[str]:
    """Which operation's output feeds which operation (`load→send`), over every reference of the plan."""
    operation = {n.node_id: n.operation for n in plan.nodes}
    return sorted({f"{operation[ref.node]}→{n.operation}" for n in plan.nodes for ref in n.refs()})


def summarize(plan: Plan, catalog: Any, risk: PlanRisk) -> dict[str, Any]:
    """The facts of a plan a later replan is compared with (journaled with the successor run)."""
    return {
        "plan_hash": plan.plan_hash(),
        "goal_hash": plan.goal_hash,
        "classes": list(risk.classes),
        "hosts": list(risk.hosts),
        "outbound": risk.outbound,
        "cost": plan_cost(plan, catalog, risk).to_json(),
        "operations": list(risk.operations),
        "paths": list(risk.paths),
        "flows": data_flows(plan),
    }


@dataclass(frozen=True)
class MaterialChange:
    """Whether a replan needs a new human decision, and every reason why."""

    material: bool
    reasons: tuple[str, ...] = ()
    added_effects: tuple[str, ...] = ()
    new_hosts: tuple[str, ...] = ()
    cost: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "material": self.material,
            "reasons": list(self.reasons),
            "added_effects": list(self.added_effects),
            "new_hosts": list(self.new_hosts),
            "cost": self.cost,
        }


def _grew(before: float, after: float, threshold: float) -> bool:
    if after <= before:
        return False
    return before == 0 or after > before * (1 + threshold)


def _added(old: dict[str, Any], new: dict[str, Any], key: str) -> list[str]:
    """What `new[key]` holds that `old[key]` does not; nothing when either summary predates the key."""
    if key not in old or key not in new:
        return []
    return [item for item in new[key] if item not in old[key]]


def compare(
    old: dict[str, Any], new: dict[str, Any], threshold: float = DEFAULT_THRESHOLD, *, from_data: bool = False
) -> MaterialChange:
    """Compare two plan summaries (see `summarize`); pure, so replay recomputes it from the journaled summary.

    `from_data`: the replan's cause came from data or tool output, which makes it material whatever it changes."""
    reasons: list[str] = []
    if from_data:
        reasons.append(
            "its cause came from the data or a tool's output (an error or a failed check), so a person decides"
        )
    if old["goal_hash"] != new["goal_hash"]:
        reasons.append(f"it changes the goal (goal hash {old['goal_hash'][:12]}… → {new['goal_hash'][:12]}…)")
    added = tuple(c for c in EFFECT_ORDER if c in new["classes"] and c not in old["classes"] and c != "none")
    if added:
        reasons.append(f"it adds effect class(es) {', '.join(added)}")
    hosts = tuple(h for h in new["hosts"] if h not in old["hosts"])
    if hosts:
        shown = ", ".join("a host computed at run time" if h == "?" else h for h in hosts)
        reasons.append(f"it reaches new external destination(s): {shown}")
    for key, sentence in (
        ("operations", "it uses operation(s) the approved plan did not: {}"),
        ("paths", "it writes to new destination(s): {}"),
        ("flows", "it routes data differently: {}"),
    ):
        found = _added(old, new, key)
        if found:
            items = ("a path computed at run time" if item == "?" else item for item in found)
            reasons.append(sentence.format(", ".join(items)))
    if label_rank(new["outbound"]) > label_rank(old["outbound"]):
        reasons.append(f"it sends more sensitive data outside ({new['outbound']}, before {old['outbound']})")
    before, after = old["cost"], new["cost"]
    for key, label in (("steps", "possible calls"), ("effects", "effects"), ("amount", "money moved")):
        if _grew(float(before[key]), float(after[key]), threshold):
            reasons.append(
                f"it raises the {label} from {before[key]:g} to {after[key]:g}, past the threshold of +{threshold:.0%}"
            )
    return MaterialChange(bool(reasons), tuple(reasons), added, hosts, {"before": before, "after": after})


def material_change(
    old_plan: Plan,
    new_plan: Plan,
    registry: Any,
    threshold: float = DEFAULT_THRESHOLD,
    labels: DataLabels | None = None,
    *,
    from_data: bool = False,
) -> MaterialChange:
    """Whether replacing `old_plan` with `new_plan` needs a new human decision (both plans must be valid)."""
    old = summarize(old_plan, registry, assess(old_plan, registry, labels))
    new = summarize(new_plan, registry, assess(new_plan, registry, labels))
    return compare(old, new, threshold, from_data=from_data)
