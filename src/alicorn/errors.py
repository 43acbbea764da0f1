"""Alicorn's exceptions.

    AlicornError                      every error Alicorn raises on purpose; its message says what to do
    ├── JournalError                  the journal cannot be used as asked
    │   ├── NotAJournalError          the file is not an Alicorn journal (or not SQLite at all, or empty)
    │   ├── JournalIntegrityError     stored events fail verification (edit, deletion, reordering, truncation)
    │   ├── ConcurrentAppendError     another writer appended to the stream first (optimistic concurrency)
    │   ├── StreamArchivedError       the stream was archived into a segment and is read-only
    │   ├── StreamLockedError         another process is driving this run
    │   ├── UnknownStreamError        no such stream (run) in the journal
    │   └── DamagedJournalError       (also an EnvironmentFailure) the file's storage is damaged: unreadable pages,
    │                                 undecodable rows, missing tables; `alicorn verify` salvages what it can read
    ├── PlanError                     a plan file or plan object is invalid (names the node and the fix)
    ├── OperationError                an operation failed while running; `retryable` tells the executor, `certain`
    │   │                             whether its effect certainly did not happen
    │   └── EffectUnknown             the effect may have happened (sent, then no answer that says): certain=False
    ├── RunError                      a run cannot be started, resumed or driven as asked
    │   └── ApprovalRequiredError     effects beyond local_write need a journaled human approval
    ├── NonDeterminismError           replay produced an event different from the recorded one
    └── EnvironmentFailure            (also an OSError) the machine failed Alicorn, not the input: the CLI's exit 5
        ├── DiskFullError             no space left (ENOSPC, EDQUOT, SQLite "database or disk is full")
        ├── StorageIOError            the disk or filesystem reported an error (EIO, SQLite "disk I/O error")
        ├── StorageLockedError        another process held a database lock longer than Alicorn waits
        ├── FileAccessError           permission denied, or the file cannot be opened (EACCES, EPERM, SQLite
        │                             "unable to open database file")
        ├── ReadOnlyStorageError      the file or its filesystem is read-only (EROFS, SQLite "attempt to write a
        │                             readonly database")
        └── DamagedJournalError       see above

`environment_failure(exc, path=...)` maps what the standard library raises (sqlite3 errors by code or message,
OSError by errno) to these classes, each message naming the file, what happened and what to do; the command line's
error boundary (`alicorn.cli`) uses it so that no failure of the environment ends in a traceback. An
EnvironmentFailure is an OSError too, so code that already treats OSError as "the machine failed" (Norbi Core's
broker failures) keeps doing so.

Errors carry the ids involved (stream, seq, node) as attributes as well as in the message.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path


class AlicornError(Exception):
    """Base of every error Alicorn raises on purpose."""


class JournalError(AlicornError):
    """The journal cannot be used as asked."""


class NoJournalError(JournalError):
    """A command that needs an existing journal found none where it looked (nothing was created)."""

    def __init__(self, message: str, *, location: str) -> None:
        super().__init__(message)
        self.location = location


class NotAJournalError(JournalError):
    """The file exists but is not an Alicorn journal."""


class JournalIntegrityError(JournalError):
    """Stored events fail verification."""

    def __init__(self, message: str, *, stream: str | None = None, seq: int | None = None) -> None:
        super().__init__(message)
        self.stream = stream
        self.seq = seq


class ConcurrentAppendError(JournalError):
    """Another writer appended to the stream since the caller last read it."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream!r} was appended to by another writer: expected its last event to be "
            f"#{expected}, found #{actual}. Another process may be running this run (e.g. a second "
            f"`alicorn resume`); nothing was written by this one. Re-read the stream and retry, or stop "
            f"the other process."
        )
        self.stream = stream
        self.expected = expected
        self.actual = actual


class StreamArchivedError(JournalError):
    """The stream is archived and can no longer be appended to."""


class StreamLockedError(JournalError):
    """Another process (or session) holds the right to drive this run."""


class UnknownStreamError(JournalError):
    """The stream does not exist in the journal."""

    def __init__(self, stream: str) -> None:
        super().__init__(f"no run or stream {stream!r} in this journal; `alicorn runs` lists the runs")
        self.stream = stream


