"""The message catalogs: every msgid the code uses is translated into Polish and Russian, with the same
placeholders, no catalog entry is stale, and `tr` formats, falls back and never raises.

Extraction is exact: `ast` finds every call of `tr(language, "msgid", ...)`, `trn(language, "singular", "plural",
n, ...)` and `N_("msgid")` in src/alicorn; a msgid that is not a string literal is an error (it could not be
extracted, so it could never be translated).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog as PoCatalog
from babel.messages.pofile import read_po

import alicorn.i18n as i18n
from alicorn.i18n import N_, loader, placeholders, tr, tr_marked, trn

SRC = Path(__file__).resolve().parents[1] / "src" / "alicorn"
REQUIRED = ("pl", "ru")
FIX = "add it to src/alicorn/i18n/catalogs/{area}.{lang}.po"


@dataclass(frozen=True)
class Use:
    msgid: str
    plural: str | None
    where: str  # path:line
    area: str
    keywords: frozenset[str] | None  # the keyword names its call passes (None: `**values`, or a bare N_)


def _area(path: Path) -> str:
    """The catalog a source file's messages go in: its package under alicorn (`core`, `validate`, `packs`…), a
    pack's own name for a pack's modules (`alarms`, `schedule`…)."""
    parts = path.relative_to(SRC).parts
    if parts[0] == "packs" and len(parts) > 2:
        return parts[1]
    return parts[0] if len(parts) > 1 else path.stem


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


#: Calls that take a msgid marked with N_ and its values as keywords (alicorn.validate.base): their keywords are
#: checked against the msgid's placeholders like those of `tr`.
WRAPPERS = frozenset({"check", "phrase", "unreadable_because"})


def _wrapped(node: ast.Call) -> dict[int, frozenset[str]]:
    """For a WRAPPERS call without `**values`: the N_ calls among its arguments (by id) -> the keywords it passes."""
    if _name(node.func) not in WRAPPERS or any(k.arg is None for k in node.keywords):
        return {}
    own = {"severity"} if _name(node.func) == "check" else set()  # check's own parameter, not a value
    keywords = frozenset(k.arg for k in node.keywords if k.arg is not None and k.arg not in own)
    return {id(a): keywords for a in node.args if isinstance(a, ast.Call) and _name(a.func) == "N_"}


def extract(source: str, where: str, area: str) -> tuple[list[Use], list[str]]:
    """The msgids of one module's `tr` / `trn` / `N_` calls, and the calls whose msgid is not a literal."""
    uses: list[Use] = []
    problems: list[str] = []
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [], [f"{where}: cannot be parsed, so its messages cannot be extracted ({exc.msg}, line {exc.lineno})"]
    wrapped: dict[int, frozenset[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            wrapped.update(_wrapped(node))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        line = f"{where}:{node.lineno}"
        args = node.args
        keywords = (
            None
            if any(k.arg is None for k in node.keywords)
            else frozenset(k.arg for k in node.keywords if k.arg is not None)
        )
        if name == "N_":
            msgid = _literal(args[0]) if len(args) == 1 and not node.keywords else None
            if msgid is None:
                problems.append(f"{line}: N_ takes one string literal")
            else:
                uses.append(Use(msgid, None, line, area, wrapped.get(id(node))))
        elif name == "tr":
            msgid = _literal(args[1]) if len(args) >= 2 else None
            if msgid is None or len(args) != 2:
                problems.append(
                    f"{line}: tr(language, msgid, **values) needs the msgid as a string literal (mark a stored one "
                    "with N_ and translate it with tr_marked)"
                )
            else:
                uses.append(Use(msgid, None, line, area, keywords))
        elif name == "trn":
            singular = _literal(args[1]) if len(args) >= 3 else None
            plural = _literal(args[2]) if len(args) >= 3 else None
            if singular is None or plural is None or len(args) != 4:
                problems.append(f"{line}: trn(language, singular, plural, n, **values) needs two string literals")
            else:
                uses.append(Use(singular, plural, line, area, None if keywords is None else keywords | {"n"}))
        elif name == "tr_marked" and len(args) >= 2 and _literal(args[1]) is not None:
            problems.append(f"{line}: a literal msgid goes through tr, not tr_marked")
    return uses, problems


def _source_uses() -> tuple[list[Use], list[str]]:
    uses: list[Use] = []
    problems: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        if SRC / "i18n" in path.parents:
            continue  # the definitions themselves
        found, bad = extract(path.read_text(encoding="utf-8"), str(path.relative_to(SRC.parents[1])), _area(path))
        uses += found
        problems += bad
    return uses, problems


USES, PROBLEMS = _source_uses()


@dataclass(frozen=True)
class Entry:
    msgid: str
    plural: str | None
    forms: tuple[str, ...]
    fuzzy: bool
    file: str


def _read(path: Path) -> PoCatalog:
    language = path.name.split(".")[-2]
    with path.open("rb") as handle:
        return read_po(handle, locale=language, abort_invalid=True)


def _entries(language: str) -> list[Entry]:
    entries = []
    for path in loader.catalog_files(language):
        for m in _read(path):
            if not m.id:
                continue
            if isinstance(m.id, tuple | list):
                strings = m.string if isinstance(m.string, tuple | list) else (m.string,)
                entries.append(Entry(str(m.id[0]), str(m.id[1]), tuple(strings), m.fuzzy, path.name))
            else:
                entries.append(Entry(m.id, None, (str(m.string),), m.fuzzy, path.name))
    return entries


def _fmt(problems: list[str], what: str) -> str:
    return f"{len(problems)} {what}:\n  " + "\n  ".join(problems)


# --- the source ----------------------------------------------------------------------------------------------------


def test_the_source_uses_messages_at_all() -> None:
    assert len({u.msgid for u in USES}) > 50, "extraction found almost nothing: is the ast walk broken?"


def test_every_msgid_is_a_string_literal() -> None:
    assert not PROBLEMS, _fmt(PROBLEMS, "calls whose msgid cannot be extracted")


def test_every_literal_call_passes_the_msgids_placeholders() -> None:
    problems = []
    for use in USES:
        if use.keywords is None:
            continue
        wanted = placeholders(use.msgid) | (placeholders(use.plural) if use.plural else frozenset())
        if wanted != use.keywords:
            problems.append(f"{use.where}: {use.msgid!r} wants {sorted(wanted)}, the call gives {sorted(use.keywords)}")
    assert not problems, _fmt(problems, "calls whose values do not fit their msgid")


def test_a_msgid_is_either_plural_or_not() -> None:
    kinds: dict[str, set[str | None]] = {}
    for use in USES:
        kinds.setdefault(use.msgid, set()).add(use.plural)
    problems = [f"{m!r}: used with plurals {sorted(map(str, k))}" for m, k in kinds.items() if len(k) > 1]
    assert not problems, _fmt(problems, "msgids used in two ways (give one of them other words)")


def test_i18n_is_a_ground_floor() -> None:
    """alicorn.i18n imports nothing else of alicorn, so every layer may use it."""
    found = []
    for path in sorted((SRC / "i18n").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found += [
                f"{path.name}: {n}" for n in names if n.startswith("alicorn") and not n.startswith("alicorn.i18n")
            ]
    assert not found, found


# --- the catalogs --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", REQUIRED)
def test_every_msgid_has_a_translation(language: str) -> None:
    translated: dict[str, Entry] = {}
    for entry in _entries(language):
        if not entry.fuzzy and all(f.strip() for f in entry.forms):
            translated.setdefault(entry.msgid, entry)
    missing: dict[str, Use] = {}
    for use in USES:
        entry = translated.get(use.msgid)
        if entry is None or entry.plural != use.plural:
            missing.setdefault(use.msgid, use)
    problems = [
        f"{u.where}: {u.msgid!r}"
        + (f" / plural {u.plural!r}" if u.plural else "")
        + f" — {FIX.format(area=u.area, lang=language)}"
        + (" (msgid + msgid_plural + a msgstr[i] per plural form)" if u.plural else "")
        for u in missing.values()
    ]
    assert not problems, _fmt(problems, f"msgids without a non-empty, non-fuzzy {language} translation")


@pytest.mark.parametrize("language", REQUIRED)
def test_translations_keep_the_msgids_placeholders(language: str) -> None:
    problems = []
    for entry in _entries(language):
        try:
            wanted = placeholders(entry.msgid) | (placeholders(entry.plural) if entry.plural else frozenset())
        except ValueError as exc:
            problems.append(f"{entry.file}: msgid {entry.msgid!r} is not a valid format string ({exc})")
            continue
        for form in entry.forms:
            try:
                got = placeholders(form)
            except ValueError as exc:
                problems.append(f"{entry.file}: {form!r} is not a valid format string ({exc}; write {{{{ for {{)")
                continue
            if got != wanted:
                problems.append(
                    f"{entry.file}: {entry.msgid!r} has {sorted(wanted)}, its translation {form!r} has {sorted(got)}"
                )
    assert not problems, _fmt(problems, "translations whose {placeholders} differ from the msgid's (fix the msgstr)")


@pytest.mark.parametrize("language", REQUIRED)
def test_no_catalog_entry_is_stale(language: str) -> None:
    used = {(u.msgid, u.plural) for u in USES}
    problems = [f"{e.file}: {e.msgid!r}" for e in _entries(language) if (e.msgid, e.plural) not in used]
    assert not problems, _fmt(problems, "catalog entries no source uses (remove them from the catalog)")


@pytest.mark.parametrize("language", REQUIRED)
def test_one_translation_per_msgid(language: str) -> None:
    seen: dict[str, Entry] = {}
    problems = []
    for entry in _entries(language):
        first = seen.setdefault(entry.msgid, entry)
        if first is not entry and (first.forms != entry.forms or first.plural != entry.plural):
            problems.append(f"{entry.msgid!r}: {first.file} and {entry.file} translate it differently")
        elif first is not entry and first.file == entry.file:
            problems.append(f"{entry.msgid!r}: twice in {entry.file}")
    assert not problems, _fmt(problems, "msgids translated in two places (keep one)")


def test_catalog_files_are_named_and_headed_right() -> None:
    problems = []
    files = sorted(loader.CATALOG_DIR.iterdir())
    for path in files:
        if path.name.startswith(".") or path.name == "__pycache__":
            continue
        parts = path.name.split(".")
        if (
            len(parts) != 3
            or parts[2] != "po"
            or not parts[0]
            or not parts[1].isalpha()
            or parts[1] != parts[1].lower()
        ):
            problems.append(f"{path.name}: catalogs are named <area>.<lang>.po (e.g. core.pl.po)")
            continue
        try:
            po = _read(path)
        except Exception as exc:
            problems.append(f"{path.name}: not a valid PO file ({exc})")
            continue
        babel = PoCatalog(locale=parts[1])
        if (po.num_plurals, po.plural_expr) != (babel.num_plurals, babel.plural_expr):
            problems.append(
                f"{path.name}: Plural-Forms {po.plural_forms!r}, Babel's for {parts[1]} is {babel.plural_forms!r} "
                f"(copy the header of another {parts[1]} catalog)"
            )
        if po.locale is None or str(po.locale) != parts[1]:
            problems.append(f"{path.name}: its header says Language {po.locale}, its name {parts[1]}")
        for m in po:
            if m.id and isinstance(m.id, tuple | list):
                strings = m.string if isinstance(m.string, tuple | list) else (m.string,)
                if len(strings) != po.num_plurals:
                    problems.append(f"{path.name}: {m.id[0]!r} has {len(strings)} forms, not {po.num_plurals}")
    for language in REQUIRED:
        if not loader.catalog_files(language):
            problems.append(f"no catalog for {language}")
    assert not problems, _fmt(problems, "catalog file problems")


def test_the_loader_reads_what_the_files_say() -> None:
    for language in REQUIRED:
        cat = loader.catalog(language)
        entries = [e for e in _entries(language) if not e.fuzzy and all(e.forms)]
        for e in entries:
            if e.plural is None:
                assert cat.get(e.msgid) is not None, e
            else:
                assert cat.plurals.get(e.msgid), e


# --- tr, trn, N_ ---------------------------------------------------------------------------------------------------


def _po(language: str, body: str) -> str:
    header = PoCatalog(locale=language).plural_forms
    return textwrap.dedent(
        f"""\
        msgid ""
        msgstr ""
        "Language: {language}\\n"
        "MIME-Version: 1.0\\n"
        "Content-Type: text/plain; charset=UTF-8\\n"
        "Plural-Forms: {header}\\n"

        """
    ) + textwrap.dedent(body)


@pytest.fixture
def fake_catalogs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The loader reading two areas of Polish from a temporary folder (the real catalogs untouched)."""
    (tmp_path / "a.pl.po").write_text(
        _po(
            "pl",
            """
            msgid "stopped: {why}"
            msgstr "zatrzymano: {why}"

            msgid "broken {x}"
            msgstr "zepsute {y}"

            #, fuzzy
            msgid "fuzzy one"
            msgstr "niepewne"

            msgid "empty one"
            msgstr ""

            msgid "{n} event"
            msgid_plural "{n} events"
            msgstr[0] "{n} zdarzenie"
            msgstr[1] "{n} zdarzenia"
            msgstr[2] "{n} zdarzeń"
            """,
        ),
        encoding="utf-8",
    )
    (tmp_path / "b.pl.po").write_text(
        _po("pl", 'msgid "from b"\nmsgstr "z b"\n\nmsgid "stopped: {why}"\nmsgstr "second file loses"\n'),
        encoding="utf-8",
    )
    (tmp_path / "broken.ru.po").write_text('msgid "x"\nmsgstr "unterminated\n', encoding="utf-8")
    monkeypatch.setattr(loader, "CATALOG_DIR", tmp_path)
    loader.catalog.cache_clear()
    yield tmp_path
    loader.catalog.cache_clear()


def test_tr_translates_and_merges_every_file_of_a_language(fake_catalogs: Path) -> None:
    assert tr("pl", "stopped: {why}", why="awaria") == "zatrzymano: awaria"
    assert tr("pl", "from b") == "z b"
    assert tr("pl-PL", "from b") == "z b"
    assert loader.catalog("pl") is loader.catalog("pl")  # read once


def test_tr_falls_back_to_the_msgid_formatted(fake_catalogs: Path) -> None:
    assert tr("en", "stopped: {why}", why="x") == "stopped: x"
    assert tr("xx", "stopped: {why}", why="x") == "stopped: x"  # unknown language
    assert tr("pl", "not in the catalog {a}", a=1) == "not in the catalog 1"  # missing translation
    assert tr("pl", "fuzzy one") == "fuzzy one"
    assert tr("pl", "empty one") == "empty one"
    assert tr("pl", "broken {x}", x=1) == "broken 1"  # a translation whose placeholders do not fit
    assert tr("pl", "no values {a}") == "no values {a}"  # a caller's bug still never raises
    assert isinstance(tr("ru", "x"), str)  # a broken catalog file never raises (the file check names it)
    assert tr("en", "{{literal}} {a}", a=1) == "{literal} 1"


def test_trn_picks_the_languages_plural_form(fake_catalogs: Path) -> None:
    forms = {n: trn("pl", "{n} event", "{n} events", n) for n in (1, 2, 5, 12, 22, 25, 101)}
    assert forms == {
        1: "1 zdarzenie",
        2: "2 zdarzenia",
        5: "5 zdarzeń",
        12: "12 zdarzeń",
        22: "22 zdarzenia",
        25: "25 zdarzeń",
        101: "101 zdarzeń",
    }
    assert trn("en", "{n} event", "{n} events", 1) == "1 event"
    assert trn("en", "{n} event", "{n} events", 0) == "0 events"
    assert trn("de", "{n} event", "{n} events", 3) == "3 events"


def test_numbers_come_out_as_the_languages_reader_writes_them(fake_catalogs: Path) -> None:
    # a translation keeps the msgid's format spec; the digits follow the language's decimal point and grouping
    assert tr("pl", "{hours:g} h and {cost:,.2f}", hours=91.2, cost=12345.5) == "91,2 h and 12\xa0345,50"
    assert tr("ru", "{hours:g} h and {cost:,.2f}", hours=91.25, cost=1234.0) == "91,25 h and 1\xa0234,00"
    assert tr("pl", "{x}", x=0.5) == "0,5"  # a float without a spec too
    assert tr("pl", "stopped: {why}", why="v4.2, v5") == "zatrzymano: v4.2, v5"  # text is never touched
    assert tr("pl", "{flag} {n}", flag=True, n=3) == "True 3"
    assert tr("en", "{hours:g} h and {cost:,.2f}", hours=91.2, cost=12345.5) == "91.2 h and 12,345.50"
    assert tr("xx", "{hours:g}", hours=91.2) == "91.2"  # a language CLDR does not know: English digits
    assert tr("pl", "{hours:q}", hours=1.5) == "{hours:q}"  # a bad spec still never raises


def test_n_marks_without_translating_and_tr_marked_translates_later(fake_catalogs: Path) -> None:
    stored = N_("stopped: {why}")
    assert stored == "stopped: {why}"
    assert tr_marked("pl", stored, why="x") == "zatrzymano: x"
    assert tr_marked("en", stored, why="x") == "stopped: x"


def test_the_real_catalogs_translate() -> None:
    loader.catalog.cache_clear()
    assert set(REQUIRED) <= set(i18n.languages())
    used = next(u for u in USES if u.plural is None and not placeholders(u.msgid))
    for language in REQUIRED:
        assert tr_marked(language, used.msgid) != used.msgid, used


def test_extraction_flags_a_msgid_that_is_not_a_literal() -> None:
    source = textwrap.dedent(
        """
        from alicorn.i18n import N_, tr, tr_marked, trn
        MESSAGE = N_("a constant {x}")
        tr(language, "fine {x}", x=1)
        tr(language, MESSAGE, x=1)
        tr(language, f"formatted {x}")
        trn(language, "{n} one", plural, n)
        N_(name)
        tr_marked(language, MESSAGE, x=1)
        tr_marked(language, "literal")
        check("tests", True, N_("{total} ran"), total=3)
        """
    )
    uses, problems = extract(source, "m.py", "core")
    assert sorted(u.msgid for u in uses) == ["a constant {x}", "fine {x}", "{total} ran"]
    assert {u.msgid: u.keywords for u in uses}["{total} ran"] == {"total"}  # checked like tr's keywords
    lines = sorted(int(p.split(":")[1]) for p in problems)
    assert lines == [5, 6, 7, 8, 10], problems
    assert any("tr_marked" in p for p in problems)
