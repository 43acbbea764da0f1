"""The data a workflow needs, declared, and each candidate file checked against the declaration.

A template's plan reads its data under the run's data root by a fixed name (`alarms.csv`, `employees.csv`, the
folder `app`…). A `DataInput` says what that file must be: its format, the fields the plan uses, the field whose
dates give the data's span, and how a person would name it. `inspect(path, want)` reads a candidate and says, in
one `Finding`, whether it fits (rows, span, digest) or exactly what is wrong with it (the wrong kind of file, empty,
too large, the wrong columns), so Core can ask for the right file instead of running over the wrong one.

Nothing here decides *where* data comes from (attachments, named paths, the project's sources): that is Core's
(`alicorn.core.data`). This module is pure file reading, bounded in size.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from alicorn.i18n import N_
from alicorn.packs.captions import Captions, NotCaptions, read_captions
from alicorn.packs.stamps import day_of, read_column

InputFormat = Literal["csv", "json", "json_files", "tree"]
#: What a problem says of a candidate's content (`Problem.kind`):
#: - "unread": it could not be read whole (the file system, its size, its bytes or encoding, its CSV or JSON syntax):
#:   it may hold the input's data, unseen;
#: - "unfit": it is the input's data (most of its columns or keys), but a column, a value or its size is wrong;
#: - "empty": read whole, it holds no data (an empty file, a header alone, an empty folder);
#: - "other": read whole, it holds something else (another table's columns, another JSON, a file for a folder);
#: - "absent": there is no such file.
ProblemKind = Literal["unread", "unfit", "empty", "other", "absent"]

#: The largest file (or folder, summed) a workflow reads. Bigger data belongs in a database, not a request.
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: The most files a folder input may hold.
MAX_TREE_FILES = 5000
#: The most segments a caption or text transcript may hold (as the notes pack's transcript allows).
MAX_CAPTION_SEGMENTS = 5000
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class DataInput:
    """One input of a workflow (see the module docstring).

    - `name`: the key (also the key under `[projects.<p>.data]` in alicorn.toml, and in `--data NAME=PATH`).
    - `what`: how a person calls it, per language ("a camera alarm log (CSV)").
    - `file`: where the plan reads it under the run's data root; for `json_files`, "." (each file keeps its name).
    - `fields`: columns (csv) or top-level keys (json, json_files) the plan needs.
    - `span_field`: a column or key holding dates: the data's first and last day are read from it.
    - `aliases`: other names a person's CSV may give a field ("timestamp" for `ts`); a header matches a field or one
      of its aliases ignoring case, spaces, "-" and "_", and the staged copy carries the field's own name.
    - `date_fields`: CSV columns holding dates or times besides `span_field`. Every date column is read in the forms
      `alicorn.packs.stamps` knows and staged as ISO 8601, so the plan's comparisons mean what they say; a value
      that is not a date is a problem naming its row.
    - `day_fields`: date columns that hold days (besides `span_field`, or it): a time after the date is dropped.
    - `numbered`: a field the file may lack; the staged copy then numbers the rows 1, 2, … in file order.
    - `number_fields`: CSV columns holding numbers: a decimal comma, spaces between thousands and a percent sign
      are staged as the plan reads a number ("0,91" and "91%" as 0.91); any other value is left for the plan's
      own check, which names it.
    - `values`: for a CSV field whose values the plan compares with words (an alarm's `type`), each word the plan
      knows and the other ways people write it ("car" for `vehicle`), matched ignoring case and separators; the
      staged copy writes the plan's word, and a value that is none of them is kept as written and said in the
      report's evidence (the plan will treat it as nothing it knows).
    - `captions`: a `json_files` input of transcripts that also takes what meeting tools and people write (WebVTT,
      SubRip, "Name: words" lines; `alicorn.packs.captions`): such a file fits with its speakers named, and Core
      asks for their consent and stages it as the pack's JSON.
    - `may_be_empty`: a CSV whose header alone is data of none (the vacations when nobody is away), not a problem.
    """

    name: str
    what: Mapping[str, str]
    file: str
    format: InputFormat
    fields: tuple[str, ...] = ()
    span_field: str | None = None
    required: bool = True
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    date_fields: tuple[str, ...] = ()
    day_fields: tuple[str, ...] = ()
    numbered: str | None = None
    values: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    number_fields: tuple[str, ...] = ()
    captions: bool = False
    #: A table that may hold no rows (nobody is on vacation): its header alone fits, as data of none.
    may_be_empty: bool = False
    #: The largest file the plan's own reader takes, when below MAX_INPUT_BYTES (a month's HR data: 2 MB): a bigger
    #: one is unfit before anything runs, not a run that fails.
    max_bytes: int | None = None

    def value_of(self, name: str, value: str) -> str | None:
        """The plan's word for `value` of field `name` (itself when it is one), None when it knows none."""
        key = _key(value)
        for word, others in self.values.get(name, {}).items():
            if key == _key(word) or any(key == _key(other) for other in others):
                return word
        return None

    def dated(self) -> tuple[str, ...]:
        """Every date column: `span_field` first, then `date_fields` and `day_fields`."""
        first = (self.span_field,) if self.span_field else ()
        return tuple(dict.fromkeys(first + self.date_fields + self.day_fields))

    def called(self, language: str) -> str:
        return self.what.get(language) or self.what.get("en") or self.name

    def most_bytes(self) -> int:
        """The largest file this input takes: its own limit, or the workflows' (MAX_INPUT_BYTES)."""
        return min(self.max_bytes, MAX_INPUT_BYTES) if self.max_bytes is not None else MAX_INPUT_BYTES

    def suffixes(self) -> frozenset[str]:
        """The file extensions of this input's kind (`.csv` for a CSV; `.json`, and the caption forms for
        transcripts); empty for a folder (`tree`), which has none."""
        if self.format == "tree":
            return frozenset()
        if self.format == "csv":
            return frozenset({".csv"})
        return frozenset({".json", *((".vtt", ".srt", ".txt") if self.captions else ())})


@dataclass(frozen=True)
class Problem:
    """What is wrong with a candidate, as an English msgid with its values (Core renders it in the user's
    language through the catalogs)."""

    message: str
    values: Mapping[str, Any] = field(default_factory=dict)
    #: What the problem says of the content (see `ProblemKind`); a problem of unknown kind is taken as "unread".
    kind: ProblemKind = "unread"

    def english(self) -> str:
        return self.message.format_map(dict(self.values))

    @property
    def may_hold_data(self) -> bool:
        """Whether the file may hold the input's data that leaving it out would lose (it could not be read, it is
        the input's but unfit, or it is not there at all), as against a file read whole that holds none of it."""
        return self.kind in ("unread", "unfit", "absent")


@dataclass(frozen=True)
class Finding:
    """A candidate file read against a `DataInput`: fits (`problem` None) or not, and what it holds."""

    path: Path
    problem: Problem | None
    sha256: str = ""
    bytes: int = 0
    rows: int = 0
    first: date | None = None
    last: date | None = None
    files: tuple[str, ...] = ()
    #: For a CSV: the file's header name of each field where it differs from the field's (`timestamp` for `ts`).
    renamed: tuple[tuple[str, str], ...] = ()
    #: For a CSV: how many date values the staged copy writes in ISO form, and whether it numbers the rows.
    redated: int = 0
    numbered: bool = False
    #: For a CSV: values written in the plan's words (field, as written, the plan's word), and values of such a
    #: field that are none of its words (field, value, how many rows).
    revalued: tuple[tuple[str, str, str], ...] = ()
    unknown: tuple[tuple[str, str, int], ...] = ()
    #: For a CSV: its separator, and how many numbers the staged copy writes with a decimal point.
    delimiter: str = ","
    renumbered: int = 0
    #: For a caption or text transcript (`DataInput.captions`): what was read of it (kind, speakers, segments), so
    #: it is staged from the very text that was checked and digested; None for anything else.
    transcript: Captions | None = None

    @property
    def as_is(self) -> bool:
        """Whether the file can be staged byte for byte (nothing renamed, re-dated, numbered or re-worded, and
        comma-separated)."""
        changed = self.renamed or self.redated or self.numbered or self.revalued or self.renumbered
        return not changed and self.delimiter == ","

    @property
    def fits(self) -> bool:
        return self.problem is None

    def span(self) -> str:
        if self.first is None or self.last is None:
            return "no dates"
        return self.first.isoformat() if self.first == self.last else f"{self.first} to {self.last}"


#: The problem of a path that names no file (a `--data` path or a path in the words with a typo, say).
NO_FILE = N_("there is no file {where}")


def _bad(path: Path, message: str, kind: ProblemKind, /, **values: Any) -> Finding:
    return Finding(path, Problem(message, {"file": path.name, **values}, kind))


def absent(path: Path, where: str) -> Finding:
    """The finding for a path that names no file: `where` is the path as the person wrote it."""
    return _bad(path, NO_FILE, "absent", where=where)


def _kind_of(head: bytes) -> str | None:
    """A name for content that is clearly not text (the first bytes tell)."""
    signatures = {
        b"%PDF": "a PDF document",
        b"PK\x03\x04": "a ZIP archive (or an Office document)",
        b"\x89PNG": "a PNG image",
        b"\xff\xd8\xff": "a JPEG image",
        b"GIF8": "a GIF image",
        b"\x1f\x8b": "a gzip archive",
        b"SQLite format 3": "an SQLite database",
    }
    for magic, name in signatures.items():
        if head.startswith(magic):
            return name
    if b"\x00" in head:
        return "a binary file"
    return None


def _megabytes(size: int) -> str:
    """A size in MB as a person reads it: "64", "5.2"."""
    return f"{size / 2**20:.1f}".removesuffix(".0")


def _text(path: Path, most: int = MAX_INPUT_BYTES) -> tuple[str, bytes] | Finding:
    try:
        size = path.stat().st_size
    except OSError as exc:
        return _bad(path, N_("{file} cannot be read ({error})"), "unread", error=exc.strerror or str(exc))
    if size > most:
        return _bad(path, N_("{file} is {size} MB; the most a workflow reads is {limit} MB"), "unread",
                    size=_megabytes(size), limit=_megabytes(most))  # fmt: skip
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return _bad(path, N_("{file} cannot be read ({error})"), "unread", error=exc.strerror or str(exc))
    if not raw.strip():
        return _bad(path, N_("{file} is empty"), "empty")
    kind = _kind_of(raw[:64])
    if kind is not None:
        # unread: a ".csv" that is binary may be a UTF-16 export or a renamed workbook, holding the data unseen
        return _bad(path, N_("{file} is {kind}, not text"), "unread", kind=kind)
    try:
        return raw.decode("utf-8-sig"), raw
    except UnicodeDecodeError:
        return _bad(path, N_("{file} is not UTF-8 text; save it as UTF-8"), "unread")


def _days(values: list[Any]) -> tuple[date | None, date | None]:
    found: list[date] = []
    for value in values:
        match = _DATE.match(str(value).strip()) if value is not None else None
        if match is None:
            continue
        try:
            found.append(date(int(match[1]), int(match[2]), int(match[3])))
        except ValueError:
            continue
    return (min(found), max(found)) if found else (None, None)


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "_", name.strip().lower()).strip("_")


