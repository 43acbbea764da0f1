"""An offline embedder (hashed character n-grams and words) and nearest labelled examples by cosine similarity.

No model, no download, deterministic across machines (CRC32 hashing, not Python's salted `hash`). It captures
surface similarity within a language, which is what "have we seen a request like this before" needs; it knows
nothing across languages, so the examples cover each language.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

Vector = dict[int, float]
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def embed(text: str, *, dim: int = 1 << 16) -> Vector:
    """A sparse, L2-normalised vector of 3- and 4-grams of each word (padded) plus the words themselves."""
    counts: Counter[int] = Counter()
    for word in _WORD.findall(text.lower().replace("ё", "е")):
        counts[zlib.crc32(("w:" + word).encode()) % dim] += 2
        padded = f" {word} "
        for n in (3, 4):
            for i in range(len(padded) - n + 1):
                counts[zlib.crc32(padded[i : i + n].encode()) % dim] += 1
    norm = math.sqrt(sum(v * v for v in counts.values())) or 1.0
    return {k: v / norm for k, v in counts.items()}


def cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items())


@dataclass(frozen=True, slots=True)
class Example:
    """A labelled utterance."""

    text: str
    kind: str
    language: str


@dataclass(frozen=True, slots=True)
class Neighbour:
    example: Example
    similarity: float


class NearestExamples:
    """k-nearest labelled examples; `vote` weighs each neighbour's kind by its similarity."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self.examples = tuple(examples)
        self._vectors = [embed(e.text) for e in self.examples]

    def nearest(self, text: str, k: int = 5) -> list[Neighbour]:
        query = embed(text)
        scored = [Neighbour(e, round(cosine(query, v), 6)) for e, v in zip(self.examples, self._vectors, strict=True)]
        scored.sort(key=lambda n: (-n.similarity, n.example.text))
        return scored[:k]

    def vote(self, text: str, k: int = 5) -> tuple[str | None, float, float, list[Neighbour]]:
        """(kind, its share of the weighted vote, the top similarity, the neighbours)."""
        neighbours = self.nearest(text, k)
        weights: dict[str, float] = {}
        for n in neighbours:
            weights[n.example.kind] = weights.get(n.example.kind, 0.0) + max(n.similarity, 0.0)
        total = sum(weights.values())
        if not total:
            return None, 0.0, 0.0, neighbours
        kind, weight = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        return kind, weight / total, neighbours[0].similarity, neighbours
