"""Dates and periods said in words (English, Polish, Russian), read against a given `now`: one place for every pack.

`find_period(text, language, now)` returns the `Period` a request names ("yesterday", "last night", "next month",
"from 29 November", "between 1 and 5 December", "wczorajsze", "zeszłej nocy", "с 29 ноября", "за последние 3 дня"),
`parse_date_answer` the day an answer to "which day?" names, `month_of` the month ("YYYY-MM") a request plans for,
and `coverage` whether data spanning some days covers a period. A date that does not exist ("30 February 2026",
"2026-02-30", "31 listopada") raises `InvalidDate`, so a caller can say so instead of guessing.

How a text is read:

1. The text is folded (lower case, "ё" as "е"; its length never changes, so every reading keeps the words as said).
2. Small tables of stems find the words of dates in all three languages, whatever `language` says (a Polish request
   can be sent as English): month names in every case ("listopada", "в январе", "grudniem"), weekdays and their
   adjectives ("piątkowej", "пятничного"), yesterday and its adjectives ("wczorajsze", "вчерашних"), day numbers in
   words ("десятого"), ISO and dotted dates, and the relative phrases of weeks, months and nights ("przyszłego
   miesiąca", "прошлой ночью", "last 3 days").
3. Each date found is normalised to a form `dateparser` reads (the inflected forms it lacks become the nominative or
   genitive) and handed to `dateparser` with the language of its words only (a date in digits: the request's
   language; fewer languages load and parse faster), `RELATIVE_BASE` taken from `now` and `PREFER_DATES_FROM` from
   `prefer`: the library resolves day and month names, weekdays, relative days and absolute dates. Weeks (Monday
   to Sunday), months, nights and "the last N days" (the N whole days before `now`'s day) are calendar arithmetic.
   `dateparser.search.search_dates` is not used: on these requests it splits phrases ("the day before yesterday"
   became "yesterday") and drops the structure ("between 1 and 5 December" became "and 5 December" a year ago).
4. Words before a date make it a period: from/since/od/с ("from"), until/by/do/до/к ("until"), between/między/между
   and "A to B" / "od A do B" / "с A по B" ("range", a bare day taking the other end's month).

`now` is the only source of time (its date as given, in its own zone): nothing here reads the wall clock, so replay
is exact. Results of `dateparser` are cached per (words, language, day, preference).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from typing import Any, Literal

from alicorn.errors import AlicornError

PeriodKind = Literal["day", "night", "week", "month", "range", "from", "until"]
Prefer = Literal["past", "future"]
CoverageStatus = Literal["covered", "partial", "none", "empty"]

_KINDS = ("day", "night", "week", "month", "range", "from", "until")
_LANGUAGES = ("en", "pl", "ru")
_ONE_DAY = timedelta(days=1)
#: The years a date may name (a calendar, not a timestamp: beyond these `date` arithmetic would overflow).
_YEARS = (1000, 9998)
#: English month names (not `calendar.month_name`, which follows the process's locale).
_EN_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


class InvalidDate(AlicornError, ValueError):
    """The text names a date that does not exist ("30 February 2026"): `words` as said, `reason` what is wrong."""

    def __init__(self, words: str, reason: str) -> None:
        super().__init__(f"{words!r} names a date that does not exist: {reason}")
        self.words = words
        self.reason = reason


@dataclass(frozen=True)
class Period:
    """Days a text names: from `start` up to `end`, which is EXCLUSIVE (a single day has `end = start + 1 day`).

    `words` are the words as said; `kind` tells how they named it: a `day`, a `night` (the evening of `start` to
    the morning after, so two calendar days), a calendar `week` (Monday to Sunday), a calendar `month`, a `range`
    ("between 1 and 5 December", "last 3 days"), or an open end closed at the request's day: `from` X runs to the
    later of X and that day, `until` X starts at the earlier of them.
    """

    start: date
    end: date
    words: str
    kind: PeriodKind

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown period kind {self.kind!r}: use one of {', '.join(_KINDS)}")
        if not self.start < self.end:
            raise ValueError(f"a period ends after it starts: {self.start} .. {self.end} (end is exclusive)")

    @property
    def days(self) -> int:
        """How many calendar days the period touches."""
        return (self.end - self.start).days

    @property
    def last(self) -> date:
        """The period's last day (`end` minus one day)."""
        return self.end - _ONE_DAY

    def contains(self, day: date) -> bool:
        """Whether `day` lies in the period."""
        return self.start <= day < self.end

    def describe(self) -> str:
        """The period in words for a report: "2026-11-29", "2026-12 (December 2026)", "from 2026-11-29"..."""
        if self.kind == "month":
            return f"{self.start:%Y-%m} ({_EN_MONTHS[self.start.month - 1]} {self.start.year})"
        if self.kind == "night":
            return f"the night of {self.start.isoformat()} to {self.last.isoformat()}"
        if self.kind == "from":
            return f"from {self.start.isoformat()}"
        if self.kind == "until":
            return f"until {self.last.isoformat()}"
        return _span(self.start, self.last)