#: The separators a CSV may use: spreadsheets in Polish, Russian and most of Europe write ";" (the comma is the
#: decimal mark there); a tab or "|" come from other exports.
_DELIMITERS = (",", ";", "\t", "|")


def _delimiter(text: str) -> str:
    """The separator of a CSV's header line: the one it holds most of (a comma when it holds none)."""
    first = text.split("\n", 1)[0]
    counts = {d: first.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _table(text: str) -> tuple[str, list[str], list[dict[str | None, Any]]]:
    """A CSV's separator, its header (names stripped) and its rows (fields by header name)."""
    delimiter = _delimiter(text)
    header = [h.strip() for h in (next(csv.reader(io.StringIO(text), delimiter=delimiter)) if text.strip() else [])]
    rows = list(csv.DictReader(io.StringIO(text), fieldnames=header, delimiter=delimiter))[1:]
    return delimiter, header, rows


_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)")


def plain_number(value: str) -> str | None:
    """A number as the plan reads it ("0.91") from the ways people write one: a decimal comma ("0,91"), spaces
    between thousands ("1 234,5"), a percent sign ("91%" is 0.91); None when `value` is none of those."""
    text = value.strip().replace("\u00a0", "").replace("\u202f", "").replace(" ", "")
    percent = text.endswith("%")
    text = text.removesuffix("%").strip()
    if not _NUMBER.fullmatch(text):
        return None
    number = float(text.replace(",", "."))
    if percent:
        number /= 100
    return repr(round(number, 12)) if percent or "," in text else text


