"""Schedules: three schedulers racing on one SQLite journal, and what an idle tick costs.

    python bench/schedule_bench.py                     # 10,000 slots, 3 racers, on a temporary folder
    python bench/schedule_bench.py --slots 2000 --dir /dev/shm

1. Race: one every-minute schedule; RACERS threads, each with its own SQLite connection and its own fake clock that
   jumps to the next slot, tick through SLOTS slots at once. Printed: duplicate firings (a slot id fired twice),
   missed slots (a slot that never fired), hand-offs created (one conversation per slot), lost races (appends
   refused by optimistic concurrency, then re-read), and the wall time per slot.
2. Idle tick: a scheduler over SCHEDULES daily schedules ticks while nothing is due. Its cost per tick is printed
   against a baseline measured in the same run: one journal read of a stream's new events (`store.read(stream,
   after=last)`), the least any tick must do to notice a change.
3. Heartbeat: a project's heartbeat every 15 minutes over a journal holding RUNS finished runs and a data source of
   a few files, fired HEARTBEAT_TICKS times by the scheduler with a fake clock while nothing changes. Printed: the
   model calls of a counting model (target 0), the cost of one quiet heartbeat tick (probes included), and the
   scheduler's idle tick between two heartbeat slots, with the heartbeat and 10 daily schedules.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alicorn.clock import format_time
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.schedule.book import add_schedule
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.scheduler import Scheduler
from alicorn.schedule.spec import ScheduleSpec
from alicorn.schedule.state import Firing, ScheduleState, slot_id

if TYPE_CHECKING:
    from alicorn.models.messages import ChatRequest, ChatResponse

START = datetime(2026, 11, 30, 8, 0, 30, tzinfo=UTC)


class JumpClock:
    """Stands still; `sleep` moves it (no real waiting)."""

    def __init__(self, start: datetime = START) -> None:
        self.moment = start

    def now(self) -> str:
        return format_time(self.moment)

    def monotonic(self) -> float:
        return self.moment.timestamp()

    def sleep(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)


class HandOff:
    """A firing's conversation stream created with expected seq 0, as Core's `take` does."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def submit(self, state: ScheduleState, firing: Firing) -> None:
        draft = Draft("intent.received", firing.fired_at, {"trigger": firing.trigger(state.id)})
        with contextlib.suppress(ConcurrentAppendError):
            self.store.append(firing.conversation, [draft], expect=0)

    def active(self, conversation: str) -> bool:
        return False

    def cancel(self, conversation: str, reason: str) -> None:
        """No overlap here: every hand-off is done at once."""


def _spec(rule: str) -> ScheduleSpec:
    return ScheduleSpec(request="summarise the alarms", author="human:bench", rule=parse_cron(rule))


def race(folder: Path, slots: int, racers: int) -> dict[str, Any]:
    path = folder / "race.db"
    with SQLiteStore(path) as store:
        add_schedule(store, _spec("* * * * *"), JumpClock(), schedule_id="sch-race")
    lost: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with SQLiteStore(path) as own:
                scheduler = Scheduler(own, HandOff(own), JumpClock())
                for _ in range(slots + 1):
                    report = scheduler.tick()
                    lost.append(report.lost_races)
                    scheduler.clock.sleep(scheduler.wait_after(report))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(racers)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    with SQLiteStore(path) as store:
        events = store.read("schedule:sch-race")
        fired = Counter(e.data["slot_id"] for e in events if e.kind == "schedule.fired")
        conversations = sum(1 for s in store.streams() if s.stream.startswith("conv-"))
    expected = {slot_id("sch-race", START.replace(second=0) + timedelta(minutes=k)) for k in range(1, slots + 1)}
    return {
        "slots": slots,
        "racers": racers,
        "duplicates": sum(n - 1 for n in fired.values()),
        "missed": len(expected - set(fired)),
        "conversations": conversations,
        "lost_races": sum(lost),
        "seconds": elapsed,
    }


def idle(folder: Path, schedules: int, ticks: int) -> dict[str, float]:
    path = folder / "idle.db"
    with SQLiteStore(path) as store:
        clock = JumpClock()
        for n in range(schedules):
            add_schedule(store, _spec("0 3 * * *"), clock, schedule_id=f"sch-idle-{n}")
        scheduler = Scheduler(store, HandOff(store), clock)
        scheduler.tick()  # the first tick folds every schedule; later ones read only what is new
        stream, last = "schedule:sch-idle-0", store.last_seq("schedule:sch-idle-0")
        baseline, tick = [], []
        for _ in range(ticks):
            began = time.perf_counter()
            store.read(stream, after=last)
            baseline.append(time.perf_counter() - began)
            began = time.perf_counter()
            report = scheduler.tick()
            tick.append(time.perf_counter() - began)
            assert not report.fired, "nothing is due in the idle run"
    read_us = statistics.median(baseline) * 1e6
    tick_us = statistics.median(tick) * 1e6
    return {"schedules": schedules, "read_us": read_us, "tick_us": tick_us, "ratio": tick_us / read_us}


