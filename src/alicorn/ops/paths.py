"""Path confinement for the file operations: reads stay under `ctx.data_root`, writes under `ctx.workspace`.

`confine` resolves a relative path under a root and refuses, before anything is opened, NUL characters, absolute
paths, `..` (the rules plan validation already applies to literal paths: `alicorn.plan.confined`) and symlinks
that lead out of the root. Every error is an OperationError that names the path and the root, so the plan's author
can see what to fix.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from alicorn.errors import OperationError
from alicorn.plan.confined import path_problem


def confine(root: Path, relative: str, label: str) -> Path:
    """The resolved path of `relative` under `root`, or an OperationError naming both if it would leave it."""
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
    return target
