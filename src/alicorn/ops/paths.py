"""Path confinement for the file operations: reads stay under `ctx.data_root`, writes under `ctx.workspace`.

`confine` resolves a relative path under a root and refuses, before anything is opened, NUL characters, absolute
paths, `..` (the rules plan validation already applies to literal paths: `alicorn.plan.confined`) and symlinks
that lead out of the root. Every error is an OperationError that names the path and the root, so the plan's author
can see what to fix.

A symlink that stays inside the root is followed, so the file a path really reaches may carry another data label
than the path's own: `reached` says which file that is (Anvil classifies both when it judges a plan), and
`read_path` hands both to the run's `read_check` before the file is opened, so a link made after the plan was
judged cannot launder a private or secret file through a path labelled lower.
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


def reached(root: Path, relative: str, *, hidden: Sequence[Path] = ()) -> str | None:
    """The path, relative to `root`, of the file `relative` really reaches (symlinks followed); None when it
    reaches nothing a read may open (it leaves the root, enters a hidden folder, or cannot be resolved)."""
    try:
        target = confine(root, relative, "data root", hidden=hidden)
        return target.relative_to(root.resolve()).as_posix()
    except (OperationError, OSError, ValueError):
        return None


def under(folder: str) -> tuple[str, ...]:
    """`selects` for an input naming a folder it reads whole: the folder, and every file beneath it."""
    base = folder.strip().rstrip("/")
    return (base, f"{base}/**") if base not in ("", ".") else ("**",)


def read_path(ctx: OperationContext, relative: str) -> Path:
    """`relative` confined to the run's data root, outside every folder the run may not see (`ctx.hidden`), and
    allowed by the run's `read_check` for the file it really reaches (an OperationError saying why not).

    The path returned is resolved: opening it follows no link that was swapped in after the check."""
    target = confine(ctx.data_root, relative, "data root", hidden=ctx.hidden)
    if ctx.read_check is not None:
        reaches = target.relative_to(ctx.data_root.resolve()).as_posix()
        refused = ctx.read_check(PurePosixPath(relative).as_posix(), reaches)
        if refused is not None:
            raise OperationError(refused)
    return target
