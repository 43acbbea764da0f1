"""Adding and changing schedules: the fold, and every bad input refused with nothing journaled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.people import Person, Roster
from alicorn.anvil.rights import HUMAN_RIGHTS
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.schedule import book
from alicorn.schedule.authority import Authority
from alicorn.schedule.errors import ScheduleError, UnknownScheduleError
from alicorn.schedule.rules import parse_once, zone_of
from alicorn.schedule.state import fold
from tests.schedule.support import START, JumpClock, added, spec


def _nothing_journaled(store: InMemoryStore) -> None:
    assert store.streams() == []


def test_add_journals_the_spec_and_indexes_it() -> None:
    store, clock = InMemoryStore(), JumpClock()
    state = added(store, clock, zone="Europe/Warsaw", allow=("local_write",))
    assert (state.id, state.status, state.cursor) == ("sch-test", "active", "2026-11-30T08:00:30Z")
    assert state.require_spec().allow == ("none", "read", "local_write")
    assert state.require_spec().forbidden == ("code_execution", "external_transmission", "publication",
                                              "installation", "physical")  # fmt: skip
    assert [s.id for s in book.all_schedules(store)] == ["sch-test"]
    assert [e.kind for e in store.read("schedule:sch-test")] == ["schedule.added"]


def test_the_fold_follows_pause_resume_remove_fired_started_skipped_queued() -> None:
    store, clock = InMemoryStore(), JumpClock()
    added(store, clock)
    clock.jump(minutes=5)
    book.pause(store, "sch-test", clock, by="human:ann", reason="holiday")
    assert book.load(store, "sch-test").status == "paused"
    clock.jump(hours=1)
    state = book.resume(store, "sch-test", clock, by="human:ann")
    assert (state.status, state.cursor) == ("active", "2026-11-30T09:05:30Z")  # the pause is never caught up
    at = clock.now()
    stream = "schedule:sch-test"
    store.append(stream, [
        Draft("schedule.skipped", at, {"through": "2026-11-30T09:06:00Z", "reason": "r"}),
        Draft("schedule.fired", at, {"slot_id": "sch-test@20261130T090700Z", "slot": "2026-11-30T09:07:00Z",
                                     "fired_at": at, "conversation": "conv-20261130-aaaaaaaaaaaa"}),
        Draft("schedule.queued", at, {"slot": "2026-11-30T09:08:00Z", "slot_id": "sch-test@20261130T090800Z"}),
    ], expect=state.seq)  # fmt: skip
    state = book.load(store, "sch-test")
    assert state.cursor == "2026-11-30T09:08:00Z" and state.queued == "2026-11-30T09:08:00Z"
    assert [f.slot_id for f in state.unstarted] == ["sch-test@20261130T090700Z"]
    store.append(stream, [Draft("schedule.started", at, {"slot_id": "sch-test@20261130T090700Z"})], expect=state.seq)
    state = book.load(store, "sch-test")
    assert state.unstarted == [] and len(state.fired) == 1 and len(state.skipped) == 1
    # folding in two parts gives the same state as folding at once
    events = store.read(stream)
    split = fold(events[3:], fold(events[:3]))
    assert (split.cursor, split.queued, split.started, split.seq) == (
        state.cursor,
        state.queued,
        state.started,
        state.seq,
    )
    book.remove(store, "sch-test", clock, by="human:ann")
    with pytest.raises(ScheduleError, match="was removed; nothing can change it"):
        book.resume(store, "sch-test", clock, by="human:ann")
    assert [h["kind"] for h in book.load(store, "sch-test").history] == [
        "schedule.paused", "schedule.resumed", "schedule.removed"]  # fmt: skip


def test_pausing_twice_and_resuming_an_active_schedule_change_nothing() -> None:
    store, clock = InMemoryStore(), JumpClock()
    added(store, clock)
    with pytest.raises(ScheduleError, match="is not paused"):
        book.resume(store, "sch-test", clock, by="human:ann")
    book.pause(store, "sch-test", clock, by="human:ann")
    seq = store.last_seq("schedule:sch-test")
    with pytest.raises(ScheduleError, match="already paused"):
        book.pause(store, "sch-test", clock, by="human:ann")
    assert store.last_seq("schedule:sch-test") == seq


@pytest.mark.parametrize("sid", ["sch-nope", "../x", "", "schedule:sch-test"])
def test_an_unknown_id_is_named(sid: str) -> None:
    store, clock = InMemoryStore(), JumpClock()
    added(store, clock)
    with pytest.raises(UnknownScheduleError, match="alicorn schedule list"):
        book.load(store, sid)
    with pytest.raises(UnknownScheduleError):
        book.pause(store, sid, clock, by="human:ann")


def _refused(match: str, authority: Authority | None = None, **fields: Any) -> None:
    store, clock = InMemoryStore(), JumpClock()
    with pytest.raises(ScheduleError, match=match):
        book.add_schedule(store, spec(**fields), clock, authority=authority, schedule_id="sch-test")
    _nothing_journaled(store)


def test_an_unknown_zone_is_refused_at_add() -> None:
    _refused(r"--zone 'Europe/Nowhere' is not an IANA time zone", zone="Europe/Nowhere")


def test_a_one_off_time_that_passed_or_a_rule_that_never_meets_its_hours_is_refused() -> None:
    _refused(r"has no slot in the next 400 days \(its time has passed\)",
             rule=parse_once("2026-01-01T08:00", zone_of("UTC")))  # fmt: skip
    from alicorn.schedule.rules import parse_cron, parse_hours

    _refused("has no slot", rule=parse_cron("0 3 * * *"), active_hours=parse_hours("08:00-18:00"))


def test_an_effect_the_home_forbids_cannot_be_allowed() -> None:
    _refused(r"--allow publication: this home forbids that effect", Authority(forbidden=("publication",)),
             allow=("publication",))  # fmt: skip


def test_a_project_people_have_no_rights_in_is_refused() -> None:
    rights = HUMAN_RIGHTS.model_copy(update={"projects": ("default",)})
    _refused(r"--project 'hr': people have no rights in that project", Authority(human_rights=rights), project="hr")


def test_without_people_effects_beyond_a_humans_own_rights_need_an_approver() -> None:
    _refused(r"--allow external_transmission: only an enrolled approver", Authority(),
             allow=("external_transmission",))  # fmt: skip
    store, clock = InMemoryStore(), JumpClock()
    book.add_schedule(store, spec(allow=("local_write",)), clock, authority=Authority(), schedule_id="sch-ok")


def _roster(**roles: str) -> Roster:
    people = {f"human:{n}": Person(f"human:{n}", r, "fp", "human:root", 1) for n, r in roles.items()}  # type: ignore[arg-type]
    return Roster(people=people)


def test_with_people_the_author_must_be_enrolled_and_may_allow_only_what_they_may_approve() -> None:
    roster = _roster(ann="requester", bob="approver", vic="viewer")
    _refused(r"human:zed is not one of this home's people", Authority(roster=roster), author="human:zed")
    _refused(r"human:vic is a viewer, and adding a schedule needs the role requester", Authority(roster=roster),
             author="human:vic")  # fmt: skip
    _refused(r"--allow local_write: human:ann is a requester and may not approve effects", Authority(roster=roster),
             allow=("local_write",))  # fmt: skip
    store, clock = InMemoryStore(), JumpClock()
    book.add_schedule(store, spec(), clock, authority=Authority(roster=roster), schedule_id="sch-looks")
    book.add_schedule(store, spec(author="human:bob", allow=("external_transmission",), hosts=("api.example.com",)),
                      clock, authority=Authority(roster=roster), schedule_id="sch-sends")  # fmt: skip
    assert [s.id for s in book.all_schedules(store)] == ["sch-looks", "sch-sends"]


def test_a_second_schedule_with_the_same_id_is_refused(tmp_path: Path) -> None:
    store, clock = InMemoryStore(), JumpClock()
    added(store, clock)
    with pytest.raises(ScheduleError, match="exists already"):
        added(store, clock)
    assert [s.id for s in book.all_schedules(store)] == ["sch-test"]


def test_show_lists_the_next_five_slots_in_the_zone() -> None:
    from alicorn.schedule.report import detail
    from alicorn.schedule.rules import parse_cron

    store, clock = InMemoryStore(), JumpClock(START.replace(month=3, day=27))
    state = added(store, clock, rule=parse_cron("30 2 * * *"), zone="Europe/Warsaw")
    data = detail(state, clock.moment)
    assert [s["local"] for s in data["next"]] == [
        "2026-03-28 02:30 CET", "2026-03-29 03:00 CEST", "2026-03-30 02:30 CEST",
        "2026-03-31 02:30 CEST", "2026-04-01 02:30 CEST"]  # fmt: skip
