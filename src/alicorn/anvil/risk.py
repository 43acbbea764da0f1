"""Whole-plan risk: effect classes and destinations aggregated over every node and over data flow.

A plan's risk is a set, not a list: five small sends to one host are one external transmission to that host, and
any node whose declared destination (`url_input`) receives private-or-higher data counts as an external
transmission of the plan, whatever its operation declares (a GET whose query carries HR records sends them); so does
any node granted hosts through its `hosts_input` (sandboxed code allowed to reach them). The
policy sees only these aggregates (classes, hosts, paths, the most sensitive outbound label, the total amount), so
splitting an operation into many small ones, renaming nodes or reordering them cannot change a decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal
from urllib.parse import urlsplit

from alicorn.anvil.labels import (
    Classification,
    DataLabels,
    NodeLabel,
    highest,
    input_default,
    label_rank,
    normalize_path,
    propagate,
)
from alicorn.anvil.words import UNKNOWN, hosts_said, label_said
from alicorn.i18n import tr
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass, LiteralInput, Node, Plan, effect_rank

EXTERNAL: EffectClass = "external_transmission"

__all__ = ["EXTERNAL", "UNKNOWN", "NodeRisk", "PlanRisk", "Upgrade", "assess"]


@dataclass(frozen=True)
class Upgrade:
    """Why a node counts as an external transmission though it declares less: it `sends` data labelled `label`
    (from its `carriers`) to `hosts`, or it is `granted` network access to `hosts`."""

    form: Literal["sends", "granted"]
    hosts: tuple[str, ...]
    label: str = ""
    carriers: tuple[str, ...] = ()

    def words(self, language: str = "en") -> str:
        """The reason in `language` (English: what `run.created` journals, as it always has)."""
        if self.form == "granted":
            where = ", ".join(hosts_said([h], language) for h in self.hosts)
            return tr(language, "is granted network access to {where}: an external transmission", where=where)
        origin = tr(language, " from {carriers}", carriers=", ".join(self.carriers)) if self.carriers else ""
        return tr(
            language,
            "sends {label} data{origin} to {where}: an external transmission",
            label=label_said(self.label, language),
            origin=origin,
            where=hosts_said(self.hosts, language),
        )


@dataclass(frozen=True)
class NodeRisk:
    """One node's contribution: its declared and effective effect, where it reaches, what data it carries."""

    node: str
    operation: str
    declared: EffectClass
    effective: EffectClass
    carries: Classification
    hosts: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    amount: float = 0.0
    amount_unknown: bool = False
    upgrade: Upgrade | None = None

    @property
    def upgraded_because(self) -> str | None:
        """Why it counts as more than it declares, in English (None when it does not)."""
        return self.upgrade.words() if self.upgrade is not None else None


@dataclass(frozen=True)
class PlanRisk:
    """The aggregate risk of a plan; every property is invariant under splitting, renaming and reordering."""

    nodes: tuple[NodeRisk, ...]

    @cached_property
    def classes(self) -> tuple[EffectClass, ...]:
        found = {n.effective for n in self.nodes}
        return tuple(c for c in EFFECT_ORDER if c in found)

    @property
    def highest(self) -> EffectClass:
        return self.classes[-1] if self.nodes else "none"

    @property
    def rank(self) -> int:
        return effect_rank(self.highest)

    @cached_property
    def hosts(self) -> tuple[str, ...]:
        return tuple(sorted({h for n in self.nodes for h in n.hosts}))

    @cached_property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted({p for n in self.nodes for p in n.paths}))

    @cached_property
    def destinations(self) -> tuple[str, ...]:
        return tuple([f"host:{h}" for h in self.hosts] + [f"path:{p}" for p in self.paths])

    @cached_property
    def outbound(self) -> Classification:
        """The most sensitive data that reaches an outside host (public when nothing leaves)."""
        return highest(n.carries for n in self.nodes if n.hosts)

    @property
    def amount(self) -> float:
        return float(sum(n.amount for n in self.nodes))

    @property
    def amount_unknown(self) -> bool:
        return any(n.amount_unknown for n in self.nodes)

    @cached_property
    def operations(self) -> tuple[str, ...]:
        return tuple(sorted({n.operation for n in self.nodes}))

    def nodes_of(self, operation: str) -> tuple[str, ...]:
        return tuple(n.node for n in self.nodes if n.operation == operation)

    def effective_of(self, operation: str) -> EffectClass:
        """The highest effective class of the operation's nodes in this plan."""
        ranks = [effect_rank(n.effective) for n in self.nodes if n.operation == operation]
        return EFFECT_ORDER[max(ranks, default=0)]

    def by_class(self) -> dict[str, list[str]]:
        grouped: dict[str, list[str]] = {}
        for n in self.nodes:
            grouped.setdefault(n.effective, []).append(n.node)
        return {c: grouped[c] for c in EFFECT_ORDER if c in grouped}

    def upgrades(self, language: str = "en") -> list[str]:
        """Why nodes count as more than they declare (data flow), in words (English: what run.created journals)."""
        return [f"{n.node} ({n.operation}) {n.upgrade.words(language)}" for n in self.nodes if n.upgrade is not None]

    def to_json(self) -> dict[str, Any]:
        """What run.created journals: the aggregates, per-class nodes, and the data-flow upgrades."""
        return {
            "classes": list(self.classes),
            "by_class": self.by_class(),
            "hosts": list(self.hosts),
            "paths": list(self.paths),
            "outbound": self.outbound,
            "amount": self.amount,
            "upgrades": self.upgrades(),
        }


