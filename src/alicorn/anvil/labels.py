"""Data-flow labels: how sensitive the data each node handles is, from its sources through every reference.

Classifications are ordered public < internal < private < secret. Sources are the files an operation reads (its
declared `source_inputs`: a read's `path_input` and its `read_inputs`), classified by the operator's patterns
(`[data] private = ["hr/**"]` in alicorn.toml), with `default` for files no pattern names. An input a node leaves
out is its default, so a read of the default file is classified like a read that names it. An operation that
*selects* its files (`notes.read_transcript`'s "latest", a folder read whole) is classified by the most sensitive
file its selection's glob patterns could match: patterns against patterns, with no file system, so a file that
appears after the plan was judged cannot raise the label. Literal inputs are public. A node's output carries the
highest label of its inputs and its sources; a reference carries its node's label (or, for a node with an
alternative, the highest label either could produce). A path computed at run time (a reference) is unknown when the
plan is judged, so it gets the highest label the operator's patterns can give: being wrong the safe way.

A symlink inside the data root makes a path reach another file. `reaching` records, for a run, which file each of
its literal sources really reaches (`DataLabels.links`, journaled with the run's terms); `classify` then gives a
path the most sensitive label of the path and the file it reaches, and the run checks again when the file is opened
(`anvil.secret_reads.ReadGuard`).

Data also flows through control: whether a node runs at all can tell what another node saw. A node that waits for
another (`depends_on`, a reference) is skipped when that one fails for good, and a node's completion criterion turns
its output into success or failure; an alternative runs only when its primary failed; a stop condition ends the run
before the nodes that had not started. So a node carries, besides its inputs' labels, the label of every node that
decides whether it runs (`control_flows`): a request that runs only when a private file held something leaks it as
surely as one that sends the file. Runs recorded before this (their journaled labels lack the field) are judged, and
replayed, by data alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from alicorn.ops.paths import reached
from alicorn.plan.dsl import LiteralInput, Node, Plan

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


#: Character classes of the automata below: any character but `/` (`*`, `?`), and any character (`**`).
_SEGMENT_CHAR, _ANY_CHAR = "<segment>", "<any>"
_Automaton = tuple[tuple[tuple[tuple[str, int], ...], ...], tuple[tuple[int, ...], ...], int]


@functools.lru_cache(maxsize=512)
def _automaton(pattern: str) -> _Automaton:
    """The pattern as a small automaton (moves per state, empty moves per state, final state), as `_compiled` reads
    it: `*` and `?` stay within a segment, `**` crosses them, `a/**/b` also matches `a/b`."""
    moves: list[list[tuple[str, int]]] = [[]]
    skips: list[list[int]] = [[]]

    def state() -> int:
        moves.append([])
        skips.append([])
        return len(moves) - 1

    here, i = 0, 0
    while i < len(pattern):
        after = state()
        if pattern.startswith("**/", i):  # (any characters, then '/') or nothing
            inside = state()
            skips[here].append(after)
            moves[here] += [("/", after), (_ANY_CHAR, inside)]
            moves[inside] += [(_ANY_CHAR, inside), ("/", after)]
            i += 3
        elif pattern.startswith("**", i):
            moves[here].append((_ANY_CHAR, here))
            skips[here].append(after)
            i += 2
        elif pattern[i] == "*":
            moves[here].append((_SEGMENT_CHAR, here))
            skips[here].append(after)
            i += 1
        else:
            moves[here].append((_SEGMENT_CHAR if pattern[i] == "?" else pattern[i], after))
            i += 1
        here = after
    return tuple(map(tuple, moves)), tuple(map(tuple, skips)), here


def _meet(a: str, b: str) -> bool:
    """Whether one character can be both `a` and `b` (a character, or a class)."""
    if _ANY_CHAR in (a, b):
        return True
    if a == _SEGMENT_CHAR:
        return b != "/"
    if b == _SEGMENT_CHAR:
        return a != "/"
    return a == b


def patterns_overlap(first: str, second: str) -> bool:
    """Whether some path matches both glob patterns (`hr/**` and `*/*.json` do: `hr/a.json`; `hr/**` and
    `????-??-??*.json` do not: the second never crosses a `/`). Exact: the two automata are walked together."""
    moves_a, skips_a, final_a = _automaton(first)
    moves_b, skips_b, final_b = _automaton(second)
    seen: set[tuple[int, int]] = set()
    pending = [(0, 0)]
    while pending:
        pair = pending.pop()
        if pair in seen:
            continue
        seen.add(pair)
        a, b = pair
        if pair == (final_a, final_b):
            return True
        pending += [(n, b) for n in skips_a[a]] + [(a, n) for n in skips_b[b]]
        pending += [(na, nb) for ca, na in moves_a[a] for cb, nb in moves_b[b] if _meet(ca, cb)]
    return False


def is_pattern(path: str) -> bool:
    """Whether a source path is a glob pattern (a selection of files) rather than one file."""
    return "*" in path or "?" in path


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
    #: (path as a plan names it, the file it really reaches) for each of a run's literal sources that a symlink
    #: inside the data root leads elsewhere, recorded when the run was created (`reaching`); empty for the
    #: operator's settings. Journaled with the run's terms only when there are some.
    links: tuple[tuple[str, str], ...] = ()
    #: Whether labels follow control as well as data (see the module docstring). False only for the journaled
    #: labels of runs recorded before it (`RunTerms.from_created`), so that they replay as they were judged.
    control_flows: bool = True

    @field_validator("public", "internal", "private", "secret")
    @classmethod
    def _patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            if not pattern.strip() or pattern.startswith("/") or ".." in pattern.split("/"):
                raise ValueError(f"{pattern!r} is not a pattern relative to the data root (e.g. 'hr/**')")
        return tuple(sorted(set(patterns)))

    @field_validator("links")
    @classmethod
    def _links(cls, links: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        for pair in links:
            for path in pair:
                if path.startswith("/") or ".." in path.split("/"):
                    raise ValueError(f"link {pair!r}: {path!r} is not a path relative to the data root")
        return tuple(sorted({(normalize_path(a), normalize_path(b)) for a, b in links}))

    @model_serializer(mode="wrap")
    def _without_empty_links(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.links:  # the terms of runs without links are journaled as before links existed
            data.pop("links", None)
        if not self.control_flows:  # the terms of runs recorded before control flows, as they were journaled
            data.pop("control_flows", None)
        return data

    def by_patterns(self, path: str) -> Classification:
        """The label the operator's patterns give `path` itself (relative to the data root), links aside."""
        value = normalize_path(path)
        for level in reversed(LABEL_ORDER):
            if any(glob_match(p, value) for p in getattr(self, level)):
                return level
        return self.default

    def reaches(self, path: str) -> str:
        """The file `path` really reaches, as recorded in `links` (`path` itself when no link was recorded)."""
        value = normalize_path(path)
        return next((target for named, target in self.links if named == value), value)

    def classify(self, path: str) -> Classification:
        """The label of the data file at `path` (relative to the data root): its most sensitive matching level, and
        that of the file it really reaches when a symlink leads it elsewhere (the most sensitive of the two)."""
        return highest([self.by_patterns(path), self.by_patterns(self.reaches(path))])

    def classify_selection(self, pattern: str) -> Classification:
        """The label of the most sensitive file the glob `pattern` could select: the levels of every operator
        pattern that can match a path it matches too, and `default` (a file no pattern names may be among them)."""
        value = normalize_path(pattern)
        if not is_pattern(value):
            return self.classify(value)
        found = [self.default, *(self.by_patterns(target) for named, target in self.links if glob_match(value, named))]
        for level in LABEL_ORDER:
            if any(patterns_overlap(p, value) for p in getattr(self, level)):
                found.append(level)
        return highest(found)

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


