"""Passkeys in a real browser: Debian's Chromium with its virtual authenticator (CDP `WebAuthn`, ctap2, internal,
resident key, user verification). An admin requires passkeys for approvals; an approver registers one on the
Passkeys page, is refused an approval posted without an assertion, approves the waiting run with the passkey and
sees it run; the captured form, posted again (to the same run and to another waiting one), is refused with nothing
journaled. WebAuthn needs a secure context, so the pages are opened on http://localhost (rp id `localhost`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from alicorn.runtime.state import fold
from alicorn.service.passkeys import PASSKEYS_STREAM, audit
from alicorn.service.web_passkeys import passkeys_of
from tests.service.browser import chromium, new_page, shot, sign_in, sync_api
from tests.service.webhome import WAITING, WebHome, waiting_run

OTHER = "run-web-waiting-2"


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium() as found:
        yield found


def _page(browser: Any) -> tuple[Any, Any]:
    """A fresh context and page, with Chromium's virtual authenticator attached through CDP."""
    context, page = new_page(browser)
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True,
    }  # fmt: skip
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
    return context, page


def _another_waiting_run(web: WebHome) -> None:
    """A second run of the same kind of plan waiting for approval, started by the service's own app."""
    work = Path(fold(web.store.read(WAITING), WAITING).data_root)
    waiting_run(web.api.state.service.app, work, OTHER, note="note2.txt")


def test_an_approval_signed_with_a_passkey_runs_and_its_replay_is_refused(
    web: WebHome, browser: Any, tmp_path: Path
) -> None:
    expect = sync_api.expect
    url = web.url.replace("127.0.0.1", "localhost")
    _another_waiting_run(web)

    context, page = _page(browser)
    sign_in(page, url, "ada")
    page.get_by_role("link", name="Passkeys").click()
    expect(page.locator("#passkey-rule")).to_have_text("Approving does not need a passkey.")
    page.get_by_role("button", name="Require a passkey to approve").click()
    expect(page.locator("#passkey-rule")).to_contain_text("Approving needs a passkey. (human:ada)")
    shot(page, tmp_path, "20-passkeys-admin-requires")
    context.close()

    context, page = _page(browser)
    sign_in(page, url, "abe")
    page.goto(f"{url}/passkeys")
    expect(page.locator("#no-passkeys")).to_be_visible()
    page.get_by_label("Name of the new passkey").fill("test laptop")
    page.get_by_role("button", name="Register a passkey").click()
    expect(page.locator("#passkeys tbody tr")).to_have_count(1)
    expect(page.locator("#passkeys")).to_contain_text("test laptop")
    shot(page, tmp_path, "21-passkey-registered")
    mine = passkeys_of(web.api.state.service).current().of("human:abe")
    assert len(mine) == 1 and mine[0].rp_id == "localhost" and mine[0].origin == url

    page.goto(f"{url}/inbox")
    card = page.locator(f"#p-{WAITING}")
    csrf = card.locator("input[name=csrf]").first.get_attribute("value")
    plan_hash = fold(web.store.read(WAITING), WAITING).plan_hash
    before = len(web.store.read(WAITING))
    bare = page.request.post(
        f"{url}/inbox/{WAITING}/approve", form={"csrf": csrf, "plan_hash": plan_hash, "comment": ""}, max_redirects=0
    )
    assert bare.status == 403 and "needs a passkey" in bare.text()
    assert len(web.store.read(WAITING)) == before  # refused: nothing journaled
    page.set_content(bare.text())
    shot(page, tmp_path, "22-approval-without-passkey-refused")

    page.goto(f"{url}/inbox")
    card = page.locator(f"#p-{WAITING}")
    shot(page, tmp_path, "23-inbox-with-passkey")
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.post_data or "") if r.url.endswith(f"/{WAITING}/approve") else None)
    card.get_by_label("Comment (journaled)").fill("signed with my passkey")
    card.get_by_role("button", name="Approve").click()
    page.wait_for_url(f"{url}/runs/{WAITING}")
    expect(page.locator("#run-status")).to_have_text("succeeded", timeout=30_000)
    shot(page, tmp_path, "24-run-approved-with-passkey")
    granted = [e.data for e in web.store.read(WAITING) if e.kind == "approval.granted"]
    assert len(granted) == 1 and granted[0]["comment"] == "signed with my passkey"
    proof = granted[0]["passkey"]
    assert proof["credential_id"] == mine[0].id and proof["message"]["plan_hash"] == plan_hash
    found = passkeys_of(web.api.state.service).current()
    assert audit(proof, found, granted[0], fold(web.store.read(WAITING), WAITING)) is None
    assert found.credentials[mine[0].id].sign_count == proof["sign_count"] >= 1

    form = {k: v[0] for k, v in parse_qs(posted[0], keep_blank_values=True).items()}
    assert form["passkey"] and form["comment"] == "signed with my passkey"
    used = len(web.store.read(PASSKEYS_STREAM))
    again = page.request.post(f"{url}/inbox/{WAITING}/approve", form=form, max_redirects=0)
    assert again.status == 409
    other_before = len(web.store.read(OTHER))
    elsewhere = {**form, "plan_hash": fold(web.store.read(OTHER), OTHER).plan_hash}
    moved = page.request.post(f"{url}/inbox/{OTHER}/approve", form=elsewhere, max_redirects=0)
    assert moved.status == 409 and "already used" in moved.text()
    assert len(web.store.read(OTHER)) == other_before and len(web.store.read(PASSKEYS_STREAM)) == used
    assert fold(web.store.read(OTHER), OTHER).status == "awaiting_approval"
    page.set_content(moved.text())
    shot(page, tmp_path, "25-replayed-passkey-refused")
    context.close()
