"""Path confinement for the file operations: reads stay under `ctx.data_root`, writes under `ctx.workspace`.

`confine` resolves a relative path under a root and refuses, before anything is opened, NUL characters, absolute
paths, `..` (the rules plan validation already applies to literal paths: `alicorn.plan.confined`) and symlinks
that lead out of the root. Every error is an OperationError that names the path and the root, so the plan's author
can see what to fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from alicorn.errors import OperationError
from alicorn.plan.confined import path_problem

if TYPE_CHECKING:
    from alicorn.ops.registry import OperationContext


def confine(root: Path, relative: str, label: str, *, hidden: Sequence[Path] = ()) -> Path:
    """The resolved path of `relative` under `root`, or an OperationError naming both if it would leave it.

    `hidden`: folders under `root` that no path may enter or contain (the Alicorn home, when a data root holds it:
    its journal, keys, other runs' workspaces and other projects' attachments are never a run's data)."""
    problem = path_problem(relative, f"{label} {str(root)!r}")  # the rules plan validation applies to literals
    if problem is not None:
        raise OperationError(f"path {relative!r} {problem}")
    pure = PurePosixPath(relative)
    try:
        base = root.resolve()
        target = (base / pure).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise OperationError(f"path {relative!r} under the {label} {str(root)!r} cannot be resolved: {exc}") from None
    if not target.is_relative_to(base):
        raise OperationError(
            f"path {relative!r} resolves to {str(target)!r}, outside the {label} {str(base)!r}; "
            "symlinks may not lead out of it"
        )
    for folder in hidden:
        if target.is_relative_to(folder) or folder.is_relative_to(target):
            raise OperationError(
                f"path {relative!r} reaches into the Alicorn home {str(folder)!r} (its journal, keys, workspaces and "
                "attachments), which no run reads; point the plan at your data instead"
            )
    return target


def read_path(ctx: OperationContext, relative: str) -> Path:
    """`relative` confined to the run's data root, outside every folder the run may not see (`ctx.hidden`)."""
    return confine(ctx.data_root, relative, "data root", hidden=ctx.hidden)
