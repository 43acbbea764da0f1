"""Three schedulers racing on one SQLite journal over 10,000 slots of an every-minute schedule: each slot fires
exactly once (0 duplicates, 0 missed), and its request reaches the hand-off once."""

from __future__ import annotations

import tempfile
import threading
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from alicorn.journal.sqlite import SQLiteStore
from alicorn.schedule.scheduler import Scheduler
from alicorn.schedule.state import slot_id
from tests.schedule.support import START, JumpClock, RecordingSubmitter, added, fired_events

SLOTS = 10_000
RACERS = 3


#: Memory-backed storage where the machine has it: the race is about concurrency, not the disk, and 20,000 commits
#: with `synchronous=FULL` on a real disk take about a minute (bench/schedule_bench.py measures on the disk).
SHM = Path("/dev/shm")


@pytest.mark.slow
def test_three_racing_schedulers_fire_each_of_10000_slots_exactly_once(tmp_path: Path) -> None:
    folder = tempfile.TemporaryDirectory(dir=SHM) if SHM.is_dir() else None
    path = Path(folder.name if folder else tmp_path) / "journal.db"
    try:
        _race(path)
    finally:
        if folder is not None:
            folder.cleanup()


def _race(path: Path) -> None:
    with SQLiteStore(path) as store:
        added(store, JumpClock())
    submitter = RecordingSubmitter()
    lost = []
    errors: list[BaseException] = []

    def race() -> None:
        try:
            with SQLiteStore(path) as own:  # each racer its own connection, as separate processes would have
                scheduler = Scheduler(own, submitter, JumpClock())
                for _ in range(SLOTS + 1):  # the first tick is at 08:00:30, then one per slot
                    report = scheduler.tick()
                    lost.append(report.lost_races)
                    scheduler.clock.sleep(scheduler.wait_after(report))
        except BaseException as exc:  # surfaced below: a racer's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=race) for _ in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with SQLiteStore(path) as store:
        fired = Counter(e.data["slot_id"] for e in fired_events(store))
        started = Counter(e.data["slot_id"] for e in store.read("schedule:sch-test") if e.kind == "schedule.started")
    expected = {slot_id("sch-test", START.replace(second=0) + timedelta(minutes=k)) for k in range(1, SLOTS + 1)}
    duplicates = sum(n - 1 for n in fired.values())
    missed = len(expected - set(fired))
    assert (duplicates, missed, len(fired)) == (0, 0, SLOTS)
    assert set(started) == expected and max(started.values()) == 1
    assert submitter.creations == SLOTS and set(submitter.created.values()) == expected
    assert sum(lost) > 0  # they did race: some appends lost and were re-read
