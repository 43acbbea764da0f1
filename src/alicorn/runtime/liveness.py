"""Whether a run's driver is alive: a probe of the lock every driver holds, that writes nothing.

A session drives a run holding an OS lock (`flock` on `<journal>.locks/<run>.lock`, see `SQLiteStore.lock`) for as
long as it runs; the kernel releases it the moment the process ends, even when it is killed. The lock file names the
holder (`pid N on HOST`). So a run the journal says is `running` is either driven now (the lock is held) or was
interrupted (nobody holds it: `alicorn resume RUN` continues it).

The probe opens the lock file read-only (never creating it, nor its folder) and asks for a shared lock without
waiting: refused means a driver holds it; granted means nobody does, and it is released at once. A driver starting
in exactly that instant finds the lock taken and refuses to start, writing nothing; running it again works.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Driver:
    """What the lock says of a run's driver: alive or not, and the process that holds (or last held) it."""

    alive: bool
    pid: int | None = None
    holder: str = ""

    def describe(self, run_id: str) -> str:
        """`running (driver pid N, alive)`, or `interrupted — `alicorn resume RUN``."""
        if self.alive:
            return f"running (driver pid {self.pid}, alive)" if self.pid is not None else "running (driver alive)"
        return f"interrupted — `alicorn resume {run_id}`"

    def to_json(self) -> dict[str, Any]:
        return {"alive": self.alive, "pid": self.pid, "holder": self.holder}


def lock_path(journal: Path, run_id: str) -> Path:
    """Where the driver of `run_id` holds its lock, beside the journal file (as `SQLiteStore.lock` makes it)."""
    return journal.with_name(journal.name + ".locks") / f"{run_id}.lock"


def probe(store: object, run_id: str) -> Driver | None:
    """The driver of `run_id` in `store`, or None when the store keeps no lock files (an in-memory journal)."""
    journal = getattr(store, "path", None)
    if not isinstance(journal, Path):
        return None
    try:
        fd = os.open(lock_path(journal, run_id), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return Driver(alive=False)  # no driver ever locked it here (an imported journal, say)
    except OSError:
        return None  # cannot tell (a permission problem): say nothing rather than guess
    try:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            alive = True
        else:
            alive = False
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
    found = re.match(r"pid (\d+)", holder)
    return Driver(alive, int(found.group(1)) if found else None, holder)
