"""A plan's effects, computed from the operation catalogue (never taken from the model).

The aggregate is over the whole plan: five nodes that each send a little are one external transmission, and the
plan's class is the highest of any node, so splitting one risky operation into many small ones changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from alicorn.plan.dsl import EFFECT_ORDER, EffectClass, Plan, effect_rank
from alicorn.plan.validate import Catalog


@dataclass(frozen=True)
class PlanEffects:
    """Which nodes carry which effect class."""

    by_class: dict[EffectClass, tuple[str, ...]]

    @property
    def classes(self) -> list[EffectClass]:
        return [c for c in EFFECT_ORDER if c in self.by_class]

    @property
    def highest(self) -> EffectClass:
        return self.classes[-1] if self.by_class else "none"

    def beyond(self, limit: EffectClass) -> dict[EffectClass, tuple[str, ...]]:
        """Effect classes above `limit`, with their nodes."""
        return {c: n for c, n in self.by_class.items() if effect_rank(c) > effect_rank(limit)}

    def to_json(self) -> dict[str, list[str]]:
        return {c: list(self.by_class[c]) for c in self.classes}


def plan_effects(plan: Plan, catalog: Catalog) -> PlanEffects:
    grouped: dict[EffectClass, list[str]] = {}
    for node in plan.nodes:
        effect: EffectClass = catalog.get(node.operation).effect
        grouped.setdefault(effect, []).append(node.node_id)
    return PlanEffects({c: tuple(grouped[c]) for c in EFFECT_ORDER if c in grouped})
