"""Small deterministic statistics for the incident pack: medians, shares and a seeded permutation test.

No numpy: the data are a few thousand rows at most, and plain Python keeps results identical on every machine. The
permutation test draws its shuffles from `random.Random` seeded with a string (hashed with SHA-512 by Python, so not
subject to PYTHONHASHSEED): the same inputs give the same p-value on every run and every replay.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence (the mean of the two middle values for an even count)."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[mid])
    return (ordered[mid - 1] + ordered[mid]) / 2.0


def mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("mean of no values")
    return float(sum(values)) / len(values)


def shares(values: Sequence[Hashable]) -> dict[Hashable, float]:
    """Each value's share of the sequence."""
    total = len(values)
    return {k: n / total for k, n in Counter(values).items()} if total else {}


def total_variation(before: dict[Hashable, float], after: dict[Hashable, float]) -> float:
    """Half the L1 distance between two share distributions: 0 = the same mix, 1 = nothing in common."""
    keys = set(before) | set(after)
    return 0.5 * sum(abs(after.get(k, 0.0) - before.get(k, 0.0)) for k in keys)


def permutation_p(group: Sequence[float], rest: Sequence[float], permutations: int, seed: str) -> float:
    """One-sided p-value that `group`'s mean exceeds `rest`'s by chance alone (label shuffles, seeded).

    Uses the add-one estimate (1 + hits) / (1 + permutations), so p is never 0. Because the pooled total is fixed,
    the group's sum orders the shuffles exactly as the difference of means would.
    """
    if not group or not rest:
        raise ValueError("a permutation test needs values on both sides")
    pooled = [float(v) for v in (*group, *rest)]
    k = len(group)
    observed = sum(float(v) for v in group)
    tolerance = 1e-9 * max(1.0, abs(observed))
    rng = random.Random(seed)
    hits = 0
    for _ in range(permutations):
        rng.shuffle(pooled)
        if sum(pooled[:k]) >= observed - tolerance:
            hits += 1
    return (1 + hits) / (1 + permutations)


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out
