"""Reading a recurring schedule from the words: "every Monday at 8", "co poniedziałek o 8", "каждый понедельник в 8
утра", "every 2 hours", "codziennie rano", "по понедельникам и четвергам", "weekly", "раз в неделю".

    period       a quantifier over a unit, a weekday or a part of the day: every / each / co / każdy / каждый …
                 (+ a count: "every 3 hours", "co 2 godziny", "каждые 2 часа"; "other" / "drugi" / "второй" = 2),
                 a plural weekday with its preposition ("on Mondays", "w poniedziałki", "по понедельникам"), a
                 frequency adverb ("daily" after its verb, "codziennie", "ежедневно"), "once a week" / "raz w
                 tygodniu" / "раз в неделю", "N times a day" (every 24/N hours), "on weekdays" / "w dni robocze" /
                 "по будням"; more weekdays joined by "and / i / и"
    time         a clock time next to the period ("at 7:30", "o 8", "в 8 утра", "в 7 вечера" = 19:00), or a part
                 of the day ("morning", "rano", "утром"), which the cron places at a nominal hour (listed in
                 `assumed`)
    one-off      a weekday without a quantifier ("on Monday", "w poniedziałek", "в понедельник") is a date, not a
                 recurrence; "daily" before a noun after a determiner ("the daily report") is an adjective

The reading carries a 5-field cron expression (minute hour day-of-month month day-of-week; Sunday = 0 in cron, while
`weekdays` counts Monday = 0 as Python does), the words that said it, and an English description. What the cron
had to fix that the words left open (a time, a weekday, a day of the month), or cannot say (every N weeks), is
listed in `assumed`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.models.intent.cues import (
    a_quantity_after,
    a_quantity_before,
    clause_commands,
    describes_a_noun,
    in_a_relative_clause,
)

Frequency = Literal["minutely", "hourly", "daily", "weekly", "monthly"]
PartOfDay = Literal["morning", "noon", "afternoon", "evening", "night"]
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: The hour a part of the day is scheduled at when the words give no clock time.
NOMINAL_HOUR: dict[str, int] = {"morning": 8, "noon": 12, "afternoon": 15, "evening": 18, "night": 22}


class Recurrence(BaseModel):
    """A recurring schedule read from the words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    frequency: Frequency
    interval: int = Field(1, ge=1, description="every `interval` units of `frequency`")
    weekdays: list[int] = Field(default_factory=list, description="0 = Monday … 6 = Sunday; empty: none named")
    at: str | None = Field(None, description="HH:MM when the words give a clock time")
    part_of_day: PartOfDay | None = None
    day_of_month: int | None = None
    cron: str = Field(description="the equivalent 5-field cron expression")
    assumed: list[str] = Field(default_factory=list, description="what the cron fixes that the words left open")
    words: str = Field(description="the words that said it")
    description: str


# --- the words -------------------------------------------------------------------------------------------------

_N_WORDS: dict[str, int] = {
    "other": 2, "second": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10,
    "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "drugi": 2, "drugą": 2, "drugie": 2, "dwa": 2, "dwie": 2, "trzy": 3, "cztery": 4, "pięć": 5, "sześć": 6,
    "osiem": 8, "dziesięć": 10, "dwanaście": 12, "piętnaście": 15, "dwadzieścia": 20, "trzydzieści": 30,
    "второй": 2, "вторую": 2, "второе": 2, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6,
    "восемь": 8, "десять": 10, "двенадцать": 12, "пятнадцать": 15, "двадцать": 20, "тридцать": 30,
}  # fmt: skip
_COUNT = r"(?:(?P<n>\d{1,3}|" + "|".join(sorted(_N_WORDS, key=len, reverse=True)) + r")\s+)?"

_UNITS: tuple[tuple[str, Frequency], ...] = (
    (r"minutes?|minut[ęy]?|mins?|минут[уы]?", "minutely"),
    (r"hours?|hrs?|godzin[ęy]?|godzinę|час(?:а|ов)?", "hourly"),
    (r"days?|dzień|dni|dnia|день|дня|дней|сутки", "daily"),
    (r"weeks?|fortnight|tydzień|tygodni[ea]?|tygodniu|недел[юиь]|недель", "weekly"),
    (r"months?|miesiąc[ea]?|miesięcy|miesiącu|месяц(?:а|ев)?", "monthly"),
)
_UNIT = "|".join(f"(?:{pattern})" for pattern, _ in _UNITS)

