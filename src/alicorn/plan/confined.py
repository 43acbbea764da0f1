"""Paths relative to a run's data root or workspace: the checks that need no file system, shared by plan validation
and the operations.

An operation input that holds such a path is marked with `CONFINED` (Annotated metadata; the built-ins' `RelativePath`
carries it) or named by the operation's `path_input`. Plan validation refuses a literal one that names a NUL
character, is absolute or contains `..` — it could only fail when the node runs, after the run was admitted and
journaled. `alicorn.ops.paths.confine` applies the same rules, then resolves symlinks, when the operation runs.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

#: Where a plan's relative paths lead, as said in plan validation's messages.
RUN_ROOTS = "run's workspace or data root"


class ConfinedPath:
    """Annotated metadata of an input that is a path inside the run's data root or workspace."""

    def __repr__(self) -> str:
        return "CONFINED"


CONFINED = ConfinedPath()


def path_problem(relative: str, where: str = RUN_ROOTS) -> str | None:
    """What is wrong with `relative` as a path that must stay inside `where` (a sentence after the path), or None."""
    if "\x00" in relative:
        return "contains a NUL character; give a plain relative path"
    if PurePosixPath(relative).is_absolute() or Path(relative).is_absolute():
        return f"is absolute; give a path relative to the {where}"
    if ".." in PurePosixPath(relative).parts:
        return f"contains '..'; paths must stay inside the {where}"
    return None
