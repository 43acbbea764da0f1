"""`data.read_csv` and `data.read_json`: read local files under the data root into records.

Reads are confined to `ctx.data_root` (see `paths.confine`), capped in size, and decoded as UTF-8; every failure is
an OperationError that names the file and, where it helps, the row, line and column. A CSV's header names its
columns and the named columns are coerced to their types; a JSON document's records are the list of objects at a
dotted field. Both are `read` effects and repeatable, so a failed read may simply be tried again.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, JsonValue, model_validator

from alicorn.errors import OperationError
from alicorn.ops._common import MAX_RECORDS, Model, Records, RelativePath
from alicorn.ops.paths import read_path
from alicorn.ops.registry import Operation, OperationContext
from alicorn.plan import criteria
from alicorn.plan.dsl import RetryPolicy

MAX_READ_BYTES = 256 * 1024 * 1024

ColumnType = Literal["str", "int", "float", "bool"]


def _open_error(exc: OSError, relative: str, root: Path) -> OperationError:
    where = f"{relative!r} under the data root {str(root)!r}"
    if isinstance(exc, FileNotFoundError):
        return OperationError(f"no file {where}; check the path (it is relative to the data root)")
    if isinstance(exc, IsADirectoryError):
        return OperationError(f"{where} is a directory, not a file")
    if isinstance(exc, PermissionError):
        return OperationError(f"cannot read {where}: permission denied")
    return OperationError(f"cannot read {where}: {exc}", retryable=True)


@contextlib.contextmanager
def _reading(relative: str, root: Path) -> Iterator[None]:
    """Turn I/O and decoding failures while reading `relative` into OperationErrors naming it."""
    try:
        yield
    except UnicodeDecodeError:
        raise OperationError(f"{relative!r} is not UTF-8 text; re-encode it as UTF-8") from None
    except OSError as exc:
        raise _open_error(exc, relative, root) from None


# ---------------------------------------------------------------------------------------------------- read_csv


class ReadCsvInputs(Model):
    path: RelativePath
    delimiter: str = Field(",", min_length=1, max_length=1, description="one character between fields")
    columns: dict[str, ColumnType] = Field(
        default_factory=dict, max_length=512, description="column -> type to coerce to; others stay strings"
    )
    max_rows: int = Field(100_000, ge=1, le=MAX_RECORDS, description="more data rows than this is an error")

    @model_validator(mode="after")
    def _plain_delimiter(self) -> ReadCsvInputs:
        if self.delimiter in ('"', "\r", "\n"):
            raise ValueError(f"delimiter {self.delimiter!r} cannot separate fields; use e.g. ',' ';' or '\\t'")
        return self


class ReadCsvOutputs(Model):
    records: Records
    count: int = Field(ge=0, description="number of records")
    columns: list[str] = Field(description="header names, in file order")


_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BOOLS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _coerce(raw: str, kind: ColumnType) -> Any:
    """`raw` as `kind`; an empty cell of a typed column is null. Raises ValueError when it does not parse."""
    if kind == "str":
        return raw
    text = raw.strip()
    if not text:
        return None
    if kind == "int" and _INT.fullmatch(text):
        return int(text)
    if kind == "float" and _FLOAT.fullmatch(text):
        number = float(text)
        if math.isfinite(number):
            return number
    if kind == "bool" and text.lower() in _BOOLS:
        return _BOOLS[text.lower()]
    raise ValueError(raw)


def read_csv(inputs: ReadCsvInputs, ctx: OperationContext) -> ReadCsvOutputs:
    """Read a CSV file with a header row under the data root, coercing the named columns."""
    path = read_path(ctx, inputs.path)
    shown = inputs.path
    records: list[dict[str, Any]] = []
    header: list[str] = []
    with _reading(shown, ctx.data_root), path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, delimiter=inputs.delimiter, strict=True)
        try:
            for row in reader:
                if not row:
                    continue  # blank line
                if not header:
                    header = _header(row, shown, inputs.columns)
                    continue
                if len(records) >= inputs.max_rows:
                    raise OperationError(
                        f"{shown!r} has more than {inputs.max_rows} data rows; raise max_rows "
                        f"(at most {MAX_RECORDS}) or split the file"
                    )
                records.append(_record(row, header, inputs.columns, shown, len(records) + 1, reader.line_num))
        except csv.Error as exc:
            raise OperationError(f"{shown!r} line {reader.line_num}: malformed CSV: {exc}") from None
    if not header and inputs.columns:
        raise OperationError(f"{shown!r} is empty: it has no header row naming {', '.join(sorted(inputs.columns))}")
    return ReadCsvOutputs(records=records, count=len(records), columns=header)


def _header(row: list[str], shown: str, types: dict[str, ColumnType]) -> list[str]:
    header = [name.strip() for name in row]
    for position, name in enumerate(header, start=1):
        if not name:
            raise OperationError(f"{shown!r}: header column {position} has no name; every column needs one")
        if header.index(name) != position - 1:
            raise OperationError(f"{shown!r}: header names column {name!r} twice; column names must be unique")
    missing = sorted(set(types) - set(header))
    if missing:
        raise OperationError(
            f"{shown!r}: columns {', '.join(map(repr, missing))} to coerce are not in the header ({', '.join(header)})"
        )
    return header


def _record(
    row: list[str], header: list[str], types: dict[str, ColumnType], shown: str, number: int, line: int
) -> dict[str, Any]:
    if len(row) != len(header):
        raise OperationError(
            f"{shown!r} row {number} (line {line}) has {len(row)} fields but the header has {len(header)}; "
            "quote fields that contain the delimiter"
        )
    record: dict[str, Any] = {}
    for name, raw in zip(header, row, strict=True):
        kind = types.get(name, "str")
        try:
            record[name] = _coerce(raw, kind)
        except ValueError:
            raise OperationError(
                f"{shown!r} row {number} (line {line}), column {name!r}: {raw!r} is not a valid {kind}; "
                "fix the value or change the column's type"
            ) from None
    return record


# ---------------------------------------------------------------------------------------------------- read_json


class ReadJsonInputs(Model):
    path: RelativePath
    field: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$",
        description="dotted path to the list of records inside the document (e.g. 'data.items')",
    )


class ReadJsonOutputs(Model):
    value: JsonValue = Field(description="the whole document")
    records: Records
    count: int = Field(ge=0, description="number of records")


def _read_capped(ctx: OperationContext, relative: str) -> bytes:
    """The bytes of `relative` under the data root, at most MAX_READ_BYTES (a larger file is an error to split)."""
    with _reading(relative, ctx.data_root), read_path(ctx, relative).open("rb") as handle:
        data = handle.read(MAX_READ_BYTES + 1)
    if len(data) > MAX_READ_BYTES:
        raise OperationError(f"{relative!r} is larger than {MAX_READ_BYTES} bytes; split it")
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def read_json(inputs: ReadJsonInputs, ctx: OperationContext) -> ReadJsonOutputs:
    """Read a JSON document under the data root; its records are the list of objects at `field` (or the top)."""
    shown = inputs.path
    data = _read_capped(ctx, shown)
    try:
        value = json.loads(data.decode("utf-8-sig"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise OperationError(f"{shown!r} is not UTF-8 text; re-encode it as UTF-8") from None
    except ValueError as exc:
        raise OperationError(f"{shown!r} is not valid JSON: {exc}") from None
    found = value if inputs.field is None else criteria.lookup(value, inputs.field)
    is_records = isinstance(found, list) and all(isinstance(item, dict) for item in found)
    if inputs.field is not None and not is_records:
        json_kinds = (dict, list, str, int, float, bool, type(None))
        what = f"a JSON {type(found).__name__}" if isinstance(found, json_kinds) else "nothing (no such field)"
        raise OperationError(f"{shown!r}: field {inputs.field!r} holds {what}, not a list of objects")
    records = list(found) if is_records else []
    return ReadJsonOutputs(value=value, records=records, count=len(records))


# ---------------------------------------------------------------------------------------------------- read_text

MAX_TEXT_CHARS = 1_000_000


class ReadTextInputs(Model):
    path: RelativePath


class ReadTextOutputs(Model):
    text: str = Field(max_length=MAX_TEXT_CHARS, description="the whole file, UTF-8 (a BOM is dropped)")
    lines: int = Field(ge=0)
    chars: int = Field(ge=0)


def read_text(inputs: ReadTextInputs, ctx: OperationContext) -> ReadTextOutputs:
    """Read a UTF-8 text file under the data root (notes, a log, a transcript), whole."""
    shown = inputs.path
    data = _read_capped(ctx, shown)
    if b"\x00" in data:
        raise OperationError(f"{shown!r} is a binary file, not text; read it with the operation for its format")
    with _reading(shown, ctx.data_root):
        text = data.decode("utf-8-sig")
    if len(text) > MAX_TEXT_CHARS:
        raise OperationError(
            f"{shown!r} holds {len(text)} characters; data.read_text reads at most {MAX_TEXT_CHARS} (a CSV or JSON "
            "file is read as records with data.read_csv / data.read_json)"
        )
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)  # a last line without its newline
    return ReadTextOutputs(text=text, lines=lines, chars=len(text))


_READ_RETRY = RetryPolicy(max_attempts=2, backoff_s=0.5)

READ_CSV = Operation(
    "data.read_csv",
    "Read a CSV file under the data root into records, coercing typed columns.",
    ReadCsvInputs,
    ReadCsvOutputs,
    "read",
    "repeatable",
    read_csv,
    timeout_s=60.0,
    retry=_READ_RETRY,
    path_input="path",
)

READ_JSON = Operation(
    "data.read_json",
    "Read a JSON document under the data root; a list of objects gives records.",
    ReadJsonInputs,
    ReadJsonOutputs,
    "read",
    "repeatable",
    read_json,
    timeout_s=60.0,
    retry=_READ_RETRY,
    path_input="path",
)

READ_TEXT = Operation(
    "data.read_text",
    "Read a UTF-8 text file under the data root, whole.",
    ReadTextInputs,
    ReadTextOutputs,
    "read",
    "repeatable",
    read_text,
    timeout_s=60.0,
    retry=_READ_RETRY,
    path_input="path",
)
