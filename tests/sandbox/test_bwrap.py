"""The sandbox in behaviour: what a sandboxed child can and cannot do, each claim checked by a real child.

Every test starts real bubblewrap children (no mocks): a loopback server the child must not reach, files of an
Alicorn home and a sibling workspace it must not read, folders outside its own it must not write, a parent's
environment variable it must not see, and limits that must kill it. A missing or broken bubblewrap must refuse
before anything runs.
"""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

import pytest

from alicorn.errors import OperationError
from alicorn.sandbox import Finished, Limits, Spec, bwrap, run


def spec_for(home: Path, limits: Limits | None = None, hosts: frozenset[str] = frozenset()) -> Spec:
    work = home / "workspaces" / "run-1" / "work"
    return Spec(work, work, {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, limits or Limits(), (home,), hosts)


def python(spec: Spec, code: str, timeout_s: float = 30) -> Finished:
    return run(spec, [sys.executable, "-I", "-c", code], timeout_s, threading.Event())


def text(done: Finished) -> str:
    return done.output.decode("utf-8", errors="replace")


def test_the_host_loopback_server_is_reachable_from_here_but_not_from_the_sandbox(home: Path, server: int) -> None:
    with socket.create_connection(("127.0.0.1", server), timeout=5):
        pass  # the server is really there
    done = python(
        spec_for(home),
        "import socket\n"
        f"try:\n    socket.create_connection(('127.0.0.1', {server}), timeout=3)\n    print('CONNECTED')\n"
        "except OSError as exc:\n    print('REFUSED', exc.errno)\n"
        "try:\n    socket.getaddrinfo('example.com', 80)\n    print('RESOLVED')\n"
        "except OSError:\n    print('NO DNS')\n",
    )
    assert done.returncode == 0, text(done)
    assert "REFUSED" in text(done) and "CONNECTED" not in text(done)
    assert "NO DNS" in text(done)


def test_the_home_the_journal_and_other_workspaces_are_not_there(home: Path) -> None:
    paths = [
        home / "journal.db",
        home / "keys" / "approver.key",
        home / "workspaces" / "run-2" / "secret.txt",
        home / "workspaces" / "run-1" / "beside.txt",
    ]
    code = "import os\n" + "".join(f"print(os.path.exists({str(p)!r}))\n" for p in paths)
    code += f"print(os.path.exists({str(home)!r}), sorted(os.listdir('/')))\n"
    done = python(spec_for(home), code)
    lines = text(done).splitlines()
    assert done.returncode == 0, text(done)
    assert lines[: len(paths)] == ["False"] * len(paths)
    assert lines[-1].startswith("False")
    assert "home" not in lines[-1] and "workspace" in lines[-1]


def test_only_its_own_folder_is_writable_and_tmp_is_private(home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "escaped.txt"
    code = (
        "import os\n"
        "open('/workspace/result.txt', 'w').write('mine')\n"
        "open('/tmp/scratch.txt', 'w').write('scratch')\n"
        f"for target in ('/usr/evil.txt', '/etc/evil.txt', {str(marker)!r}, {str(home / 'journal.db')!r}):\n"
        "    try:\n        open(target, 'w').write('x')\n        print('WROTE', target)\n"
        "    except OSError as exc:\n        print('NO', exc.errno)\n"
    )
    done = python(spec_for(home), code)
    assert done.returncode == 0, text(done)
    assert "WROTE" not in text(done) and text(done).count("NO") == 4
    assert (home / "workspaces" / "run-1" / "work" / "result.txt").read_text() == "mine"
    assert not marker.exists() and not Path("/usr/evil.txt").exists()
    assert (home / "journal.db").read_text() == "journal rows"


def test_the_parent_environment_stays_outside(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefghijklmnopqrstuvwxyz0123")
    done = python(spec_for(home), "import os, json\nprint(json.dumps(dict(os.environ), sort_keys=True))")
    assert done.returncode == 0, text(done)
    assert "sk-test" not in text(done) and "OPENAI_API_KEY" not in text(done)
    assert text(done).strip() == '{"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "PWD": "/workspace"}'


def test_the_memory_limit_stops_a_greedy_child(home: Path) -> None:
    limits = Limits(memory_bytes=256 * 1024 * 1024)
    done = python(spec_for(home, limits), "block = bytearray(1024 * 1024 * 1024)\nprint('ALLOCATED')")
    assert done.returncode != 0 and "ALLOCATED" not in text(done)
    assert "MemoryError" in text(done)
    small = python(spec_for(home, limits), "block = bytearray(16 * 1024 * 1024)\nprint('ALLOCATED')")
    assert small.returncode == 0 and "ALLOCATED" in text(small)  # the limit, not the sandbox, stopped the first


def test_the_cpu_limit_kills_a_spinning_child(home: Path) -> None:
    done = python(spec_for(home, Limits(cpu_s=1)), "while True:\n    pass", timeout_s=60)
    assert not done.timed_out and done.returncode != 0


def test_the_file_size_limit_stops_a_huge_write(home: Path) -> None:
    limits = Limits(file_bytes=1024 * 1024)
    code = "import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
    code += "try:\n    open('big', 'wb').write(b'x' * (8 * 1024 * 1024))\n    print('WROTE')\n"
    code += "except OSError as exc:\n    print('TOO BIG', exc.errno)\n"
    done = python(spec_for(home, limits), code)
    assert "TOO BIG" in text(done), text(done)
    assert (home / "workspaces" / "run-1" / "work" / "big").stat().st_size <= 1024 * 1024


def test_a_timeout_kills_everything_the_child_started(home: Path) -> None:
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', "
        '\'import time; time.sleep(2); open("/workspace/late.txt", "w").write("x")\'])\n'
        "import time\ntime.sleep(60)\n"
    )
    done = python(spec_for(home), code, timeout_s=1)
    assert done.timed_out and not done.cancelled
    threading.Event().wait(3)
    assert not (home / "workspaces" / "run-1" / "work" / "late.txt").exists()


def test_a_missing_bubblewrap_is_a_clear_refusal_and_nothing_runs(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap, "BWRAP", "/nonexistent/bin/bwrap")
    with pytest.raises(OperationError, match=r"apt-get install bubblewrap.*Nothing was run") as caught:
        python(spec_for(home), "open('/workspace/ran.txt', 'w').write('x')")
    assert caught.value.retryable is False
    assert not (home / "workspaces" / "run-1" / "work" / "ran.txt").exists()


def test_a_bubblewrap_that_cannot_start_is_a_clear_refusal(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "bin" / "bwrap"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(bwrap, "BWRAP", str(broken))
    with pytest.raises(OperationError, match=r"cannot start \(bwrap: No permissions.*apt-get install bubblewrap"):
        python(spec_for(home), "open('/workspace/ran.txt', 'w').write('x')")
    assert not (home / "workspaces" / "run-1" / "work" / "ran.txt").exists()


def test_a_bind_that_would_show_a_protected_path_is_refused(home: Path) -> None:
    inside_python = Path(sys.base_prefix).resolve() / "lib"
    work = home / "workspaces" / "run-1" / "work"
    spec = Spec(work, work, {}, Limits(), protected=(inside_python,))
    with pytest.raises(OperationError, match=r"would show .* through its read-only bind"):
        python(spec, "print('ran')")


def test_a_python_installed_under_tmp_is_bound_over_the_private_tmp_not_hidden_by_it() -> None:
    # A clean clone under /tmp (as CI makes) has its venv there: bound before the tmpfs, it vanished inside.
    args = bwrap._base(bwrap.Limits(), [Path("/tmp/clone/.venv")])
    assert args.index("--tmpfs") < args.index("/tmp/clone/.venv")