_DAY_FORMS: tuple[tuple[int, str], ...] = (
    (0, r"mondays?|poniedzia[łl]ek|poniedzia[łl]ki|понедельник(?:и|ам)?"),
    (1, r"tuesdays?|wtorek|wtorki|вторник(?:и|ам)?"),
    (2, r"wednesdays?|[śs]rod[ęea]|[śs]rody|сред(?:у|а|ы|ам)"),
    (3, r"thursdays?|czwartek|czwartki|четверг(?:и|ам)?"),
    (4, r"fridays?|pi[ąa]tek|pi[ąa]tki|пятниц(?:у|а|ы|ам)"),
    (5, r"saturdays?|sobot[ęea]|soboty|суббот(?:у|а|ы|ам)"),
    (6, r"sundays?|niedziel[ęea]|воскресень(?:е|я|ям)"),
)
_DAY = "|".join(f"(?:{pattern})" for _, pattern in _DAY_FORMS)
_DAYS = rf"(?P<days>(?:{_DAY})(?:\s*(?:,|and|&|or|i|oraz|и)\s*(?:{_DAY}))*)"
_PLURAL_DAY = (
    r"(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|poniedzia[łl]ki|wtorki|[śs]rody|czwartki"
    r"|pi[ąa]tki|soboty|niedziele|понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям)"
)
_PLURAL_DAYS = rf"(?P<days>{_PLURAL_DAY}(?:\s*(?:,|and|&|i|oraz|и)\s*{_PLURAL_DAY})*)"
_PARTS: tuple[tuple[PartOfDay, str], ...] = (
    ("morning", r"mornings?|rano|ranka|rana|ranek|rankiem|утро|утром|утрам|утра"),
    ("noon", r"noon|midday|południe|полдень"),
    ("afternoon", r"afternoons?|popołudni[ea]|po południu|днем"),
    ("evening", r"evenings?|wieczór|wieczora|wieczorem|вечер|вечером|вечерам|вечера"),
    ("night", r"nights?|noc|nocy|nocą|w nocy|ночь|ночью|ночам|ночи"),
)
_PART = "|".join(f"(?:{pattern})" for _, pattern in _PARTS)

_EVERY = r"(?:every|each)"
_CO = r"co"
_KAZDY = r"(?:w\s+|we\s+)?każd(?:y|ą|e|ego|ym)"
_KAZHDYJ = r"кажд(?:ый|ую|ое|ые|ого|ой|ом)"
_B, _E = r"(?<![\w'])", r"(?![\w'])"

# Each pattern: (regex, what it fixes). Groups: n (count), unit, days, part, adv, dom, times.
_PERIODS: tuple[str, ...] = (
    rf"{_B}(?:{_EVERY}|{_CO}|{_KAZDY}|{_KAZHDYJ})\s+(?:weekday|working day|business day)s?{_E}",
    rf"{_B}(?:on\s+weekdays|w\s+dni\s+(?:robocze|powszednie)|po\s+dniach\s+roboczych|по\s+будням|в\s+будни"
    rf"|по\s+рабочим\s+дням|в\s+рабочие\s+дни|od\s+poniedzia[łl]ku\s+do\s+pi[ąa]tku){_E}",
    rf"{_B}(?:{_EVERY}|{_CO}|{_KAZDY}|{_KAZHDYJ})\s+{_COUNT}(?P<unit>{_UNIT}){_E}(?!'s)",
    rf"{_B}(?:{_EVERY}|{_CO}|{_KAZDY}|{_KAZHDYJ})\s+{_COUNT}{_DAYS}{_E}",
    rf"{_B}(?:on|w|we|по)\s+{_PLURAL_DAYS}{_E}",
    rf"{_B}(?:{_EVERY}|{_CO}|{_KAZDY}|{_KAZHDYJ})\s+(?P<part>{_PART}){_E}",
    rf"{_B}(?:in\s+the|по)\s+(?P<part>mornings|evenings|afternoons|утрам|вечерам|ночам){_E}",
    rf"{_B}(?:once\s+(?:a|an|per|every)|raz\s+(?:w|na)|раз\s+в)\s+{_COUNT}(?P<unit>{_UNIT}){_E}",
    rf"{_B}(?P<times>twice|two times|three times|four times|six times|dwa razy|trzy razy|cztery razy|sześć razy"
    rf"|два раза|три раза|четыре раза|шесть раз)\s+(?:a\s+day|per\s+day|dziennie|na\s+dzień|w\s+dzień|в\s+день"
    rf"|в\s+сутки){_E}",
    rf"{_B}(?P<adv>daily|hourly|weekly|monthly|nightly|fortnightly|bi-?weekly|codziennie|cogodzinnie|cotygodniowo"
    rf"|tygodniowo|comiesięcznie|miesięcznie|raz\s+dziennie|ежедневно|ежечасно|еженедельно|ежемесячно|ежеминутно"
    rf"|через\s+день){_E}",
)
_MONTH_DAY = re.compile(
    rf"{_B}(?:on\s+the\s+)?(?P<dom>\d{{1,2}}|first)(?:st|nd|rd|th|\.)?\s+(?:day\s+)?(?:of\s+)?(?:every|each)\s+month"
    rf"|{_B}(?:every|each)\s+month\s+on\s+the\s+(?P<dom2>\d{{1,2}}|first)(?:st|nd|rd|th)?"
    rf"|{_B}(?P<dom3>\d{{1,2}}|pierwszego)\.?\s+(?:dnia\s+)?każdego\s+miesiąca"
    rf"|{_B}(?P<dom4>\d{{1,2}}|первого)(?:-?го)?\s+(?:числа\s+)?каждого\s+месяца",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"(?<![\w:])(?:at|o|około|в|к)\s+(?:godz(?:inie|\.)?\s+)?(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?"
    r"(?:\s*(?P<ampm>a\.?m\.?|p\.?m\.?)(?!\w))?"
    r"(?:\s+(?:h|ч|час(?:а|ов)?)(?!\w))?"
    r"(?:\s+(?P<pod>rano|wieczorem|w nocy|po południu|утра|вечера|дня|ночи)(?!\w))?"
    r"(?![\d\w])"
    r"|(?<![\w:])(?P<word>at\s+noon|at\s+midday|at\s+midnight|w\s+południe|o\s+północy|в\s+полдень|в\s+полночь)"
    r"(?!\w)",
    re.IGNORECASE,
)
_PART_NEAR = re.compile(rf"{_B}(?:in\s+the\s+)?(?P<part>{_PART}){_E}", re.IGNORECASE)
#: How many characters an unambiguous time of day may stand from its period and still belong to it.
_NEAR = 40


