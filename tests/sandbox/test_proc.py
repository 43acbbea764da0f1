"""What a sandboxed child can read of the host through /proc: none of Alicorn's environment, none of bwrap's options.

bwrap itself is PID 1 inside the sandbox, so its environment and command line are the child's to read. A secret in
the environment of the process that starts the sandbox (these tests) must be found nowhere under /proc, and bwrap's
command line must not spell out the binds.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from alicorn.sandbox import Finished, Spec, run

#: Names no honest file under /proc needs to be read for, and whose reading blocks or never ends.
_SKIPPED = ("kmsg", "kcore", "mem", "pagemap", "kpagecount", "kpageflags", "kpagecgroup", "clear_refs")

#: Run in the sandbox: read every regular file under /proc (not following links), print each that holds the
#: needle, then how many files were read and PID 1's environment. The needle comes reversed, so that the child's
#: own command line does not hold it.
SEARCH = f"""
import os, stat, sys
needle = sys.argv[1][::-1].encode()
skipped = {_SKIPPED!r}
read = 0
for folder, dirs, files in os.walk('/proc', followlinks=False):
    for name in files:
        path = os.path.join(folder, name)
        if name in skipped:
            continue
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                data = os.read(fd, 1 << 20)
            finally:
                os.close(fd)
        except OSError:
            continue
        read += 1
        if needle in data:
            print('FOUND', path)
print('READ', read)
print('PID1', open('/proc/1/environ', 'rb').read().replace(b'\\0', b' ').decode())
"""


def in_sandbox(home: Path, code: str, *args: str) -> Finished:
    work = home / "workspaces" / "run-1" / "work"
    spec = Spec(work, work, {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, protected=(home,))
    return run(spec, [sys.executable, "-I", "-c", code, *args], 60, threading.Event())


@pytest.mark.parametrize("needle", ["sk-fake-proc-9f3b2c71e4d5a6081b2c3d4e", "ALICORN_TEST_PROC_SECRET"])
def test_no_variable_of_the_host_is_found_anywhere_under_proc(
    home: Path, monkeypatch: pytest.MonkeyPatch, needle: str
) -> None:
    monkeypatch.setenv("ALICORN_TEST_PROC_SECRET", "sk-fake-proc-9f3b2c71e4d5a6081b2c3d4e")
    done = in_sandbox(home, SEARCH, needle[::-1])
    out = done.output.decode("utf-8", errors="replace")
    assert done.returncode == 0, out
    assert "FOUND" not in out, out
    read = int(out.split("READ ", 1)[1].split()[0])
    assert read > 100  # the walk really read /proc (environ and cmdline of every process among them)
    # bwrap (PID 1) started with the fixed environment alone, not the one of the process that started it.
    assert "PID1 PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \n" in out


def test_bwrap_command_line_shows_neither_binds_nor_host_paths(home: Path) -> None:
    code = "import sys\nsys.stdout.write(open('/proc/1/cmdline').read().replace(chr(0), ' '))"
    done = in_sandbox(home, code)
    shown = done.output.decode("utf-8", errors="replace")
    assert done.returncode == 0, shown
    assert "bwrap --args " in shown  # it is bwrap's line, with its options in a file it has read and closed
    for hidden in ("--bind", "--ro-bind", "--setenv", "--proc", str(home)):
        assert hidden not in shown, shown
