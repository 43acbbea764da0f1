"""Polish typed without its diacritics ("nie wysylaj", "zadnych instalacji", "wstrzymaj sie"): the readers' words
given their marks back, so a message written on a keyboard without Polish letters is read as the same message.

The readers know Polish by their own words and stems ("wysył", "żadnych", "się"). Their vocabulary is gathered here
from the readers' word lists (every Polish word with a diacritic), folded (ą→a, ł→l, ż→z …). A token of a message
that carries no Polish diacritic at all is restored when its folded form is such a word, or starts with such a stem
(the longest, at least `MIN_STEM` letters, optionally after a verb prefix: "przesylaj"); a stem's end alternates as
Polish writes it ("zostań" but "zostanie"). A past-tense ending after an action's stem is written back too
("opublikowalismy": "opublikowaliśmy"), since the readers tell a past tense by it. A folded form that two words
share ("zle": "źle" or "złe") restores nothing, and neither does a plain word the readers list apart from its
marked twin ("moja", "moją"). A message that has a single Polish diacritic was typed with them: it is left as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from types import ModuleType

from alicorn.models.intent import cues, fallback, idioms, lexicon, prohibitive

_FOLD = str.maketrans("ąćęłńóśźż", "acelnoszz")
_MARKED = frozenset("ąćęłńóśźż")
#: A stem shorter than this restores only a whole word ("się", "już"), never the start of a longer one.
MIN_STEM = 4
#: Shorter words are never restored: "ze" is "że" or the preposition "ze", "sa" is "są" or not a word.
MIN_WORD = 3


def fold(text: str) -> str:
    """`text` without Polish diacritics (lowercase expected)."""
    return text.translate(_FOLD)


def restored(words: list[str]) -> list[str]:
    """`words` (lowercased tokens of one message) with Polish diacritics put back, when none of them has any."""
    if any(_MARKED.intersection(word) for word in words):
        return words
    whole, stems = _vocabulary()
    return [_restore(word, whole, stems) for word in words]


def _restore(word: str, whole: dict[str, str], stems: dict[str, str]) -> str:
    if len(word) < MIN_WORD or not word.isalpha():
        return word
    if word in whole:
        return whole[word]
    for start in (0, *(len(p) for p in lexicon._PREFIXES if word.startswith(p) and p.isascii())):
        rest = word[start:]
        for end in range(len(rest), MIN_STEM - 1, -1):
            stem = stems.get(rest[:end])
            if stem is not None:
                return _past_restored(word[:start] + _joined(stem, rest[end:]))
    return _past_restored(word)


#: The endings of the Polish past tense, folded, and as written (longest first): "uruchomilo" is "uruchomiło".
_PAST_ENDINGS = (
    ("lysmy", "łyśmy"), ("liscie", "liście"), ("lyscie", "łyście"), ("lismy", "liśmy"),
    ("lem", "łem"), ("les", "łeś"), ("lam", "łam"), ("las", "łaś"), ("la", "ła"), ("lo", "ło"), ("ly", "ły"),
)  # fmt: skip


def _past_restored(word: str) -> str:
    """A word ending as a folded past tense after an action's stem, with the ending written as Polish writes it: the
    readers tell a past tense ("czy nie opublikowaliśmy…?": it describes) by those letters."""
    for folded, written in _PAST_ENDINGS:
        if word.endswith(folded) and len(word) > len(folded) + 2:
            stem = word[: -len(folded)]  # "opublikowa" is an action's stem; "mai" (of "maila") is not
            return stem + written if lexicon._is_action_stem(stem) else word
    return word


def _joined(stem: str, ending: str) -> str:
    """`stem` followed by `ending`, with the alternations at a stem's end: a soft consonant before a vowel is written
    plain ("zostań" + "ie": "zostanie", "usuń" + "ęła": "usunęła"), and an "ó" of the last syllable opens to "o"
    when an ending follows ("testów" + "ych": "testowych", "odłóż" + "yć": "odłożyć")."""
    if not ending:
        return stem
    if stem[-1] in "ńśćź" and ending[0] in "aeiouyąęó":
        stem = stem[:-1] + fold(stem[-1])
    return stem[:-2] + stem[-2:].replace("ó", "o") + ending


@cache
def _vocabulary() -> tuple[dict[str, str], dict[str, str]]:
    """(folded whole word → word, folded stem → stem) over the readers' Polish words that carry a diacritic.

    A word the readers also know as written without one is restored only when every list that holds the plain form
    holds the marked one too: "zeby" beside "żeby" is a variant spelt on purpose, "moja" beside "moją" (in other
    lists) is another word, and two marked words of one folded form ("źle", "złe") are ambiguous."""
    marked: dict[str, set[str]] = {}
    plain_alone: set[str] = set()
    collections = [words for module in (lexicon, prohibitive, idioms, cues, fallback) for words in _lists(module)]
    for words in collections:
        for word in words:
            if _MARKED.intersection(word):
                marked.setdefault(fold(word), set()).add(word)
    for words in collections:
        folded_marked = {fold(word) for word in words if _MARKED.intersection(word)}
        plain_alone.update(word for word in words if word in marked and word not in folded_marked)
    whole = {folded: min(words) for folded, words in marked.items() if len(words) == 1 and folded not in plain_alone}
    stems = {folded: word for folded, word in whole.items() if len(folded) >= MIN_STEM}
    return whole, stems


def _lists(module: ModuleType) -> Iterator[set[str]]:
    """The words of each word list of `module` (its module-level collections of strings), one set per list."""
    for value in vars(module).values():
        if isinstance(value, (str, ModuleType, type)) or callable(value):
            continue
        words = set()
        for text in _strings(value):
            for word in text.lower().split():
                word = word.lstrip("=!").strip(".,;:!?\"'()")
                if word.isalpha():
                    words.add(word)
        if words:
            yield words


def _strings(value: object, depth: int = 0) -> Iterable[str]:
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, depth + 1)
            yield from _strings(item, depth + 1)
    elif isinstance(value, (set, frozenset, tuple, list)):
        for item in value:
            yield from _strings(item, depth + 1)
