"""A scheduler killed (SIGKILL) around a firing: the slot is neither lost nor repeated.

* inside the `schedule.fired` append (rows written, not committed): nothing of the firing exists, and the restarted
  scheduler fires the slot (on time, within the grace);
* after `schedule.fired` is committed and before the hand-off: the restarted scheduler hands the same firing over
  (into the conversation its slot id names) and fires no slot twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.verify import verify_journal
from tests.schedule.support import START, JumpClock, added, fired_events

ROOT = Path(__file__).resolve().parents[2]


def _child(path: Path, ticks: int, crash: str | None) -> int:
    env = {k: v for k, v in os.environ.items() if k != "ALICORN_CRASH_POINT"}
    if crash:
        env["ALICORN_CRASH_POINT"] = crash
    argv = [sys.executable, "-m", "tests.schedule._child", str(path), START.isoformat(), str(ticks)]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=120).returncode


def _check(path: Path, slots: int) -> None:
    with SQLiteStore(path) as store:
        fired = Counter(e.data["slot_id"] for e in fired_events(store))
        conversations = [s.stream for s in store.streams() if s.stream.startswith("conv-")]
        assert len(fired) == slots and max(fired.values()) == 1  # every slot once, none twice
        assert len(conversations) == slots and all(store.last_seq(c) == 1 for c in conversations)
        state_events = store.read("schedule:sch-test")
        started = Counter(e.data["slot_id"] for e in state_events if e.kind == "schedule.started")
        assert set(started) == set(fired) and max(started.values()) == 1
        assert verify_journal(store).ok


@pytest.mark.parametrize(
    ("crash", "kills_at"),
    [("mid_append:3", "inside the 2nd slot's schedule.fired"), ("after_schedule_fired:2", "after the 2nd fired")],
)
def test_a_killed_scheduler_neither_loses_nor_repeats_a_slot(tmp_path: Path, crash: str, kills_at: str) -> None:
    path = tmp_path / "journal.db"
    with SQLiteStore(path) as store:
        added(store, JumpClock())
    assert _child(path, 10, crash) == -9, kills_at  # SIGKILL
    with SQLiteStore(path) as store:
        before = Counter(e.data["slot_id"] for e in fired_events(store))
        assert len(before) == (1 if crash.startswith("mid_append") else 2)
    # restarted at the moment of the crash (the killed tick's time): then on for the rest of the slots
    assert _child(path, 6, None) == 0
    _check(path, 5)
