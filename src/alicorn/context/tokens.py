"""Counting tokens: the target model's tokenizer where there is one, else a documented estimate.

The estimate (`estimate_tokens`, version ``estimate-v1``) counts per word, because small local models have mostly
English vocabularies: an ASCII word costs 1 token plus 1 per 8 characters; a word with other letters (Polish
diacritics, Cyrillic) costs about 4 tokens per 5 characters; each punctuation mark costs 1. On SmolLM2's tokenizer it
is within about 20% on English, Polish and Russian sentences (`bench/context_bench.py` prints the figure), erring
high on English; use the model's tokenizer (`TokenCounter` from a provider) where exact counts matter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

ESTIMATE_NAME = "estimate-v1"
_WORDS = re.compile(r"\w+", re.UNICODE)
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free token count (see the module's docstring for the rule)."""
    total = len(_PUNCT.findall(text))
    for word in _WORDS.findall(text):
        total += 1 + len(word) // 8 if word.isascii() else math.ceil(len(word) / 1.25)
    return total


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """A named way of counting tokens; the name is journaled with every count it produced."""

    name: str
    count: Callable[[str], int]


ESTIMATE = TokenCounter(ESTIMATE_NAME, estimate_tokens)
