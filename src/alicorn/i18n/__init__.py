"""Everything Alicorn says to a person, in the person's language: gettext PO catalogs read with Babel.

    tr(language, "stopped safely: {why}", why=reason)      the translation, formatted (str.format placeholders)
    trn(language, "{n} event", "{n} events", n)            the plural form the language's rule picks for `n`
    N_("every assignment falls in {month}")                marks a msgid (module constants, stored messages)
    tr_marked(language, message, **values)                 translates a msgid held in a variable (marked by N_)
    format_number(language, 12345.5)  format_month(language, 2026, 12)   "12 345,50", "grudzień 2026" (CLDR data)

The msgid is the English sentence itself. English, an unknown language, or a msgid without a translation give the
msgid formatted; a translation whose placeholders do not fit falls back to the msgid too. Nothing here raises at run
time: `tests/test_i18n.py` catches missing, stale and mismatched translations instead, and it needs every msgid of
`tr` / `trn` / `N_` to be a string literal (so it can extract them).

Catalogs: `catalogs/<area>.<lang>.po` (core.pl.po, validate.ru.po, packs.pl.po…), one file per area so several
people can add messages without touching the same file; every `*.<lang>.po` of a language is merged when that
language is first used (once, cached). This package imports nothing from alicorn.
"""

from __future__ import annotations

import functools
import string
from datetime import date
from typing import Any

from alicorn.i18n.loader import CATALOG_DIR, Catalog, catalog, languages, normalize, placeholders

__all__ = [
    "CATALOG_DIR",
    "N_",
    "Catalog",
    "catalog",
    "format_month",
    "format_number",
    "languages",
    "placeholders",
    "tr",
    "tr_marked",
    "trn",
]


def N_(message: str) -> str:
    """`message` unchanged: marks an English msgid for extraction, to be translated later with `tr_marked`."""
    return message


def tr(language: str, message: str, /, **values: object) -> str:
    """`message` (an English msgid, a string literal) in `language`, formatted with `values`; never raises for a
    missing or broken translation (the msgid formatted is the answer then)."""
    return _render(catalog(language).get(message), message, values, language)


def tr_marked(language: str, message: str, /, **values: object) -> str:
    """`tr` for a msgid held in a variable; the literal must be marked with `N_` where it is written."""
    return _render(catalog(language).get(message), message, values, language)


def trn(language: str, singular: str, plural: str, n: int, /, **values: object) -> str:
    """The form of `singular` / `plural` (English msgids, literals) that `language` uses for the count `n`,
    formatted with `values` and `n`."""
    values = {"n": n, **values}
    found = catalog(language).plural(singular, n)
    return _render(found, singular if n == 1 else plural, values, language)


def _render(translation: str | None, msgid: str, values: dict[str, object], language: str) -> str:
    if translation:
        text = _format(translation, values, language)
        if text is not None:
            return text
    text = _format(msgid, values, language)
    return msgid if text is None else text


def _format(text: str, values: dict[str, object], language: str) -> str | None:
    try:
        local = _local_numbers(language)
        return text.format_map(values) if local is None else local.vformat(text, (), values)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return None


class _LocalNumbers(string.Formatter):
    """str.format, with the numbers' decimal point and digit grouping the language's ("91,2", "12 345,5"): a
    translation writes `{hours:g}` as the msgid does, and the number comes out as the reader writes it."""

    def __init__(self, separators: tuple[str, str]) -> None:
        self._table = str.maketrans({".": separators[0], ",": separators[1]})

    def format_field(self, value: Any, format_spec: str) -> str:
        text = format(value, format_spec)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return text.translate(self._table)
        return text


@functools.lru_cache(maxsize=16)
def _local_numbers(language: str) -> _LocalNumbers | None:
    """The formatter of the language's (decimal, group) symbols from CLDR; None where plain str.format writes them
    already (English, or a language Babel does not know)."""
    language = normalize(language)
    if not language or language == "en":
        return None
    from babel.numbers import get_decimal_symbol, get_group_symbol

    try:
        found = (get_decimal_symbol(language), get_group_symbol(language))
    except Exception:  # an unknown locale: English digits are still right
        return None
    return None if found == (".", ",") else _LocalNumbers(found)


def format_number(language: str, value: float, decimals: int = 2) -> str:
    """`value` with `decimals` digits and the language's separators ("12,345.50", "12 345,50"); English (and any
    language Babel does not know) exactly as Python's `f"{value:,.2f}"` writes it."""
    language = normalize(language)
    if language != "en":
        from babel.numbers import format_decimal

        try:
            return format_decimal(value, format="#,##0." + "0" * decimals if decimals else "#,##0", locale=language)
        except Exception:  # an unknown locale: English digits are still right
            pass
    return f"{value:,.{decimals}f}"


def format_month(language: str, year: int, month: int) -> str:
    """A month and its year as the language names it standing alone ("December 2026", "grudzień 2026")."""
    from babel.dates import format_date

    try:
        return format_date(date(year, month, 1), "LLLL y", locale=normalize(language) or "en")
    except Exception:  # an unknown locale, or no such month
        return format_date(date(year, month, 1), "LLLL y", locale="en") if 1 <= month <= 12 else f"{year}-{month:02d}"