def match_header(header: Sequence[str], want: DataInput) -> tuple[dict[str, str], list[str]]:
    """Each field's column in `header` (field -> the header's name), and the fields no column gives. A field's own
    name wins over its aliases, and an earlier alias over a later one."""
    keys: dict[str, str] = {}
    for name in header:
        keys.setdefault(_key(name), name)
    found: dict[str, str] = {}
    missing: list[str] = []
    for wanted in want.fields:
        for candidate in (wanted, *want.aliases.get(wanted, ())):
            column = keys.get(_key(candidate))
            if column is not None and column not in found.values():
                found[wanted] = column
                break
        else:
            if wanted != want.numbered:
                missing.append(wanted)
    return found, missing


def _csv(path: Path, want: DataInput) -> Finding:
    read = _text(path, want.most_bytes())
    if isinstance(read, Finding):
        return read
    text, raw = read
    try:
        delimiter, header, rows = _table(text)
    except csv.Error as exc:
        return _bad(path, N_("{file} is not a readable CSV file ({error})"), "unread", error=str(exc))
    columns, missing = match_header(header, want)
    if missing:
        # more of the input's columns than not: this input's table with a column missing, not another table
        shape: ProblemKind = "unfit" if len(columns) > len(missing) else "other"
        return _bad(path, N_("{file} lacks the column(s) {missing} that {what} needs; its header is: {header}"),
                    shape, missing=", ".join(missing), what=want.name, header=", ".join(header)[:300])  # fmt: skip
    if not rows and not want.may_be_empty:
        return _bad(path, N_("{file} has a header but no rows"), "empty")
    first = last = None
    redated = 0
    for name in want.dated():
        column = columns.get(name)
        if column is None:
            continue
        read_dates = read_column([row.get(column) for row in rows], days=name in want.day_fields)
        if not read_dates.ok:
            message = (
                N_(
                    "{file}: the {column} column's dates ({value}, line {line}) can be read day first or month first; "
                    "write them as 2026-12-02"
                )
                if read_dates.why != "not a date"
                else N_(
                    "{file}: the {column} column holds {value} on line {line}, which is not a date; write dates as "
                    "2026-12-02 or 2026-12-02 14:30"
                )
            )
            # the file's own line: its header is line 1 (a cell that holds a line break is not counted apart)
            return _bad(path, message, "unfit", column=column, value=repr(read_dates.bad)[:80],
                        line=read_dates.row + 1)  # fmt: skip
        redated += read_dates.rewritten
        if name == want.span_field:
            days = [d for d in map(day_of, read_dates.values) if d is not None]
            first, last = (min(days), max(days)) if days else (None, None)
    renamed = tuple((column, name) for name, column in columns.items() if column != name)
    numbered = want.numbered is not None and want.numbered not in columns
    revalued: dict[tuple[str, str, str], None] = {}
    unknown: dict[tuple[str, str], int] = {}
    for name in want.values:
        if name not in columns:
            continue
        for row in rows:
            value = (row.get(columns[name]) or "").strip()
            word = want.value_of(name, value) if value else value
            if word is None:
                unknown[(name, value)] = unknown.get((name, value), 0) + 1
            elif word != row.get(columns[name]):
                revalued[(name, str(row.get(columns[name])), word)] = None
    renumbered = sum(
        1
        for name in want.number_fields
        if name in columns
        for row in rows
        if (number := plain_number(row.get(columns[name]) or "")) is not None and number != row.get(columns[name])
    )
    return Finding(path, None, hashlib.sha256(raw).hexdigest(), len(raw), len(rows), first, last, (path.name,),
                   renamed, redated, numbered, tuple(revalued),
                   tuple((name, value, count) for (name, value), count in unknown.items()), delimiter,
                   renumbered)  # fmt: skip