@dataclass(frozen=True)
class Coverage:
    """How data that spans `first`..`last` (inclusive days; None when there is no data) covers `period`.

    `running`: the period was not over at `as_of` (the request's time), so no data could cover all of it; the days
    after `as_of`'s day are not counted in `missing_days` (they had not happened), and the status is at best
    `partial`."""

    period: Period
    first: date | None
    last: date | None
    status: CoverageStatus
    missing_days: int
    running: bool = False
    as_of: datetime | None = None

    @property
    def sentence(self) -> str:
        """The coverage in one English sentence ("the data covers 2026-11-29 only; the request asks for ...")."""
        if self.first is None or self.last is None:
            return "the data is empty"
        asked = (
            _span(self.period.start, self.period.last)
            if self.period.kind in ("from", "until")
            else self.period.describe()
        )
        held = _span(self.first, self.last)
        if self.status == "covered":
            return f"the data covers {asked}"
        missing = f" ({self.missing_days} {'day' if self.missing_days == 1 else 'days'} missing)"
        if self.running and self.as_of is not None:
            return (
                f"the data covers {held} only, up to the request's time ({self.as_of:%Y-%m-%d %H:%M}); the request "
                f"asks for {asked}, which was not over then" + (missing if self.missing_days else "")
            )
        return f"the data covers {held} only; the request asks for {asked}" + (
            missing if self.status == "partial" else ""
        )


def coverage(period: Period, first: date | None, last: date | None, *, now: datetime | None = None) -> Coverage:
    """Whether data whose days run from `first` to `last` (inclusive; None: no data) covers `period`.

    `now` (the request's time) bounds what any data could hold: a period not over at `now` ("today" at 09:00, this
    week before Sunday night) is never `covered`, however far the data reaches; only the days begun by `now` can be
    missing, and a period that has not begun is covered by nothing (`none`)."""
    running = now is not None and now.date() < period.end
    due_end = min(period.end, now.date() + _ONE_DAY) if now is not None and running else period.end
    due_days = max((due_end - period.start).days, 0)
    if first is None or last is None:
        return Coverage(period, None, None, "empty", due_days, running, now)
    if last < first:
        raise ValueError(f"the data's last day {last} is before its first day {first}")
    overlap = (min(last + _ONE_DAY, due_end) - max(first, period.start)).days
    if overlap <= 0:
        return Coverage(period, first, last, "none", due_days, running, now)
    missing = due_days - overlap
    status: CoverageStatus = "covered" if missing == 0 and not running else "partial"
    return Coverage(period, first, last, status, missing, running, now)


def find_period(text: str, language: str, now: datetime, *, prefer: Prefer = "past") -> Period | None:
    """The period `text` names (the first, when it names several), read at `now`; None when it names no date.

    `prefer` decides a date said without its year or week ("29 November", "Friday"): the latest one not after
    `now`'s day ("past") or the earliest one not before it ("future"); a weekday said on that weekday is last
    week's or next week's ("last"/"next"/"this Friday" decide by themselves). `language` ("en", "pl", "ru") is a
    hint: the words of all three are read. Raises `InvalidDate` when the text names a date that does not exist.
    """
    readings = _read(text, language, now, prefer)
    return readings[0].period if readings else None


def find_periods(text: str, language: str, now: datetime, *, prefer: Prefer = "past") -> list[Period]:
    """Every period `text` names, in the order said (see `find_period`)."""
    return [r.period for r in _read(text, language, now, prefer)]


def parse_date_answer(text: str, language: str, now: datetime, *, prefer: Prefer = "past") -> date | None:
    """The day an answer to "which day?" names ("28 listopada", "nov 29", "вчера", "2026-11-28", "last night":
    its evening's day; "from Monday", "by Friday": that day); None when it names no single day (a week, a month,
    a range)."""
    days = find_days(text, language, now, prefer=prefer)
    return days[0] if days else None


def find_days(text: str, language: str, now: datetime, *, prefer: Prefer = "past") -> list[date]:
    """Every single day `text` names, in the order said (see `parse_date_answer`): weeks, months and ranges are
    left out, "from"/"until" a day keep that day."""
    return [r.day for r in _read(text, language, now, prefer) if r.day is not None]


def month_of(text: str, language: str, now: datetime) -> str | None:
    """The month ("YYYY-MM") a request names: "next month", "in December", "na grudzień", "в январе", "2027-03",
    "04/2027"; a month name without a year is the next such month (the current month is this one). A named or
    numeric month wins over a relative one ("this month ... for 2027-03" is March 2027). None when none is named."""
    today = now.date()
    relative: str | None = None
    for atom in _atoms(text):
        if atom.type == "day_month" and atom.value[2] is None:  # "from 15 October" said in October: this October
            month = atom.value[0]
            return f"{today.year + (month < today.month):04d}-{month:02d}"
        if atom.type in _EXPLICIT_MONTH:
            start, _end = _resolve(atom, today, "future")
            return f"{start:%Y-%m}"
        if atom.type == "month" and relative is None:
            start, _end = _resolve(atom, today, "future")
            relative = f"{start:%Y-%m}"
    return relative


# ------------------------------------------------------------------------------------------------- vocabulary

