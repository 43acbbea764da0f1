"""`workspace.write_file` and `workspace.write_csv`: a text file (or records as CSV) in the workspace, atomically.

Writes are confined to `ctx.workspace` (see `paths.confine`) and capped at `MAX_WRITE_BYTES`. The content goes to a
temporary file that is fsynced and renamed over the target, then the directory is fsynced, so a crash leaves either
the old file or the new one, never a torn write. Writing the same content again gives the same result, which is why
the operation is declared idempotent.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any

from pydantic import Field

from alicorn import canonical
from alicorn.durable import write_atomically
from alicorn.errors import OperationError
from alicorn.ops._common import FieldKey, Model, Records, RelativePath
from alicorn.ops.paths import confine
from alicorn.ops.registry import Operation, OperationContext
from alicorn.plan.dsl import RetryPolicy

MAX_WRITE_BYTES = 16 * 1024 * 1024


class WriteFileInputs(Model):
    path: RelativePath
    content: str = Field(max_length=MAX_WRITE_BYTES, description=f"UTF-8 text, at most {MAX_WRITE_BYTES} bytes")


class WriteFileOutputs(Model):
    path: str = Field(description="where it was written, relative to the workspace")
    bytes: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


def _write_error(exc: OSError, relative: str, root: Path) -> OperationError:
    lasting = isinstance(exc, (PermissionError, NotADirectoryError, FileExistsError, IsADirectoryError))
    return OperationError(
        f"cannot write {relative!r} in the workspace {str(root)!r}: {exc.strerror or exc}", retryable=not lasting
    )


def write_file(inputs: WriteFileInputs, ctx: OperationContext) -> WriteFileOutputs:
    """Write text to a file in the workspace atomically (temp file, fsync, rename, fsync of the directory)."""
    data = inputs.content.encode("utf-8")
    if len(data) > MAX_WRITE_BYTES:
        raise OperationError(f"content for {inputs.path!r} is {len(data)} bytes; the limit is {MAX_WRITE_BYTES}")
    try:
        ctx.workspace.mkdir(parents=True, exist_ok=True)
        target = confine(ctx.workspace, inputs.path, "workspace")
        base = ctx.workspace.resolve()
        if target == base or target.is_dir():
            raise OperationError(f"{inputs.path!r} is a directory in the workspace {str(base)!r}; name a file")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, data)
    except OSError as exc:
        raise _write_error(exc, inputs.path, ctx.workspace) from None
    return WriteFileOutputs(
        path=target.relative_to(base).as_posix(), bytes=len(data), sha256=hashlib.sha256(data).hexdigest()
    )


class WriteCsvInputs(Model):
    path: RelativePath
    records: Records
    fields: list[FieldKey] | None = Field(
        None, max_length=200, description="columns in order (default: every field, in first-seen order)"
    )


class WriteCsvOutputs(Model):
    path: str = Field(description="where it was written, relative to the workspace")
    rows: int = Field(ge=0)
    columns: list[str]
    bytes: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


def _cell(value: Any) -> str:
    """A CSV cell: text as is, null empty, numbers and booleans as JSON writes them, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return canonical.dumps(value) if isinstance(value, (dict, list)) else json.dumps(value)


def write_csv(inputs: WriteCsvInputs, ctx: OperationContext) -> WriteCsvOutputs:
    """Write records as a CSV file (header first) into the workspace, atomically like workspace.write_file."""
    columns = (
        list(inputs.fields) if inputs.fields is not None else list(dict.fromkeys(k for r in inputs.records for k in r))
    )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for record in inputs.records:
        writer.writerow([_cell(record.get(c)) for c in columns])
    written = write_file(WriteFileInputs(path=inputs.path, content=buffer.getvalue()), ctx)
    return WriteCsvOutputs(
        path=written.path, rows=len(inputs.records), columns=columns, bytes=written.bytes, sha256=written.sha256
    )


#: A write that failed for a passing reason (a full disk freed, a lock released) is tried again.
_WRITE_RETRY = RetryPolicy(max_attempts=3, backoff_s=0.5)

WRITE_FILE = Operation(
    "workspace.write_file",
    "Write a text file into the run's workspace, atomically.",
    WriteFileInputs,
    WriteFileOutputs,
    "local_write",
    "idempotent",
    write_file,
    retry=_WRITE_RETRY,
    resources=("workspace",),
    path_input="path",
)

WRITE_CSV = Operation(
    "workspace.write_csv",
    "Write records as a CSV file (header first) into the run's workspace, atomically.",
    WriteCsvInputs,
    WriteCsvOutputs,
    "local_write",
    "idempotent",
    write_csv,
    retry=_WRITE_RETRY,
    resources=("workspace",),
    path_input="path",
)
