"""What the browser tests share: Debian's headless Chromium (/usr/bin/chromium, never a downloaded one) driven by
Playwright, a page in the test's language and size, screenshots kept as artifacts, and signing in as a person of
tests.service.webhome. A module that imports this is skipped where Chromium or Playwright is missing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.service.webhome import PASSWORDS

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path("/tmp/ui-shots")  # every test's screenshots, to look at after a run

if not CHROMIUM.exists():
    pytest.skip("/usr/bin/chromium is absent: `apt-get install -y chromium` (.ci/run does)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[dev]'")


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium, closed when the block ends."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any) -> tuple[Any, Any]:
    """A fresh context (its own cookies) and a page in it: 1280x900, English (UK), 30 s to wait for anything."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.set_default_timeout(30_000)
    return context, context.new_page()


@contextmanager
def one_page() -> Iterator[Any]:
    """A page of its own Chromium, both closed when the block ends."""
    with chromium() as browser:
        context, page = new_page(browser)
        try:
            yield page
        finally:
            context.close()


def shot(page: Any, tmp_path: Path, name: str) -> None:
    """Save the whole page as `name`.png under the test's tmp dir and SHOTS."""
    path = tmp_path / "shots" / f"{name}.png"
    path.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    SHOTS.mkdir(exist_ok=True)
    shutil.copy(path, SHOTS / path.name)


def sign_in(page: Any, url: str, name: str) -> None:
    """Sign in as `name` (a person of tests.service.webhome) the way a person does: a signed-out page sends them to
    the sign-in form, which brings them back."""
    page.goto(f"{url}/runs")
    page.wait_for_url("**/signin?next=*")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(PASSWORDS[name])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{url}/runs")