def _host(binding: Any) -> str:
    if isinstance(binding, LiteralInput) and isinstance(binding.value, str):
        return (urlsplit(binding.value).hostname or UNKNOWN).lower()
    return UNKNOWN


def _granted_hosts(binding: Any) -> tuple[str, ...]:
    """The hosts a node's network grant names: literal names, or UNKNOWN for a list known only at run time."""
    if isinstance(binding, LiteralInput):
        if isinstance(binding.value, list):
            return tuple(sorted({str(h).lower() for h in binding.value}))
        return (UNKNOWN,) if binding.value is not None else ()
    return (UNKNOWN,)


def _path(binding: Any) -> str:
    if isinstance(binding, LiteralInput) and isinstance(binding.value, str):
        return normalize_path(binding.value)
    return UNKNOWN


def _bound(node: Node, op: Any, name: str | None) -> Any:
    """The node's binding of input `name`, or its default as a literal when the node leaves it out (a node that
    reaches a URL, a path or an amount by default reaches it all the same); None when there is neither."""
    if name is None:
        return None
    if name in node.inputs:
        return node.inputs[name]
    default = input_default(op, name)
    return None if default is None else LiteralInput(value=default)


def _node_risk(node: Node, op: Any, label: NodeLabel) -> NodeRisk:
    declared: EffectClass = op.effect
    effective = declared
    hosts: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    amount, amount_unknown = 0.0, False
    upgraded: Upgrade | None = None
    if (url := _bound(node, op, op.url_input)) is not None:
        hosts = (_host(url),)
        if label_rank(label.inputs) >= label_rank("private") and effect_rank(declared) < effect_rank(EXTERNAL):
            effective = EXTERNAL
            upgraded = Upgrade("sends", hosts[:1], label.inputs, tuple(label.carriers))
    if (grant := _bound(node, op, op.hosts_input)) is not None:
        granted = _granted_hosts(grant)
        if granted:
            hosts = tuple(sorted(set(hosts) | set(granted)))
            if effect_rank(effective) < effect_rank(EXTERNAL):
                effective = EXTERNAL
                upgraded = Upgrade("granted", granted)
    if declared in ("local_write", "code_execution") and (path := _bound(node, op, op.path_input)) is not None:
        paths = (_path(path),)
    if (money := _bound(node, op, op.amount_input)) is not None:
        value = money.value if isinstance(money, LiteralInput) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            amount = abs(float(value))
        else:
            amount_unknown = True
    return NodeRisk(
        node.node_id, op.name, declared, effective, label.inputs, hosts, paths, amount, amount_unknown, upgraded
    )


def assess(plan: Plan, catalog: Any, labels: DataLabels | None = None) -> PlanRisk:
    """The risk of a valid plan under the operator's data labels."""
    node_labels = propagate(plan, catalog, labels or DataLabels())
    return PlanRisk(tuple(_node_risk(n, catalog.get(n.operation), node_labels[n.node_id]) for n in plan.nodes))
