"""Running a command under bubblewrap: no network, an empty environment, a read-only system and one writable folder.

What the child sees is built bind by bind, never by hiding parts of the host: the system folders (`/usr`, `/lib*`,
`/bin`, a few files of `/etc`), the Python installation in use (read-only), the operation's own folder mounted
read-write at `/workspace`, a private `/tmp`, `/proc` and `/dev`. Nothing else exists inside, so the Alicorn home,
the journal, other workspaces and the user's home are not hidden but absent. A read-only bind that would contain
the workspace's parents or the data root is refused before anything runs (it would show sibling workspaces).

Limits are rlimits set by `prlimit` around bwrap (CPU seconds, address space, file size, open files, processes),
inherited by everything the child starts; the wall-clock timeout, the bound on output (`capture`) and the kill of the
whole process group come from `run`. A missing or non-starting bubblewrap is an OperationError that names the fix:
never a silent fallback.

What the child can learn of the host through `/proc`: bwrap's own process is PID 1 inside, and its environment and
command line are readable there. So prlimit and bwrap start with `HOST_ENV` alone (never Alicorn's environment, which
may hold API keys and passwords), and bwrap reads its options (the binds, the child's variables) from a memory file
(`--args FD`), so its command line shows only the command it runs. The host path of the workspace still shows in
`/proc/self/mountinfo` (the kernel writes it; only a mount outside the sandbox would hide it).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from alicorn.errors import OperationError
from alicorn.sandbox import network
from alicorn.sandbox.capture import read_bounded

#: The bubblewrap and prlimit binaries, looked up on PATH at call time (tests point them at missing files).
BWRAP = "bwrap"
PRLIMIT = "prlimit"
#: Where the operation's folder appears inside the sandbox (the host path is not shown).
INSIDE = "/workspace"
INSTALL_HINT = "install bubblewrap (`apt-get install bubblewrap`; it needs user namespaces, or root)"
#: The whole environment prlimit and bwrap start with. bwrap is PID 1 inside the sandbox, where its environment is
#: readable at /proc/1/environ, so nothing of Alicorn's own environment may reach it; binaries are named by path.
HOST_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}

_SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
_ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "ssl",
    "ca-certificates",
    "alternatives",
    "mime.types",
)


@dataclass(frozen=True)
class Limits:
    """Per-process rlimits of the sandboxed command. `processes` is not enforced when Alicorn runs as root (the
    kernel exempts uid 0 from RLIMIT_NPROC); the PID namespace and the wall-clock kill still bound a fork bomb.
    `output_bytes` bounds what the host keeps of the command's output: past it the command is killed."""

    cpu_s: int = 120
    memory_bytes: int = 1024 * 1024 * 1024
    file_bytes: int = 64 * 1024 * 1024
    open_files: int = 256
    processes: int = 64
    tmp_bytes: int = 64 * 1024 * 1024
    output_bytes: int = 8 * 1024 * 1024


@dataclass(frozen=True)
class Spec:
    """One sandboxed command: the folder it may write, the environment it gets, its limits and what must stay
    out of sight (`protected`: paths no read-only bind may contain)."""

    workspace: Path
    cwd: Path
    env: Mapping[str, str]
    limits: Limits = field(default_factory=Limits)
    protected: tuple[Path, ...] = ()
    #: Host names the command may reach through the filtering proxy (`network`); empty: no network at all.
    hosts: frozenset[str] = frozenset()
    #: Extra host paths bound read-write at the same path (the proxy's socket folder; set by `run`).
    sockets: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Finished:
    """How the command ended: its exit status, its combined output, and whether Alicorn stopped it."""

    returncode: int
    output: bytes
    timed_out: bool
    cancelled: bool
    #: `host:port` of every connection the proxy refused (not granted), in order of first attempt.
    refused: tuple[str, ...] = ()
    #: The command wrote more than `Limits.output_bytes` and was killed; `output` is its last bytes and a note.
    output_exceeded: bool = False


