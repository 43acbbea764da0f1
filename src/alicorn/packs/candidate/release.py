"""`build.package` and `build.install`: a reproducible archive of the candidate, and its (simulated) installation.

The package is a gzipped tar whose bytes depend only on the candidate's files: entries sorted, every time stamp,
owner and mode fixed, and the gzip header carries no time or name, so the same candidate always has the same
SHA-256. A candidate holding a secret-bearing file (.env, a key) is refused, never shipped.

Installation is an effect of class `installation`, so a plan has it only when the request asks for it. It is
simulated inside the workspace: the package is copied to `outbox/installed/` and recorded in that folder's ledger
under the call's idempotency key. A second call with the same key installs nothing and answers with the first
installation (`keyed`); `lookup` tells the runtime whether a key was installed.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from pydantic import Field

from alicorn.durable import write_atomically
from alicorn.errors import EffectUnknown, OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.paths import confine
from alicorn.ops.registry import LookupResult, Operation, OperationContext
from alicorn.packs.candidate.tree import folder, is_secret, scan
from alicorn.plan.dsl import RetryPolicy

#: 2000-01-01T00:00:00Z: every entry's time stamp, so the archive does not depend on when it was built.
FIXED_MTIME = 946_684_800
_NAME = r"^[a-z0-9][a-z0-9._-]{0,63}$"
_SHA256 = r"^[0-9a-f]{64}$"
LEDGER = "ledger.json"

# ---------------------------------------------------------------------------------------------------- package


class PackageInputs(Model):
    root: RelativePath = Field(description="the candidate's folder in the workspace")
    name: str = Field(pattern=_NAME, description="package name, e.g. app-demo")
    into: RelativePath = Field("dist", description="folder in the workspace for the archive")


class PackageOutputs(Model):
    path: str = Field(description="the archive, relative to the workspace")
    sha256: str = Field(pattern=_SHA256)
    bytes: int = Field(ge=1)
    files: int = Field(ge=1)


def archive(files: dict[str, Path], prefix: str) -> bytes:
    """The reproducible .tar.gz of `files` under `prefix/` (see the module docstring)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for rel in sorted(files):
            data = files[rel].read_bytes()
            info = tarfile.TarInfo(f"{prefix}/{rel}")
            info.size, info.mtime, info.mode = len(data), FIXED_MTIME, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def package(inputs: PackageInputs, ctx: OperationContext) -> PackageOutputs:
    """Archive the candidate reproducibly into `into/<name>.tar.gz`; refuse one holding a secret-bearing file."""
    root = folder(confine(ctx.workspace, inputs.root, "workspace"), inputs.root, "workspace")
    tree = scan(root, True)
    secrets = sorted(rel for rel in tree.files if is_secret(rel))
    if secrets:
        raise OperationError(f"the candidate holds secret-bearing file(s) {', '.join(secrets)}; remove them first")
    if not tree.files:
        raise OperationError(f"the candidate {inputs.root!r} holds no files to package")
    try:
        data = archive(tree.files, inputs.name)
    except (OSError, ValueError) as exc:  # ValueError: a path too long for a plain tar header
        raise OperationError(f"cannot archive {inputs.root!r}: {exc}") from None
    target = confine(ctx.workspace, f"{inputs.into}/{inputs.name}.tar.gz", "workspace")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, data)
    except OSError as exc:
        raise OperationError(f"cannot write the package: {exc.strerror or exc}", retryable=True) from None
    return PackageOutputs(
        path=target.relative_to(ctx.workspace.resolve()).as_posix(),
        sha256=hashlib.sha256(data).hexdigest(),
        bytes=len(data),
        files=len(tree.files),
    )


# ---------------------------------------------------------------------------------------------------- install


class InstallInputs(Model):
    package: RelativePath = Field(description="the archive in the workspace (build.package's path)")
    sha256: str = Field(pattern=_SHA256, description="the archive's SHA-256, checked before installing")
    into: RelativePath = Field("outbox/installed", description="where the simulated target keeps installations")


class InstallOutputs(Model):
    installed: bool
    path: str = Field(description="the installed copy, relative to the workspace")
    sha256: str = Field(pattern=_SHA256)
    key: str = Field(description="the idempotency key the installation is recorded under")
    deduplicated: bool = Field(description="this key was already installed: nothing was done again")


def _ledger(ctx: OperationContext, into: str) -> tuple[Path, dict[str, Any]]:
    target = confine(ctx.workspace, into, "workspace")
    path = target / LEDGER
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        entries = {}
    except (OSError, ValueError) as exc:
        raise OperationError(f"the installation ledger {into}/{LEDGER} cannot be read: {exc}") from None
    if not isinstance(entries, dict):
        raise OperationError(f"the installation ledger {into}/{LEDGER} is not a JSON object")
    return path, entries


def install(inputs: InstallInputs, ctx: OperationContext) -> InstallOutputs:
    """Install the package once per idempotency key (see the module docstring)."""
    ledger_path, entries = _ledger(ctx, inputs.into)
    previous = entries.get(ctx.idempotency_key)
    if isinstance(previous, dict):
        return InstallOutputs.model_validate({**previous, "deduplicated": True})
    source = confine(ctx.workspace, inputs.package, "workspace")
    try:
        data = source.read_bytes()
    except OSError:
        raise OperationError(f"no package {inputs.package!r} in the workspace; build it first") from None
    if hashlib.sha256(data).hexdigest() != inputs.sha256:
        raise OperationError(f"the package {inputs.package!r} changed since it was built (SHA-256 differs); rebuild")
    target = confine(ctx.workspace, f"{inputs.into}/{source.name}", "workspace")
    base = ctx.workspace.resolve()
    record = {
        "installed": True,
        "path": target.relative_to(base).as_posix(),
        "sha256": inputs.sha256,
        "key": ctx.idempotency_key,
    }
    before = _inode(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, data)
        entries[ctx.idempotency_key] = record
        write_atomically(ledger_path, (json.dumps(entries, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    except OSError as exc:
        problem = f"cannot install into {inputs.into!r}: {exc.strerror or exc}"
        if _inode(target) not in (None, before):  # the copy landed (a rename makes a new file), recorded or not
            raise EffectUnknown(f"{problem}; the installation may be partly done") from None
        raise OperationError(problem, retryable=True) from None
    return InstallOutputs.model_validate({**record, "deduplicated": False})


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def installed(inputs: InstallInputs, ctx: OperationContext) -> LookupResult:
    """Whether the installation with this call's key happened (reads the ledger; installs nothing)."""
    _, entries = _ledger(ctx, inputs.into)
    previous = entries.get(ctx.idempotency_key)
    if not isinstance(previous, dict):
        return LookupResult(applied=False)
    return LookupResult(applied=True, output={**previous, "deduplicated": True})


PACKAGE = Operation(
    "build.package",
    "Archive the candidate reproducibly (sorted entries, fixed times) into dist/ and report its SHA-256.",
    PackageInputs,
    PackageOutputs,
    "local_write",
    "idempotent",
    package,
    retry=RetryPolicy(max_attempts=2, backoff_s=0.5),
    resources=("workspace",),
    path_input="root",
)

INSTALL = Operation(
    "build.install",
    "Install the package (simulated: copied to outbox/installed/ and recorded once per idempotency key).",
    InstallInputs,
    InstallOutputs,
    "installation",
    "keyed",
    install,
    resources=("workspace",),
    lookup=installed,
    path_input="package",
)