def heartbeat(folder: Path, runs: int, ticks: int) -> dict[str, float]:
    from alicorn.config import ProjectData
    from alicorn.models.providers.base import Provider
    from alicorn.schedule.heartbeat import Heartbeat, HeartbeatSettings, HeartbeatSubmitter, read_heartbeat, request_for
    from alicorn.schedule.rules import parse_every

    class Counting(Provider):
        calls = 0

        def complete(self, request: ChatRequest) -> ChatResponse:
            Counting.calls += 1
            raise RuntimeError("a quiet heartbeat must never ask")

    data = folder / "data"
    data.mkdir(exist_ok=True)
    for n in range(5):
        (data / f"alarms-{n}.csv").write_text("severity,text\ninfo,ok\n")
    path = folder / "heartbeat.db"
    with SQLiteStore(path) as store:
        clock = JumpClock()
        plan = {"goal_hash": "0" * 64, "nodes": [{"node_id": "a", "operation": "workspace.read_file"}]}
        for n in range(runs):
            drafts = [Draft("run.created", clock.now(), {"plan": plan, "plan_hash": "1" * 64, "project": "ops"}),
                      Draft("run.finished", clock.now(), {"status": "succeeded"})]  # fmt: skip
            store.append(f"run-bench-{n}", drafts, expect=0)
        spec = ScheduleSpec(request=request_for("ops"), author="human:bench", project="ops",
                            rule=parse_every("15m", clock.moment))  # fmt: skip
        add_schedule(store, spec, clock, schedule_id="heartbeat-ops")
        settings = {"schedule": "heartbeat-ops", "settings": HeartbeatSettings().model_dump()}
        store.append("heartbeat:ops", [Draft("heartbeat.configured", clock.now(), settings)], expect=0)
        for n in range(10):
            add_schedule(store, _spec("0 3 * * *"), clock, schedule_id=f"sch-daily-{n}")
        beat = Heartbeat(store, clock, projects={"ops": ProjectData(sources={"alarms": (str(data / "*.csv"),)})},
                         wording=Counting())  # fmt: skip
        submitter = HeartbeatSubmitter(HandOff(store), beat)
        scheduler = Scheduler(store, submitter, clock, max_poll_s=900)
        beat_s: list[float] = []
        idle_s: list[float] = []
        scheduler.tick()
        for _ in range(ticks):
            clock.sleep(scheduler.wait_after(scheduler.tick()) / 2)  # half-way to the next slot: an idle tick
            began = time.perf_counter()
            report = scheduler.tick()
            idle_s.append(time.perf_counter() - began)
            assert not report.fired
            clock.sleep(scheduler.wait_after(report))
            began = time.perf_counter()
            report = scheduler.tick()
            beat_s.append(time.perf_counter() - began)
            assert report.fired and report.problems == [], report
            clock.sleep(1)
        state = read_heartbeat(store, "ops")
        outcomes = {t["outcome"] for t in state.ticks}
    return {
        "ticks": len(state.ticks),
        "quiet": outcomes == {"quiet"},
        "model_calls": Counting.calls,
        "folds": beat.watch.folds,
        "beat_us": statistics.median(beat_s) * 1e6,
        "idle_us": statistics.median(idle_s) * 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", type=int, default=10_000)
    parser.add_argument("--racers", type=int, default=3)
    parser.add_argument("--ticks", type=int, default=2000, help="idle ticks measured")
    parser.add_argument("--runs", type=int, default=200, help="finished runs in the heartbeat's journal")
    parser.add_argument("--beats", type=int, default=200, help="heartbeat ticks measured")
    parser.add_argument("--dir", type=Path, default=None, help="where the journals go (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as name:
        folder = Path(name)
        got = race(folder, args.slots, args.racers)
        print(
            f"race: {got['racers']} schedulers, {got['slots']} slots of an every-minute schedule: "
            f"{got['duplicates']} duplicate firings, {got['missed']} missed, {got['conversations']} hand-offs, "
            f"{got['lost_races']} lost races (re-read), {got['seconds']:.1f} s "
            f"({got['seconds'] / got['slots'] * 1e3:.2f} ms per slot)"
        )
        for schedules in (1, 10, 100):
            cost = idle(folder, schedules, args.ticks if schedules < 100 else max(200, args.ticks // 10))
            print(
                f"idle tick, {schedules:>3} schedule(s): {cost['tick_us']:.0f} µs per tick against "
                f"{cost['read_us']:.0f} µs for one journal read (×{cost['ratio']:.1f})"
            )
            (folder / "idle.db").unlink()
            for extra in ("idle.db-wal", "idle.db-shm"):
                (folder / extra).unlink(missing_ok=True)
        beat = heartbeat(folder, args.runs, args.beats)
        print(
            f"heartbeat: {beat['ticks']} ticks over {args.runs} finished runs and 5 data files, all quiet: "
            f"{beat['quiet']}; model calls {beat['model_calls']}; runs folded {beat['folds']} (once each); "
            f"{beat['beat_us']:.0f} µs per heartbeat tick (probes included); {beat['idle_us']:.0f} µs per idle "
            "scheduler tick between slots (the heartbeat and 10 daily schedules)"
        )
    ok = got["duplicates"] == 0 and got["missed"] == 0 and beat["model_calls"] == 0 and beat["quiet"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
