"""Due dates and the days a request points back at, in English, Polish and Russian, read by `alicorn.periods`.

`due_date(sentence, day)`: the deadline a sentence said at a meeting on `day` sets ("by Wednesday", "do 9 grudnia",
"до десятого декабря", "tomorrow", "w przyszłym tygodniu", "2026-12-03"): the first date it names that is not before
the meeting: a day said as such, the day a period ends on ("by Friday", "do 5 grudnia"), the Friday of a week ("next
week"). "The end of the week / month" ("do końca miesiąca", "к концу недели") are deadlines only, so they are read
here: the week's Friday (at a weekend, the coming one) and the month's last day. `past_days(text, language, now)`:
the days a request points back at ("yesterday", "пятничного разговора", "on 2 December"). Both are pure functions
of the words and the day, so replay is exact.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, time, timedelta

from alicorn.periods import InvalidDate, Period, find_days, find_periods

_END_OF_WEEK = re.compile(
    r"(?<!\w)(?:(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?week|końc[ae]\s+tygodnia|конц[ауе]\s+недели)(?!\w)",
    re.IGNORECASE,
)
_END_OF_MONTH = re.compile(
    r"(?<!\w)(?:(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?month|końc[ae]\s+miesiąca|конц[ауе]\s+месяца)(?!\w)",
    re.IGNORECASE,
)


def _deadline(period: Period) -> date | None:
    """The day a period sets as a deadline; None for a month (no day is meant)."""
    if period.kind in ("day", "night", "from"):
        return period.start
    if period.kind in ("until", "range"):
        return period.last
    if period.kind == "week":
        return period.start + timedelta(days=4)  # its Friday
    return None


def _end_of(sentence: str, day: date) -> tuple[int, date, str] | None:
    if (m := _END_OF_WEEK.search(sentence)) is not None:
        ahead = (4 - day.weekday()) % 7 if day.weekday() <= 4 else 11 - day.weekday()  # a weekend: next Friday
        return m.start(), day + timedelta(days=ahead), m.group(0)
    if (m := _END_OF_MONTH.search(sentence)) is not None:
        return m.start(), date(day.year, day.month, calendar.monthrange(day.year, day.month)[1]), m.group(0)
    return None


def due_date(sentence: str, day: date, language: str = "en") -> tuple[date | None, str | None]:
    """The deadline `sentence` sets, said on `day`, and the words it was read from; (None, None) when none."""
    try:
        periods = find_periods(sentence, language, datetime.combine(day, time(12)), prefer="future")
    except InvalidDate:
        periods = []
    found = [(sentence.find(p.words), due, p.words) for p in periods if (due := _deadline(p)) is not None]
    if (end := _end_of(sentence, day)) is not None:
        found.append(end)
    for _, due, words in sorted(found, key=lambda f: f[0]):
        if due >= day:
            return due, words.rstrip(".")
    return None, None


def past_days(text: str, language: str, now: datetime) -> set[date]:
    """The days up to `now` that `text` points at ("yesterday's call", "the Friday meeting", "2026-11-27")."""
    try:
        days = find_days(text, language, now, prefer="past")
    except InvalidDate:
        return set()  # a day that does not exist names no conversation
    return {d for d in days if d <= now.date()}
