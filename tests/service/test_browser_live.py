"""A run page's live event list in a real browser (Debian's headless Chromium through Playwright): while another
connection appends to the run's journal, the page's EventSource is dropped and reopened again and again, and at the
end the list holds every seq of the run exactly once, in order. The htmx part of the page refreshes around the list
all along (hx-preserve keeps it), so this also pins that the two live mechanisms do not undo each other."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alicorn.journal.events import Draft
from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WAITING, WebHome

APPENDED = 240
DROPS = 25


@pytest.fixture
def page() -> Iterator[Any]:
    with one_page() as found:
        yield found


def _shown(page: Any) -> list[int]:
    return [int(s) for s in page.eval_on_selector_all("#live-events li", "items => items.map(i => i.dataset.seq)")]


def test_the_run_page_loses_and_repeats_no_event_over_many_dropped_connections(
    web: WebHome, page: Any, tmp_path: Path
) -> None:
    sign_in(page, web.url, "vic")
    page.goto(f"{web.url}/runs/{WAITING}")  # waits for an approval: live, so the page streams it
    expect = sync_api.expect
    expect(page.locator("#live-events [data-role=state]")).to_have_text("connected")
    first = web.store.require(WAITING).seq
    expect(page.locator("#live-events li")).to_have_count(first)
    shot(page, tmp_path, "30-live-events")
    page.evaluate("window.swaps = 0; document.body.addEventListener('htmx:afterSwap', () => { window.swaps += 1; })")

    done = threading.Event()
    failures: list[BaseException] = []

    def writer() -> None:  # another connection appends while the page keeps dropping and resuming
        try:
            for i in range(APPENDED // 4):
                head = web.store.require(WAITING).seq
                drafts = [Draft("run.progress", web.clock.now(), {"i": 4 * i + k}) for k in range(4)]
                web.store.append(WAITING, drafts, expect=head)
                time.sleep(0.04)
        except BaseException as exc:  # said by the test, not lost in a thread
            failures.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    rng = random.Random(15)
    drops = 0
    try:
        while not done.is_set() or drops < DROPS or page.evaluate("window.swaps") < 2:
            page.wait_for_timeout(rng.randint(60, 250))
            page.evaluate("window.alicornLive.drop()")
            drops += 1
    finally:
        thread.join()
    assert not failures, failures
    final = web.store.require(WAITING).seq
    assert final == first + APPENDED
    page.wait_for_function(f"window.alicornLive.last === {final}", timeout=30_000)
    page.wait_for_timeout(300)  # a repeat that was still on its way would arrive now
    shown = _shown(page)
    live = page.evaluate("({opened: alicornLive.opened, duplicates: alicornLive.duplicates})")
    assert shown == list(range(1, final + 1))  # every seq, once, in order: none lost, none repeated
    assert live["duplicates"] == 0  # and the server resumed exactly: it sent none twice
    assert live["opened"] >= DROPS + 1
    assert page.evaluate("window.swaps") >= 2  # htmx swapped the live part around the list, which it kept
    shot(page, tmp_path, "31-live-events-after-drops")


def test_the_stream_is_for_signed_in_people_and_a_settled_run_has_no_live_list(
    web: WebHome, page: Any, tmp_path: Path
) -> None:
    answer = page.request.get(f"{web.url}/runs/{WAITING}/stream")
    assert answer.status == 401 and "sign in again" in answer.text()
    sign_in(page, web.url, "vic")
    page.goto(f"{web.url}/runs/corpus-fan-out")  # finished: the journal below is complete, nothing to follow
    sync_api.expect(page.locator("#live-events")).to_have_count(0)
    assert page.evaluate("window.alicornLive === undefined")