def inside(spec: Spec, path: Path) -> str:
    """Where a host path under the workspace appears inside the sandbox."""
    relative = path.resolve().relative_to(spec.workspace.resolve())
    return INSIDE if str(relative) == "." else f"{INSIDE}/{relative.as_posix()}"


def _python_roots() -> tuple[Path, ...]:
    """The Python installation in use: the interpreter's folders, resolved (a venv and the base it points at)."""
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    roots.add(Path(os.path.realpath(sys.executable)).parent.parent)
    return tuple(sorted(roots))


def _system_binds() -> list[str]:
    args: list[str] = []
    for name in _SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in _ETC:
        path = Path("/etc") / name
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return args


def _exposes(bind: Path, protected: Path) -> bool:
    return protected == bind or bind in protected.parents


def _check_binds(sources: Sequence[Path], spec: Spec) -> None:
    """Refuse a read-only bind that would show a protected path (the workspace's parents, the data root)."""
    workspace = spec.workspace.resolve()
    guarded = [p for p in workspace.parents if p != Path("/")] + [p.resolve() for p in spec.protected]
    for bind in sources:
        for protected in guarded:
            if _exposes(bind, protected):
                raise OperationError(
                    f"the sandbox would show {protected} through its read-only bind of {bind}; move the Alicorn "
                    f"home (and its workspaces) out of {bind}. Nothing was run.",
                    retryable=False,
                )


def _base(limits: Limits, ro: Sequence[Path]) -> list[str]:
    args = [
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--hostname",
        "sandbox",
    ]
    args += _system_binds()
    # The private /tmp first: a Python installation (a venv) under /tmp is bound on top of it, not hidden by it.
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    for root in ro:
        args += ["--ro-bind", str(root), str(root)]
    return args


def _limits(limits: Limits, prlimit: str) -> list[str]:
    return [
        prlimit,
        f"--cpu={limits.cpu_s}",
        f"--as={limits.memory_bytes}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        f"--nproc={limits.processes}",
        "--core=0",
        "--",
    ]


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise OperationError(
            f"the sandbox is not available: {name!r} was not found; {INSTALL_HINT}. Nothing was run.",
            retryable=False,
        )
    return found


@dataclass(frozen=True)
class Line:
    """A sandboxed command as it is started: prlimit and bwrap (`wrapper`), bwrap's options (binds, the child's
    environment), which it reads from a memory file so they stay off its command line, and the command it runs."""

    wrapper: tuple[str, ...]
    options: tuple[str, ...]
    argv: tuple[str, ...]


