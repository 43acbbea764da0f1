"""Stated constraints as acceptance criteria: "keep overtime under 200 h" is checked on the result, or said unchecked.

A workflow names the figures its result carries (`Measure`: the words a person uses for it in en/pl/ru, and how to
read it from the artifact, per item — per schedule variant, say). A constraint the person stated (in the words or
with `--constraint`) is read as *figure, comparison, number*:

    "keep overtime under 200 h"            overtime_hours <  200
    "koszt nie więcej niż 90 000"          total_cost     <= 90000
    "переработка не более 150 часов"       overtime_hours <= 150
    "coverage at least 95%"                coverage_pct   >= 95

Each becomes a check on every item of the result; an item that breaks it is named (and may not be published). A
constraint that names no figure the workflow measures is reported as *not checked*, with why, and keeps the outcome
below `complete`: the report never claims what nobody checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Comparison = Literal["<", "<=", ">", ">="]


@dataclass(frozen=True)
class Measure:
    """A figure of a workflow's result: its key, the word stems that name it, and how to read it per item."""

    key: str
    stems: tuple[str, ...]
    read: Callable[[Mapping[str, Any]], list[tuple[str, float]]]


@dataclass(frozen=True)
class Bound:
    """One constraint read as a figure, a comparison and a number, with the words it came from."""

    measure: str
    op: Comparison
    value: float
    words: str

    def holds(self, figure: float) -> bool:
        return {
            "<": figure < self.value,
            "<=": figure <= self.value,
            ">": figure > self.value,
            ">=": figure >= self.value,
        }[self.op]

    def to_json(self) -> dict[str, Any]:
        return {"measure": self.measure, "op": self.op, "value": self.value, "words": self.words}


# Comparison words, longest first within each language; each maps to the comparison it states.
# fmt: off
_COMPARISONS: tuple[tuple[str, Comparison], ...] = (
    ("no more than", "<="), ("not more than", "<="), ("at most", "<="), ("maximum", "<="), ("max", "<="),
    ("up to", "<="), ("under", "<"), ("below", "<"), ("less than", "<"), ("lower than", "<"), ("within", "<="),
    ("at least", ">="), ("minimum", ">="), ("min", ">="), ("more than", ">"), ("above", ">"), ("over", ">"),
    ("nie więcej niż", "<="), ("nie wiecej niz", "<="), ("maksymalnie", "<="), ("najwyżej", "<="), ("do", "<="),
    ("poniżej", "<"), ("ponizej", "<"), ("mniej niż", "<"), ("mniej niz", "<"), ("co najmniej", ">="),
    ("minimum", ">="), ("więcej niż", ">"), ("powyżej", ">"),
    ("не более", "<="), ("не больше", "<="), ("максимум", "<="), ("до", "<="), ("меньше", "<"), ("ниже", "<"),
    ("менее", "<"), ("не менее", ">="), ("не меньше", ">="), ("минимум", ">="), ("хотя бы", ">="),
    ("больше", ">"), ("более", ">"), ("выше", ">"),
    ("<=", "<="), ("≤", "<="), (">=", ">="), ("≥", ">="), ("<", "<"), (">", ">"),
)
# fmt: on
_NUMBER = r"(\d[\d\s.,]*\d|\d)"


def _number(text: str) -> float | None:
    cleaned = text.replace(" ", "").replace("\u00a0", "")
    if cleaned.count(",") == 1 and cleaned.count(".") == 0 and len(cleaned.split(",")[1]) != 3:
        cleaned = cleaned.replace(",", ".")
    cleaned = cleaned.replace(",", "")
    try:
        return float(cleaned)
    except ValueError:
        return None


#: Words that deny what follows them in the clause: "nobody works more than 40 hours a week" bounds it at 40.
_DENYING = re.compile(r"(?<!\w)(?:no|not|nobody|no one|never|nikt|nigdy|nie|никто|никогда|не|ни)(?!\w)")
#: A comparison turned around by a denial before it ("nobody … more than 40": at most 40).
_DENIED: dict[Comparison, Comparison] = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}


