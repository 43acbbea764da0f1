"""A queued conversation in a real browser (`alicorn serve --queue`): the page says a worker drives the run and
where its job stands, refreshes by itself, and shows the report once a worker (another app on the same home) has
finished the run. Screenshots under the test's tmp dir and /tmp/ui-shots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.core.support import SEED_ALARMS
from tests.service.acting import work_elsewhere
from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WebHome, serve_home


@pytest.fixture
def queued_web(tmp_path: Path) -> Iterator[WebHome]:
    yield from serve_home(tmp_path, models="none", samples=True, queue=True)


@pytest.fixture
def page() -> Iterator[Any]:
    with one_page() as found:
        yield found


def test_a_queued_run_is_shown_waiting_for_a_worker_then_its_report(
    queued_web: WebHome, page: Any, tmp_path: Path
) -> None:
    expect = sync_api.expect
    sign_in(page, queued_web.url, "abe")
    page.goto(f"{queued_web.url}/chat")
    page.get_by_label("Your request").fill(SEED_ALARMS)
    page.get_by_role("button", name="Send").click()
    page.wait_for_url("**/chat/conv-*")
    job = page.locator("#job")
    expect(job).to_contain_text("A worker drives this run", timeout=60_000)
    expect(job).to_contain_text("ready: the next free worker takes it")
    expect(page.locator("#phase")).to_have_text("running")
    shot(page, tmp_path, "q1-queued")
    conversation = page.url.rsplit("/", 1)[-1]
    run = f"run-{conversation.removeprefix('conv-')}-1"
    assert "tool.call" not in [e.kind for e in queued_web.store.read(run)]  # the service called nothing

    assert work_elsewhere(queued_web.home) == 1  # a worker's process on the same home

    report = page.locator("#report")  # nobody reloads: the page refreshes, the service follows the worker's run
    expect(report).to_contain_text("events need a human", timeout=60_000)
    expect(page.locator("#job")).to_have_count(0)
    shot(page, tmp_path, "q2-reported")
