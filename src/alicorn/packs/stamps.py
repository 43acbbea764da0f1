"""Dates and times as people's files write them, read strictly and written back as ISO 8601.

A workflow's plan compares its date columns as text against ISO bounds (`ts >= "2026-12-02T00:00:00"`), so a log
that writes `2026-12-02 01:12:00`, `02.12.2026 01:12` or `1764637920` would be filtered wrongly without a word:
a space sorts before "T", and a day-first date sorts by its day. `read_column` reads one column's values in the
forms below, decides the order of slashed dates for the whole column, and returns each value in ISO form, or
the first value it cannot read and why. Nothing here guesses: a value outside these forms is a problem to show
the person, never a date made up.

    2026-12-02 · 2026-12-02T01:12 · 2026-12-02 01:12:00.250 · …Z · …+01:00   ISO 8601, "T" or a space
    2026/12/02 [time]                                                       year first, slashes
    02.12.2026 [time] · 2.12.2026                                           day first, dots (pl, ru, de…)
    02/12/2026 or 12/02/2026 [time]                                         slashes: the column decides which
                                                                            (a first part over 12 is a day, a
                                                                            second one over 12 a month)
    1764637920 · 1764637920123                                              Unix seconds or milliseconds (UTC)

A time keeps its fraction and its offset as written (`Z`, `+01:00`): a day's bounds compare the wall-clock part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

_TIME = r"(?:[T ]+(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|[+-]\d{2}:?\d{2})?)?"
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})" + _TIME)
_YEAR_SLASH = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})" + _TIME)
_DOTS = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})" + _TIME)
_SLASHES = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})" + _TIME)
_EPOCH = re.compile(r"\d{10}|\d{13}")
#: Unix times read as such only between these years: a 10-digit number outside them is not a time here.
_EPOCH_YEARS = (2000, 2100)


@dataclass(frozen=True)
class ColumnDates:
    """One column read: its values in ISO form (blank stays blank), how many differ from what the file wrote, and
    the first value that could not be read (`bad`, its row counted from 1 after the header, and `why`)."""

    values: tuple[str, ...] = ()
    rewritten: int = 0
    bad: str | None = None
    row: int = 0
    why: str = ""

    @property
    def ok(self) -> bool:
        return self.bad is None


def _time(parts: Sequence[str | None]) -> str | None:
    """The ISO time part ("T01:12:00", with fraction and offset) of a match's time groups; "" when none; None when
    the time does not exist (25:00, 10:61)."""
    hour, minute, second, fraction, offset = parts
    if hour is None:
        return ""
    h, m, s = int(hour), int(minute or 0), int(second or 0)
    if h > 23 or m > 59 or s > 59:
        return None
    text = f"T{h:02d}:{m:02d}:{s:02d}{fraction or ''}"
    if offset:
        text += "Z" if offset == "Z" else f"{offset[:3]}:{offset[-2:]}"
    return text


def _iso(year: int, month: int, day: int, time_parts: Sequence[str | None]) -> str | None:
    try:
        stamp = date(year, month, day).isoformat()
    except ValueError:
        return None
    clock = _time(time_parts)
    return None if clock is None else stamp + clock


def _order_of(values: Sequence[str]) -> str | None:
    """How the column's slashed dates are written: "day" first, "month" first, None if no value tells, "mixed"
    if some say one and some the other."""
    day_first = month_first = False
    for value in values:
        match = _SLASHES.fullmatch(value)
        if match is None:
            continue
        first, second = int(match[1]), int(match[2])
        day_first |= first > 12
        month_first |= second > 12
    if day_first and month_first:
        return "mixed"
    return "day" if day_first else "month" if month_first else None


def _one(value: str, order: str | None) -> str | None:
    if match := _ISO.fullmatch(value):
        return _iso(int(match[1]), int(match[2]), int(match[3]), match.groups()[3:])
    if match := _YEAR_SLASH.fullmatch(value):
        return _iso(int(match[1]), int(match[2]), int(match[3]), match.groups()[3:])
    if match := _DOTS.fullmatch(value):
        return _iso(int(match[3]), int(match[2]), int(match[1]), match.groups()[3:])
    if (match := _SLASHES.fullmatch(value)) and order in ("day", "month"):
        first, second = int(match[1]), int(match[2])
        day, month = (first, second) if order == "day" else (second, first)
        return _iso(int(match[3]), month, day, match.groups()[3:])
    if _EPOCH.fullmatch(value):
        seconds = int(value) / (1000 if len(value) == 13 else 1)
        moment = datetime.fromtimestamp(seconds, UTC)
        if not _EPOCH_YEARS[0] <= moment.year < _EPOCH_YEARS[1]:
            return None
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{int(value[-3:]):03d}" if len(value) == 13 else "") + "Z"
    return None


def read_column(values: Sequence[str | None], *, days: bool = False) -> ColumnDates:
    """Read one column's dates (see the module docstring); blank cells stay blank. `days`: the column holds days,
    so a time written after the date is dropped (`2026-12-02 14:30` is `2026-12-02`)."""
    cells = [(value or "").strip() for value in values]
    order = _order_of(cells)
    out: list[str] = []
    rewritten = 0
    for row, (cell, original) in enumerate(zip(cells, values, strict=True), start=1):
        if not cell:
            out.append("")
            continue
        if _SLASHES.fullmatch(cell) and order not in ("day", "month"):
            why = "day and month both come first in this column" if order == "mixed" else "ambiguous"
            return ColumnDates(bad=cell, row=row, why=why)
        iso = _one(cell, order)
        if iso is None:
            return ColumnDates(bad=cell, row=row, why="not a date")
        if days:
            iso = iso[:10]
        out.append(iso)
        rewritten += iso != original
    return ColumnDates(tuple(out), rewritten)


def day_of(iso: str) -> date | None:
    """The calendar day of a value `read_column` wrote (None for a blank)."""
    return date.fromisoformat(iso[:10]) if iso else None
