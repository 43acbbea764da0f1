"""`build.create_candidate`, `build.apply_variant` and `build.diff`: an isolated copy of an application in the run's
workspace, turned into a demo variant, and compared with its source.

The candidate lives only in the workspace: the source folder under the data root is read, never written. Copying
follows no symlink, leaves caches and secret-bearing files (.env, keys) out, and is capped in size; the copy is built
in a temporary folder and renamed into place, so a retry finds either no candidate or a whole one.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import shutil
from typing import Any, Literal

from pydantic import Field

from alicorn.durable import write_atomically
from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.paths import confine, read_path, under
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.candidate.tree import folder, scan
from alicorn.plan.dsl import RetryPolicy

MAX_SKIPPED = 100
MAX_DIFF_FILES = 500

# ------------------------------------------------------------------------------------------- create_candidate


class CreateInputs(Model):
    app: RelativePath = Field(description="the application's folder under the data root")
    into: RelativePath = Field("candidate", description="the candidate's folder in the run's workspace")


class CreateOutputs(Model):
    root: str = Field(description="the candidate's folder, relative to the workspace")
    files: int = Field(ge=0)
    bytes: int = Field(ge=0)
    tree_sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="digest of every path and content")
    skipped: dict[str, str] = Field(max_length=MAX_SKIPPED, description="paths left out, and why")


def create_candidate(inputs: CreateInputs, ctx: OperationContext) -> CreateOutputs:
    """Copy the application into the workspace (see the module docstring); the source is never changed."""
    source = folder(read_path(ctx, inputs.app), inputs.app, "data root")
    tree = scan(source, keep_secrets=False)
    if not tree.files:
        raise OperationError(f"the app folder {inputs.app!r} holds no files to build from")
    ctx.workspace.mkdir(parents=True, exist_ok=True)
    base = ctx.workspace.resolve()
    target = confine(ctx.workspace, inputs.into, "workspace")
    if target == base or base.is_relative_to(target):
        raise OperationError(f"the candidate folder {inputs.into!r} cannot be the workspace itself; name a subfolder")
    staging = target.with_name(f".{target.name}.staging")
    try:
        shutil.rmtree(staging, ignore_errors=True)
        for rel, path in tree.files.items():
            dest = staging / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest, follow_symlinks=False)  # content only: no source modes or times
        if target.exists():
            shutil.rmtree(target)  # a retry replaces a previous copy whole
        staging.rename(target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OperationError(f"cannot copy {inputs.app!r} into the workspace: {exc.strerror or exc}") from None
    copied = scan(target, keep_secrets=True)
    return CreateOutputs(
        root=target.relative_to(base).as_posix(),
        files=len(copied.files),
        bytes=copied.size,
        tree_sha256=copied.digest(),
        skipped=dict(list(tree.skipped.items())[:MAX_SKIPPED]),
    )


# ---------------------------------------------------------------------------------------------- apply_variant


class VariantInputs(Model):
    root: RelativePath = Field(description="the candidate's folder in the workspace")
    variant: Literal["demo"] = "demo"
    seed: int = Field(7, ge=0, le=2**31, description="seeds the sample data: same seed, same data")
    items: int = Field(8, ge=5, le=50, description="sample items to generate")


class VariantOutputs(Model):
    variant: Literal["demo"]
    changed: list[str] = Field(description="files written, relative to the candidate")
    demo: bool
    items: int = Field(ge=0)


DEMO_DATA = "data/demo_items.json"
_SAMPLE_NAMES = (
    "Hex key set",
    "Cable ties",
    "Wood screw 4x40",
    "Hinge 60 mm",
    "Masking tape",
    "Sandpaper P120",
    "Wall plug 8 mm",
    "Spirit level",
    "Pipe clamp",
    "Zip bag",
)


def sample_items(seed: int, count: int) -> list[dict[str, Any]]:
    """Deterministic sample stock: each value comes from a SHA-256 of the seed and the item's number."""
    out = []
    for i in range(count):
        h = hashlib.sha256(f"demo:{seed}:{i}".encode()).digest()
        out.append(
            {
                "sku": f"DEMO-{i + 1:02d}",
                "name": _SAMPLE_NAMES[h[0] % len(_SAMPLE_NAMES)],
                "quantity": h[1] % 60,
                "unit_price_cents": 50 + int.from_bytes(h[2:4], "big") % 4950,
            }
        )
    return out