def staged_rows(path: Path, want: DataInput) -> tuple[list[str], list[dict[str, str]]]:
    """A fitting CSV's header and rows as the plan reads them: fields under their own names, date columns in ISO
    form, rows numbered from 1 when the file lacks `want.numbered`, values and numbers in the plan's form;
    other columns kept as they are."""
    _separator, header, rows = _table(path.read_text(encoding="utf-8-sig"))
    columns, _ = match_header(header, want)
    names = {column: name for name, column in columns.items()}
    out_header = [names.get(h, h) for h in header]
    if want.numbered is not None and want.numbered not in columns:
        out_header.insert(0, want.numbered)
    out = [{names.get(k, k): (v or "") for k, v in row.items() if k is not None} for row in rows]
    for name in want.dated():
        if name in columns:
            dates = read_column([row.get(name) for row in out], days=name in want.day_fields)
            for row, value in zip(out, dates.values, strict=True):
                row[name] = value
    if want.numbered is not None and want.numbered not in columns:
        for number, row in enumerate(out, start=1):
            row[want.numbered] = str(number)
    for name in want.values:
        if name in columns:
            for row in out:
                value = row.get(name, "").strip()
                row[name] = (want.value_of(name, value) or row.get(name, "")) if value else row.get(name, "")
    for name in want.number_fields:
        if name in columns:
            for row in out:
                row[name] = plain_number(row.get(name, "")) or row.get(name, "")
    return out_header, out


