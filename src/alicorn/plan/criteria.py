"""Evaluation of declarative criteria (completion criteria, stop conditions, record filters).

A criterion never runs code: it compares values found at dotted paths. A comparison between values of different
kinds (a string with a number, say) is false, never an error, so a model-written criterion cannot crash a run.
"""

from __future__ import annotations

from typing import Any

from alicorn.plan.dsl import AllOf, AnyOf, Check, Criterion, Not

_MISSING = object()


def lookup(value: Any, path: str) -> Any:
    """The value at a dotted path (`records.0.id`), or a private sentinel when absent."""
    current = value
    for part in path.split("."):
        if isinstance(current, dict):
            current = current.get(part, _MISSING)
        elif isinstance(current, list) and part.isdigit():
            index = int(part)
            current = current[index] if index < len(current) else _MISSING
        else:
            return _MISSING
        if current is _MISSING:
            return _MISSING
    return current


def _comparable(a: Any, b: Any) -> bool:
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return True
    return type(a) is type(b) and isinstance(a, str)


def _equal(a: Any, b: Any) -> bool:
    """Equality that does not confuse True with 1 or "1" with 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _check(check: Check, subject: Any) -> bool:
    found = lookup(subject, check.path)
    op, want = check.op, check.value
    if op == "exists":
        return (found is not _MISSING and found is not None) == (want is not False)
    if found is _MISSING:
        return False
    if op == "eq":
        return _equal(found, want)
    if op == "ne":
        return not _equal(found, want)
    if op in ("gt", "gte", "lt", "lte"):
        if not _comparable(found, want):
            return False
        if op == "gt":
            return bool(found > want)
        if op == "gte":
            return bool(found >= want)
        if op == "lt":
            return bool(found < want)
        return bool(found <= want)
    if op in ("in", "not_in"):
        inside = isinstance(want, list) and any(_equal(found, w) for w in want)
        return inside if op == "in" else (isinstance(want, list) and not inside)
    if op == "contains":
        if isinstance(found, str) and isinstance(want, str):
            return want in found
        if isinstance(found, list):
            return any(_equal(item, want) for item in found)
        return False
    if not isinstance(found, (list, str, dict)) or isinstance(want, bool) or not isinstance(want, int):
        return False
    size = len(found)
    if op == "len_eq":
        return size == want
    if op == "len_gte":
        return size >= want
    return size <= want  # len_lte


def evaluate(criterion: Criterion, subject: Any) -> bool:
    """Whether `subject` satisfies `criterion`."""
    if isinstance(criterion, Check):
        return _check(criterion, subject)
    if isinstance(criterion, AllOf):
        return all(evaluate(c, subject) for c in criterion.of)
    if isinstance(criterion, AnyOf):
        return any(evaluate(c, subject) for c in criterion.of)
    if isinstance(criterion, Not):
        return not evaluate(criterion.of, subject)
    raise TypeError(f"not a criterion: {criterion!r}")


def describe(criterion: Criterion) -> str:
    """A one-line, human-readable form of a criterion."""
    if isinstance(criterion, Check):
        return f"{criterion.path} {criterion.op}" + ("" if criterion.op == "exists" else f" {criterion.value!r}")
    if isinstance(criterion, Not):
        return f"not ({describe(criterion.of)})"
    joiner = " and " if isinstance(criterion, AllOf) else " or "
    return "(" + joiner.join(describe(c) for c in criterion.of) + ")"


def paths(criterion: Criterion) -> list[str]:
    """Every path a criterion reads."""
    if isinstance(criterion, Check):
        return [criterion.path]
    if isinstance(criterion, Not):
        return paths(criterion.of)
    return [p for c in criterion.of for p in paths(c)]
