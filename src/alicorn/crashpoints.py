"""Named crash points: places in the runtime where a test can make the process die, to reproduce crash windows.

Disarmed by default, a crash point costs one dictionary lookup. Armed (in a test's child process, through
`ALICORN_CRASH_POINT=name` or `name:N` for the N-th time it is reached), it kills the process with SIGKILL on the
spot — no `finally`, no flush, exactly like a power cut as far as the journal is concerned.

Points: `before_intent_commit` and `after_intent_commit` (around the commit of a batch that journals an
`effect.intended`), `after_effect` (an operation with an effect returned, its result not yet handed back),
`before_result_commit` (around the commit of an effect's result), `mid_compensation` (a compensation was journaled
as intended and is about to run), `mid_append` (inside a journal append, rows written, not yet committed),
`after_schedule_fired` (a schedule's `schedule.fired` is committed, its request not yet handed to Core).
"""

from __future__ import annotations

import os
import signal
import threading

POINTS = frozenset(
    {
        "before_intent_commit",
        "after_intent_commit",
        "after_effect",
        "before_result_commit",
        "mid_compensation",
        "mid_append",
    }
)
#: Crash points outside the runtime, each exercised by its own part's tests (tests/schedule/test_crash.py).
PART_POINTS = frozenset({"after_schedule_fired"})
ENV_VAR = "ALICORN_CRASH_POINT"


class CrashPoints:
    """Which crash point is armed, and after how many hits it fires."""

    def __init__(self, armed: str | None = None, nth: int = 1) -> None:
        if armed is not None and armed not in POINTS | PART_POINTS:
            raise ValueError(f"unknown crash point {armed!r}; known: {', '.join(sorted(POINTS | PART_POINTS))}")
        self.armed = armed
        self.nth = nth
        self._hits = 0
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> CrashPoints:
        """Arm from `ALICORN_CRASH_POINT` (`name` or `name:N`); disarmed when it is unset."""
        value = (environ if environ is not None else dict(os.environ)).get(ENV_VAR, "").strip()
        if not value:
            return cls()
        name, _, count = value.partition(":")
        return cls(name, int(count) if count else 1)

    def hit(self, name: str) -> None:
        """Reached crash point `name`: die here if it is armed and this is the N-th time."""
        if self.armed != name:
            return
        with self._lock:
            self._hits += 1
            fire = self._hits == self.nth
        if fire:
            os.kill(os.getpid(), signal.SIGKILL)


DISARMED = CrashPoints()
