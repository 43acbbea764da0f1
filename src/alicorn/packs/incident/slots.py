"""The incident template's slots and how they are found in an utterance (English, Polish, Russian).

- `hypotheses`: how many candidate causes to test (default 3): a digit or a number word (inflected forms too)
  right before a word for hypothesis / cause / explanation: "three hypotheses", "trzech hipotez", "пять гипотез",
  "4 possible causes". A count above 5, the most the template tests, is kept as asked (up to 99): the plan tests 5
  and the report says that more were asked.
- `metric`: only `duration_s` (render time); returned when the utterance speaks of render time or duration.
- `since`: the first day of the slower period, when stated (read by `alicorn.periods`): the start of a period
  from a day ("since 15 October", "od wczoraj", "со вчерашнего дня", "после 2026-10-10", "since last week": its
  Monday), of a range ("for N days", "od trzech dni", "последние N дней"), or a day ("N days ago", "dwa dni temu").
  A week or month named alone ("longer than last month") is a comparison, not a start; a date that does not exist
  is left out.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.packs.incident.models import MAX_ASKED, MAX_HYPOTHESES
from alicorn.periods import InvalidDate, find_periods


class IncidentParameters(BaseModel):
    """Slots of the render-time incident template."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hypotheses: int = Field(
        3,
        ge=1,
        le=MAX_ASKED,
        description=f"how many candidate causes to test, as asked (the template tests at most {MAX_HYPOTHESES})",
    )
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


def _count(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _NUMBERS.get(word.lower())


def _since(text: str, language: str, now: datetime) -> str | None:
    try:
        periods = find_periods(text, language, now, prefer="past")
    except InvalidDate:
        return None
    return next((p.start.isoformat() for p in periods if p.kind in ("from", "range", "day")), None)


def extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    """Slot values found in `text` (only those found); `now` resolves relative dates."""
    found: dict[str, Any] = {}
    for pattern in (_COUNT, _COUNT_AFTER):
        m = pattern.search(text)
        n = _count(m.group(1)) if m else None
        if n:
            found["hypotheses"] = min(n, MAX_ASKED)  # as asked: the report says when the template tests fewer
            break
    if _METRIC.search(text):
        found["metric"] = "duration_s"
    since = _since(text, language, now)
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