def _comparison(text: str, *, ending: bool) -> tuple[int, Comparison, str, int] | None:
    """The comparison followed by a number in `text`: the first one (or, `ending`, one that ends `text`, so a
    figure named after its number reads it: "more than 40 hours a week"), as (where it starts, comparison,
    number, where it ends); a longer comparison beats a shorter one at the same place ("no more than" over "than")."""
    best: tuple[int, int, Comparison, str, int] | None = None
    for words, op in _COMPARISONS:
        edge = r"(?<!\w)" if words[0].isalnum() else ""
        pattern = rf"{edge}{re.escape(words)}\s*{_NUMBER}" + (r"\s*$" if ending else "")
        found = re.search(pattern, text)
        if found is None or (not ending and found.start() > 40):
            continue
        rank = (found.start(), -len(words))
        if best is None or rank < (best[0], best[1]):
            best = (found.start(), -len(words), op, found.group(1), found.end())
    return None if best is None else (best[0], best[2], best[3], best[4])


def read_bound(text: str, measures: Sequence[Measure]) -> Bound | None:
    """The bound `text` states on one of `measures`, or None when it names none of them with a number.

    After the figure's name, the nearest comparison followed by a number wins (within a few words: "overtime for
    the team under 200 h"); a figure named right after its number reads the comparison before it ("no more than 40
    hours a week"). A denial before the comparison in its clause turns it around: "nobody works more than 40 hours
    a week", "nikt nie pracuje więcej niż 40 godzin tygodniowo" bound the figure at 40 (the comparison words that
    hold their own denial, "no more than", "nie więcej niż", are read as they are).
    """
    lowered = " ".join(text.lower().split())
    for measure in measures:
        for stem in measure.stems:
            at = lowered.find(stem)
            if at < 0:
                continue
            found = _comparison(lowered[at + len(stem) :], ending=False)
            start = at + len(stem) + found[0] if found is not None else -1
            if found is None:
                found = _comparison(lowered[:at].rstrip(), ending=True)
                start = found[0] if found is not None else -1
            if found is None or (value := _number(found[2])) is None:
                continue
            op, said = found[1], lowered[start:]
            if not _DENYING.match(said) and _DENYING.search(lowered[max(0, start - 40) : start]):
                op = _DENIED[op]
            return Bound(measure.key, op, value, text)
    return None


@dataclass(frozen=True)
class ConstraintCheck:
    """A stated constraint against the result: checked (which items break it) or not, and why."""

    words: str
    bound: Bound | None
    checked: bool
    breaking: tuple[str, ...] = ()
    values: tuple[tuple[str, float], ...] = ()
    why_unchecked: str = ""

    @property
    def passed(self) -> bool:
        return self.checked and not self.breaking

    def to_json(self) -> dict[str, Any]:
        return {
            "words": self.words,
            "bound": self.bound.to_json() if self.bound else None,
            "checked": self.checked,
            "breaking": list(self.breaking),
            "values": [list(v) for v in self.values],
            "why_unchecked": self.why_unchecked,
        }


def check_constraints(
    stated: Sequence[str], measures: Sequence[Measure], artifact: Mapping[str, Any] | None
) -> list[ConstraintCheck]:
    """Each stated constraint checked on every item of `artifact`, or said unchecked (see the module docstring)."""
    results = []
    for words in stated:
        bound = read_bound(words, measures)
        if bound is None:
            why = "no-measure" if measures else "no-measures"
            results.append(ConstraintCheck(words, None, False, why_unchecked=why))
            continue
        if artifact is None:
            results.append(ConstraintCheck(words, bound, False, why_unchecked="no-result"))
            continue
        measure = next(m for m in measures if m.key == bound.measure)
        values = tuple(measure.read(artifact))
        if not values:
            results.append(ConstraintCheck(words, bound, False, why_unchecked="no-figures"))
            continue
        breaking = tuple(label for label, figure in values if not bound.holds(figure))
        results.append(ConstraintCheck(words, bound, True, breaking, values))
    return results