# fmt: off
#: Per month: English name and abbreviation, Polish and Russian forms in every case (folded: "е" for "ё"), and the
#: Polish and Russian genitive that `dateparser` reads after a day number ("5 listopada", "5 ноября").
_MONTH_TABLE: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("january", "jan", r"stycz(?:eń|en|nia|niu|niem)", r"январ(?:ь|я|е|ю|ем)", "stycznia", "января"),
    ("february", "feb", r"lut(?:y|ego|ym|emu)", r"феврал(?:ь|я|е|ю|ем)", "lutego", "февраля"),
    ("march", "mar", r"mar(?:zec|ca|cu|cem)", r"март(?:а|е|у|ом)?", "marca", "марта"),
    ("april", "apr", r"kwie(?:cień|cien|tnia|tniu|tniem)", r"апрел(?:ь|я|е|ю|ем)", "kwietnia", "апреля"),
    ("may", "may", r"maj(?:a|u|em)?", r"ма(?:й|я|е|ю|ем)", "maja", "мая"),
    ("june", "jun", r"czerw(?:iec|ca|cu|cem)", r"июн(?:ь|я|е|ю|ем)", "czerwca", "июня"),
    ("july", "jul", r"lip(?:iec|ca|cu|cem)", r"июл(?:ь|я|е|ю|ем)", "lipca", "июля"),
    ("august", "aug", r"sierp(?:ień|ien|nia|niu|niem)", r"август(?:а|е|у|ом)?", "sierpnia", "августа"),
    ("september", "sept?", r"wrze(?:sień|sien|śnia|snia|śniu|sniu|śniem)", r"сентябр(?:ь|я|е|ю|ем)", "września",
     "сентября"),
    ("october", "oct", r"pa[źz]dziernik(?:a|u|iem)?", r"октябр(?:ь|я|е|ю|ем)", "października", "октября"),
    ("november", "nov", r"listopad(?:a|zie|em)?", r"ноябр(?:ь|я|е|ю|ем)", "listopada", "ноября"),
    ("december", "dec", r"grud(?:zień|zien|nia|niu|niem)", r"декабр(?:ь|я|е|ю|ем)", "grudnia", "декабря"),
)
#: Per weekday (Monday first): English, Polish and Russian forms (nouns in every case, adjectives: "piątkowej",
#: "пятничного"), and the Polish and Russian nominative `dateparser` reads. Russian "среды/среде/средой" also mean
#: "environment", so they count only after a preposition of time ("до среды", "к среде").
_WEEKDAY_TABLE: tuple[tuple[str, str, str, str, str], ...] = (
    ("monday", r"poniedział(?:ek|ku|kiem)|poniedziałkow(?:y|a|e|ej|ego|emu|ym|ą|ych)",
     r"понедельник(?:а|у|ом|е)?|понедельничн\w*", "poniedziałek", "понедельник"),
    ("tuesday", r"wtor(?:ek|ku|kiem)|wtorkow(?:y|a|e|ej|ego|emu|ym|ą|ych)",
     r"вторник(?:а|у|ом|е)?|вторничн\w*", "wtorek", "вторник"),
    ("wednesday", r"środ(?:a|y|ę|zie|ą)|środow(?:y|a|e|ej|ego|emu|ym|ą|ych)",
     r"сред(?:а|у|ы|е|ой)", "środa", "среда"),
    ("thursday", r"czwart(?:ek|ku|kiem)|czwartkow(?:y|a|e|ej|ego|emu|ym|ą|ych)",
     r"четверг(?:а|у|ом|е)?|четвергов\w*", "czwartek", "четверг"),
    ("friday", r"piąt(?:ek|ku|kiem)|piątkow(?:y|a|e|ej|ego|emu|ym|ą|ych)",
     r"пятниц(?:а|ы|у|е|ей)|пятничн\w*", "piątek", "пятница"),
    ("saturday", r"sobot(?:a|y|ę|cie|ą)|sobotni\w*", r"суббот(?:а|ы|у|е|ой)|субботн\w*", "sobota", "суббота"),
    ("sunday", r"niedziel(?:a|i|ę|ą)|niedzieln\w*", r"воскресень(?:е|я|ю|ем)|воскресн\w*", "niedziela",
     "воскресенье"),
)
#: Relative days: offset -> (English, Polish, Russian) forms, adjectives included ("wczorajsze", "вчерашних").
_RELATIVE_DAYS: tuple[tuple[int, str, str, str], ...] = (
    (-2, r"(?:the\s+)?day\s+before\s+yesterday", r"przedwczoraj\w*", r"позавчера\w*"),
    (2, r"(?:the\s+)?day\s+after\s+tomorrow", r"pojutrz\w*", r"послезавтра\w*"),
    (-1, r"yesterday", r"wczoraj\w*", r"вчера\w*"),
    (1, r"tomorrow", r"jutr(?:o|a)|jutrzejsz\w*", r"завтра(?:шн\w*)?"),
    (0, r"today|this\s+(?:morning|afternoon|evening)|(?:the\s+)?end\s+of\s+(?:the\s+)?day",
     r"dzi(?:ś|s|siaj)|dzisiejsz\w*", r"сегодня\w*"),
)
#: What `dateparser` reads for each relative day, per language.
_RELATIVE_WORDS: dict[str, dict[int, str]] = {
    "en": {-2: "day before yesterday", -1: "yesterday", 0: "today", 1: "tomorrow", 2: "day after tomorrow"},
    "pl": {-2: "przedwczoraj", -1: "wczoraj", 0: "dzisiaj", 1: "jutro", 2: "pojutrze"},
    "ru": {-2: "позавчера", -1: "вчера", 0: "сегодня", 1: "завтра", 2: "послезавтра"},
}
#: Counts in words (inflected forms too), for "last three days", "trzy dni temu", "за последние три дня".
_NUMBER_WORDS: dict[int, str] = {
    1: "one a an jeden jedna jedną jedno jednego jednej один одна одну одного одной",
    2: "two dwa dwie dwóch dwoch dwu два две двух",
    3: "three trzy trzech три трех",
    4: "four cztery czterech четыре четырех",
    5: "five pięć piec pięciu pieciu пять пяти",
    6: "six sześć szesc sześciu шесть шести",
    7: "seven siedem siedmiu семь семи",
    8: "eight osiem ośmiu osmiu восемь восьми",
    9: "nine dziewięć dziewięciu девять девяти",
    10: "ten dziesięć dziesięciu десять десяти",
    14: "fourteen czternaście czternastu четырнадцать четырнадцати",
    30: "thirty trzydzieści trzydziestu тридцать тридцати",
}
#: Day numbers in words ("the tenth of December", "dziesiątego grudnia", "десятого декабря").
_ORDINAL_WORDS: dict[int, str] = {
    1: "first pierwszego pierwszy первого первое",
    2: "second drugiego drugi второго второе",
    3: "third trzeciego trzeci третьего третье",
    4: "fourth czwartego czwarty четвертого четвертое",
    5: "fifth piątego piąty пятого пятое",
    6: "sixth szóstego szósty шестого шестое",
    7: "seventh siódmego siódmy седьмого седьмое",
    8: "eighth ósmego ósmy восьмого восьмое",
    9: "ninth dziewiątego dziewiąty девятого девятое",
    10: "tenth dziesiątego dziesiąty десятого десятое",
}
# fmt: on