#: A source whose path is computed at run time (a reference), unknown when the plan is judged.
COMPUTED = "?"


def _source_inputs(op: Any) -> tuple[str, ...]:
    """The inputs naming files the operation reads (an operation spec without `source_inputs`: a read's
    `path_input`)."""
    declared = getattr(op, "source_inputs", None)
    if declared is not None:
        return tuple(declared)
    path_input = getattr(op, "path_input", None)
    return (path_input,) if path_input is not None and op.effect == "read" else ()


def input_default(op: Any, name: str) -> Any:
    """The value an operation's input takes when a node leaves it out (None when it has none)."""
    field = op.inputs.model_fields.get(name)
    if field is None or field.is_required():
        return None
    return field.get_default(call_default_factory=True)


def node_sources(node: Node, op: Any) -> Iterator[str]:
    """The files a node reads: normalized paths, glob patterns (a selection), or COMPUTED for a path known only at
    run time. An input the node leaves out is read at its default."""
    selects = getattr(op, "source_patterns", None)
    for name in _source_inputs(op):
        binding = node.inputs.get(name)
        if binding is None:
            value = input_default(op, name)
            if value is None:  # no default: the operation reads nothing for it
                continue
        elif isinstance(binding, LiteralInput):
            value = binding.value
        else:
            yield COMPUTED
            continue
        if not isinstance(value, str):
            yield COMPUTED  # not a path the plan names: as unknown as a computed one
            continue
        for path in selects(value) if selects is not None else (value,):
            yield normalize_path(path)


