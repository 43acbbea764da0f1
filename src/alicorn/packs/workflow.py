"""A workflow template: what a pack gives Norbi Core's planner for one kind of request.

A weak local model cannot be trusted to write a whole DAG, so each pack offers a template the model *selects and
fills*: a small, flat parameter model (the slots; its JSON Schema constrains the model's answer), a deterministic
`extract` that finds slot values in the utterance in any supported language (a second, checkable signal), and a
`build` that turns filled slots into the plan's nodes. Everything a run needs is in the pack: its operations (merged
into the app's registry), its sample data (the run's data root unless the project names one), the acceptance
criteria it asks the validator to check, and how to read the run's artifact back from the run's outputs.

    utterance ─► extract(text, language, now) ─┐
    model ─► parameters (schema-constrained) ──┴► params ─► missing required slots? ─► clarifying question
                                                    │
                                                    └► build(params, forbidden) ─► nodes (no node whose effect
                                                       class is forbidden) ─► Plan ─► Anvil ─► runtime
    run state ─► artifact_of ─► validator(artifact, criteria(params)) ─► ValidationReport ─► summarize ─► report
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from alicorn.ops.registry import Operation
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.validate.base import ArtifactType, ValidationReport

#: Languages a pack's questions and examples must cover.
LANGUAGES = ("en", "pl", "ru")


@dataclass(frozen=True)
class ResultSummary:
    """What the report shows of a result: headline lines, figures, and the conflicts a human should see."""

    lines: tuple[str, ...]
    metrics: Mapping[str, Any] = field(default_factory=dict)
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Workflow:
    """One template (see the module docstring). Every callable is pure: same inputs, same result.

    - `parameters`: flat pydantic model; a field without a default is a *required slot*. Keep fields to
      str / int / bool / Literal / short lists: a 135M-parameter model must be able to fill it.
    - `extract(text, language, now)`: slot values found in the utterance (only those found; `{}` is fine).
      `now` is the intake time (journaled), so "next month" / "yesterday" resolve the same way on replay.
    - `questions[slot][language]`: the clarifying question asked when a required slot is missing.
    - `build(params, forbidden)`: the nodes. Must leave out every node whose operation's effect class is in
      `forbidden` (and say so in `removed`); optional effect nodes are included only when a slot asks for them.
    - `artifact_of(state)`: the artifact the validator checks, read from the run's node outputs (None if absent).
    - `criteria(params)`: the acceptance criteria handed to the validator (JSON), part of the outcome contract.
    - `validator(artifact, criteria)`: one of alicorn.validate's `validate_<type>` functions.
    - `summarize(artifact, report)`: headline, metrics, conflicts for the final report.
    """

    id: str
    title: str
    summary: str
    artifact: ArtifactType
    parameters: type[BaseModel]
    operations: tuple[Operation, ...]
    examples: Mapping[str, tuple[str, ...]]
    data_dir: Path
    extract: Callable[[str, str, datetime], dict[str, Any]]
    questions: Mapping[str, Mapping[str, str]]
    build: Callable[[BaseModel, frozenset[EffectClass]], BuiltPlan]
    artifact_of: Callable[[RunState], dict[str, Any] | None]
    criteria: Callable[[BaseModel], dict[str, Any]]
    validator: Callable[[Mapping[str, Any] | None, Mapping[str, Any]], ValidationReport]
    summarize: Callable[[Mapping[str, Any] | None, ValidationReport], ResultSummary]

    def required_slots(self) -> list[str]:
        return [name for name, f in self.parameters.model_fields.items() if f.is_required()]

    def question(self, slot: str, language: str) -> str:
        """The clarifying question for `slot` in `language` (English when the pack has none for it)."""
        texts = self.questions.get(slot, {})
        return texts.get(language) or texts.get("en") or f"Please give a value for {slot}."


@dataclass(frozen=True)
class BuiltPlan:
    """A template's nodes, and the optional nodes it left out because their effect class is forbidden."""

    nodes: tuple[Node, ...]
    removed: tuple[str, ...] = ()  # sentences: "publish (publication): left out, the request forbids publication"


def without_forbidden(
    nodes: Sequence[Node], forbidden: frozenset[EffectClass], effect_of: Mapping[str, EffectClass]
) -> BuiltPlan:
    """`nodes` (in dependency order) less those whose effect class is forbidden and those upstream of which a node
    was left out, each removal said in a sentence. `effect_of` maps the template's operation names to their class."""
    kept: list[Node] = []
    removed: list[str] = []
    gone: set[str] = set()
    for node in nodes:  # in dependency order, so one pass sees every upstream decision
        effect = effect_of[node.operation]
        if effect in forbidden:
            gone.add(node.node_id)
            removed.append(f"{node.node_id} ({node.operation}, {effect}): left out, the request forbids {effect}")
        elif lost := sorted(node.upstream() & gone):
            gone.add(node.node_id)
            removed.append(f"{node.node_id} ({node.operation}): left out, it needs {', '.join(lost)}, left out too")
        else:
            kept.append(node)
    return BuiltPlan(nodes=tuple(kept), removed=tuple(removed))
