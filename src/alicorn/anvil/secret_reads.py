"""Secret reads: which sources of a plan are labelled `secret`, and whether the run's terms allow reading them.

A plan reads a secret when a node's declared source (every input its operation names as a file it reads:
`source_inputs`, at its default when the node leaves it out) is a file the operator labels secret (`[data] secret =
["keys/**"]`), or reaches one through a symlink, or selects among files one of which could be secret, or is a path
computed at run time while some pattern could label it secret (`DataLabels.worst`: the safe assumption). Such a
plan runs only when the run's terms name the read as allowed (`RunTerms.secret_reads`, patterns given with `alicorn
run --allow-secret-read PATTERN`) **and** a human approved the plan's hash: the policy sees `reads_secret` and
`secret_reads_allowed` (rule `forbid-secret-read`).

A computed path or a selection is allowed at admission when the terms allow any secret read at all, since which file
it names is not known yet; when the node runs, `refusal` checks the resolved path against the same patterns, and
`ReadGuard` checks every file when it is opened, by the file it really reaches: a secret the terms do not name, or
data labelled above what the run was admitted on (a symlink made after the plan was judged), is refused, so neither
a reference nor a link can widen an allowance (defence in depth: the runtime never trusts that the plan-level
decision saw the real file).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from alicorn.anvil.labels import (
    COMPUTED,
    Classification,
    DataLabels,
    glob_match,
    highest,
    is_pattern,
    label_rank,
    node_sources,
    normalize_path,
    propagate,
)
from alicorn.i18n import tr
from alicorn.plan.dsl import Plan

__all__ = ["COMPUTED", "ReadGuard", "allowing", "describe", "is_allowed", "not_allowed", "refusal", "secret_sources"]


def _secret_files(path: str, labels: DataLabels) -> list[str]:
    """Which of `path` and the file it really reaches are labelled secret (a selection: itself, if it could be)."""
    if is_pattern(path):
        return [path] if labels.classify_selection(path) == "secret" else []
    return [p for p in dict.fromkeys((path, labels.reaches(path))) if labels.by_patterns(p) == "secret"]


def secret_sources(plan: Plan, catalog: Any, labels: DataLabels) -> tuple[str, ...]:
    """The secret-labelled sources the plan reads: normalized paths (the file a link reaches, when it is the secret
    one), glob patterns of selections that could pick one, and `?` for a computed path that could be one."""
    found: set[str] = set()
    could_be_secret = labels.worst() == "secret"
    for node in plan.nodes:
        for path in node_sources(node, catalog.get(node.operation)):
            if path == COMPUTED:
                if could_be_secret:
                    found.add(COMPUTED)
            else:
                found.update(_secret_files(path, labels))
    return tuple(sorted(found))


def is_allowed(path: str, allowed: Sequence[str]) -> bool:
    """Whether the terms' patterns allow reading `path` (a computed path or a selection, whose file is not known
    yet: whenever they allow any secret read; the file is checked when it is opened)."""
    if path == COMPUTED or is_pattern(path):
        return bool(allowed)
    value = normalize_path(path)
    return any(glob_match(pattern, value) for pattern in allowed)


def not_allowed(sources: Sequence[str], allowed: Sequence[str]) -> tuple[str, ...]:
    """The secret sources the terms do not allow."""
    return tuple(s for s in sources if not is_allowed(s, allowed))


def describe(sources: Sequence[str], language: str = "en") -> str:
    """The sources as a sentence says them (English: what the journaled sentences say)."""
    named = [
        tr(language, "a path computed at run time")
        if s == COMPUTED
        else tr(language, "a file matching '{pattern}'", pattern=s)
        if is_pattern(s)
        else f"'{s}'"
        for s in sources
    ]
    return ", ".join(named)


def _not_allowed_sentence(node: str, operation: str, named: str, secret: str) -> str:
    through = f"{named!r}, which leads to {secret!r}," if secret != named else f"{secret!r},"
    return (
        f"node {node!r} ({operation}) would read {through} which [data] secret in alicorn.toml labels secret, and this "
        "run's terms allow no secret read of it (rule forbid-secret-read): nothing was read. To allow it, run the "
        f"plan with `--allow-secret-read {secret}` and have a human approve it"
    )


def refusal(
    node: str, operation: str, path_input: str | None, effect: str, inputs: Mapping[str, Any], terms: Any
) -> str | None:
    """Why a node may not run now (its resolved source is secret, or reaches a secret file through a symlink, and
    the terms do not allow it), or None."""
    if path_input is None or effect != "read":
        return None
    value = inputs.get(path_input)
    if not isinstance(value, str):
        return None
    named = normalize_path(value)
    for secret in _secret_files(named, terms.labels):
        if not is_allowed(secret, terms.secret_reads):
            return _not_allowed_sentence(node, operation, named, secret)
    return None


class ReadGuard:
    """The check made when a run opens a file under its data root (`OperationContext.read_check`).

    It classifies the path as the operation gave it and the file it really reaches. A secret one that the run's
    terms do not allow is refused, as is a file labelled above the label the node's sources were admitted on (its
    label when the plan was judged, symlinks then recorded included): a link made or changed after the plan was
    judged, or a selection that turned out to lead elsewhere, cannot carry more sensitive data into the run than
    its decision saw. A node with no declared source is held to the label of the path it names."""

    def __init__(self, plan: Plan, catalog: Any, terms: Any) -> None:
        self._terms = terms
        self._operations = {n.node_id: n.operation for n in plan.nodes}
        self._admitted = {node: label.source for node, label in propagate(plan, catalog, terms.labels).items()}

    def check(self, node: str, named: str, reaches: str) -> str | None:
        """Why `node` may not open `named` (relative to the data root), which really reaches `reaches`; or None."""
        labels: DataLabels = self._terms.labels
        operation = self._operations.get(node, "an operation")
        named, reaches = normalize_path(named), normalize_path(reaches)
        for path in dict.fromkeys((named, reaches)):
            if labels.by_patterns(path) == "secret" and not is_allowed(path, self._terms.secret_reads):
                return _not_allowed_sentence(node, operation, named, path)
        found = highest([labels.by_patterns(named), labels.by_patterns(reaches)])
        admitted: Classification = self._admitted.get(node) or labels.by_patterns(named)
        if label_rank(found) <= label_rank(admitted):
            return None
        if reaches != named:
            where = f"{named!r}, which a symlink leads to {reaches!r},"
            fix = f"Name {reaches!r} in the plan itself (so that its decision sees the label), or remove the link"
        else:  # a file the operation does not declare among the files it reads
            where = f"{named!r},"
            fix = f"Declare the input naming it among {operation}'s read_inputs, so that the decision sees it"
        return (
            f"node {node!r} ({operation}) would read {where} labelled {found} by [data] in alicorn.toml, but the run "
            f"was admitted on that node reading data labelled at most {admitted}: nothing was read. {fix}"
        )

    def for_node(self, node: str) -> Callable[[str, str], str | None]:
        """The check for one node's calls, as `OperationContext.read_check` takes it."""
        return functools.partial(self.check, node)


def allowing(terms: Any, patterns: Sequence[str]) -> Any:
    """`terms` (RunTerms) that also allow the secret reads `patterns`; SettingsError naming a bad pattern."""
    from pydantic import ValidationError

    from alicorn.anvil.errors import SettingsError

    if not patterns:
        return terms
    try:
        return type(terms).model_validate({**terms.model_dump(), "secret_reads": (*terms.secret_reads, *patterns)})
    except ValidationError as exc:
        detail = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
        raise SettingsError(f"--allow-secret-read: {detail}; nothing was run") from None
