"""Deterministic slot extraction for the schedule template, in English, Polish and Russian.

Finds: the month (`alicorn.periods.month_of`: an ISO month, a month name in any inflection with or without a year,
or a relative phrase like "next month" / "w przyszłym miesiącu" / "в следующем месяце", resolved against the intake
time `now`; a date that does not exist names no month), the number of
variants (a digit or number word before a variant noun), whether vacations count, whether to publish, and which
variant to publish. Negation is handled per clause: "do not publish" / "nie publikuj" / "не публикуй" never set
`publish=True`, and a negated request always wins over an affirmative one. Only what is found is returned.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime
from typing import Any

from alicorn.periods import InvalidDate, Period, find_periods, month_of

NUMBERS: dict[str, int] = {}
for _value, _words in enumerate(
    (
        "one jeden jedna jedno jednego jednym один одна одно одного одном",
        "two dwa dwie dwóch dwoch dwu dwoma два две двух двумя",
        "three trzy trzech trzema три трёх трех тремя",
        "four cztery czterech czterema четыре четырёх четырех четырьмя",
        "five pięć piec pięciu pieciu пять пяти пятью",
        "six sześć szesc sześciu шесть шести",
        "seven siedem siedmiu семь семи",
        "eight osiem ośmiu osmiu восемь восьми",
        "nine dziewięć dziewiec dziewięciu девять девяти",
        "ten dziesięć dziesiec dziesięciu десять десяти",
    ),
    start=1,
):
    for _word in _words.split():
        NUMBERS[_word] = _value

ORDINALS = {
    1: r"first|1st|pierwsz\w*|перв\w*",
    2: r"second|2nd|drug\w*|втор\w*",
    3: r"third|3rd|trzec\w*|трет\w*",
    4: r"fourth|4th|czwart\w*|четв[её]рт\w*",
    5: r"fifth|5th|piąt\w*|piat\w*|пят(?:ый|ого|ому|ым|ом|ая|ую)",
}

_NUMBER = r"(\d{1,2}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
_VARIANT_NOUN = (
    r"(?:variants?|versions?|options?|alternatives?|drafts?|proposals?|wariant\w*|wersj\w*|opcj\w*|"
    r"propozycj\w*|alternatyw\w*|вариант\w*|верси\w*|альтернатив\w*)"
)
_COUNT_BEFORE = re.compile(
    r"\b" + _NUMBER + r"\s+(?:(?!of\b|z\b|ze\b|из\b|spośród\b|среди\b)\w+\s+){0,2}?" + _VARIANT_NOUN + r"(?!\w)"
)
_COUNT_AFTER = re.compile(
    r"\b(?:number of |liczba |ilość |ilosc |количество )?" + _VARIANT_NOUN + r"\s*[:=–—-]\s*" + _NUMBER + r"\b"
)
_PICK_NUMBER = re.compile(
    r"\b(?:variant|option|version|wariant\w*|wersj\w*|вариант\w*)\s*(?:nr\.?|no\.?|number|numer|номер|#|№)?\s*([1-5])\b"
)
_PICK_ORDINAL = re.compile(
    r"\b(" + "|".join(ORDINALS.values()) + r")\s+(?:variant|option|version|wariant\w*|wersj\w*|вариант\w*)"
)

_PUBLISH_VERB = re.compile(r"\b(?:publish\w*|o?publik(?:uj|ow)\w*|о?публик(?:у|ов)\w*)")
_PUBLISH_NEGATED_NOUN = re.compile(
    r"\b(?:without|no|bez|без)\s+(?:any\s+)?(?:publication|publishing|publikacj\w*|publikowani\w*|"
    r"opublikowani\w*|публикаци\w*|опубликовани\w*)|\b(?:unpublished|nieopublikowan\w*|niepublikowan\w*|"
    r"неопубликованн\w*)"
)
_VACATION = re.compile(
    r"\b(?:vacations?|(?<!public )(?<!bank )holidays?|annual leave|leaves? of absence|time off|urlop\w*|wakacj\w*|"
    r"отпуск\w*|отгул\w*)"
)
#: Words that negate a request on either side of it ("do not publish", "publish nothing", "отпуска не учитывай").
_NEGATORS = {
    "not",
    "never",
    "no",
    "nothing",
    "without",
    "forbidden",
    "prohibited",
    "nie",
    "nic",
    "niczego",
    "żadnych",
    "zadnych",
    "zabronione",
    "zakazane",
    "не",
    "ничего",
    "никаких",
    "нельзя",
    "нет",
    "запрещено",
}
#: Words that negate only what follows them ("stop before publishing", "bez uwzględnienia urlopów").
_NEGATORS_BEFORE = {
    "don't",
    "dont",
    "avoid",
    "refrain",
    "before",
    "instead",
    "rather",
    "hold",
    "stop",
    "skip",
    "bez",
    "przed",
    "zamiast",
    "wstrzymaj",
    "без",
    "перед",
    "вместо",
    "воздержись",
}
#: Verbs that mean "leave out" (ignore vacations): each flips the meaning like a negator.
_IGNORE = re.compile(
    r"^(?:ignor\w*|disregard\w*|exclud\w*|skip\w*|pomi[nń]\w*|pomija\w*|zignoruj\w*|игнорир\w*|проигнорир\w*|"
    r"пропуст\w*|исключ\w*|regardless)$"
)
_CLAUSES = re.compile(r"[.;!?,\n]|\s(?:and|but|then|i|oraz|ale|lecz|a potem|и|но|а|затем)\s")
_TOKEN = re.compile(r"n't|[\w']+", re.UNICODE)


def _clean(text: str) -> str:
    return " ".join(text.lower().replace("ё", "е").replace("’", "'").split())


#: What may join two months said as one period: "January and February", "styczeń i luty", "январь, февраль".
_MONTHS_JOINED = re.compile(r"^\s*(?:,|and|&|i|oraz|и|-|–|—|to|do|по)?\s*$")


def _other_period(text: str, language: str, now: datetime, month: str) -> str | None:
    """The words of the period the request names when the one whole month planned is not it: only part of that month
    and no whole month ("the week of 7-13 December"), or several months said together ("January and February",
    "январь–февраль"). None when a whole month is named alone (other dates, such as someone's leave, may be named
    beside it)."""
    try:
        periods = find_periods(text, language, now, prefer="future")
    except InvalidDate:
        return None
    months = [p for p in periods if p.kind == "month" or _whole_months(p) > 1]
    spans = [p for p in months if _whole_months(p) > 1]
    if spans:
        return spans[0].words
    for first, second in itertools.pairwise(months):
        between = text[text.find(first.words) + len(first.words) : text.find(second.words)]
        if first.start != second.start and _MONTHS_JOINED.match(between.lower()):
            return f"{first.words} {between.strip()} {second.words}".replace("  ", " ")
    if months:
        return None
    inside = [p for p in periods if p.kind in ("week", "range") and f"{p.start:%Y-%m}" == month]
    return inside[0].words if inside else None


def _whole_months(period: Period) -> int:
    """How many whole calendar months `period` is (0 when it is not whole months)."""
    if period.start.day != 1 or period.end.day != 1:
        return 0
    return (period.end.year - period.start.year) * 12 + period.end.month - period.start.month


def _month(text: str, language: str, now: datetime) -> str | None:
    try:
        return month_of(text, language, now)
    except InvalidDate:
        return None


def _number(token: str) -> int | None:
    return int(token) if token.isdigit() else NUMBERS.get(token)


def _variants(text: str) -> int | None:
    for pattern in (_COUNT_AFTER, _COUNT_BEFORE):
        for match in pattern.finditer(text):
            value = _number(match.group(1))
            if value is not None:
                # as asked: more than the template offers (1-5) is not guessed down, Core asks instead
                return value if value >= 1 else None
    return None


def _negated(clause: str, start: int, end: int, before: int = 4, after: int = 3) -> int:
    """How many negators and leave-out verbs stand within a few words of clause[start:end]."""
    ahead = _TOKEN.findall(clause[:start])[-before:]
    behind = _TOKEN.findall(clause[end:])[:after]

    def flips(word: str, negators: set[str]) -> bool:
        return word in negators or word.endswith("n't") or _IGNORE.match(word) is not None

    return sum(flips(w, _NEGATORS | _NEGATORS_BEFORE) for w in ahead) + sum(flips(w, _NEGATORS) for w in behind)


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSES.split(text) if c and c.strip()]


def _publish(text: str) -> bool | None:
    if _PUBLISH_NEGATED_NOUN.search(text):
        return False
    found: bool | None = None
    for clause in _clauses(text):
        for match in _PUBLISH_VERB.finditer(clause):
            if _negated(clause, match.start(), match.end()):
                return False  # a refusal anywhere wins: publishing is never assumed
            found = True
    return found


def _vacations(text: str) -> bool | None:
    found: bool | None = None
    for clause in _clauses(text):
        for match in _VACATION.finditer(clause):
            respected = _negated(clause, match.start(), match.end(), before=5, after=4) % 2 == 0
            found = respected if found is None else found and respected
    return found


def _picked(text: str) -> int | None:
    number = _PICK_NUMBER.search(text)
    if number:
        return int(number.group(1))
    ordinal = _PICK_ORDINAL.search(text)
    if ordinal:
        word = ordinal.group(1)
        return next(n for n, p in ORDINALS.items() if re.fullmatch(p, word))
    return None


def extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    """Slot values found in `text` (any of en/pl/ru; `language` is only a hint), with "next month" read at `now`."""
    clean = _clean(text)
    found: dict[str, Any] = {}
    month = _month(text, language, now)
    if month is not None:
        found["month"] = month
        asked = _other_period(text, language, now, month)
        if asked is not None:
            found["asked_period"] = asked
    variants = _variants(clean)
    if variants is not None:
        found["variants"] = variants
    vacations = _vacations(clean)
    if vacations is not None:
        found["respect_vacations"] = vacations
    publish = _publish(clean)
    if publish is not None:
        found["publish"] = publish
        if publish:
            picked = _picked(clean)
            if picked is not None:
                found["publish_variant"] = picked
    return found
