"""Data-flow labels: how sensitive the data each node handles is, from its sources through every reference.

Classifications are ordered public < internal < private < secret. Sources are the files an operation reads (its
declared `path_input`), classified by the operator's patterns (`[data] private = ["hr/**"]` in alicorn.toml), with
`default` for files no pattern names. Literal inputs are public. A node's output carries the highest label of its
inputs and its source; a reference carries its node's label (or, for a node with an alternative, the highest label
either could produce). A path computed at run time (a reference) is unknown when the plan is judged, so it gets the
highest label the operator's patterns can give: being wrong the safe way.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alicorn.plan.dsl import LiteralInput, Plan

Classification = Literal["public", "internal", "private", "secret"]
#: Classifications in increasing order of sensitivity.
LABEL_ORDER: tuple[Classification, ...] = ("public", "internal", "private", "secret")

Pattern = str


def label_rank(label: Classification) -> int:
    return LABEL_ORDER.index(label)


def highest(labels: Any) -> Classification:
    """The most sensitive of `labels` (public for none)."""
    best: Classification = "public"
    for label in labels:
        if label_rank(label) > label_rank(best):
            best = label
    return best


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            if pattern.startswith("/", i):  # `a/**/b` also matches `a/b`
                out[-1] = "(?:.*/)?"
                i += 1
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def glob_match(pattern: str, value: str) -> bool:
    """Shell-style match where `*` stays within one path segment and `**` crosses segments (`hr/**`)."""
    return _compiled(pattern).fullmatch(value) is not None


def normalize_path(path: str) -> str:
    """A relative path as patterns see it: forward slashes, no `./` segments, no leading slash."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


class DataLabels(BaseModel):
    """The operator's classification of data files (`[data]` in alicorn.toml): glob patterns per level."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    public: tuple[Pattern, ...] = ()
    internal: tuple[Pattern, ...] = ()
    private: tuple[Pattern, ...] = ()
    secret: tuple[Pattern, ...] = ()
    default: Classification = Field("internal", description="the label of a data file no pattern names")

    @field_validator("public", "internal", "private", "secret")
    @classmethod
    def _patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            if not pattern.strip() or pattern.startswith("/") or ".." in pattern.split("/"):
                raise ValueError(f"{pattern!r} is not a pattern relative to the data root (e.g. 'hr/**')")
        return tuple(sorted(set(patterns)))

    def classify(self, path: str) -> Classification:
        """The label of the data file at `path` (relative to the data root): its most sensitive matching level."""
        value = normalize_path(path)
        for level in reversed(LABEL_ORDER):
            if any(glob_match(p, value) for p in getattr(self, level)):
                return level
        return self.default

    def worst(self) -> Classification:
        """The most sensitive label any file could get: what a path computed at run time is assumed to be."""
        return highest([self.default, *(level for level in LABEL_ORDER if getattr(self, level))])


@dataclass(frozen=True)
class NodeLabel:
    """What one node handles: the label of its own source (a file it reads), of its inputs, and of its output."""

    source: Classification | None
    inputs: Classification
    output: Classification
    #: Upstream nodes whose data gives `inputs` its label (for explanations).
    carriers: tuple[str, ...]


def _source(node_inputs: dict[str, Any], path_input: str | None, effect: str, labels: DataLabels) -> Any:
    if path_input is None or effect != "read" or path_input not in node_inputs:
        return None
    binding = node_inputs[path_input]
    if isinstance(binding, LiteralInput) and isinstance(binding.value, str):
        return labels.classify(binding.value)
    return labels.worst()


def propagate(plan: Plan, catalog: Any, labels: DataLabels) -> dict[str, NodeLabel]:
    """Labels for every node of a valid plan, propagated to a fixed point (alternatives included)."""
    alternative_of = {n.node_id: n.alternative for n in plan.nodes if n.alternative}
    sources: dict[str, Classification | None] = {}
    for node in plan.nodes:
        op = catalog.get(node.operation)
        sources[node.node_id] = _source(node.inputs, op.path_input, op.effect, labels)
    output: dict[str, Classification] = {n.node_id: sources[n.node_id] or "public" for n in plan.nodes}

    def effective(node_id: str) -> Classification:
        seen, found, current = 0, output[node_id], alternative_of.get(node_id)
        while current is not None and seen < len(output):
            found = highest([found, output[current]])
            current, seen = alternative_of.get(current), seen + 1
        return found

    result: dict[str, NodeLabel] = {}
    for _ in range(len(plan.nodes) + 1):  # labels only rise, so this reaches its fixed point
        changed = False
        for node in plan.nodes:
            refs = [(r.node, effective(r.node)) for r in node.refs()]
            carried = highest(label for _, label in refs)
            carriers = tuple(sorted({n for n, label in refs if label == carried and carried != "public"}))
            out = highest([carried, sources[node.node_id] or "public"])
            if out != output[node.node_id]:
                output[node.node_id] = out
                changed = True
            result[node.node_id] = NodeLabel(sources[node.node_id], carried, out, carriers)
        if not changed:
            break
    return result