def apply_variant(inputs: VariantInputs, ctx: OperationContext) -> VariantOutputs:
    """Make the candidate a demo build: config.json gets demo=true and points at generated sample data."""
    root = folder(confine(ctx.workspace, inputs.root, "workspace"), inputs.root, "workspace")
    config_path = confine(root, "config.json", "candidate")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OperationError(f"the candidate {inputs.root!r} has no config.json; a demo variant sets it") from None
    except (OSError, ValueError) as exc:
        raise OperationError(f"the candidate's config.json cannot be read as JSON: {exc}") from None
    if not isinstance(config, dict):
        raise OperationError("the candidate's config.json must hold a JSON object")
    name = str(config.get("name") or "app")
    # Setting (not toggling) every value makes a second application change nothing: the edit is idempotent.
    config["demo"] = True
    config["name"] = name if name.endswith(" (demo)") else f"{name} (demo)"
    config["data_file"] = DEMO_DATA
    items = sample_items(inputs.seed, inputs.items)
    data_path = confine(root, DEMO_DATA, "candidate")
    try:
        data_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(data_path, (json.dumps(items, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
        write_atomically(config_path, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    except OSError as exc:
        raise OperationError(f"cannot write the demo variant into {inputs.root!r}: {exc.strerror or exc}") from None
    return VariantOutputs(
        variant=inputs.variant, changed=sorted(["config.json", DEMO_DATA]), demo=True, items=len(items)
    )


# ------------------------------------------------------------------------------------------------------- diff


class DiffInputs(Model):
    source: RelativePath = Field(description="the application's folder under the data root")
    root: RelativePath = Field(description="the candidate's folder in the workspace")
    max_text: int = Field(64_000, ge=1_000, le=1_000_000, description="the unified diff is cut at this length")


class DiffFile(Model):
    path: str
    status: Literal["added", "removed", "modified"]
    added: int = Field(ge=0)
    removed: int = Field(ge=0)


class DiffOutputs(Model):
    files: list[DiffFile] = Field(max_length=MAX_DIFF_FILES)
    changed: int = Field(ge=0)
    added: int = Field(ge=0, description="lines added, over every text file")
    removed: int = Field(ge=0, description="lines removed, over every text file")
    text: str = Field(description="unified diff, source (a/) to candidate (b/)")
    truncated: bool


def _lines(data: bytes | None) -> list[str] | None:
    """A file's lines, or None when it is not UTF-8 text."""
    if data is None:
        return []
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def diff(inputs: DiffInputs, ctx: OperationContext) -> DiffOutputs:
    """Compare the candidate with its source: changed files, lines added and removed, and the unified diff."""
    # The source side leaves out what create_candidate leaves out; the candidate side keeps secret-bearing files, so
    # one that a build step added shows up in the diff (and the validator refuses it).
    source = scan(folder(read_path(ctx, inputs.source), inputs.source, "data root"), False)
    candidate = scan(folder(confine(ctx.workspace, inputs.root, "workspace"), inputs.root, "workspace"), True)
    files: list[DiffFile] = []
    chunks: list[str] = []
    for rel in sorted(set(source.files) | set(candidate.files)):
        old = source.files[rel].read_bytes() if rel in source.files else None
        new = candidate.files[rel].read_bytes() if rel in candidate.files else None
        if old == new:
            continue
        status: Literal["added", "removed", "modified"] = (
            "added" if old is None else "removed" if new is None else "modified"
        )
        a, b = _lines(old), _lines(new)
        if a is None or b is None:
            chunks.append(f"Binary files a/{rel} and b/{rel} differ\n")
            files.append(DiffFile(path=rel, status=status, added=0, removed=0))
            continue
        lines = list(difflib.unified_diff(a, b, f"a/{rel}", f"b/{rel}", n=2))
        plus = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
        minus = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
        chunks.extend(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
        files.append(DiffFile(path=rel, status=status, added=plus, removed=minus))
    if len(files) > MAX_DIFF_FILES:
        raise OperationError(f"the candidate differs from its source in {len(files)} files; at most {MAX_DIFF_FILES}")
    text = "".join(chunks)
    truncated = len(text) > inputs.max_text
    return DiffOutputs(
        files=files,
        changed=len(files),
        added=sum(f.added for f in files),
        removed=sum(f.removed for f in files),
        text=text[: inputs.max_text] + ("\n[diff cut here]\n" if truncated else ""),
        truncated=truncated,
    )


CREATE_CANDIDATE = Operation(
    "build.create_candidate",
    "Copy an application folder from the data root into an isolated candidate folder in the run's workspace.",
    CreateInputs,
    CreateOutputs,
    "local_write",
    "idempotent",
    create_candidate,
    timeout_s=60.0,
    retry=RetryPolicy(max_attempts=2, backoff_s=0.5),
    resources=("workspace",),
    path_input="app",
    read_inputs=("app",),  # the folder it copies, read whole from the data root
    selects=under,
)

APPLY_VARIANT = Operation(
    "build.apply_variant",
    "Turn the candidate into a variant (demo: demo=true in config.json and generated sample data).",
    VariantInputs,
    VariantOutputs,
    "local_write",
    "idempotent",
    apply_variant,
    resources=("workspace",),
    path_input="root",
)

DIFF = Operation(
    "build.diff",
    "Compare the candidate with its source folder: changed files, lines added and removed, unified diff.",
    DiffInputs,
    DiffOutputs,
    "read",
    "repeatable",
    diff,
    path_input="source",
    selects=under,  # the source folder, read whole
)