_NUMBERS = {word: n for n, words in _NUMBER_WORDS.items() for word in words.split()}
_ORDINALS = {word: n for n, words in _ORDINAL_WORDS.items() for word in words.split()}


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_NUM = rf"(?:\d{{1,3}}|{_alternation(_NUMBERS)})"
_ORD = _alternation(_ORDINALS)
_PL_MONTHS = "|".join(row[2] for row in _MONTH_TABLE)
_RU_MONTHS = "|".join(row[3] for row in _MONTH_TABLE)
_EN_MONTH_ANY = "|".join(f"{row[0]}|{row[1]}" for row in _MONTH_TABLE)
#: A month name next to a day number or a year (abbreviations allowed: "nov 29", "Dec 2026").
_MONTH_ANY = f"{_EN_MONTH_ANY}|{_PL_MONTHS}|{_RU_MONTHS}"
#: A month name on its own: full English names ("may" only after a preposition: "you may" is no month).
_MONTH_ALONE = (
    "|".join(row[0] for row in _MONTH_TABLE if row[0] != "may")
    + "|(?:(?<=in )|(?<=of )|(?<=for )|(?<=during )|(?<=since )|(?<=until )|(?<=from )|(?<=by ))may"
    + f"|{_PL_MONTHS}|{_RU_MONTHS}"
)
_YEAR = r"(?P<y>\d{4})(?!\d)(?:\s*(?:r\.|roku|года|г\.|г(?!\w)))?"
_DAY = rf"(?P<d>\d{{1,2}}|{_ORD})(?:st|nd|rd|th|-го|-е|го|\.)?"
_WEEKDAYS = "|".join(f"{row[0]}|{row[1]}|{row[2]}" for row in _WEEKDAY_TABLE)
_LAST = (
    r"last|previous|past|zeszł\w*|zeszl\w*|ubiegł\w*|ubiegl\w*|poprzedni\w*|ostatni\w*|minion\w*|прошл\w*"
    r"|предыдущ\w*|минувш\w*|прошедш\w*"
)
_NEXT = (
    r"next|coming|upcoming|following|przyszł\w*|przyszl\w*|następn\w*|nastepn\w*|najbliższ\w*|najblizsz\w*"
    r"|kolejn\w*|следующ\w*|ближайш\w*|будущ\w*|грядущ\w*"
)
_THIS = (
    r"this|current|ten|tę|ta|tym|tej|tego|bieżąc\w*|biezac\w*|obecn\w*|aktualn\w*|этот|эту|эта|этой|этом|этого"
    r"|текущ\w*"
)
_WEEK = r"weeks?|tydzień|tydzien|tygodni\w*|недел\w*"
_MONTH = r"months?|miesiąc\w*|miesiac\w*|месяц\w*"
_DAYS_UNIT = r"days?|dni|dniach|dzień|dnia|дн(?:я|ей|ь)|день|сут(?:ки|ок)"
_WEEKS_UNIT = r"weeks?|tygodni\w*|tydzień|недел[иью]|недель"


#: Russian prepositions after which "среды/среде/средой" is Wednesday ("до среды", "к среде"), not "environment".
_TIME_PREPOSITION = re.compile(r"(?<!\w)(?:до|к|ко|по|с|со|от|после|перед)\s+$")


def _pattern(body: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){body}(?!\w)")


