"""Walking an application's folder safely: no symlinks followed, caches and secret-bearing files named, sizes capped.

Every build operation sees a folder through `scan`, so what is copied, diffed and packaged is the same set of files
in the same (sorted, POSIX) order on every machine.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from alicorn.errors import OperationError

MAX_FILES = 1_000
MAX_BYTES = 10 * 1024 * 1024

#: Generated clutter: never copied, diffed or packaged.
_CACHE_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".venv", "venv", "node_modules", ".mypy_cache"})
_CACHE_FILES = re.compile(r"\.(pyc|pyo)$|^\.DS_Store$")
#: Files that hold secrets by convention: kept out of a candidate, and refused in a package.
SECRET_FILES = re.compile(
    r"^(\.env(\..*)?|.*\.pem|.*\.key|id_rsa.*|id_ed25519.*|\.netrc|\.npmrc|\.pypirc|credentials(\..*)?"
    r"|secrets?(\..*)?|.*\.p12|.*\.pfx)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Tree:
    """A folder's regular files (relative POSIX path -> absolute path) and what was passed over, and why."""

    files: dict[str, Path]
    skipped: dict[str, str]

    @property
    def size(self) -> int:
        return sum(p.stat().st_size for p in self.files.values())

    def digest(self) -> str:
        """SHA-256 over every file's path and content hash, in path order."""
        h = hashlib.sha256()
        for rel in sorted(self.files):
            h.update(rel.encode("utf-8") + b"\0" + hashlib.sha256(self.files[rel].read_bytes()).digest())
        return h.hexdigest()


def is_secret(relative: str) -> bool:
    """Whether a path names a secret-bearing file (.env, keys, credentials)."""
    return bool(SECRET_FILES.match(relative.rsplit("/", 1)[-1]))


def scan(root: Path, keep_secrets: bool) -> Tree:
    """The regular files under `root`; symlinks are never followed; caches are skipped, and secret-bearing files
    too unless `keep_secrets` (a diff must see them to flag them). Too many files or bytes is an OperationError."""
    files: dict[str, Path] = {}
    skipped: dict[str, str] = {}
    total = 0
    for current, dirs, names in os.walk(root, followlinks=False):
        here = Path(current)
        for name in sorted(dirs):
            rel = (here / name).relative_to(root).as_posix()
            if (here / name).is_symlink():
                skipped[rel] = "symlink: not followed"
                dirs.remove(name)
            elif name in _CACHE_DIRS or name.endswith(".egg-info"):
                dirs.remove(name)
        dirs.sort()
        for name in sorted(names):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                skipped[rel] = "symlink: not followed"
            elif not path.is_file():
                skipped[rel] = "not a regular file"
            elif _CACHE_FILES.search(name):
                continue
            elif not keep_secrets and is_secret(rel):
                skipped[rel] = "secret-bearing file: kept out"
            else:
                files[rel] = path
                total += path.stat().st_size
                if len(files) > MAX_FILES or total > MAX_BYTES:
                    raise OperationError(
                        f"{str(root)!r} holds more than {MAX_FILES} files or {MAX_BYTES} bytes; a candidate is a "
                        "small application (point at its folder, not a whole tree)"
                    )
    return Tree(files=dict(sorted(files.items())), skipped=dict(sorted(skipped.items())))


def folder(root: Path, relative: str, label: str) -> Path:
    """`relative` under `root` (already confined by the caller) must be an existing folder."""
    if not root.is_dir():
        raise OperationError(f"no folder {relative!r} in the {label}; check the name (it is relative to the {label})")
    return root