def source_label(node: Node, op: Any, labels: DataLabels) -> Classification | None:
    """The label of the files a node reads (the most sensitive of them), or None when it reads none."""
    found = [labels.worst() if path == COMPUTED else labels.classify_selection(path) for path in node_sources(node, op)]
    return highest(found) if found else None


def reaching(labels: DataLabels, plan: Plan, catalog: Any, root: Path, *, hidden: Sequence[Path] = ()) -> DataLabels:
    """`labels` that also record, for each literal source of `plan`, the file under `root` it really reaches when a
    symlink leads it elsewhere (`DataLabels.links`). For a run's terms when it is created: its decisions and its
    replay then judge the links as they were, and a link made later is caught when the file is opened."""
    links = set(labels.links)
    for node in plan.nodes:
        for path in node_sources(node, catalog.get(node.operation)):
            if path == COMPUTED or is_pattern(path):
                continue
            target = reached(root, path, hidden=hidden)
            if target is not None and target != path:
                links.add((path, target))
    if links == set(labels.links):
        return labels
    return labels.model_copy(update={"links": tuple(sorted(links))})


def deciders(plan: Plan) -> dict[str, tuple[str, ...]]:
    """For each node, the other nodes whose outcome decides whether it runs: those it waits for (`depends_on` and
    references), its primary when it is an alternative, and every node with a stop condition that it does not itself
    wait for (a stop ends the run before what had not started; what it waits for had finished)."""
    primary_of = {n.alternative: n.node_id for n in plan.nodes if n.alternative}
    upstream = {n.node_id: n.upstream() for n in plan.nodes}
    stoppers = [n.node_id for n in plan.nodes if n.stop is not None]
    ancestors: dict[str, set[str]] = {}

    def ancestors_of(node_id: str) -> set[str]:
        if node_id not in ancestors:
            found: set[str] = set()
            todo = list(upstream[node_id])
            while todo:
                current = todo.pop()
                if current not in found:
                    found.add(current)
                    todo.extend(upstream[current])
            ancestors[node_id] = found
        return ancestors[node_id]

    out: dict[str, tuple[str, ...]] = {}
    for node in plan.nodes:
        found = set(upstream[node.node_id])
        if node.node_id in primary_of:
            found.add(primary_of[node.node_id])
        found.update(s for s in stoppers if s != node.node_id and node.node_id not in ancestors_of(s))
        out[node.node_id] = tuple(sorted(found))
    return out


def propagate(plan: Plan, catalog: Any, labels: DataLabels) -> dict[str, NodeLabel]:
    """Labels for every node of a valid plan, propagated to a fixed point (alternatives included), through data and,
    unless the labels are a run's recorded before it, through control (`deciders`)."""
    alternative_of = {n.node_id: n.alternative for n in plan.nodes if n.alternative}
    sources = {n.node_id: source_label(n, catalog.get(n.operation), labels) for n in plan.nodes}
    decided_by = deciders(plan) if labels.control_flows else {}
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
            refs += [(n, effective(n)) for n in decided_by.get(node.node_id, ())]
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