# Each pattern: (type, compiled). Matches are kept earliest first, then longest; overlapping ones are dropped.
@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The date patterns (compiled on first use: importing the packs stays cheap)."""
    return (
        ("iso", re.compile(r"(?<![\d.-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d-])")),
        ("dotted", re.compile(r"(?<![\d.,])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?!\d)")),
        # "03.12": a two-digit month, so "1.5 million" is no date; "0.75" or "10.30" fail the ranges and are dropped.
        ("dotted_short", re.compile(r"(?<![\d.,])(?P<d>\d{1,2})\.(?P<m>\d{2})(?![\d]|[.,]\d)")),
        ("iso_month", re.compile(r"(?<![\d.-])(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])(?![\d-])")),
        ("numeric_month", re.compile(r"(?<![\d./-])(?P<m>0?[1-9]|1[0-2])[./](?P<y>\d{4})(?![\d./])")),
        ("day_month", _pattern(rf"(?:the\s+)?{_DAY}(?:\s+of)?\s+(?P<mon>{_MONTH_ANY})(?!\w)\.?(?:,?\s+{_YEAR})?")),
        ("month_day", _pattern(rf"(?P<mon>{_EN_MONTH_ANY})(?!\w)\.?\s+(?:the\s+)?(?P<d>\d{{1,2}}|{_ORD})"
                               rf"(?:st|nd|rd|th)?(?![\w:])(?:,?\s+{_YEAR})?")),
        ("month_year", _pattern(rf"(?P<mon>{_MONTH_ANY})(?!\w)\.?\s+{_YEAR}")),
        ("month_name", _pattern(rf"(?P<mon>{_MONTH_ALONE})")),
        ("weekday", _pattern(rf"(?:(?P<mod>{_LAST}|{_NEXT}|{_THIS})\s+)?(?P<wd>{_WEEKDAYS})")),
        ("relative_day", _pattern(
            "(?:" + "|".join(f"(?P<{lang}{i}>{row[1 + n]})" for i, row in enumerate(_RELATIVE_DAYS)
                             for n, lang in enumerate(_LANGUAGES))
            + r")(?:\s+(?:day|dnia|dzień|дня|день))?"
        )),
        ("ago", _pattern(
            rf"(?:(?P<n>{_NUM})\s+)?(?P<u>{_DAYS_UNIT}|{_WEEKS_UNIT})\s+(?:ago|temu|wcześniej|назад)"
            rf"|(?P<ahead>in|za|через)\s+(?P<n2>{_NUM})\s+(?P<u2>{_DAYS_UNIT}|{_WEEKS_UNIT})"
        )),
        ("last_n", _pattern(
            rf"(?:(?:in|over|for|during|within)\s+)?(?:the\s+)?(?:last|past|previous)\s+(?P<n>{_NUM})\s+(?P<u>days|weeks)"
            rf"|for\s+(?P<n2>{_NUM})\s+(?P<u2>days|weeks)"
            rf"|(?:(?:w|przez|z|za|od)\s+)?(?:ostatni\w*|minion\w*|poprzedni\w*)\s+(?P<n3>{_NUM})\s+(?P<u3>{_DAYS_UNIT}|{_WEEKS_UNIT})"
            rf"|od\s+(?P<n4>{_NUM})\s+(?P<u4>dni|tygodni)"
            rf"|(?:(?:за|в\s+течение|в)\s+)?(?:последн\w*|прошедш\w*|минувш\w*|прошл\w*)\s+(?P<n5>{_NUM})\s+"
            rf"(?P<u5>{_DAYS_UNIT}|{_WEEKS_UNIT})"
            rf"|уже\s+(?P<n6>{_NUM})\s+(?P<u6>{_DAYS_UNIT}|{_WEEKS_UNIT})"
        )),
        ("night", _pattern(
            r"(?P<last>last\s+night|yesterday\s+night"
            r"|(?:zeszłej|ostatniej|minionej|ubiegłej|poprzedniej|wczorajszej)\s+nocy|wczoraj\s+w\s+nocy"
            r"|(?:w\s+)?(?:zeszłą|ostatnią|minioną)\s+noc"
            r"|(?:прошлой|минувшей|прошедшей|вчерашней)\s+ноч(?:ью|и)|вчера\s+ночью"
            r"|(?:в|за)\s+(?:прошлую|минувшую|прошедшую)\s+ночь)"
            r"|(?P<tonight>tonight|this\s+night)"
            r"|(?P<this>(?:dzisiejszej|tej)\s+nocy|dzi(?:ś|siaj)\s+w\s+nocy|сегодня\s+ночью|этой\s+ночью)"
        )),
        ("week", _pattern(
            rf"(?:(?:w|na|в|на)\s+)?(?:the\s+)?(?:(?P<last>{_LAST})|(?P<next>{_NEXT})|(?P<this>{_THIS}))\s+(?:{_WEEK})"
        )),
        ("month", _pattern(
            rf"(?:(?:w|na|в|на)\s+)?(?:the\s+)?(?:(?P<last>{_LAST})|(?P<next>{_NEXT})|(?P<this>{_THIS}))\s+(?:{_MONTH})"
            rf"|(?:in|za|через)\s+(?P<n>{_NUM})\s+(?:months|miesi\w*|месяц\w*)"
            r"|(?P<one>in\s+a\s+month|za\s+miesi[ąa]c|через\s+месяц)"
        )),
    )  # fmt: skip


#: Atom types that name a month outright (for `month_of`, they win over "next month").
_EXPLICIT_MONTH = frozenset({"iso", "dotted", "dotted_short", "day_month", "month_name"})
#: Atom types that name one day.
_SINGLE_DAY = frozenset({"iso", "dotted", "dotted_short", "day_month", "weekday", "relative_day", "ago"})

# Words before a date that make it an open period or a range, per language (a marker counts for a date of its own
# language, or for a date in digits when it is the request's language or English).
_MARKERS: tuple[tuple[str, str, str], ...] = (
    ("from", "en", r"from|since|starting(?:\s+(?:from|on|with))?|beginning(?:\s+(?:from|on|with))?|after"),
    ("from", "pl", r"od|począwszy\s+od|poczynając\s+od|po"),
    ("from", "ru", r"с|со|начиная\s+со?|после|от"),
    ("until", "en", r"until|till|til|up\s+(?:to|until)|through|thru|by|before|no\s+later\s+than"),
    ("until", "pl", r"do|aż\s+do|najpóźniej\s+do|przed"),
    ("until", "ru", r"до|по|к|ко|перед|не\s+позднее"),
    ("between", "en", r"between"),
    ("between", "pl", r"między|pomiędzy"),
    ("between", "ru", r"между"),
)
_MARKER_BEFORE = [(kind, lang, re.compile(rf"(?<!\w)(?:{words})\s+(?:the\s+)?$")) for kind, lang, words in _MARKERS]
#: What joins the two ends of a range ("to", "and" after "between", "do", "по", a dash).
_JOIN = r"-|–|—|to|till|until|through|thru|and|do|a|i|по|до|и"
_JOIN_ALONE = re.compile(rf"\s*(?:{_JOIN})\s*")
#: Joins that make a range without "between"/"from" before the first end ("29 November to 1 December", "1-5").
_JOIN_RANGE = frozenset({"-", "–", "—", "to", "till", "until", "through", "thru", "do", "по", "до"})
_BARE_DAY_BEFORE = re.compile(
    rf"(?:(?<!\w)(?P<mk>between|from|między|pomiędzy|od|между|с|со|от)\s+)?(?:the\s+)?(?<![\w.])"
    rf"(?P<d>\d{{1,2}}|{_ORD})(?:st|nd|rd|th|-го|го|\.)?\s*(?P<j>{_JOIN})\s*$"
)
_BARE_DAY_AFTER = re.compile(r"\s*(?P<j>-|–|—|to|till|until|through)\s*(?P<d>\d{1,2})(?:st|nd|rd|th)?(?![\w.:])")
#: Dates said outright: two of them joined by "to" / a dash make a range even without "from" or "between" before
#: them ("29 November to 1 December"); relative ones need it ("compare yesterday to today" is no range).
_OUTRIGHT = frozenset({"iso", "dotted", "dotted_short", "day_month", "month_name"})


# ------------------------------------------------------------------------------------------------------ atoms


@dataclass(frozen=True)
class _Atom:
    """One date as found: `type` (a `_patterns` name), its span in the text, its language (None: digits only) and
    what it says (`value`, by type)."""

    type: str
    start: int
    end: int
    lang: str | None
    value: tuple[Any, ...]


@dataclass(frozen=True)
class _Reading:
    period: Period
    day: date | None  # the one day it names (plain, or after "from"/"until"), None for weeks, months, ranges


def _fold(text: str) -> str:
    """Lower case with the text's length kept (a character whose lower case is longer stays), "ё" read as "е"."""
    folded = "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)
    return folded.replace("ё", "е").replace("’", "'")


