"""Durable storage helpers: atomic file writes (a file is either absent, or complete and on disk, never
half-written), and waiting out SQLite locks its busy handler does not wait for."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


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


def retry_while_locked(action: Callable[[], T], seconds: float = 30.0) -> T:
    """Run `action`, retrying while another connection holds a lock SQLite's busy handler does not wait for
    (switching a fresh file to WAL, for one), at most `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
