"""The host keeps a bounded part of a sandboxed command's output: past the limit the command is killed and says so.

A child that writes far more than the limit (with a small limit, so the test is quick) is stopped before it ends,
the host keeps no more than the limit (traced allocations stay small), the output ends with a note naming the
limit, and output within the limit is kept whole and unflagged.
"""

from __future__ import annotations

import sys
import threading
import tracemalloc
from pathlib import Path

from alicorn.sandbox import Finished, Limits, Spec, run
from alicorn.sandbox.capture import _Tail

LIMIT = 256 * 1024
#: Written by the flood in 64 KiB chunks: 256 times the limit.
FLOOD = 64 * 1024 * 1024


def in_sandbox(home: Path, code: str, limits: Limits) -> Finished:
    work = home / "workspaces" / "run-1" / "work"
    spec = Spec(work, work, {"PATH": "/usr/bin:/bin"}, limits, protected=(home,))
    return run(spec, [sys.executable, "-I", "-c", code], 60, threading.Event())


def test_a_flood_of_output_is_cut_at_the_limit_and_the_command_is_killed(home: Path) -> None:
    code = (
        "import os\nchunk = b'x' * 65536\n"
        f"for _ in range({FLOOD // 65536}):\n    os.write(1, chunk)\n"
        "open('/workspace/finished.txt', 'w').write('all written')\n"
    )
    tracemalloc.start()
    try:
        done = in_sandbox(home, code, Limits(output_bytes=LIMIT))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert done.output_exceeded and not done.timed_out and not done.cancelled
    assert done.returncode != 0
    assert not (home / "workspaces" / "run-1" / "work" / "finished.txt").exists()  # killed before its end
    body, _, note = done.output.partition(b"\n[alicorn sandbox]")
    assert len(body) == LIMIT and set(body) == {ord("x")}  # the last LIMIT bytes it wrote, no more
    assert "wrote more than 256 KiB to its output" in note.decode() and "so it was killed" in note.decode()
    assert peak < 8 * LIMIT  # the host held a bounded amount, not the 64 MiB the child tried to hand it


def test_output_within_the_limit_is_kept_whole(home: Path) -> None:
    code = "import sys\nsys.stdout.write('y' * 60000 + 'END')\n"
    done = in_sandbox(home, code, Limits(output_bytes=64 * 1024))
    assert done.returncode == 0 and not done.output_exceeded, done.output[-200:]
    assert done.output == b"y" * 60000 + b"END"


def test_the_tail_keeps_the_last_bytes_and_says_when_more_came() -> None:
    tail = _Tail(10)
    tail.add(b"0123456789")
    assert bytes(tail.kept) == b"0123456789" and not tail.exceeded
    tail.add(b"abc")
    assert bytes(tail.kept) == b"3456789abc" and tail.exceeded