@dataclass
class _Reading:
    frequency: Frequency
    interval: int = 1
    weekdays: list[int] = field(default_factory=list)
    part: PartOfDay | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)


def _count(value: str | None) -> int:
    if not value:
        return 1
    return int(value) if value.isdigit() else _N_WORDS.get(value.lower(), 1)


def _weekdays(text: str) -> list[int]:
    found: list[int] = []
    for word in re.split(r"\s*(?:,|\band\b|&|\bor\b|\boraz\b|\bi\b|\bи\b)\s*", text.strip(), flags=re.IGNORECASE):
        for number, pattern in _DAY_FORMS:
            if re.fullmatch(pattern, word.strip(), re.IGNORECASE) and number not in found:
                found.append(number)
    return sorted(found)


def _part(text: str) -> PartOfDay | None:
    for name, pattern in _PARTS:
        if re.fullmatch(pattern, text.strip(), re.IGNORECASE):
            return name
    return None


def _unit(text: str) -> Frequency:
    for pattern, frequency in _UNITS:
        if re.fullmatch(pattern, text, re.IGNORECASE):
            return frequency
    raise ValueError(text)  # pragma: no cover - the unit group only matches the patterns above


def _adverb(word: str) -> tuple[Frequency, int, PartOfDay | None]:
    word = re.sub(r"\s+", " ", word.lower())
    table: dict[str, tuple[Frequency, int, PartOfDay | None]] = {
        "hourly": ("hourly", 1, None), "cogodzinnie": ("hourly", 1, None), "ежечасно": ("hourly", 1, None),
        "weekly": ("weekly", 1, None), "cotygodniowo": ("weekly", 1, None), "tygodniowo": ("weekly", 1, None),
        "еженедельно": ("weekly", 1, None), "fortnightly": ("weekly", 2, None), "biweekly": ("weekly", 2, None),
        "bi-weekly": ("weekly", 2, None), "monthly": ("monthly", 1, None), "miesięcznie": ("monthly", 1, None),
        "comiesięcznie": ("monthly", 1, None), "ежемесячно": ("monthly", 1, None),
        "ежеминутно": ("minutely", 1, None), "nightly": ("daily", 1, "night"), "через день": ("daily", 2, None),
    }  # fmt: skip
    return table.get(word, ("daily", 1, None))


#: The patterns whose days or parts of the day carry no "every" ("on Saturdays", "w soboty", "по утрам"): see
#: `_periods`.
_WEAK_PERIODS = (4, 6)