def _month_word(word: str) -> tuple[str, int]:
    """The language and number of a month name as matched."""
    word = word.rstrip(".")
    for number, row in enumerate(_MONTH_TABLE, start=1):
        if word in (row[0], row[1]) or re.fullmatch(row[1], word):
            return "en", number
        if re.fullmatch(row[2], word):
            return "pl", number
        if re.fullmatch(row[3], word):
            return "ru", number
    raise AssertionError(f"not a month name: {word!r}")  # the patterns only match the table's words


def _weekday_word(word: str) -> tuple[str, int]:
    for number, row in enumerate(_WEEKDAY_TABLE):
        if word == row[0]:
            return "en", number
        if re.fullmatch(row[1], word):
            return "pl", number
        if re.fullmatch(row[2], word):
            return "ru", number
    raise AssertionError(f"not a weekday: {word!r}")


def _count(word: str | None) -> int:
    if word is None:
        return 1
    return int(word) if word.isdigit() else _NUMBERS[word]


def _day_number(word: str) -> int:
    return int(word) if word.isdigit() else _ORDINALS[word]


def _check(words: str, year: int | None, month: int, day: int) -> None:
    """Raise InvalidDate unless day/month(/year) exists (without a year, in some year: 29 February does)."""
    if year is not None and not _YEARS[0] <= year <= _YEARS[1]:
        raise InvalidDate(words, f"the year {year} is outside {_YEARS[0]}-{_YEARS[1]}")
    if not 1 <= month <= 12:
        raise InvalidDate(words, f"there is no month {month}")
    longest = calendar.monthrange(year if year is not None else 2000, month)[1]
    if not 1 <= day <= longest:
        named = f"{day} {_EN_MONTHS[month - 1]}" + (f" {year}" if year is not None else "")
        raise InvalidDate(words, f"there is no {named}")


@lru_cache(maxsize=2048)
def _atoms(text: str) -> tuple[_Atom, ...]:
    """The dates in `text`, in order, without overlaps; raises InvalidDate for one that does not exist. Words of
    all three languages are read, whatever the request's language."""
    folded = _fold(text)
    found: list[tuple[int, int, str, re.Match[str]]] = []
    for kind, pattern in _patterns():
        for m in pattern.finditer(folded):
            found.append((m.start(), -m.end(), kind, m))
    atoms: list[_Atom] = []
    taken_until = 0
    for start, neg_end, kind, m in sorted(found, key=lambda f: (f[0], f[1])):
        if start < taken_until:
            continue
        atom = _atom(kind, m, text[start:-neg_end], folded)
        if atom is not None:
            atoms.append(atom)
            taken_until = -neg_end
    return tuple(atoms)


def _atom(kind: str, m: re.Match[str], words: str, folded: str) -> _Atom | None:
    start, end = m.span()
    group = m.groupdict()
    if kind in ("iso", "dotted"):
        year, month, day = int(m["y"]), int(m["m"]), int(m["d"])
        _check(words, year, month, day)
        fragment = f"{year:04d}-{month:02d}-{day:02d}" if kind == "iso" else f"{day:02d}.{month:02d}.{year:04d}"
        return _Atom(kind, start, end, None, (fragment, date(year, month, day)))
    if kind == "dotted_short":
        month, day = int(m["m"]), int(m["d"])
        if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(2000, month)[1]):
            return None  # "10.30", "0.75": not a date, and not said as one
        return _Atom(kind, start, end, "en", (f"{day} {_EN_MONTHS[month - 1]}",))
    if kind in ("iso_month", "numeric_month", "month_year", "month_name"):
        number = int(m["m"]) if "m" in group else _month_word(m["mon"])[1]
        return _Atom("month_name", start, end, None, (int(m["y"]) if group.get("y") else None, number))
    if kind in ("day_month", "month_day"):
        lang, month = _month_word(m["mon"])
        day = _day_number(m["d"])
        said = int(m["y"]) if m["y"] else None
        _check(words, said, month, day)
        return _Atom("day_month", start, end, lang, (month, day, said))
    if kind == "weekday":
        lang, weekday = _weekday_word(m["wd"])
        if m["wd"] in ("среды", "среде", "средой") and not _TIME_PREPOSITION.search(folded, 0, m.start("wd")):
            return None  # "в изолированной среде": the environment, not Wednesday
        mod = m["mod"]
        direction = 0 if mod is None else -1 if re.fullmatch(_LAST, mod) else 1 if re.fullmatch(_NEXT, mod) else 2
        return _Atom(kind, start, end, lang, (weekday, direction))
    if kind == "relative_day":
        name = next(k for k, v in group.items() if v is not None)
        return _Atom(kind, start, end, name[:2], (_RELATIVE_DAYS[int(name[2:])][0],))
    if kind == "ago":  # "3 days ago" (a positive count back), "in 3 days" / "za 3 dni" / "через 3 дня" (negative)
        count, unit = (m["n2"], m["u2"]) if m["ahead"] else (m["n"], m["u"])
        days = _count(count) * (7 if re.fullmatch(_WEEKS_UNIT, unit) else 1)
        return _Atom(kind, start, end, "en", (-days if m["ahead"] else days,))
    if kind == "last_n":
        n = next(v for k, v in group.items() if k.startswith("n") and v is not None)
        u = next(v for k, v in group.items() if k.startswith("u") and v is not None)
        days = _count(n) * (7 if re.fullmatch(_WEEKS_UNIT, u) else 1)
        return _Atom(kind, start, end, None, (days,)) if days > 0 else None  # "the last 0 days" names nothing
    if kind == "night":
        which = "last" if m["last"] else "tonight" if m["tonight"] else "this"
        return _Atom(kind, start, end, None, (which,))
    if kind == "week":
        return _Atom(kind, start, end, None, (-1 if m["last"] else 1 if m["next"] else 0,))
    shift = 1 if m["next"] or m["one"] else -1 if m["last"] else _count(m["n"]) if m["n"] else 0
    if m["n"] and not 1 <= shift <= 24:
        return None  # "in 0 months", "in 300 months": no month a request plans for
    return _Atom("month", start, end, None, (shift,))


