"""Dates spoken in English, Polish and Russian: found in text, then resolved against a reference day.

`find_dates(text)` returns what was said ("by Wednesday", "do 9 grudnia", "до десятого декабря", "tomorrow",
"w przyszłym tygodniu", "2026-12-03") as `DateMention`s, without deciding which calendar day is meant: a task's
due date lies after the day of the meeting (`resolve_future`), the conversation a request points at lies before the
request (`resolve_past`). Everything is a pure function of the text and the reference day, so replay is exact.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

_MONTHS: dict[str, int] = {}
for _number, _forms in enumerate(
    (
        "january jan stycznia styczeń styczniu января январь январе",
        "february feb lutego luty lutym февраля февраль феврале",
        "march mar marca marzec marcu марта март марте",
        "april apr kwietnia kwiecień kwietniu апреля апрель апреле",
        "may maja maj maju мая май мае",
        "june jun czerwca czerwiec czerwcu июня июнь июне",
        "july jul lipca lipiec lipcu июля июль июле",
        "august aug sierpnia sierpień sierpniu августа август августе",
        "september sep sept września wrzesień wrześniu сентября сентябрь сентябре",
        "october oct października październik październiku октября октябрь октябре",
        "november nov listopada listopad listopadzie ноября ноябрь ноябре",
        "december dec grudnia grudzień grudniu декабря декабрь декабре",
    ),
    start=1,
):
    for _form in _forms.split():
        _MONTHS[_form] = _number

# Weekday forms as they follow "by/on/until", "do/w/na/od", "до/в/к/на" (nominative, genitive, accusative...).
_WEEKDAYS: dict[str, int] = {}
for _number, _forms in enumerate(
    (
        "monday poniedziałek poniedziałku poniedziałkiem понедельник понедельника понедельнику",
        "tuesday wtorek wtorku wtorkiem вторник вторника вторнику",
        "wednesday środa środy środę środzie среда среды среду среде",
        "thursday czwartek czwartku czwartkiem четверг четверга четвергу",
        "friday piątek piątku piątkiem пятница пятницы пятницу пятнице",
        "saturday sobota soboty sobotę sobocie суббота субботы субботу субботе",
        "sunday niedziela niedzieli niedzielę воскресенье воскресенья",
    )
):
    for _form in _forms.split():
        _WEEKDAYS[_form] = _number

# Ordinal day numbers 1-10 in words ("the tenth", "dziesiątego", "десятого"); digits cover the rest.
_ORDINALS: dict[str, int] = {}
for _number, _forms in enumerate(
    (
        "first pierwszego pierwszy первого первое",
        "second drugiego drugi второго второе",
        "third trzeciego trzeci третьего третье",
        "fourth czwartego czwarty четвёртого четвертого четвёртое",
        "fifth piątego piąty пятого пятое",
        "sixth szóstego szósty шестого шестое",
        "seventh siódmego siódmy седьмого седьмое",
        "eighth ósmego ósmy восьмого восьмое",
        "ninth dziewiątego dziewiąty девятого девятое",
        "tenth dziesiątego dziesiąty десятого десятое",
    ),
    start=1,
):
    for _form in _forms.split():
        _ORDINALS[_form] = _number

_WORD = r"[^\W\d_]+"
_DAY = r"(?P<{0}>\d{{1,2}})(?:st|nd|rd|th|-?го|\.)?"
_MONTH_ALT = "|".join(sorted(map(re.escape, _MONTHS), key=len, reverse=True))
_ORD_ALT = "|".join(sorted(map(re.escape, _ORDINALS), key=len, reverse=True))
_ISO = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")
# Day.month needs a two-digit month ("3.12", "03.12.2026"), so "1.5 million" is not read as a date.
_DOTTED = re.compile(r"\b(?P<d>\d{1,2})\.(?P<m>\d{2})(?:\.(?P<y>\d{4}))?\b")
_DAY_MONTH = re.compile(
    rf"\b(?:{_DAY.format('d')}|(?:the\s+)?(?P<o>{_ORD_ALT}))(?:\s+of)?\s+(?P<mon>{_MONTH_ALT})\.?(?!\w)",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    rf"\b(?P<mon>{_MONTH_ALT})\.?\s+(?:the\s+)?(?:{_DAY.format('d')}|(?P<o>{_ORD_ALT}))(?!\w)", re.IGNORECASE
)

Kind = Literal["date", "month_day", "weekday", "offset", "week_end", "next_week", "month_end"]


@dataclass(frozen=True)
class DateMention:
    """A date as said: `kind` tells how to read `value` (see `resolve_future` / `resolve_past`)."""

    kind: Kind
    value: tuple[int, ...]
    text: str
    start: int


# Relative days: longest phrases first, so "day after tomorrow" is not read as "tomorrow".
_OFFSETS: tuple[tuple[str, int], ...] = (
    (r"the day after tomorrow|pojutrze|послезавтра", 2),
    (r"the day before yesterday|przedwczoraj\w*|позавчера\w*", -2),
    (r"tomorrow|jutr[oa]|завтра\w*", 1),
    (r"yesterday|wczoraj\w*|вчера\w*", -1),
    (r"today|tonight|this evening|end of (?:the )?day|dzi(?:ś|siaj)|dzisiejsz\w*|сегодня\w*", 0),
)
_PHRASES: tuple[tuple[str, Kind], ...] = (
    (r"(?:the )?end of (?:the |this )?month|końc[ae] miesiąca|конц[ае] месяца", "month_end"),
    (r"(?:the )?end of (?:the |this )?week|końc[ae] tygodnia|конц[ае] недели", "week_end"),
    (
        r"next week|(?:w )?przyszłym tygodniu|(?:na )?przyszły tydzień|"
        r"(?:на )?следующей неделе|(?:на )?следующую неделю",
        "next_week",
    ),
)
# Adjectives from weekdays ("piątkowej rozmowy", "пятничного разговора") point at a day as well.
_WEEKDAY_ADJECTIVES = (
    ("poniedziałkow", 0),
    ("wtorkow", 1),
    ("środow", 2),
    ("czwartkow", 3),
    ("piątkow", 4),
    ("sobotni", 5),
    ("niedzieln", 6),
    ("понедельничн", 0),
    ("пятничн", 4),
    ("субботн", 5),
    ("воскресн", 6),
)


def _valid(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


def find_dates(text: str) -> list[DateMention]:
    """Every date mention in `text`, in order of appearance (overlapping readings keep the earliest, longest)."""
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], kind: Kind, value: tuple[int, ...]) -> None:
        span = match.span()
        if any(span[0] < end and start < span[1] for start, end in taken):
            return
        taken.append(span)
        found.append(DateMention(kind, value, match.group(0), span[0]))

    for m in _ISO.finditer(text):
        if _valid(int(m["y"]), int(m["m"]), int(m["d"])):
            add(m, "date", (int(m["y"]), int(m["m"]), int(m["d"])))
    for pattern in (_DAY_MONTH, _MONTH_DAY):
        for m in pattern.finditer(text):
            day = int(m["d"]) if m["d"] else _ORDINALS[m["o"].lower()]
            if 1 <= day <= 31:
                add(m, "month_day", (_MONTHS[m["mon"].lower()], day))
    for m in _DOTTED.finditer(text):
        day, month = int(m["d"]), int(m["m"])
        if m["y"] and _valid(int(m["y"]), month, day):
            add(m, "date", (int(m["y"]), month, day))
        elif not m["y"] and 1 <= month <= 12 and 1 <= day <= 31:
            add(m, "month_day", (month, day))
    for phrase, kind in _PHRASES:
        for m in re.finditer(rf"\b(?:{phrase})(?!\w)", text, re.IGNORECASE):
            add(m, kind, ())
    for phrase, offset in _OFFSETS:
        for m in re.finditer(rf"\b(?:{phrase})(?!\w)", text, re.IGNORECASE):
            add(m, "offset", (offset,))
    for m in re.finditer(_WORD, text):
        word = m.group(0).lower()
        if word in _WEEKDAYS:
            add(m, "weekday", (_WEEKDAYS[word],))
            continue
        for stem, weekday in _WEEKDAY_ADJECTIVES:
            if word.startswith(stem):
                add(m, "weekday", (weekday,))
                break
    return sorted(found, key=lambda mention: mention.start)


def _friday_on_or_after(day: date) -> date:
    ahead = (4 - day.weekday()) % 7
    if day.weekday() > 4:  # a weekend: "the end of the week" is the coming Friday
        ahead = 4 - day.weekday() + 7
    return day + timedelta(days=ahead)


def resolve_future(mention: DateMention, base: date) -> date | None:
    """The day a deadline means, said on `base`: the next such weekday, a month-day on or after `base`..."""
    kind, value = mention.kind, mention.value
    if kind == "date":
        return date(*value)
    if kind == "month_day":
        month, day = value
        for year in (base.year, base.year + 1):
            if _valid(year, month, day) and date(year, month, day) >= base:
                return date(year, month, day)
        return None
    if kind == "weekday":
        ahead = (value[0] - base.weekday()) % 7 or 7  # "by Friday" said on a Friday is next week's
        return base + timedelta(days=ahead)
    if kind == "offset":
        return base + timedelta(days=value[0]) if value[0] >= 0 else None
    if kind == "week_end":
        return _friday_on_or_after(base)
    if kind == "next_week":
        return _friday_on_or_after(base + timedelta(days=7 - base.weekday()))
    last = calendar.monthrange(base.year, base.month)[1]
    return date(base.year, base.month, last)


def resolve_past(mention: DateMention, base: date) -> date | None:
    """The day a reference to an earlier event means, said on `base`: "yesterday", "on Friday", "27 listopada"."""
    kind, value = mention.kind, mention.value
    if kind == "date":
        return date(*value)
    if kind == "month_day":
        month, day = value
        for year in (base.year, base.year - 1):
            if _valid(year, month, day) and date(year, month, day) <= base:
                return date(year, month, day)
        return None
    if kind == "weekday":
        back = (base.weekday() - value[0]) % 7
        return base - timedelta(days=back)
    if kind == "offset":
        return base + timedelta(days=value[0]) if value[0] <= 0 else None
    return None