class PlanError(AlicornError):
    """A plan is invalid. `problems` lists every problem found, each naming the node and the fix."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        head = "the plan is invalid" if len(problems) != 1 else "the plan is invalid: " + problems[0]
        body = "" if len(problems) == 1 else ":\n" + "\n".join(f"  - {p}" for p in problems)
        super().__init__(head + body)


class OperationError(AlicornError):
    """An operation failed. Retryable failures are retried under the node's retry policy.

    `certain` is what the operation knows of its effect: True (the default) when the effect certainly did not
    happen — the operation refused before acting, or the target certainly never received the request (connection
    refused, no such host). An operation that may have applied its effect raises `EffectUnknown` instead.
    """

    def __init__(self, message: str, *, retryable: bool = False, certain: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.certain = certain


class EffectUnknown(OperationError):
    """The operation may have applied its effect and cannot say whether it did: the request was sent (or may have
    been) and no answer says what became of it — a timeout after sending, a reset connection, a 5xx.

    The runtime repeats it only when that is safe (a keyed, idempotent or repeatable effect, under the retry
    policy); an unsafe effect is looked up when its operation can ask, else left for a human (`effect.unknown`).
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message, retryable=retryable, certain=False)


class RunError(AlicornError):
    """A run cannot be started, resumed or driven as asked."""


class ApprovalRequiredError(RunError):
    """The plan has effects that need a human approval which has not been given."""


class NonDeterminismError(AlicornError):
    """Replay regenerated an event that differs from the recorded one."""

    def __init__(self, stream: str, seq: int, expected: str | None, actual: str | None) -> None:
        def short(text: str | None) -> str:
            if text is None:
                return "(nothing)"
            return text if len(text) <= 400 else text[:400] + "…"

        super().__init__(
            f"replay of {stream!r} diverged at event #{seq}:\n  recorded:    {short(expected)}\n"
            f"  regenerated: {short(actual)}\n"
            "Check that the plan, the operation registry and the runtime are the versions that recorded "
            "this run, and that no operation reads time, randomness or files outside the journal."
        )
        self.stream = stream
        self.seq = seq
        self.expected = expected
        self.actual = actual


class EnvironmentFailure(AlicornError, OSError):
    """The environment failed (storage, permissions, a lock), not the input. `path` is the file concerned."""

    exit_code = 5

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else str(path)

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DiskFullError(EnvironmentFailure):
    """No space left on the device (or quota exceeded)."""


class StorageIOError(EnvironmentFailure):
    """The disk or filesystem reported an input/output error."""


class StorageLockedError(EnvironmentFailure):
    """Another process held a database lock for longer than Alicorn waits."""


class FileAccessError(EnvironmentFailure):
    """Permission denied, or a file cannot be opened at all."""


class ReadOnlyStorageError(EnvironmentFailure):
    """The file, or the filesystem it is on, is read-only."""


class DamagedJournalError(EnvironmentFailure, JournalError):
    """The journal file's storage is damaged. `stream` and `seq` name the first unreadable point when known."""

    def __init__(
        self, message: str, *, path: str | Path | None = None, stream: str | None = None, seq: int | None = None
    ) -> None:
        super().__init__(message, path=path)
        self.stream = stream
        self.seq = seq


# SQLite's primary result codes (sqlite3.h), for errors that carry one.
_SQLITE_FULL, _SQLITE_IOERR, _SQLITE_BUSY, _SQLITE_LOCKED = 13, 10, 5, 6
_SQLITE_CANTOPEN, _SQLITE_READONLY, _SQLITE_CORRUPT, _SQLITE_NOTADB = 14, 8, 11, 26
_SQLITE_PERM, _SQLITE_AUTH = 3, 23

_SQLITE_BY_CODE: dict[int, str] = {
    _SQLITE_FULL: "full",
    _SQLITE_IOERR: "io",
    _SQLITE_BUSY: "locked",
    _SQLITE_LOCKED: "locked",
    _SQLITE_CANTOPEN: "cantopen",
    _SQLITE_PERM: "access",
    _SQLITE_AUTH: "access",
    _SQLITE_READONLY: "readonly",
    _SQLITE_CORRUPT: "damaged",
    _SQLITE_NOTADB: "damaged",
}
# The same, by message, for errors without a code (raised by hand, or by the sqlite3 module itself).
_SQLITE_BY_MESSAGE: tuple[tuple[str, str], ...] = (
    ("database or disk is full", "full"),
    ("disk i/o error", "io"),
    ("database is locked", "locked"),
    ("database table is locked", "locked"),
    ("database schema is locked", "locked"),
    ("unable to open database file", "cantopen"),
    ("attempt to write a readonly database", "readonly"),
    ("file is not a database", "damaged"),
    ("malformed", "damaged"),
    ("could not decode to utf-8", "damaged"),
)
_ERRNO: dict[int, str] = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "full",
    errno.EIO: "io",
    errno.EACCES: "access",
    errno.EPERM: "access",
    errno.EROFS: "readonly",
}


