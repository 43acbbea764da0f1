"""The incident template's slots and how they are found in an utterance (English, Polish, Russian).

- `hypotheses`: how many candidate causes to test (1-5; default 3): a digit or a number word (inflected forms too)
  right before a word for hypothesis / cause / explanation: "three hypotheses", "trzech hipotez", "пять гипотез",
  "4 possible causes". A count above 5 is capped at 5, the most the template tests.
- `metric`: only `duration_s` (render time); returned when the utterance speaks of render time or duration.
- `since`: the first day of the slower period, when stated: an ISO date, "15 October" / "15 października" /
  "15 октября", "yesterday" / "wczoraj" / "вчера" after since/from/od/с/после, "N days ago" / "for N days" /
  "od N dni" / "N дней назад", "since last week".
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.packs.incident.models import MAX_HYPOTHESES


class IncidentParameters(BaseModel):
    """Slots of the render-time incident template."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hypotheses: int = Field(3, ge=1, le=MAX_HYPOTHESES, description="how many candidate causes to test")
    metric: Literal["duration_s"] = Field("duration_s", description="the measure that rose: render time")
    since: str | None = Field(
        None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="first day of the slower period (YYYY-MM-DD), if known"
    )


# fmt: off
_NUMBERS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "a couple of": 2, "a few": 3,
    "jeden": 1, "jedna": 1, "jedną": 1, "jedno": 1, "jednej": 1, "jednego": 1,
    "dwa": 2, "dwie": 2, "dwóch": 2, "dwoma": 2, "dwu": 2, "trzy": 3, "trzech": 3, "trzema": 3,
    "cztery": 4, "czterech": 4, "czterema": 4, "pięć": 5, "pięciu": 5, "sześć": 6, "sześciu": 6,
    "siedem": 7, "siedmiu": 7, "osiem": 8, "ośmiu": 8, "dziewięć": 9, "dziewięciu": 9, "dziesięć": 10,
    "dziesięciu": 10,
    "один": 1, "одна": 1, "одну": 1, "одной": 1, "одного": 1, "два": 2, "две": 2, "двух": 2, "двум": 2,
    "три": 3, "трёх": 3, "трех": 3, "трём": 3, "трем": 3, "четыре": 4, "четырёх": 4, "четырех": 4,
    "четырём": 4, "пять": 5, "пяти": 5, "шесть": 6, "шести": 6, "семь": 7, "семи": 7, "восемь": 8,
    "восьми": 8, "девять": 9, "девяти": 9, "десять": 10, "десяти": 10,
}
_MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "stycznia": 1, "lutego": 2, "marca": 3, "kwietnia": 4, "maja": 5, "czerwca": 6, "lipca": 7, "sierpnia": 8,
    "września": 9, "października": 10, "listopada": 11, "grudnia": 12,
    "января": 1, "февраля": 2, "марта": 3, "апреля": 4, "мая": 5, "июня": 6, "июля": 7, "августа": 8,
    "сентября": 9, "октября": 10, "ноября": 11, "декабря": 12,
}
# fmt: on

_NUMBER = "|".join(sorted((re.escape(k) for k in _NUMBERS), key=len, reverse=True))
_NOUN = (
    r"hypothes\w*|causes?|explanations?|theor(?:y|ies)|suspects?|candidates?"
    r"|hipotez\w*|przyczyn\w*|wyjaśnie\w*|teori\w*|podejrzan\w*"
    r"|гипотез\w*|причин\w*|верси\w*|объяснени\w*|предположени\w*"
)
# A count, up to two words (adjectives: "possible", "możliwe", "возможные"), then the noun.
_COUNT = re.compile(
    rf"(?<![\w.,])(\d{{1,2}}(?![\d.,])|{_NUMBER})\s+(?:[\w-]+\s+){{0,2}}?(?:{_NOUN})(?!\w)", re.IGNORECASE
)
_COUNT_AFTER = re.compile(rf"(?<!\w)(?:{_NOUN})\s*[:=(]\s*(\d{{1,2}})\b", re.IGNORECASE)
_METRIC = re.compile(
    r"render\w*\s+(?:time|duration)|(?:time|duration)\s+of\s+render\w*|czas\w*\s+renderowania"
    r"|czas\w*\s+renderu|врем\w*\s+рендер\w*|длительност\w*\s+рендер\w*|render time",
    re.IGNORECASE,
)
_SINCE = r"(?:since|from|after|starting|od|po|począwszy od|с|со|после|начиная с)"
_ISO = re.compile(rf"(?<!\w){_SINCE}\s+(\d{{4}}-\d{{2}}-\d{{2}})(?!\d)", re.IGNORECASE)
_MONTH = "|".join(_MONTHS)
_DAY_MONTH = re.compile(
    rf"(?<!\w){_SINCE}\s+(?:the\s+)?(?:(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+({_MONTH})|({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?)"
    r"(?:,?\s+(\d{4}))?(?!\w)",
    re.IGNORECASE,
)
_YESTERDAY = re.compile(
    rf"(?<!\w)(?:{_SINCE}\s+(?:yesterday|wczoraj)|od\s+wczoraj\w*|со\s+вчерашн\w+(?:\s+дня)?|с\s+вчера|since\s+yesterday)"
    r"(?!\w)",
    re.IGNORECASE,
)
_DAYS_AGO = re.compile(
    rf"(?<!\w)(\d{{1,2}}|{_NUMBER})\s+(?:days?\s+ago|dni\s+temu|dzień\s+temu|дн\w*\s+назад)(?!\w)"
    rf"|(?<!\w)(?:for(?:\s+the\s+(?:last|past))?|od|уже|последние)\s+(\d{{1,2}}|{_NUMBER})\s+(?:days|dni|дн\w*)(?!\w)",
    re.IGNORECASE,
)
_LAST_WEEK = re.compile(
    r"(?<!\w)(?:since\s+last\s+week|from\s+last\s+week|od\s+(?:zeszłego|ostatniego|poprzedniego)\s+tygodnia"
    r"|с\s+прошлой\s+недели)(?!\w)",
    re.IGNORECASE,
)


