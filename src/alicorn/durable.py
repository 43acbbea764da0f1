"""Durable file writes: a file is either absent, or complete and on disk, never half-written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    """Make a rename or creation inside `directory` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(target: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Write `data` to a temporary file beside `target`, fsync it, rename it over `target`, fsync the directory."""
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_dir(target.parent)
