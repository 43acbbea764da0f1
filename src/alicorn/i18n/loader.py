"""Loading the PO catalogs of one language (every `catalogs/<area>.<lang>.po`), merged, once."""

from __future__ import annotations

import gettext
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

CATALOG_DIR = Path(__file__).resolve().parent / "catalogs"


def _english(n: int) -> int:
    return 0 if n == 1 else 1


@dataclass(frozen=True)
class Catalog:
    """One language's merged translations: msgid → translation, or for plural msgids → the forms by index."""

    language: str
    messages: Mapping[str, str] = field(default_factory=dict)
    plurals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    plural_index: Callable[[int], int] = _english

    def get(self, msgid: str) -> str | None:
        return self.messages.get(msgid) or None

    def plural(self, singular: str, n: int) -> str | None:
        forms = self.plurals.get(singular)
        if not forms:
            return None
        try:
            index = self.plural_index(n)
        except (ValueError, TypeError, ZeroDivisionError):
            return None
        return forms[index] if 0 <= index < len(forms) and forms[index] else None


def normalize(language: str) -> str:
    """`pl-PL`, `PL`, `pl_PL.UTF-8` → `pl`."""
    return language.strip().lower().replace("-", "_").split("_", 1)[0].split(".", 1)[0]


def catalog_files(language: str) -> list[Path]:
    """The catalog files of `language`, in name order (the order they are merged in; the first one wins)."""
    language = normalize(language)
    if not language or not language.isalpha():
        return []
    return sorted(CATALOG_DIR.glob(f"*.{language}.po"))


def languages() -> list[str]:
    """Every language that has at least one catalog file."""
    return sorted({p.name.split(".")[-2] for p in CATALOG_DIR.glob("*.*.po")})


@cache
def catalog(language: str) -> Catalog:
    """The merged catalog of `language` (empty for English or a language without catalogs); read once, cached.
    Fuzzy entries and empty translations count as missing. A file that cannot be read is skipped: a catalog is
    never a reason to fail at run time (the tests check every file)."""
    language = normalize(language)
    messages: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    plural_index: Callable[[int], int] = _english
    for path in catalog_files(language):
        try:
            with path.open("rb") as handle:
                po = read_po(handle, locale=language)
            index = gettext.c2py(po.plural_expr)
        except Exception:  # a broken catalog must not take a report down; tests/test_i18n.py names it
            continue
        if plural_index is _english:
            plural_index = index
        for message in po:
            if not message.id or message.fuzzy:
                continue
            if isinstance(message.id, tuple | list):
                forms = tuple(message.string) if isinstance(message.string, tuple | list) else (message.string,)
                if all(forms):
                    plurals.setdefault(str(message.id[0]), tuple(str(f) for f in forms))
            elif isinstance(message.string, str) and message.string:
                messages.setdefault(message.id, message.string)
    return Catalog(language, messages, plurals, plural_index)


def placeholders(text: str) -> frozenset[str]:
    """The names of `text`'s str.format fields (`{n}`, `{who!r}`, `{x:g}` → n, who, x); ValueError if malformed."""
    names = set()
    for _, name, _, _ in string.Formatter().parse(text):
        if name is not None:
            names.add(name.split(".", 1)[0].split("[", 1)[0])
    return frozenset(names)
