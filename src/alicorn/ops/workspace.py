"""`workspace.write_file`: write a text file into the run's workspace, atomically.

Writes are confined to `ctx.workspace` (see `paths.confine`) and capped at `MAX_WRITE_BYTES`. The content goes to a
temporary file that is fsynced and renamed over the target, then the directory is fsynced, so a crash leaves either
the old file or the new one, never a torn write. Writing the same content again gives the same result, which is why
the operation is declared idempotent.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import Field

from alicorn.durable import write_atomically
from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
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


WRITE_FILE = Operation(
    "workspace.write_file",
    "Write a text file into the run's workspace, atomically.",
    WriteFileInputs,
    WriteFileOutputs,
    "local_write",
    "idempotent",
    write_file,
    retry=RetryPolicy(max_attempts=3, backoff_s=0.5),
    resources=("workspace",),
    path_input="path",
)
