"""Material change: when a new plan for the same goal needs a new human decision.

A replan is material when it changes the goal hash, adds effect classes, uses operations the old plan did not,
reaches hosts or writes paths the old plan did not, routes data differently (an operation's output now feeds one it
did not feed), changes what an approved effect does (below), sends more sensitive data outside, or raises the plan's
cost (its most possible calls, its effects, the money it moves) by more than `threshold` (a fraction: 0.25 is
+25 %). It is material whatever it costs when its cause came from data or a tool's output (an error message, a
failed check's detail): text an attacker may have written decided what the new plan is. Everything is compared on
whole-plan aggregates, so a replan that splits one send into five is caught by the cost rule even though its effect
classes did not change.

What every node with an effect above `read` does is bound by digests (`effect_bindings`): its operation and the
canonical digest of each input, a literal's value or the output a reference names. An approval covers exactly those
bindings, so a changed payload, recipient, body, amount, variant, URL path or written path, a reference that now
points elsewhere, or an effect node the approved plan did not have is material, whatever field it hides in. Nodes
that only read or compute may change freely within the approved goal (a corrected filter, another sample file):
that is what carrying an approval over is for, and the label, flow and cost rules still watch what they feed.

Summaries journaled before operations, flows, paths and effect bindings were compared lack those keys; they are
compared on what they hold, so their runs replay as they ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from alicorn import canonical
from alicorn.anvil.labels import DataLabels, label_rank
from alicorn.anvil.risk import PlanRisk, assess
from alicorn.anvil.words import effect_class, host_said, label_said, path_said
from alicorn.i18n import N_, tr, tr_marked
from alicorn.plan.dsl import EFFECT_ORDER, Plan

#: Default growth of a plan's cost above which a replan is material (+25 %).
DEFAULT_THRESHOLD = 0.25

#: Effect classes whose nodes a replan may change without a new decision: they only read or compute.
FREE_EFFECTS = frozenset({"none", "read"})


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


def effect_bindings(plan: Plan, risk: PlanRisk) -> list[dict[str, Any]]:
    """What each node with an effect above `read` does: its id, operation and one digest per input.

    An input's digest is the canonical digest of its whole binding (`{"value": ...}` or `{"ref": ...}`), so every
    part of a literal (a payload's recipient and amount, a URL's path) and every reference target is bound without
    naming fields. The effect is the effective one: a read that carries private data out counts as a send."""
    effective = {n.node: n.effective for n in risk.nodes}
    return [
        {
            "node": node.node_id,
            "operation": node.operation,
            "inputs": {name: canonical.digest(b.model_dump(mode="json")) for name, b in sorted(node.inputs.items())},
        }
        for node in plan.nodes
        if effective[node.node_id] not in FREE_EFFECTS
    ]


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
        "effect_inputs": effect_bindings(plan, risk),
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


def _what_it_does(binding: dict[str, Any]) -> str:
    """A binding without its node id: an approved effect renamed (or repeated) is still the approved effect."""
    return canonical.dumps({"operation": binding["operation"], "inputs": binding["inputs"]})


def _changed_effect(binding: dict[str, Any], before: dict[str, Any] | None, language: str) -> str:
    """Why a new plan's effect node is not one the approved plan had, naming the node and the inputs that differ."""
    node, operation = binding["node"], binding["operation"]
    if before is None:
        return tr(language, "it adds an effect the approved plan did not have: node {node} ({operation})",
                  node=node, operation=operation)  # fmt: skip
    if before["operation"] != operation:
        return tr(language, "node {node} now runs {operation} instead of the approved {approved}",
                  node=node, operation=operation, approved=before["operation"])  # fmt: skip
    new, old = binding["inputs"], before["inputs"]
    parts = []
    changed = [k for k in new if k in old and new[k] != old[k]]
    added = [k for k in new if k not in old]
    removed = [k for k in old if k not in new]
    if changed:
        parts.append(tr(language, "input(s) {names} changed", names=", ".join(changed)))
    if added:
        parts.append(tr(language, "input(s) {names} added", names=", ".join(added)))
    if removed:
        parts.append(tr(language, "input(s) {names} removed", names=", ".join(removed)))
    return tr(language, "it changes what approved node {node} ({operation}) does: {parts}",
              node=node, operation=operation, parts="; ".join(parts))  # fmt: skip


def _effect_changes(old: dict[str, Any], new: dict[str, Any], language: str) -> list[str]:
    """One reason per effect node of `new` that does not do exactly what an approved effect node did."""
    if "effect_inputs" not in old or "effect_inputs" not in new:
        return []
    approved = {_what_it_does(b) for b in old["effect_inputs"]}
    by_node = {b["node"]: b for b in old["effect_inputs"]}
    return [
        _changed_effect(b, by_node.get(b["node"]), language)
        for b in new["effect_inputs"]
        if _what_it_does(b) not in approved
    ]


#: What a new plan adds that the approved one did not have, by summary key (each with the words that say so).
_ADDED = (
    ("operations", N_("it uses operation(s) the approved plan did not: {items}")),
    ("paths", N_("it writes to new destination(s): {items}")),
    ("flows", N_("it routes data differently: {items}")),
)
#: A plan's cost figures, as a reason names them.
_COSTS = (("steps", N_("possible calls")), ("effects", N_("effects")), ("amount", N_("money moved")))


def compare(
    old: dict[str, Any],
    new: dict[str, Any],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    from_data: bool = False,
    language: str = "en",
) -> MaterialChange:
    """Compare two plan summaries (see `summarize`); pure, so replay recomputes it from the journaled summary.

    `from_data`: the replan's cause came from data or tool output, which makes it material whatever it changes.
    `language`: the reasons' words (English is what `run.created` journals)."""
    reasons: list[str] = []
    if from_data:
        reasons.append(tr(language, "its cause came from the data or a tool's output (an error or a failed check), "
                                    "so a person decides"))  # fmt: skip
    if old["goal_hash"] != new["goal_hash"]:
        reasons.append(tr(language, "it changes the goal (goal hash {old}… → {new}…)",
                          old=old["goal_hash"][:12], new=new["goal_hash"][:12]))  # fmt: skip
    added = tuple(c for c in EFFECT_ORDER if c in new["classes"] and c not in old["classes"] and c != "none")
    if added:
        classes = ", ".join(effect_class(c, language) for c in added)
        reasons.append(tr(language, "it adds effect class(es) {classes}", classes=classes))
    hosts = tuple(h for h in new["hosts"] if h not in old["hosts"])
    if hosts:
        shown = ", ".join(host_said(h, language) for h in hosts)
        reasons.append(tr(language, "it reaches new external destination(s): {hosts}", hosts=shown))
    for key, sentence in _ADDED:
        found = _added(old, new, key)
        if found:
            items = ", ".join(path_said(item, language) for item in found)
            reasons.append(tr_marked(language, sentence, items=items))
    reasons += _effect_changes(old, new, language)
    if label_rank(new["outbound"]) > label_rank(old["outbound"]):
        reasons.append(tr(language, "it sends more sensitive data outside ({now}, before {before})",
                          now=label_said(new["outbound"], language),
                          before=label_said(old["outbound"], language)))  # fmt: skip
    before, after = old["cost"], new["cost"]
    for key, label in _COSTS:
        if _grew(float(before[key]), float(after[key]), threshold):
            reasons.append(
                tr(
                    language,
                    "it raises the {what} from {before:g} to {after:g}, past the threshold of +{threshold:.0%}",
                    what=tr_marked(language, label),
                    before=before[key],
                    after=after[key],
                    threshold=threshold,
                )
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
