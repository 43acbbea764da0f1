"""Secret reads: which sources of a plan are labelled `secret`, and whether the run's terms allow reading them.

A plan reads a secret when a node's declared source (its operation's `path_input`, for a `read`) is a file the
operator labels secret (`[data] secret = ["keys/**"]`), or a path computed at run time while some pattern could
label it secret (`DataLabels.worst`: the safe assumption). Such a plan runs only when the run's terms name the read
as allowed (`RunTerms.secret_reads`, patterns given with `alicorn run --allow-secret-read PATTERN`) **and** a human
approved the plan's hash: the policy sees `reads_secret` and `secret_reads_allowed` (rule `forbid-secret-read`).

A computed path is allowed at admission when the terms allow any secret read at all, since its value is not known
yet; when the node runs, `refusal` checks the resolved path against the same patterns and refuses a secret one the
terms do not name, so a reference cannot widen an allowance (defence in depth: the runtime never trusts that the
plan-level decision saw the real path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from alicorn.anvil.labels import DataLabels, glob_match, normalize_path
from alicorn.plan.dsl import LiteralInput, Plan

#: A secret source whose path is computed at run time.
COMPUTED = "?"


def secret_sources(plan: Plan, catalog: Any, labels: DataLabels) -> tuple[str, ...]:
    """The secret-labelled sources the plan reads: normalized paths, and `?` for a computed path that could be one."""
    found: set[str] = set()
    could_be_secret = labels.worst() == "secret"
    for node in plan.nodes:
        op = catalog.get(node.operation)
        if op.path_input is None or op.effect != "read" or op.path_input not in node.inputs:
            continue
        binding = node.inputs[op.path_input]
        if isinstance(binding, LiteralInput) and isinstance(binding.value, str):
            if labels.classify(binding.value) == "secret":
                found.add(normalize_path(binding.value))
        elif could_be_secret:
            found.add(COMPUTED)
    return tuple(sorted(found))


def is_allowed(path: str, allowed: Sequence[str]) -> bool:
    """Whether the terms' patterns allow reading `path` (a computed path: whenever they allow any secret read)."""
    if path == COMPUTED:
        return bool(allowed)
    value = normalize_path(path)
    return any(glob_match(pattern, value) for pattern in allowed)


def not_allowed(sources: Sequence[str], allowed: Sequence[str]) -> tuple[str, ...]:
    """The secret sources the terms do not allow."""
    return tuple(s for s in sources if not is_allowed(s, allowed))


def describe(sources: Sequence[str]) -> str:
    """The sources as a sentence says them."""
    named = [f"'{s}'" if s != COMPUTED else "a path computed at run time" for s in sources]
    return ", ".join(named)


def refusal(
    node: str, operation: str, path_input: str | None, effect: str, inputs: Mapping[str, Any], terms: Any
) -> str | None:
    """Why a node may not run now (its resolved source is secret and the terms do not allow it), or None."""
    if path_input is None or effect != "read":
        return None
    value = inputs.get(path_input)
    if not isinstance(value, str) or terms.labels.classify(value) != "secret":
        return None
    if is_allowed(value, terms.secret_reads):
        return None
    return (
        f"node {node!r} ({operation}) would read {normalize_path(value)!r}, which [data] secret in alicorn.toml labels "
        "secret, and this run's terms allow no secret read of it (rule forbid-secret-read): nothing was read. To "
        f"allow it, run the plan with `--allow-secret-read {normalize_path(value)}` and have a human approve it"
    )


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
