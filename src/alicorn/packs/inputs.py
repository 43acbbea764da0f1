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
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from alicorn.i18n import N_

InputFormat = Literal["csv", "json", "json_files", "tree"]

#: The largest file (or folder, summed) a workflow reads. Bigger data belongs in a database, not a request.
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: The most files a folder input may hold.
MAX_TREE_FILES = 5000
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class DataInput:
    """One input of a workflow (see the module docstring).

    - `name`: the key (also the key under `[projects.<p>.data]` in alicorn.toml, and in `--data NAME=PATH`).
    - `what`: how a person calls it, per language ("a camera alarm log (CSV)").
    - `file`: where the plan reads it under the run's data root; for `json_files`, "." (each file keeps its name).
    - `fields`: columns (csv) or top-level keys (json, json_files) the plan needs.
    - `span_field`: a column or key holding dates (ISO): the data's first and last day are read from it.
    """

    name: str
    what: Mapping[str, str]
    file: str
    format: InputFormat
    fields: tuple[str, ...] = ()
    span_field: str | None = None
    required: bool = True

    def called(self, language: str) -> str:
        return self.what.get(language) or self.what.get("en") or self.name


@dataclass(frozen=True)
class Problem:
    """What is wrong with a candidate, as an English msgid with its values (Core renders it in the user's
    language through the catalogs)."""

    message: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def english(self) -> str:
        return self.message.format_map(dict(self.values))


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

    @property
    def fits(self) -> bool:
        return self.problem is None

    def span(self) -> str:
        if self.first is None or self.last is None:
            return "no dates"
        return self.first.isoformat() if self.first == self.last else f"{self.first} to {self.last}"


def _bad(path: Path, message: str, **values: Any) -> Finding:
    return Finding(path, Problem(message, {"file": path.name, **values}))


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


def _text(path: Path) -> tuple[str, bytes] | Finding:
    try:
        size = path.stat().st_size
    except OSError as exc:
        return _bad(path, N_("{file} cannot be read ({error})"), error=exc.strerror or str(exc))
    if size > MAX_INPUT_BYTES:
        return _bad(path, N_("{file} is {size} MB; the most a workflow reads is {limit} MB"), size=size // 2**20,
                    limit=MAX_INPUT_BYTES // 2**20)  # fmt: skip
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return _bad(path, N_("{file} cannot be read ({error})"), error=exc.strerror or str(exc))
    if not raw.strip():
        return _bad(path, N_("{file} is empty"))
    kind = _kind_of(raw[:64])
    if kind is not None:
        return _bad(path, N_("{file} is {kind}, not text"), kind=kind)
    try:
        return raw.decode("utf-8-sig"), raw
    except UnicodeDecodeError:
        return _bad(path, N_("{file} is not UTF-8 text; save it as UTF-8"))


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


def _csv(path: Path, want: DataInput) -> Finding:
    read = _text(path)
    if isinstance(read, Finding):
        return read
    text, raw = read
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as exc:
        return _bad(path, N_("{file} is not a readable CSV file ({error})"), error=str(exc))
    header = [h.strip() for h in (csv.reader(io.StringIO(text)).__next__() if text.strip() else [])]
    missing = [f for f in want.fields if f not in header]
    if missing:
        return _bad(path, N_("{file} lacks the column(s) {missing} that {what} needs; its header is: {header}"),
                    missing=", ".join(missing), what=want.name, header=", ".join(header)[:300])  # fmt: skip
    if not rows:
        return _bad(path, N_("{file} has a header but no rows"))
    first, last = _days([r.get(want.span_field) for r in rows]) if want.span_field else (None, None)
    return Finding(path, None, hashlib.sha256(raw).hexdigest(), len(raw), len(rows), first, last, (path.name,))


def _json(path: Path, want: DataInput) -> Finding:
    read = _text(path)
    if isinstance(read, Finding):
        return read
    text, raw = read
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return _bad(path, N_("{file} is not valid JSON ({error})"), error=str(exc)[:200])
    if not isinstance(doc, dict):
        return _bad(path, N_("{file} holds a JSON {kind}, not an object"), kind=type(doc).__name__)
    missing = [f for f in want.fields if f not in doc]
    if missing:
        return _bad(path, N_("{file} lacks the key(s) {missing} that {what} needs"), missing=", ".join(missing),
                    what=want.name)  # fmt: skip
    first, last = _days([doc.get(want.span_field)]) if want.span_field else (None, None)
    return Finding(path, None, hashlib.sha256(raw).hexdigest(), len(raw), 1, first, last, (path.name,))


def _tree(path: Path, want: DataInput) -> Finding:
    if not path.is_dir():
        return _bad(path, N_("{file} is a file; {what} is a folder"), what=want.name)
    digest = hashlib.sha256()
    total, names = 0, []
    try:
        for item in sorted(path.rglob("*")):
            if item.is_symlink():
                return _bad(path, N_("{file} holds a symbolic link ({link}); copy the real files instead"),
                            link=str(item.relative_to(path)))  # fmt: skip
            if not item.is_file():
                continue
            names.append(str(item.relative_to(path)))
            if len(names) > MAX_TREE_FILES:
                return _bad(path, N_("{file} holds more than {limit} files"), limit=MAX_TREE_FILES)
            data = item.read_bytes()
            total += len(data)
            if total > MAX_INPUT_BYTES:
                return _bad(path, N_("{file} holds more than {limit} MB"), limit=MAX_INPUT_BYTES // 2**20)
            digest.update(names[-1].encode() + b"\0" + hashlib.sha256(data).digest())
    except OSError as exc:
        return _bad(path, N_("{file} cannot be read ({error})"), error=exc.strerror or str(exc))
    if not names:
        return _bad(path, N_("{file} is an empty folder"))
    return Finding(path, None, digest.hexdigest(), total, len(names), None, None, tuple(names))


def inspect(path: Path, want: DataInput) -> Finding:
    """Read `path` as `want` (one file, or a folder for `tree`); never raises for a bad file, says what is wrong."""
    if not path.exists():
        return _bad(path, N_("there is no file {where}"), where=str(path))
    if want.format == "tree":
        return _tree(path, want)
    if path.is_dir():
        return _bad(path, N_("{file} is a folder; {what} is a file"), what=want.name)
    if want.format == "csv":
        return _csv(path, want)
    return _json(path, want)
