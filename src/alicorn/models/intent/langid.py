"""A small, dependency-free language identifier for English, Polish and Russian (others: ``other``).

Script first (Cyrillic vs Latin), then letters only one language uses (ą ę ł ń ś ź ż ó ć for Polish; і ї є ґ for
Ukrainian, which we report as ``other``), then frequent function words and spelling patterns (``prz``, ``cz``,
``sz``, ``-ować`` for Polish). It returns a confidence so the caller can prefer another signal when it is unsure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_POLISH_LETTERS = set("ąćęłńóśźż")
_UKRAINIAN_LETTERS = set("іїєґ")
_STOP = {
    "en": set(
        "the a an and or but to of in on at for with from by is are was be it this that these those you your we i "
        "me my our please do don't not no all any what how why when where who which can could should would will "
        "have has had then than into about only show find make prepare build send yesterday today next".split()
    ),
    "pl": set(
        "i w z na do że się nie to jest jak co czy ale lub oraz dla od po przez przed za ze we o u tylko już "
        "jeszcze mi mnie ja ty my wy on ona ono oni te ten ta tego tej tym wszystkie wszystko proszę przygotuj "
        "znajdź pokaż zrób sprawdź dzień dobry cześć dzięki wczoraj dziś jutro który która które kiedy gdzie "
        "dlaczego ile niczego nic żeby aby też bardzo".split()
    ),
}
#: Words and letters of the Latin-script languages Core does not read (German, French, Spanish, Italian, Czech,
#: Slovak): a request in one of them is "other", not English with unknown words. Not a word English or Polish has
#: too ("ich", "im", "je", "ani", "per"), and letters English borrows ("café", "naïve") count only beside such words.
_FOREIGN_WORDS = set(
    "und der das nicht bitte für ist mit dem den des ein eine einen zu auf vom wir sie auch noch nur "
    "nichts oder aber wenn kein keine bis zum zur erstelle mach bereite "
    "le les et est pas pour dans une du que qui avec sur au aux ce cette nous vous merci ne "
    "el los las y es para por con una del al lo pero sin está gracias favor de la nada "
    "il della che non sono gli "
    "ně že jsem prosím není také".split()
)
_FOREIGN_LETTERS = set("äöüàâçèéêëîïôùûčšž")
#: Letters no English or Polish word has (German ß, Spanish ñ, Czech ě ř ů ť ď ň): each counts on its own.
_FOREIGN_ONLY_LETTERS = set("ßñ¿¡ěřůťďň")
_POLISH_PATTERNS = re.compile(r"prz|rz|cz|sz|dz|szcz|ow(?:ać|ania|anie)|ości|ego\b|ych\b|iej\b|ię|ąc")
_ENGLISH_PATTERNS = re.compile(r"th|wh|ing\b|ed\b|tion\b|ould\b|ck|ee|oo")
Language = str


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    """The language and a confidence in [0, 1] with the evidence that decided."""

    language: Language
    confidence: float
    evidence: str


def identify(text: str) -> LanguageGuess:
    """The language of `text`: ``en``, ``pl``, ``ru`` or ``other``."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return LanguageGuess("other", 0.0, "no words")
    letters = [ch for w in words for ch in w]
    cyrillic = sum(1 for ch in letters if "\u0400" <= ch <= "\u04ff")
    if cyrillic > len(letters) / 2:
        if any(ch in _UKRAINIAN_LETTERS for ch in letters):
            return LanguageGuess("other", 0.8, "Cyrillic with Ukrainian letters")
        return LanguageGuess("ru", min(1.0, 0.6 + 0.4 * cyrillic / len(letters)), "Cyrillic script")
    latin = sum(1 for ch in letters if ch.isascii() or ch in _POLISH_LETTERS)
    if latin < len(letters) / 2:
        return LanguageGuess("other", 0.5, "neither Latin nor Cyrillic script")
    polish_letters = sum(1 for ch in letters if ch in _POLISH_LETTERS)
    scores = {
        "en": sum(1.0 for w in words if w in _STOP["en"]),
        "pl": sum(1.0 for w in words if w in _STOP["pl"]) + 1.5 * polish_letters,
    }
    joined = " ".join(words)
    scores["pl"] += 0.3 * len(_POLISH_PATTERNS.findall(joined))
    scores["en"] += 0.3 * len(_ENGLISH_PATTERNS.findall(joined))
    foreign = sum(1.0 for w in words if w in _FOREIGN_WORDS)
    foreign += 0.5 * sum(1 for ch in letters if ch in _FOREIGN_LETTERS) if foreign else 0.0
    foreign += sum(1.0 for ch in letters if ch in _FOREIGN_ONLY_LETTERS)
    if foreign >= 2 and foreign > max(scores.values()):
        return LanguageGuess("other", round(min(1.0, 0.5 + foreign / 20), 3), "another language's words")
    best = max(scores, key=lambda k: scores[k])
    other = min(scores.values())
    total = scores["en"] + scores["pl"]
    if total == 0:
        return LanguageGuess("en", 0.3, "Latin script, no known words")
    confidence = min(1.0, (scores[best] - other) / max(total, 1.0) + min(total, 6) / 12)
    evidence = "Polish letters" if best == "pl" and polish_letters else "function words and spelling"
    return LanguageGuess(best, round(confidence, 3), evidence)
