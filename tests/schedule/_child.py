"""A scheduler in a child process, for crash tests: `python -m tests.schedule._child JOURNAL START TICKS`.

Crash points are armed from ALICORN_CRASH_POINT (SIGKILL, like a power cut). The hand-off writes the firing's
conversation stream with expected seq 0, as Core's `take` does, so a second hand-off of one firing changes nothing.
"""

from __future__ import annotations

import contextlib
import sys
from datetime import datetime

from alicorn.crashpoints import CrashPoints
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.schedule.scheduler import Scheduler
from alicorn.schedule.state import Firing, ScheduleState
from tests.schedule.support import JumpClock


class JournalHandOff:
    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def submit(self, state: ScheduleState, firing: Firing) -> None:
        draft = Draft("intent.received", firing.fired_at, {"trigger": firing.trigger(state.id)})
        with contextlib.suppress(ConcurrentAppendError):
            self.store.append(firing.conversation, [draft], expect=0)

    def active(self, conversation: str) -> bool:
        return False

    def cancel(self, conversation: str, reason: str) -> None:
        raise AssertionError("no overlap in these tests")


def main(argv: list[str]) -> int:
    path, start, ticks = argv[0], datetime.fromisoformat(argv[1]), int(argv[2])
    with SQLiteStore(path) as store:
        store.crash = CrashPoints.from_env()
        scheduler = Scheduler(store, JournalHandOff(store), JumpClock(start))
        for _ in range(ticks):
            report = scheduler.tick()
            for problem in report.problems:
                print(problem, file=sys.stderr)
            scheduler.clock.sleep(scheduler.wait_after(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