def _json(path: Path, want: DataInput) -> Finding:
    read = _text(path, want.most_bytes())
    if isinstance(read, Finding):
        return read
    text, raw = read
    if want.captions and not text.lstrip().startswith(("{", "[")):
        return _captions(path, text, raw)
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return _bad(path, N_("{file} is not valid JSON ({error})"), "unread", error=str(exc)[:200])
    if not isinstance(doc, dict):
        return _bad(path, N_("{file} holds a JSON {kind}, not an object"), "other", kind=type(doc).__name__)
    missing = [f for f in want.fields if f not in doc]
    if missing:
        shape: ProblemKind = "unfit" if len(want.fields) - len(missing) > len(missing) else "other"
        return _bad(path, N_("{file} lacks the key(s) {missing} that {what} needs"), shape,
                    missing=", ".join(missing), what=want.name)  # fmt: skip
    first, last = _days([doc.get(want.span_field)]) if want.span_field else (None, None)
    return Finding(path, None, hashlib.sha256(raw).hexdigest(), len(raw), 1, first, last, (path.name,))


def _captions(path: Path, text: str, raw: bytes) -> Finding:
    """A transcript as a meeting tool or a person wrote it: fits when it names its speakers."""
    try:
        read = read_captions(text, path.name)
    except NotCaptions:
        # a text file naming no speaker is some other text (a readme); a .vtt or .srt that is not is unreadable
        kind: ProblemKind = "other" if path.suffix.lower() not in (".vtt", ".srt") else "unread"
        return _bad(path, N_("{file} is neither a JSON transcript nor captions Alicorn can read (WebVTT .vtt, "
                             "SubRip .srt, or lines of “Name: words”, naming who speaks)"), kind)  # fmt: skip
    if len(read.cues) > MAX_CAPTION_SEGMENTS:
        return _bad(path, N_("{file} holds {count} segments; the most a transcript may hold is {limit}: split it"),
                    "unfit", count=len(read.cues), limit=MAX_CAPTION_SEGMENTS)  # fmt: skip
    day = read.stated_date
    return Finding(path, None, hashlib.sha256(raw).hexdigest(), len(raw), len(read.cues), day, day, (path.name,),
                   transcript=read)  # fmt: skip


def _tree(path: Path, want: DataInput) -> Finding:
    if not path.is_dir():
        return _bad(path, N_("{file} is a file; {what} is a folder"), "other", what=want.name)
    digest = hashlib.sha256()
    total, names = 0, []
    try:
        for item in sorted(path.rglob("*")):
            if item.is_symlink():
                return _bad(path, N_("{file} holds a symbolic link ({link}); copy the real files instead"),
                            "unfit", link=str(item.relative_to(path)))  # fmt: skip
            if not item.is_file():
                continue
            names.append(str(item.relative_to(path)))
            if len(names) > MAX_TREE_FILES:
                return _bad(path, N_("{file} holds more than {limit} files"), "unfit", limit=MAX_TREE_FILES)
            data = item.read_bytes()
            total += len(data)
            if total > MAX_INPUT_BYTES:
                return _bad(path, N_("{file} holds more than {limit} MB"), "unfit",
                            limit=MAX_INPUT_BYTES // 2**20)  # fmt: skip
            digest.update(names[-1].encode() + b"\0" + hashlib.sha256(data).digest())
    except OSError as exc:
        return _bad(path, N_("{file} cannot be read ({error})"), "unread", error=exc.strerror or str(exc))
    if not names:
        return _bad(path, N_("{file} is an empty folder"), "empty")
    return Finding(path, None, digest.hexdigest(), total, len(names), None, None, tuple(names))


def inspect(path: Path, want: DataInput) -> Finding:
    """Read `path` as `want` (one file, or a folder for `tree`); never raises for a bad file, says what is wrong."""
    if not path.exists():
        return absent(path, str(path))
    if want.format == "tree":
        return _tree(path, want)
    if path.is_dir():
        return _bad(path, N_("{file} is a folder; {what} is a file"), "other", what=want.name)
    if want.format == "csv":
        return _csv(path, want)
    return _json(path, want)
