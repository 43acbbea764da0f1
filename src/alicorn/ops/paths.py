"""Path confinement for the file operations: reads stay under `ctx.data_root`, writes under `ctx.workspace`.

`confine` resolves a relative path under a root and refuses, before anything is opened, NUL characters, absolute
paths, `..` and symlinks that lead out of the root. Every error is an OperationError that names the path and the
root, so the plan's author can see what to fix.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from alicorn.errors import OperationError


def confine(root: Path, relative: str, label: str) -> Path:
    """The resolved path of `relative` under `root`, or an OperationError naming both if it would leave it."""
    if "\x00" in relative:
        raise OperationError(f"path {relative!r} contains a NUL character; give a plain relative path")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or Path(relative).is_absolute():
        raise OperationError(f"path {relative!r} is absolute; give a path relative to the {label} {str(root)!r}")
    if ".." in pure.parts:
        raise OperationError(f"path {relative!r} contains '..'; paths must stay inside the {label} {str(root)!r}")
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
