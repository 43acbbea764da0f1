"""The scheduler: on-time firings, catch-up after a suspend under each policy, pause, overlap, DST, recovery."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from alicorn.journal.memory import InMemoryStore
from alicorn.schedule import book
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.scheduler import Scheduler, run_now
from alicorn.schedule.state import conversation_for, parse_slot
from tests.schedule.support import JumpClock, RecordingSubmitter, added, fired_events


def _setup(**fields: object) -> tuple[InMemoryStore, JumpClock, RecordingSubmitter, Scheduler]:
    store, clock, submitter = InMemoryStore(), JumpClock(), RecordingSubmitter()
    added(store, clock, **fields)
    return store, clock, submitter, Scheduler(store, submitter, clock)


def _slots(store: InMemoryStore) -> list[str]:
    return [e.data["slot"] for e in fired_events(store)]


def test_every_minute_for_an_hour_fires_each_slot_once_and_sleeps_until_the_next() -> None:
    store, clock, submitter, scheduler = _setup()
    scheduler.run(ticks=61)
    slots = _slots(store)
    assert len(slots) == len(set(slots)) == 60
    assert slots[0] == "2026-11-30T08:01:00Z" and slots[-1] == "2026-11-30T09:00:00Z"
    assert submitter.creations == 60
    assert all(s <= 60 for s in clock.slept) and sum(clock.slept) >= 60 * 59
    state = book.load(store, "sch-test")
    assert state.unstarted == [] and not state.skipped


def test_a_78_minute_suspend_under_last_fires_exactly_one_slot() -> None:
    store, clock, _submitter, scheduler = _setup(catch_up="last")
    scheduler.run(ticks=3)
    before = len(_slots(store))
    clock.jump(minutes=78)
    report = scheduler.tick()
    assert len(report.fired) == 1 and len(_slots(store)) == before + 1
    assert book.load(store, "sch-test").skipped[-1]["reason"] == "missed while no scheduler ran (catch-up last)"


def test_last_fires_the_newest_missed_slot_even_when_none_is_on_time() -> None:
    store, clock, _submitter, scheduler = _setup(rule=parse_cron("0 * * * *"), catch_up="last")
    clock.jump(hours=5, minutes=20)  # 09:00 … 13:00 missed; waking at 13:20 (no slot on time)
    report = scheduler.tick()
    assert _slots(store) == ["2026-11-30T13:00:00Z"] and len(report.fired) == 1
    assert fired_events(store)[0].data["catch_up"] is True


def test_none_fires_no_missed_slot_only_one_that_is_on_time() -> None:
    store, clock, _, scheduler = _setup(catch_up="none")
    clock.jump(minutes=78)  # woken at 09:18:30: 09:18 is 30 s old (on time), the 77 before it were missed
    assert len(scheduler.tick().fired) == 1 and _slots(store) == ["2026-11-30T09:18:00Z"]
    store, clock, _submitter, scheduler = _setup(rule=parse_cron("0 * * * *"), catch_up="none")
    clock.jump(hours=5, minutes=20)
    scheduler.tick()
    assert _slots(store) == [] and book.load(store, "sch-test").cursor == "2026-11-30T13:00:00Z"
    clock.set(datetime(2026, 11, 30, 14, 0, 5, tzinfo=UTC))
    scheduler.tick()
    assert _slots(store) == ["2026-11-30T14:00:00Z"]


def test_all_fires_the_missed_slots_within_the_window_up_to_n_oldest_first() -> None:
    store, clock, _, scheduler = _setup(rule=parse_cron("0 * * * *"), catch_up="all", window_s=4 * 3600,
                                                max_catch_up=3)  # fmt: skip
    clock.jump(hours=10, minutes=20)  # 09:00 … 18:00 missed (10 slots); woken at 18:20
    report = scheduler.tick()
    assert _slots(store) == ["2026-11-30T16:00:00Z", "2026-11-30T17:00:00Z", "2026-11-30T18:00:00Z"]
    assert len(report.fired) == 3
    store, clock, _submitter, scheduler = _setup(rule=parse_cron("0 * * * *"), catch_up="all", window_s=2 * 3600,
                                                max_catch_up=5)  # fmt: skip
    clock.jump(hours=10, minutes=20)
    scheduler.tick()
    assert _slots(store) == ["2026-11-30T17:00:00Z", "2026-11-30T18:00:00Z"]  # the window bounds it before N
    skipped = book.load(store, "sch-test").skipped
    assert [s["through"] for s in skipped] == ["2026-11-30T16:00:00Z"]  # one event for all the rest


def test_slots_while_paused_never_fire_and_firing_goes_on_after_resume() -> None:
    store, clock, _submitter, scheduler = _setup()
    scheduler.run(ticks=5)
    book.pause(store, "sch-test", clock, by="human:ann")
    scheduler.run(ticks=30)
    paused = len(_slots(store))
    book.resume(store, "sch-test", clock, by="human:ann")
    scheduler.run(ticks=5)
    slots = _slots(store)
    assert paused == 4 and len(slots) == 8
    gap = (parse_slot(slots[4]) - parse_slot(slots[3])).total_seconds()
    assert gap >= 30 * 60


def test_overlap_skip_queue_one_and_cancel_previous() -> None:
    rule = parse_cron("0 * * * *")
    for overlap, expected in (("skip", 1), ("queue-one", 1), ("cancel-previous", 3)):
        store, clock, submitter, scheduler = _setup(rule=rule, overlap=overlap)
        clock.set(datetime(2026, 11, 30, 9, 0, 5, tzinfo=UTC))
        scheduler.tick()
        first = fired_events(store)[0].data["conversation"]
        submitter.busy.add(first)  # the 09:00 firing's conversation is still going
        for hour in (10, 11):
            clock.set(datetime(2026, 11, 30, hour, 0, 5, tzinfo=UTC))
            scheduler.tick()
            if overlap == "cancel-previous":
                submitter.busy.add(fired_events(store)[-1].data["conversation"])
        assert len(_slots(store)) == expected, overlap
        if overlap == "queue-one":
            assert book.load(store, "sch-test").queued == "2026-11-30T10:00:00Z"  # 11:00 skipped: one waits
            submitter.busy.clear()
            clock.jump(minutes=1)
            scheduler.tick()
            assert _slots(store)[-1] == "2026-11-30T10:00:00Z" and book.load(store, "sch-test").queued is None
        if overlap == "cancel-previous":
            assert len(submitter.cancelled) == 2 and fired_events(store)[1].data["cancelled"] == first


def test_dst_both_ways_in_warsaw_through_the_scheduler() -> None:
    store, clock, submitter = InMemoryStore(), JumpClock(datetime(2026, 3, 27, 12, tzinfo=UTC)), RecordingSubmitter()
    added(store, clock, rule=parse_cron("30 2 * * *"), zone="Europe/Warsaw")
    Scheduler(store, submitter, clock, max_poll_s=86400).run(ticks=8)
    spring = _slots(store)
    assert spring[:3] == ["2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"]
    store, clock, submitter = InMemoryStore(), JumpClock(datetime(2026, 10, 24, 12, tzinfo=UTC)), RecordingSubmitter()
    added(store, clock, rule=parse_cron("30 2 * * *"), zone="Europe/Warsaw")
    Scheduler(store, submitter, clock, max_poll_s=86400).run(ticks=8)
    autumn = _slots(store)
    assert autumn[:2] == ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]  # 02:30 local once on the 25th
    assert len(autumn) == len(set(autumn))


def test_a_firing_without_started_is_handed_over_again_once() -> None:
    """A crash after `schedule.fired` and before the hand-off: the next tick (any scheduler) submits it into the
    same conversation, and no slot fires twice."""
    store, clock, submitter = InMemoryStore(), JumpClock(), RecordingSubmitter()
    added(store, clock)

    class CrashingSubmitter(RecordingSubmitter):
        def submit(self, state: object, firing: object) -> None:
            raise RuntimeError("killed during the hand-off")

    clock.jump(minutes=1)
    report = Scheduler(store, CrashingSubmitter(), clock).tick()
    assert report.problems and len(fired_events(store)) == 1
    assert len(book.load(store, "sch-test").unstarted) == 1
    report = Scheduler(store, submitter, clock).tick()  # a fresh scheduler, as after a restart
    assert report.resubmitted == ["sch-test@20261130T080100Z"] and report.fired == []
    assert submitter.creations == 1 and book.load(store, "sch-test").unstarted == []
    assert len(fired_events(store)) == 1


def test_the_firing_goes_to_the_conversation_its_slot_id_names_with_the_trigger_record() -> None:
    store, clock, submitter, scheduler = _setup(allow=("local_write",), project="ops")
    clock.jump(minutes=1)
    scheduler.tick()
    event = fired_events(store)[0]
    slot = parse_slot(event.data["slot"])
    assert event.data["conversation"] == conversation_for("sch-test@20261130T080100Z", slot)
    envelope = submitter.envelopes[event.data["conversation"]]
    assert (envelope.provenance, envelope.author, envelope.project) == ("trigger", "schedule:sch-test", "ops")
    assert envelope.trigger.model_dump() == {"schedule": "sch-test", "slot": "2026-11-30T08:01:00Z",
                                             "fired_at": event.data["fired_at"]}  # fmt: skip
    assert "local_write" not in envelope.forbid and "external_transmission" in envelope.forbid
    assert "read" not in envelope.forbid


def test_run_now_fires_by_hand_without_moving_the_cursor() -> None:
    store, clock, submitter = InMemoryStore(), JumpClock(), RecordingSubmitter()
    added(store, clock, rule=parse_cron("0 8 * * 1"))
    clock.jump(seconds=10)
    firing = run_now(store, "sch-test", clock, submitter, by="human:ann")
    state = book.load(store, "sch-test")
    assert firing.slot_id.endswith("-manual") and state.cursor == "2026-11-30T08:00:30Z"
    assert state.unstarted == [] and submitter.creations == 1
    assert Counter(e.kind for e in store.read("schedule:sch-test")) == Counter(
        {"schedule.added": 1, "schedule.fired": 1, "schedule.started": 1})  # fmt: skip


def test_a_schedule_added_while_the_scheduler_runs_is_seen_and_idle_ticks_fire_nothing() -> None:
    store, clock, _submitter, scheduler = _setup(rule=parse_cron("0 9 * * *"))
    for _ in range(5):
        assert scheduler.tick().fired == []  # idle: nothing due before 09:00
    added(store, clock, sid="sch-later", rule=parse_cron("*/10 * * * *"))
    report = scheduler.tick()
    assert report.next_due == datetime(2026, 11, 30, 8, 10, tzinfo=UTC)
    clock.set(datetime(2026, 11, 30, 9, 0, 1, tzinfo=UTC))
    fired = scheduler.tick().fired
    assert sorted(fired) == ["sch-later@20261130T090000Z", "sch-test@20261130T090000Z"]
