"""The web UI in a real browser: Debian's headless Chromium (/usr/bin/chromium, never a downloaded one) driven by
Playwright against the service on a loopback port. A person signs in, lists the runs, opens one, approves a waiting
run in the inbox, asks Core in the chat (recorded model answers) and sees the report, then signs out; a form posted
without its CSRF token is refused. Each page is saved as a screenshot under the test's tmp dir and /tmp/ui-shots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alicorn.demo import UTTERANCE
from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WAITING, WebHome

ALARMS = Path(__file__).resolve().parents[2] / "src" / "alicorn" / "packs" / "alarms" / "alarms.csv"


@pytest.fixture
def page() -> Iterator[Any]:
    with one_page() as found:
        yield found


def test_a_person_signs_in_watches_runs_approves_asks_and_signs_out(web: WebHome, page: Any, tmp_path: Path) -> None:
    expect = sync_api.expect
    page.goto(f"{web.url}/signin")
    shot(page, tmp_path, "01-signin")
    page.get_by_label("Name").fill("abe")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("the name or the password is not right")
    shot(page, tmp_path, "02-signin-wrong")

    sign_in(page, web.url, "abe")
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()
    expect(page.get_by_role("link", name="corpus-fan-out")).to_be_visible()
    shot(page, tmp_path, "03-runs")
    page.get_by_label("Status").select_option("awaiting_approval")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("link", name=WAITING)).to_be_visible()
    expect(page.get_by_role("link", name="corpus-fan-out")).to_have_count(0)

    page.goto(f"{web.url}/runs/corpus-fan-out")
    nodes = len(web.store.read("corpus-fan-out")[0].data["plan"]["nodes"])
    expect(page.locator("svg.dag g.node")).to_have_count(nodes)
    expect(page.locator("svg.dag g.state-succeeded")).to_have_count(nodes)
    expect(page.get_by_role("heading", name="Journal")).to_be_visible()
    shot(page, tmp_path, "04-run")
    page.get_by_label("Kind").select_option("node.succeeded")
    page.get_by_role("button", name="Show").last.click()
    expect(page.locator("ol.timeline li")).to_have_count(nodes)  # one node.succeeded per node

    page.get_by_role("link", name="Inbox").click()
    card = page.locator(f"#p-{WAITING}")
    expect(card).to_contain_text("local_write")
    shot(page, tmp_path, "05-inbox")
    card.get_by_label("Comment (journaled)").fill("a note is fine")
    card.get_by_role("button", name="Approve").click()
    page.wait_for_url(f"{web.url}/runs/{WAITING}")
    expect(page.locator("#run-status")).to_have_text("succeeded", timeout=30_000)  # htmx refreshes the live part
    shot(page, tmp_path, "06-run-approved")
    assert any(e.kind == "approval.granted" and e.data["by"] == "human:abe" for e in web.store.read(WAITING))

    page.get_by_role("link", name="Chat").click()
    page.get_by_label("Your request").fill(UTTERANCE)
    shot(page, tmp_path, "07-chat")
    page.get_by_role("button", name="Send").click()
    page.wait_for_url("**/chat/conv-*")
    answer = page.get_by_label("Your answer")
    expect(answer).to_be_visible(timeout=60_000)  # Core asks for the alarm log
    expect(page.locator("#phase")).to_have_text("asking")
    shot(page, tmp_path, "08-question")
    answer.fill(f"the log is in {ALARMS}")
    page.get_by_role("button", name="Send").click()
    report = page.locator("#report")
    expect(report).to_contain_text("events need a human", timeout=90_000)
    expect(report).to_contain_text("complete")
    expect(page.locator("svg.dag g.state-succeeded").first).to_be_visible()
    shot(page, tmp_path, "09-report")

    page.goto(f"{web.url}/runs?lang=pl")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.get_by_role("heading", name="Przebiegi")).to_be_visible()
    shot(page, tmp_path, "10-runs-pl")
    page.get_by_role("button", name="Wyloguj się").click()
    page.wait_for_url("**/signin")
    page.goto(f"{web.url}/inbox")
    page.wait_for_url("**/signin?next=*")


def test_a_form_posted_without_its_csrf_token_is_refused_in_the_browser(
    web: WebHome, page: Any, tmp_path: Path
) -> None:
    sign_in(page, web.url, "abe")
    page.goto(f"{web.url}/inbox")
    before = len(web.store.read(WAITING))
    page.evaluate("document.querySelectorAll('input[name=csrf]').forEach(i => i.remove())")
    page.locator(f"#p-{WAITING}").get_by_role("button", name="Approve").click()
    sync_api.expect(page.get_by_role("alert")).to_contain_text("security token (CSRF)")
    shot(page, tmp_path, "11-csrf-refused")
    assert len(web.store.read(WAITING)) == before
    assert page.evaluate("document.documentElement.lang") == "en"