def _options_file(options: Sequence[str]) -> int:
    """A memory file holding `options` NUL-separated, as `bwrap --args FD` reads them; closed by the caller."""
    if any("\0" in option for option in options):
        raise OperationError("a sandbox option holds a NUL byte (a path or variable cannot); nothing was run")
    fd = os.memfd_create("alicorn-bwrap-options")
    try:
        data = memoryview(b"".join(os.fsencode(option) + b"\0" for option in options))
        while data:
            data = data[os.write(fd, data) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def _start(line: Line) -> subprocess.Popen[bytes]:
    """Start `line` with `HOST_ENV` only, output and errors on one pipe, in a process group of its own."""
    fd = _options_file(line.options)
    try:
        return subprocess.Popen(
            [*line.wrapper, "--args", str(fd), "--", *line.argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=HOST_ENV,
            pass_fds=(fd,),
            start_new_session=True,
        )
    finally:
        os.close(fd)


@functools.lru_cache(maxsize=8)
def _probe(bwrap: str, prlimit: str, roots: tuple[Path, ...]) -> str | None:
    """Start a trivial sandbox once per binary (cached): None when it works, else what went wrong."""
    line = Line((*_limits(Limits(), prlimit), bwrap), tuple(_base(Limits(), roots)), (sys.executable, "-I", "-c", ""))
    try:
        process = _start(line)
    except OSError as exc:
        return str(exc)
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired as exc:
        _stop(process)
        process.communicate()
        return str(exc)
    if process.returncode != 0:
        return output.decode("utf-8", errors="replace").strip() or f"exit status {process.returncode}"
    return None


def available() -> None:
    """Raise an OperationError naming the fix unless bubblewrap is installed and can start a sandbox here."""
    bwrap, prlimit = _binary(BWRAP), _binary(PRLIMIT)
    problem = _probe(bwrap, prlimit, _python_roots())
    if problem is not None:
        raise OperationError(
            f"the sandbox cannot start ({problem.splitlines()[-1][:300]}); {INSTALL_HINT}, and allow user "
            "namespaces in a container. Nothing was run.",
            retryable=False,
        )


def command(spec: Spec, argv: Sequence[str]) -> Line:
    """The whole command: prlimit, bwrap with its binds and environment, then `argv` run in `spec.cwd`."""
    available()
    roots = _python_roots()
    _check_binds(roots + tuple(Path(d) for d in _SYSTEM_DIRS if Path(d).is_dir() and not Path(d).is_symlink()), spec)
    args = _base(spec.limits, roots)
    args += ["--bind", str(spec.workspace.resolve()), INSIDE]
    for folder in spec.sockets:
        args += ["--bind", str(folder), str(folder)]
    # The root bwrap builds its mount points in is a tmpfs: made read-only last, so nothing but /workspace and the
    # private /tmp takes a write.
    args += ["--remount-ro", "/"]
    for key, value in sorted(spec.env.items()):
        args += ["--setenv", key, value]
    args += ["--chdir", inside(spec, spec.cwd)]
    return Line((*_limits(spec.limits, _binary(PRLIMIT)), _binary(BWRAP)), tuple(args), tuple(argv))


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def run(spec: Spec, argv: Sequence[str], timeout_s: float, cancelled: threading.Event) -> Finished:
    """Run `argv` in the sandbox until it ends, `timeout_s` passes or `cancelled` is set (then the whole process
    group is killed: bwrap's PID namespace takes every process the command started with it). With `spec.hosts`,
    the command runs behind the filtering proxy, and what it refused is said at the end of the output."""
    if not spec.hosts:
        return _run(command(spec, argv), spec.limits, timeout_s, cancelled)
    available()
    with network.granted(spec.hosts) as proxy:
        env = {**spec.env, **network.proxy_env()}
        behind = replace(spec, env=env, sockets=(*spec.sockets, proxy.folder))
        line = command(behind, network.bridged(list(argv), sys.executable, proxy.socket_path))
        done = _run(line, spec.limits, timeout_s, cancelled)
        refused = tuple(proxy.refused)
    if not refused:
        return done
    note = (
        f"\n[alicorn sandbox] refused connections to {', '.join(refused)}: not granted to this operation "
        f"(granted: {', '.join(sorted(spec.hosts))})\n"
    )
    return replace(done, output=done.output + note.encode(), refused=refused)


def _run(line: Line, limits: Limits, timeout_s: float, cancelled: threading.Event) -> Finished:
    try:
        process = _start(line)
    except OSError as exc:
        raise OperationError(f"cannot start the sandbox: {exc.strerror or exc}; {INSTALL_HINT}") from None
    captured = read_bounded(process, limits.output_bytes, timeout_s, cancelled, lambda: _stop(process))
    code = process.returncode if process.returncode is not None else -1
    output = captured.output
    if captured.exceeded:
        output += (
            f"\n[alicorn sandbox] stopped: the command wrote more than {_size(limits.output_bytes)} to its output "
            "(the sandbox's output limit), so it was killed and only its last part is kept; write bulky results to "
            "a file in its working folder instead\n"
        ).encode()
    return Finished(code, output, captured.timed_out, captured.cancelled, output_exceeded=captured.exceeded)


def _size(count: int) -> str:
    """A byte count as people read it: "8 MiB", "256 KiB", "1000 bytes"."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count} bytes"
