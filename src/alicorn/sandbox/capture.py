"""Reading a sandboxed command's output with a bound on what the host keeps.

The command's standard output and error (one pipe) are read in chunks as they come, never all at once, so a command
that writes gigabytes costs the host no more than the limit: past `limit` bytes the command is stopped (`stop`, the
caller's kill of the whole process group) and the capture keeps the last `limit` bytes, the tail a transcript shows.
The same loop watches the wall-clock deadline and the cancellation, as the wait it replaces did.
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

#: How much is read from the pipe at a time, and how often the deadline and the cancellation are looked at.
_CHUNK = 64 * 1024
_POLL_S = 0.2


@dataclass(frozen=True)
class Captured:
    """What the command wrote (at most the limit: its last bytes) and why it was stopped, if it was."""

    output: bytes
    timed_out: bool
    cancelled: bool
    #: The command wrote more than the limit and was stopped for it.
    exceeded: bool


class _Tail:
    """The last `limit` bytes of a stream, and whether more than `limit` came."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.exceeded = False

    def add(self, chunk: bytes) -> None:
        self.kept += chunk
        if len(self.kept) > self.limit:
            self.exceeded = True
            # bytearray drops its head in place (no copy of the rest), so this stays cheap however often it runs.
            del self.kept[: len(self.kept) - self.limit]


def read_bounded(
    process: subprocess.Popen[bytes],
    limit: int,
    timeout_s: float,
    cancelled: threading.Event,
    stop: Callable[[], None],
) -> Captured:
    """Read `process.stdout` to its end, keeping at most `limit` bytes; stop the process past the limit, past
    `timeout_s` or when `cancelled` is set, then read what is left (still bounded) and wait for it to exit."""
    if process.stdout is None:
        raise ValueError("read_bounded needs a process started with stdout=subprocess.PIPE")
    pipe = process.stdout
    tail = _Tail(limit)
    deadline = time.monotonic() + timeout_s
    stopped_for: str | None = None
    while True:
        if not pipe.closed:
            ready, _, _ = select.select([pipe], [], [], _POLL_S)
            chunk = os.read(pipe.fileno(), _CHUNK) if ready else None
            if chunk == b"":
                pipe.close()  # every writer is gone; the process still has to be waited for
            elif chunk:
                tail.add(chunk)
        else:
            try:
                process.wait(timeout=_POLL_S)
                break
            except subprocess.TimeoutExpired:
                pass
        if stopped_for is None:
            stopped_for = _why_stop(tail, cancelled, deadline)
            if stopped_for is not None:
                stop()
    return Captured(bytes(tail.kept), stopped_for == "timed_out", stopped_for == "cancelled", stopped_for == "exceeded")


def _why_stop(tail: _Tail, cancelled: threading.Event, deadline: float) -> str | None:
    if tail.exceeded:
        return "exceeded"
    if cancelled.is_set():
        return "cancelled"
    if time.monotonic() > deadline:
        return "timed_out"
    return None
