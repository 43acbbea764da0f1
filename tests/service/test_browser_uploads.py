"""The data Core asks for, uploaded through the chat page in a real browser (Debian's headless Chromium through
Playwright): the question is worded for the browser (its upload field, never a command), the file chosen in the
page answers it, and the report counts the file's rows. Screenshots 50-… in /tmp/ui-shots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.core.conversation import fold
from tests.core.test_user_data import ALARMS, alarm_log
from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WebHome, serve_home


@pytest.fixture
def home(tmp_path: Path) -> Iterator[WebHome]:
    yield from serve_home(tmp_path, models="none", samples=True)  # "cameras" declares no data: Core asks


def test_a_file_uploaded_in_the_page_answers_cores_question(home: WebHome, tmp_path: Path) -> None:
    expect = sync_api.expect
    log = alarm_log(tmp_path / "my-cams.csv", ["2026-11-28", "2026-11-29", "2026-11-30"])
    with one_page() as page:
        sign_in(page, home.url, "ada")
        page.goto(f"{home.url}/chat")
        page.get_by_label("Your request").fill(ALARMS)
        page.get_by_label("Project").fill("cameras")
        page.get_by_role("button", name="Send").click()
        page.wait_for_url("**/chat/conv-*")
        conversation = page.url.rsplit("/", 1)[-1]
        expect(page.locator("#phase")).to_have_text("asking", timeout=60_000)
        question = page.locator("section.card").filter(has=page.get_by_role("heading", name="Question")).last
        expect(question).to_contain_text("upload field below this question")
        assert "alicorn ask" not in question.inner_text() and "--attach" not in question.inner_text()
        shot(page, tmp_path, "50-upload-question")
        page.get_by_label("File with the data").set_input_files(str(log))
        page.get_by_role("button", name="Upload and go on").click()
        page.wait_for_url(f"{home.url}/chat/{conversation}")
        report = page.locator("#report")
        expect(report).to_be_visible(timeout=90_000)
        expect(page.locator("#phase")).to_have_text("reported")
        expect(report).to_contain_text("of 6 alarms")  # yesterday's rows of the uploaded file, not the samples
        expect(page.get_by_text("Files sent")).to_be_visible()  # the answer shows the file, not a raw record
        shot(page, tmp_path, "51-upload-report")
    done = fold(home.store.read(conversation))
    assert done.report is not None and done.report["outcome"] == "complete", done.report
    assert done.answers[-1]["attachments"] and done.answers[-1]["by"] == "human:ada"