def _periods(text: str, language: str | None) -> list[tuple[re.Match[str], _Reading]]:
    found: list[tuple[re.Match[str], _Reading]] = []
    for number, pattern in enumerate(_PERIODS):
        for match in re.finditer(pattern, text, re.IGNORECASE):
            if number in _WEAK_PERIODS and not clause_commands(text, match.start(), language):
                continue  # "a w soboty potrzebujemy jednej osoby": a constraint of the work, not when to do it
            if a_quantity_before(text, match.start()) or a_quantity_after(text, match.end()):
                continue  # "każdy max 48h tygodniowo", "at least two RNs every night": how much, not when to act
            if in_a_relative_clause(text, match.start()):
                continue  # "Skrypt, który co noc generuje miniatury, zaczął się wlec": it describes the script
            groups = match.groupdict()
            if number in (0, 1):
                reading = _Reading("weekly", weekdays=[0, 1, 2, 3, 4])
            elif groups.get("unit"):
                reading = _Reading(_unit(groups["unit"]), _count(groups.get("n")))
            elif groups.get("days"):
                reading = _Reading("weekly", _count(groups.get("n")), _weekdays(groups["days"]))
            elif groups.get("part"):
                reading = _Reading("daily", part=_part(groups["part"]))
            elif groups.get("times"):
                times = _count(groups["times"].split()[0].replace("twice", "two"))
                reading = _Reading("hourly", 24 // times if times in (2, 3, 4, 6) else 12)
            else:
                if describes_a_noun(text, match.start(), match.end()):
                    continue  # "the daily report", "nightly render batch": an adjective
                frequency, interval, part = _adverb(groups["adv"])
                reading = _Reading(frequency, interval, part=part)
            reading.spans.append(match.span())
            found.append((match, reading))
    found.sort(key=lambda item: item[0].start())
    return found


def _clock(match: re.Match[str]) -> tuple[int, int] | None:
    if match.group("word"):
        return (
            (0, 0)
            if "midnight" in match.group("word").lower()
            or "półno" in match.group("word").lower()
            or ("полноч" in match.group("word").lower())
            else (12, 0)
        )
    hour, minute = int(match.group("h")), int(match.group("m") or 0)
    ampm = (match.group("ampm") or "").lower().replace(".", "")
    pod = (match.group("pod") or "").lower()
    if ampm == "pm" and hour < 12:
        hour += 12
    if ampm == "am" and hour == 12:
        hour = 0
    if pod in ("wieczorem", "po południu", "вечера", "дня") and hour < 12:
        hour += 12
    if pod in ("w nocy", "ночи") and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return hour, minute


def _unambiguous(match: re.Match[str]) -> bool:
    """A time that cannot be a count ("at 7", "at 7:30", "в 8 утра"); "o 2" / "в 2" must stand right next to the
    period ("co poniedziałek o 8", not "w 2 wersjach")."""
    marked = match.group("word") or match.group("m") or match.group("ampm") or match.group("pod")
    return bool(marked) or match.group(0).lower().startswith("at")


def _adjacent(text: str, start: int, end: int, match: re.Match[str]) -> bool:
    """Only spaces or a comma between the period (start…end) and the time."""
    if match.start() >= end:
        gap = text[end : match.start()]
    elif match.end() <= start:
        gap = text[match.end() : start]
    else:
        return False
    return len(gap) <= 3 and not gap.strip(" ,")


def _cron_days(days: list[int]) -> str:
    cron = sorted((d + 1) % 7 for d in days)
    if len(cron) > 2 and cron == list(range(cron[0], cron[-1] + 1)):
        return f"{cron[0]}-{cron[-1]}"
    return ",".join(str(d) for d in cron)


def _names(days: list[int]) -> str:
    if days == [0, 1, 2, 3, 4]:
        return "weekday (Monday to Friday)"
    names = [WEEKDAY_NAMES[d] for d in days]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def find_recurrence(text: str, language: str | None = None) -> Recurrence | None:
    """The recurring schedule `text` asks for, or None (a one-off, or no schedule). `language` is accepted for the
    classifier's symmetry; the patterns of English, Polish and Russian do not collide, so all are tried. Days or
    parts of the day without "every" ("on Saturdays", "по утрам") count only in a clause that commands."""
    normal = text.replace("’", "'").replace("ё", "е").replace("Ё", "Е")
    periods = _periods(normal, language)
    if not periods:
        return None
    reading = periods[0][1]
    # Further periods that only add weekdays or a part of the day ("every Monday and every Thursday", "codziennie
    # rano" read as daily + morning) join the first.
    for match, other in periods[1:]:
        if other.frequency == reading.frequency == "weekly" and other.weekdays:
            reading.weekdays = sorted({*reading.weekdays, *other.weekdays})
            reading.spans.append(match.span())
        elif other.part and not reading.part and reading.frequency in ("daily", "weekly"):
            reading.part = other.part
            reading.spans.append(match.span())
    start, end = min(s for s, _ in reading.spans), max(e for _, e in reading.spans)
    if reading.part is None and reading.frequency in ("daily", "weekly"):
        for match in _PART_NEAR.finditer(normal):
            if _adjacent(normal, start, end, match):
                reading.part = _part(match.group("part"))
                reading.spans.append(match.span())
                start, end = min(start, match.start()), max(end, match.end())
                break
    clock: tuple[int, int] | None = None
    for match in _TIME.finditer(normal):
        if start <= match.start() < end:
            continue
        near = -_NEAR <= match.start() - end <= _NEAR or -_NEAR <= start - match.end() <= _NEAR
        if _adjacent(normal, start, end, match) or (near and _unambiguous(match)):
            clock = _clock(match)
            if clock is not None:
                reading.spans.append(match.span())
                if match.group("pod") and not reading.part:
                    reading.part = _part(match.group("pod"))
                break
    day_of_month: int | None = None
    if reading.frequency == "monthly":
        dom = _MONTH_DAY.search(normal)
        if dom is not None:
            value = next(v for k, v in dom.groupdict().items() if v)
            day_of_month = 1 if not value.isdigit() else int(value)
            reading.spans.append(dom.span())
    return _build(text, reading, clock, day_of_month)


def _build(text: str, reading: _Reading, clock: tuple[int, int] | None, day_of_month: int | None) -> Recurrence:
    assumed: list[str] = []
    n = reading.interval
    at = f"{clock[0]:02d}:{clock[1]:02d}" if clock else None
    if clock is not None:
        hour, minute = clock
    elif reading.part is not None:
        hour, minute = NOMINAL_HOUR[reading.part], 0
        if reading.frequency in ("daily", "weekly", "monthly"):
            assumed.append(f"time {hour:02d}:00 for the {reading.part}")
    else:
        hour, minute = 0, 0
        if reading.frequency in ("daily", "weekly", "monthly"):
            assumed.append("time 00:00 (no time given)")
    frequency = reading.frequency
    if frequency == "minutely":
        cron = f"*/{n} * * * *" if n > 1 else "* * * * *"
        what = f"every {n} minutes" if n > 1 else "every minute"
    elif frequency == "hourly":
        cron = f"{minute} */{n} * * *" if n > 1 else f"{minute} * * * *"
        what = f"every {n} hours" if n > 1 else "every hour"
        if clock is not None and minute:
            what += f" at minute {minute:02d}"
    elif frequency == "daily":
        cron = f"{minute} {hour} */{n} * *" if n > 1 else f"{minute} {hour} * * *"
        what = f"every {n} days" if n > 1 else "every day"
        if n > 1:
            assumed.append(f"every {n} days counted by day of the month (cron restarts the count each month)")
    elif frequency == "weekly":
        days = reading.weekdays
        if not days:
            assumed.append("Monday (no weekday given)")
        cron = f"{minute} {hour} * * {_cron_days(days or [0])}"
        if n > 1:
            assumed.append(f"every {n} weeks: cron cannot skip weeks, the expression fires every week")
        if days:
            what = f"every {n} weeks on {_names(days)}" if n > 1 else f"every {_names(days)}"
        else:
            what = f"every {n} weeks" if n > 1 else "every week"
    else:
        dom = day_of_month or 1
        if day_of_month is None:
            assumed.append("day 1 of the month (no day given)")
        cron = f"{minute} {hour} {dom} */{n} *" if n > 1 else f"{minute} {hour} {dom} * *"
        what = (f"every {n} months" if n > 1 else "every month") + (f" on day {dom}" if day_of_month else "")
    if at is not None and frequency in ("daily", "weekly", "monthly"):
        what += f" at {at}"
    elif reading.part is not None and frequency in ("daily", "weekly", "monthly"):
        what += f" in the {reading.part}" if reading.part != "night" else " at night"
    merged: list[list[int]] = []
    for begin, finish in sorted(set(reading.spans)):
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], finish)
        else:
            merged.append([begin, finish])
    words = " … ".join(text[begin:finish] for begin, finish in merged)
    return Recurrence(
        frequency=frequency,
        interval=n,
        weekdays=list(reading.weekdays),
        at=at,
        part_of_day=reading.part,
        day_of_month=day_of_month,
        cron=cron,
        assumed=assumed,
        words=words,
        description=what,
    )
