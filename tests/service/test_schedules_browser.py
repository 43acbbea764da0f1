"""The Schedules page in a real browser (Debian's headless Chromium via Playwright, tests.service.browser): a person
sees the schedules with their next slots and the heartbeat's findings, finds the same findings in the inbox,
pauses and resumes a schedule with the page's forms, and reads the page in Polish. Screenshots 40-… go under the
test's tmp dir and /tmp/ui-shots/."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alicorn.schedule import book
from alicorn.schedule.book import add_schedule
from alicorn.schedule.heartbeat import HeartbeatSettings, add_heartbeat, read_heartbeat
from alicorn.schedule.rules import parse_cron
from alicorn.schedule.spec import ScheduleSpec
from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WAITING, build_home, serve_built


@pytest.fixture
def page() -> Iterator[Any]:
    with one_page() as found:
        yield found


def test_schedules_page_shows_next_slots_and_heartbeat_findings_and_pauses(tmp_path: Path, page: Any) -> None:
    expect = sync_api.expect
    home, clock = build_home(tmp_path)
    with serve_built(home, clock, models="none") as web:
        service = web.api.state.service
        spec = ScheduleSpec(request="summarise the weekend's alarms", author="human:abe",
                            rule=parse_cron("0 8 * * 1"), zone="Europe/Warsaw")  # fmt: skip
        add_schedule(web.store, spec, clock, schedule_id="sch-weekend")
        # The waiting run (since 08:00) is older than the heartbeat's proposal limit at its first slot, 08:15.
        add_heartbeat(service.app, "default", clock=clock, by="human:abe",
                      settings=HeartbeatSettings(proposal_after_s=600))  # fmt: skip
        clock.advance(minutes=16)
        web.api.state.schedules.wake()
        deadline = time.monotonic() + 30
        while not read_heartbeat(web.store, "default").ticks:
            assert time.monotonic() < deadline, "the service's scheduler did not tick the heartbeat"
            time.sleep(0.05)
        assert read_heartbeat(web.store, "default").ticks[0]["outcome"] == "findings"

        sign_in(page, web.url, "ada")
        page.get_by_role("link", name="Schedules").click()
        expect(page.get_by_role("heading", name="Schedules and heartbeats")).to_be_visible()
        row = page.locator("#s-sch-weekend")
        expect(row).to_contain_text("2026-12-07 08:00 CET")  # Monday 8:00 in Warsaw
        expect(row.locator("ul.slots li")).to_have_count(3)
        finding = page.locator("#f-heartbeat-default")
        expect(finding).to_contain_text(f"the plan of run {WAITING} has waited")
        expect(finding).to_contain_text("Worded by: rules")
        shot(page, tmp_path, "40-schedules")

        page.get_by_role("link", name="Inbox").click()
        expect(page.locator("#f-heartbeat-default")).to_contain_text(WAITING)
        shot(page, tmp_path, "41-inbox-findings")

        page.get_by_role("link", name="Schedules").click()
        row = page.locator("#s-sch-weekend")
        row.get_by_label("Why (journaled)").fill("holidays")
        row.get_by_role("button", name="Pause").click()
        expect(page.locator("#s-sch-weekend td.status")).to_have_text("paused")
        expect(page.locator("#s-sch-weekend")).to_contain_text("no slot is coming")
        state = book.load(web.store, "sch-weekend")
        assert state.status == "paused" and state.history[-1] == {**state.history[-1], "by": "human:ada",
                                                                  "reason": "holidays"}  # fmt: skip
        shot(page, tmp_path, "42-schedule-paused")
        page.locator("#s-sch-weekend").get_by_role("button", name="Resume").click()
        expect(page.locator("#s-sch-weekend td.status")).to_have_text("active")

        page.goto(f"{web.url}/schedules?lang=pl")
        expect(page.get_by_role("heading", name="Harmonogramy i puls")).to_be_visible()
        expect(page.locator("#s-sch-weekend td.status")).to_have_text("aktywny")
        shot(page, tmp_path, "43-schedules-pl")


def test_a_viewer_sees_the_schedules_without_the_forms(tmp_path: Path, page: Any) -> None:
    expect = sync_api.expect
    home, clock = build_home(tmp_path)
    with serve_built(home, clock, models="none") as web:
        spec = ScheduleSpec(request="check the inbox", author="human:abe", rule=parse_cron("*/30 * * * *"))
        add_schedule(web.store, spec, clock, schedule_id="sch-inbox")
        sign_in(page, web.url, "vic")
        page.goto(f"{web.url}/schedules")
        expect(page.locator("#s-sch-inbox")).to_contain_text("check the inbox")
        expect(page.get_by_role("button", name="Pause")).to_have_count(0)
        expect(page.locator("section.findings")).to_contain_text("The heartbeat found nothing")
