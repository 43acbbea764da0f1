"""Alicorn's exceptions.

    AlicornError                      every error Alicorn raises on purpose; its message says what to do
    ├── JournalError                  the journal cannot be used as asked
    │   ├── NotAJournalError          the file is not an Alicorn journal (or not SQLite at all)
    │   ├── JournalIntegrityError     stored events fail verification (edit, deletion, reordering, truncation)
    │   ├── ConcurrentAppendError     another writer appended to the stream first (optimistic concurrency)
    │   ├── StreamArchivedError       the stream was archived into a segment and is read-only
    │   ├── StreamLockedError         another process is driving this run
    │   └── UnknownStreamError        no such stream (run) in the journal
    ├── PlanError                     a plan file or plan object is invalid (names the node and the fix)
    ├── OperationError                an operation failed while running; `retryable` tells the executor
    ├── RunError                      a run cannot be started, resumed or driven as asked
    │   └── ApprovalRequiredError     effects beyond local_write need a journaled human approval
    └── NonDeterminismError           replay produced an event different from the recorded one

Errors carry the ids involved (stream, seq, node) as attributes as well as in the message.
"""

from __future__ import annotations


class AlicornError(Exception):
    """Base of every error Alicorn raises on purpose."""


class JournalError(AlicornError):
    """The journal cannot be used as asked."""


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
    """An operation failed. Retryable failures are retried under the node's retry policy."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


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