def _kind(exc: BaseException) -> str | None:
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int) and (code & 0xFF) in _SQLITE_BY_CODE:
            return _SQLITE_BY_CODE[code & 0xFF]
        text = str(exc).lower()
        return next((kind for needle, kind in _SQLITE_BY_MESSAGE if needle in text), None)
    if isinstance(exc, OSError) and exc.errno is not None:
        return _ERRNO.get(exc.errno)
    return None


def _no_space_left(path: Path) -> bool:
    """Whether the filesystem holding `path` (or its nearest existing folder) is (all but) full: less room than
    SQLite needs for a journal's shared-memory file and a page or two."""
    import os

    for place in (path, *path.parents):
        try:
            if place.exists():
                stats = os.statvfs(place)
                return stats.f_bavail * stats.f_frsize < 256 * 1024 or stats.f_favail == 0
        except (OSError, ValueError):
            return False
    return False


def environment_failure(
    exc: BaseException, *, path: str | Path | None = None, where: str = "", writing: bool = False
) -> EnvironmentFailure | None:
    """The EnvironmentFailure `exc` stands for, or None when `exc` is not a failure of the environment.

    `path` is the file the caller was using (an OSError's own filename wins); `where` says what was being done
    ("writing to the journal"), for the message, and `writing` whether it was a write. An EnvironmentFailure is
    returned as it is.
    """
    if isinstance(exc, EnvironmentFailure):
        return exc
    kind = _kind(exc)
    if kind is None:
        return None
    if kind == "io" and path is not None and _no_space_left(Path(path)):
        kind = "full"  # SQLite says "disk I/O error" when it cannot grow its shared-memory file on a full disk
    if isinstance(exc, OSError):
        named = exc.filename if isinstance(exc.filename, str | Path) else path
        cause = exc.strerror or str(exc)
    else:
        named, cause = path, str(exc)
    file = str(named) if named is not None else "a file Alicorn uses"
    doing = f" while {where}" if where else ""
    if kind == "full":
        return DiskFullError(
            f"{file}: the disk is full ({cause}){doing}; the change that did not fit was not saved. Free some space "
            "(or move --home to a bigger disk), then run the command again; `alicorn resume RUN` continues a run "
            "from its last saved step.",
            path=named,
        )
    if kind == "io":
        return StorageIOError(
            f"{file}: the disk or filesystem reported an error ({cause}){doing}; what was being written was not "
            "saved. Check the disk (the system log, fsck), then run `alicorn verify`; restore from a backup if it "
            "reports damage.",
            path=named,
        )
    if kind == "locked":
        return StorageLockedError(
            f"{file} is locked by another process ({cause}){doing}, and stayed locked longer than Alicorn waits; "
            "nothing was written by this command. Let the other process finish (or stop it), then run the command "
            "again.",
            path=named,
        )
    if kind in ("access", "cantopen"):
        reason = "cannot be opened" if kind == "cantopen" else "may not be used"
        return FileAccessError(
            f"{file} {reason} ({cause}){doing}. Check that its folder exists and that you may read and write both, "
            "or choose another --home.",
            path=named,
        )
    if kind == "readonly":
        return ReadOnlyStorageError(
            f"{file} is read-only, or on a read-only filesystem ({cause}){doing}; nothing was written. Make it "
            "writable, or choose a --home you can write to.",
            path=named,
        )
    unchanged = "the write that met the damage was not made" if writing else "nothing was changed"
    return DamagedJournalError(
        f"{file} is damaged ({cause}){doing}; {unchanged}. `alicorn verify` salvages and checks what can still be "
        "read; restore the journal from a backup.",
        path=named,
    )