# ------------------------------------------------------------------------------------------------- resolution


@lru_cache(maxsize=4096)
def _dateparser(fragment: str, languages: tuple[str, ...], base: date, prefer: str, order: str | None) -> date | None:
    """`dateparser` on one normalised date, relative to noon of `base` (never the wall clock)."""
    import dateparser  # imported on first use: it loads its language data then (about 0.2 s)

    settings: dict[str, Any] = {
        "RELATIVE_BASE": datetime.combine(base, time(12)),
        "PREFER_DATES_FROM": prefer,
        "PREFER_DAY_OF_MONTH": "first",
        "RETURN_AS_TIMEZONE_AWARE": False,
        "TIMEZONE": "UTC",
        "PARSERS": ["relative-time", "absolute-time"],
    }
    if order is not None:
        settings["DATE_ORDER"] = order
    parsed = dateparser.parse(fragment, languages=list(languages), settings=settings)
    return parsed.date() if isinstance(parsed, datetime) else None


def _shift_month(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _month_span(first: date) -> tuple[date, date]:
    return first, _shift_month(first, 1)


def _resolve(atom: _Atom, today: date, prefer: str, language: str = "en") -> tuple[date, date]:
    """The days [start, end) an atom names, said on `today`."""
    kind, value = atom.type, atom.value
    if kind in ("iso", "dotted"):
        fragment, checked = value
        day = _dateparser(fragment, (language,), today, prefer, "YMD" if kind == "iso" else "DMY")
        return _single(day if day is not None else checked)  # an old year dateparser declines is still that day
    if kind == "dotted_short":
        return _single(_yearless(value[0], ("en",), today, prefer))
    if kind == "day_month":
        month, number, year = value
        lang = atom.lang or "en"
        name = _EN_MONTHS[month - 1] if lang == "en" else _MONTH_TABLE[month - 1][4 if lang == "pl" else 5]
        fragment = f"{number} {name}" + (f" {year}" if year is not None else "")
        if year is not None:
            day = _dateparser(fragment, (lang,), today, prefer, None)
            return _single(day if day is not None else date(year, month, number))
        return _single(_yearless(fragment, (lang,), today, prefer))
    if kind == "month_name":
        year, month = value
        if year is None:
            year = today.year
            if prefer == "future" and month < today.month:
                year += 1
            elif prefer == "past" and month > today.month:
                year -= 1
        return _month_span(date(year, month, 1))
    if kind == "weekday":
        weekday, direction = value
        if direction == 2:  # "this Friday": the one of this week
            return _single(today + timedelta(days=weekday - today.weekday()))
        lang = atom.lang or "en"
        name = _WEEKDAY_TABLE[weekday][0] if lang == "en" else _WEEKDAY_TABLE[weekday][3 if lang == "pl" else 4]
        way = prefer if direction == 0 else "past" if direction < 0 else "future"
        day = _dateparser(name, (lang,), today, way, None)
        if day is None:
            raise AssertionError(f"dateparser did not read the weekday {name!r}")
        return _single(day)
    if kind == "relative_day":
        (offset,) = value
        lang = atom.lang or "en"
        day = _dateparser(_RELATIVE_WORDS[lang][offset], (lang,), today, prefer, None)
        return _single(day if day is not None else today + timedelta(days=offset))
    if kind == "ago":
        (days,) = value
        said = f"{days} days ago" if days >= 0 else f"in {-days} days"
        day = _dateparser(said, ("en",), today, prefer, None)
        return _single(day if day is not None else today - timedelta(days=days))
    if kind == "last_n":
        (days,) = value
        return today - timedelta(days=days), today
    if kind == "night":
        (which,) = value
        evening = today if which == "tonight" else today - _ONE_DAY
        return evening, evening + timedelta(days=2)
    if kind == "week":
        (shift,) = value
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
        return monday, monday + timedelta(weeks=1)
    (shift,) = value
    return _month_span(_shift_month(today, shift))


def _single(day: date) -> tuple[date, date]:
    return day, day + _ONE_DAY


def _yearless(fragment: str, languages: tuple[str, ...], base: date, prefer: str) -> date:
    """A day and month without a year: the latest not after `base` or the earliest not before it (`base` itself
    when it is that day; `dateparser`'s "future" would skip to next year)."""
    day = _dateparser(fragment, languages, base, prefer, "DMY")
    if day is None:
        raise AssertionError(f"dateparser did not read {fragment!r}")
    if prefer == "future" and day.year == base.year + 1 and (day.month, day.day) == (base.month, base.day):
        return base
    return day


def _marker(before: str, atom: _Atom, language: str) -> tuple[str, int] | None:
    """The marker ("from", "until", "between") right before an atom, and where it starts in `before`."""
    for kind, lang, pattern in _MARKER_BEFORE:
        if lang != atom.lang and not (atom.lang is None and lang in (language, "en")):
            continue
        m = pattern.search(before)
        if m is not None:
            return kind, m.start()
    return None


def _read(text: str, language: str, now: datetime, prefer: str) -> list[_Reading]:
    """Every reading of `text`: its atoms, combined with the words around them into periods."""
    language = language if language in _LANGUAGES else "en"
    if prefer not in ("past", "future"):
        raise ValueError(f"prefer must be 'past' or 'future', not {prefer!r}")
    today = now.date()
    folded = _fold(text)
    atoms = _atoms(text)
    readings: list[_Reading] = []
    index, previous_end = 0, 0
    while index < len(atoms):
        atom = atoms[index]
        if atom.type == "night" and atom.value == ("this",):
            # "dziś w nocy", "этой ночью": said before noon, the night that has just ended
            atom = replace(atom, value=("last" if now.hour < 12 else "tonight",))
        before = folded[previous_end : atom.start]
        marker = _marker(before, atom, language)
        following = atoms[index + 1] if index + 1 < len(atoms) else None
        bare = _BARE_DAY_BEFORE.search(before) if atom.type == "day_month" else None
        if bare is not None and (bare["mk"] or bare["j"] in _JOIN_RANGE):
            month, last_day, year = atom.value
            first_day = _day_number(bare["d"])
            first_words = text[previous_end + bare.start() : atom.end]
            _check(first_words, year, month, first_day)
            first = _Atom("day_month", atom.start, atom.start, atom.lang, (month, first_day, year))
            readings.append(_range(first, atom, first_words, today, prefer, language))
            index, previous_end = index + 1, atom.end
            continue
        after = _BARE_DAY_AFTER.match(folded, atom.end) if atom.type == "day_month" else None
        if (
            after is not None
            and (following is None or following.start >= after.end())
            and int(after["d"]) > atom.value[1]
        ):
            month, first_day, year = atom.value
            last_day = int(after["d"])
            words = text[atom.start - (len(before) - marker[1] if marker else 0) : after.end()]
            _check(words, year, month, last_day)
            last = _Atom("day_month", after.start("d"), after.end(), atom.lang, (month, last_day, year))
            readings.append(_range(atom, last, words, today, prefer, language))
            index, previous_end = index + 1, after.end()
            continue
        begin = atom.start - (len(before) - marker[1]) if marker else atom.start
        if following is not None:
            join = _JOIN_ALONE.fullmatch(folded, atom.end, following.start)
            joined = join.group(0).strip() if join else None
            outright = atom.type in _OUTRIGHT and following.type in _OUTRIGHT and joined in _JOIN_RANGE
            if joined and ((marker and marker[0] in ("from", "between")) or outright):
                readings.append(_range(atom, following, text[begin : following.end], today, prefer, language))
                index, previous_end = index + 2, following.end
                continue
        start, end = _resolve(atom, today, prefer, language)
        day = start if atom.type in _SINGLE_DAY or atom.type == "night" else None
        words = text[begin : atom.end]
        if marker and marker[0] == "from":
            period = Period(start, max(end, today + _ONE_DAY), words, "from")
        elif marker and marker[0] == "until":
            period = Period(min(start, today), end, words, "until")
            day = end - _ONE_DAY if day is not None else None
        else:
            period = Period(start, end, words, _atom_kind(atom))
        readings.append(_Reading(period, day))
        index, previous_end = index + 1, atom.end
    return readings


def _atom_kind(atom: _Atom) -> PeriodKind:
    if atom.type in _SINGLE_DAY:
        return "day"
    if atom.type == "month_name":
        return "month"
    if atom.type == "last_n":
        return "range"
    return "night" if atom.type == "night" else "week" if atom.type == "week" else "month"


def _range(first: _Atom, last: _Atom, words: str, today: date, prefer: str, language: str) -> _Reading:
    """A range from `first` to `last`: an end said without its year or week ("5 December", "Friday", "March") is
    the first such day or month on or after the start."""
    start, first_end = _resolve(first, today, prefer, language)
    if _unanchored(last):
        end_start, end = _resolve(last, start, "future", language)
    else:
        end_start, end = _resolve(last, today, prefer, language)
    lo, hi = min(start, end_start), max(first_end, end)
    return _Reading(Period(lo, hi, words, "range"), None)


def _unanchored(atom: _Atom) -> bool:
    """Whether an atom names no year or week of its own ("5 December", "03.12", "Friday", "March")."""
    if atom.type == "day_month":
        return atom.value[2] is None
    if atom.type == "month_name":
        return atom.value[0] is None
    return atom.type == "dotted_short" or (atom.type == "weekday" and atom.value[1] == 0)


def _span(first: date, last: date) -> str:
    return first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"


__all__ = [
    "Coverage",
    "InvalidDate",
    "Period",
    "coverage",
    "find_days",
    "find_period",
    "find_periods",
    "month_of",
    "parse_date_answer",
]
