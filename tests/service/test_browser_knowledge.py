"""The memory and agents pages in a real browser: Debian's headless Chromium (/usr/bin/chromium, never a downloaded
one) driven by Playwright against the service on a loopback port. A person states a fact in a chat, finds it in
memory with its score and provenance, asks about it in another chat and gets an answer citing it, opens the
record (its history and entity graph), forgets it with the confirm form, and looks at an agent's rights and
reputation over time. Screenshots 12-… onward go under the test's tmp dir and /tmp/ui-shots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WebHome

FACT = "Our night shift supervisor is Piotr Nowak."


@pytest.fixture
def page() -> Iterator[Any]:
    with one_page() as found:
        yield found


def _chat(page: Any, web: WebHome, text: str) -> None:
    page.get_by_role("link", name="Chat").click()
    page.get_by_label("Your request").fill(text)
    page.get_by_role("button", name="Send").click()
    page.wait_for_url("**/chat/conv-*")
    sync_api.expect(page.locator("#phase")).to_have_text("reported", timeout=90_000)


def test_a_fact_said_in_a_chat_is_found_cited_shown_and_forgotten(web: WebHome, page: Any, tmp_path: Path) -> None:
    expect = sync_api.expect
    sign_in(page, web.url, "ada")
    _chat(page, web, FACT)

    page.get_by_role("link", name="Memory").click()
    page.get_by_label("Search for").fill("who supervises the night shift")
    page.get_by_role("button", name="Search").click()
    hit = page.locator("tr.hit", has_text=FACT)
    expect(hit).to_have_count(1)
    expect(hit).to_contain_text("said by human:ada in a chat")
    expect(hit).to_contain_text("human")
    shot(page, tmp_path, "12-memory-search")
    record = hit.locator("code").first.inner_text()

    _chat(page, web, "Who is our night shift supervisor?")
    expect(page.locator("main")).to_contain_text(f"[{record}]")
    shot(page, tmp_path, "13-chat-answer-from-memory")

    page.goto(f"{web.url}/memory/records/{record}")
    expect(page.locator("svg.mgraph g.node")).to_have_count(2)  # the fact and "Piotr Nowak"
    expect(page.locator("table.history")).to_contain_text("added")
    shot(page, tmp_path, "14-memory-record")
    page.get_by_label("Why it is no longer true (kept in the history)").fill("Piotr moved to the day shift")
    page.get_by_role("button", name="Forget").click()
    expect(page.locator("#validity")).to_contain_text("no longer valid from")
    expect(page.locator("table.history")).to_contain_text("invalidated")
    shot(page, tmp_path, "15-memory-forgotten")

    page.locator("svg.mgraph g.kind-entity").click()  # the graph's node links to the entity's record
    expect(page.locator("p.utterance")).to_have_text("Piotr Nowak")
    page.goto(f"{web.url}/memory/graph?node=Piotr%20Nowak")
    expect(page.locator("svg.mgraph")).to_be_visible()
    shot(page, tmp_path, "16-memory-graph")

    page.get_by_role("link", name="Agents").click()
    page.get_by_role("link", name="agent:scribe").click()
    expect(page.locator("svg.chart g.point")).to_have_count(len(web.store.read("agent:scribe")))
    expect(page.locator("table.changes")).to_contain_text("revoked")
    shot(page, tmp_path, "17-agent")

    page.goto(f"{web.url}/memory?lang=pl&q=kierownik%20nocnej%20zmiany")
    expect(page.get_by_role("heading", name="Pamięć projektu")).to_be_visible()
    shot(page, tmp_path, "18-memory-pl")