def _count(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _NUMBERS.get(word.lower())


def _since(text: str, today: date) -> str | None:
    if m := _ISO.search(text):
        try:
            return date.fromisoformat(m.group(1)).isoformat()
        except ValueError:
            return None
    if m := _DAY_MONTH.search(text):
        day = int(m.group(1) or m.group(4))
        month = _MONTHS[(m.group(2) or m.group(3)).lower()]
        year = int(m.group(5)) if m.group(5) else today.year
        try:
            found = date(year, month, day)
        except ValueError:
            return None
        if not m.group(5) and found > today:  # "since 15 December" said in January means last December
            found = found.replace(year=year - 1)
        return found.isoformat()
    if _YESTERDAY.search(text):
        return (today - timedelta(days=1)).isoformat()
    if m := _DAYS_AGO.search(text):
        n = _count(m.group(1) or m.group(2))
        return (today - timedelta(days=n)).isoformat() if n else None
    if _LAST_WEEK.search(text):
        return (today - timedelta(days=7)).isoformat()
    return None


def extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    """Slot values found in `text` (only those found); `now` resolves relative dates."""
    found: dict[str, Any] = {}
    for pattern in (_COUNT, _COUNT_AFTER):
        m = pattern.search(text)
        n = _count(m.group(1)) if m else None
        if n:
            found["hypotheses"] = min(n, MAX_HYPOTHESES)  # the template tests at most five
            break
    if _METRIC.search(text):
        found["metric"] = "duration_s"
    since = _since(text, now.date())
    if since is not None:
        found["since"] = since
    return found


QUESTIONS: dict[str, dict[str, str]] = {
    "hypotheses": {
        "en": "How many hypotheses about the cause should I test (1 to 5)?",
        "pl": "Ile hipotez o przyczynie mam sprawdzić (od 1 do 5)?",
        "ru": "Сколько гипотез о причине проверить (от 1 до 5)?",
    },
    "since": {
        "en": "Since when has render time been higher (a date, if you know it)?",
        "pl": "Od kiedy czas renderowania jest dłuższy (data, jeśli ją znasz)?",
        "ru": "С какого дня рендеринг стал дольше (дата, если известна)?",
    },
}

EXAMPLES: dict[str, tuple[str, ...]] = {
    "en": (
        "Find the cause of the increase in render time, check three hypotheses and show the test results.",
        "Why are our renders slower since 15 October? Test a few possible causes.",
        "Render jobs take longer than last month: figure out what changed and prove it with tests.",
        "Investigate the render time regression and check 4 hypotheses against the job log.",
    ),
    "pl": (
        "Znajdź przyczynę wzrostu czasu renderowania, sprawdź trzy hipotezy i pokaż wyniki testów.",
        "Dlaczego rendery trwają dłużej od 15 października? Zweryfikuj dwie hipotezy.",
        "Czas renderowania wzrósł, ustal co się zmieniło i przetestuj możliwe przyczyny.",
        "Przeanalizuj logi renderingu i sprawdź, czemu zadania renderują się wolniej.",
    ),
    "ru": (
        "Найди причину роста времени рендеринга, проверь три гипотезы и покажи результаты тестов.",
        "Почему рендер стал медленнее с 15 октября? Проверь пять гипотез.",
        "Время рендеринга выросло: выясни, что изменилось, и подтверди тестами.",
        "Разберись, из-за чего задачи рендеринга стали выполняться дольше, и проверь версии причин.",
    ),
}
