"""Sign-in, sessions, CSRF and the pages over real HTTP (httpx against uvicorn on loopback): who may see what, and a
refused form changes nothing in the journal."""

from __future__ import annotations

import html
import re
import stat
from pathlib import Path

import httpx
import pytest

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.passwords import PASSWORDS_STREAM, PasswordError, Passwords
from alicorn.anvil.people import People
from alicorn.app import open_app
from alicorn.service.sessions import COOKIE, KEY_FILE
from tests.service.conftest import StepClock
from tests.service.webhome import PASSWORDS, WAITING, WebHome


def browser(web: WebHome) -> httpx.Client:
    return httpx.Client(base_url=web.url, timeout=20.0, follow_redirects=False)


def hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found, f"no hidden field {name}"
    return found.group(1)


def sign_in(client: httpx.Client, name: str, password: str | None = None) -> httpx.Response:
    page = client.get("/signin")
    token = hidden(page.text, "signin_token")
    form = {"name": name, "password": password or PASSWORDS[name], "signin_token": token, "back": "/runs"}
    return client.post("/signin", data=form)


def heads(web: WebHome) -> dict[str, int]:
    return {name: head.seq for name, head in web.store.heads().items()}


def test_a_page_without_a_session_sends_the_browser_to_sign_in_and_back(web: WebHome) -> None:
    with browser(web) as client:
        answer = client.get("/runs?status=failed")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/signin?next=%2Fruns%3Fstatus%3Dfailed"


def test_signing_in_sets_a_signed_http_only_lax_cookie_and_shows_the_runs(web: WebHome) -> None:
    with browser(web) as client:
        answer = sign_in(client, "ada")
        assert answer.status_code == 303 and answer.headers["location"] == "/runs"
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert "Secure" not in cookie  # loopback: plain http is the local default
        runs = client.get("/runs")
        assert runs.status_code == 200 and "corpus-anvil-approved" in runs.text and 'lang="en"' in runs.text
        assert "human:ada" in runs.text


def test_a_wrong_password_says_one_sentence_and_repeated_ones_lock_the_name(web: WebHome) -> None:
    before = heads(web)
    with browser(web) as client:
        for _ in range(5):
            wrong = sign_in(client, "abe", "not-the-password")
            assert wrong.status_code == 401 and "the name or the password is not right" in wrong.text
            assert COOKIE not in wrong.headers.get("set-cookie", "")
        locked = sign_in(client, "abe")  # the right password, but the name is locked now
        assert locked.status_code == 401 and "too many wrong passwords" in locked.text
        assert sign_in(client, "nobody", "whatever-it-is").status_code == 401  # unknown: the same sentence
        web.clock.advance(seconds=0)
    assert heads(web) == before  # failures are counted in the home's sign-in file, never journaled


def test_the_lockout_ends_after_its_time(web: WebHome) -> None:
    sessions = web.api.state.pages.sessions
    sessions.lockout_s = 0.0  # locked until "now": the next try is checked again
    with browser(web) as client:
        for _ in range(5):
            sign_in(client, "abe", "not-the-password")
        assert sign_in(client, "abe").status_code == 303


def test_a_form_without_the_csrf_token_is_refused_and_changes_nothing(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "abe")
        before = heads(web)
        page = client.get("/inbox")
        plan_hash = hidden(page.text, "plan_hash")
        for csrf in (None, "forged"):
            form = {"plan_hash": plan_hash, "comment": "ok"} | ({"csrf": csrf} if csrf else {})
            refused = client.post(f"/inbox/{WAITING}/approve", data=form)
            assert refused.status_code == 403 and "security token (CSRF)" in refused.text
            assert "<html" in refused.text  # a page, not a traceback
        assert client.post("/chat", data={"text": "hello"}).status_code == 403
        assert client.post("/signout", data={}).status_code == 403
        assert heads(web) == before


def test_the_sign_in_form_needs_its_own_token(web: WebHome) -> None:
    with browser(web) as client:
        answer = client.post("/signin", data={"name": "ada", "password": PASSWORDS["ada"]})
        assert answer.status_code == 403 and COOKIE not in answer.headers.get("set-cookie", "")


def test_a_viewer_may_look_but_not_approve(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        page = client.get("/inbox")
        assert page.status_code == 200 and WAITING in page.text
        before = heads(web)
        form = {"plan_hash": hidden(page.text, "plan_hash"), "csrf": hidden(page.text, "csrf")}
        refused = client.post(f"/inbox/{WAITING}/approve", data=form)
        assert refused.status_code == 403 and "viewer" in refused.text
        assert heads(web) == before


def test_signing_out_ends_the_session_even_for_a_copy_of_the_cookie(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "ada")
        copied = client.cookies[COOKIE]
        csrf = hidden(client.get("/runs").text, "csrf")
        assert client.post("/signout", data={"csrf": csrf}).status_code == 303
    with browser(web) as other:
        other.cookies.set(COOKIE, copied)
        assert other.get("/runs").status_code == 303


def test_an_altered_or_expired_cookie_is_no_session(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "ada")
        good = client.cookies[COOKIE]
    body, mac = good.split(".")
    with browser(web) as other:
        other.cookies.set(COOKIE, body + "." + mac[::-1])
        assert other.get("/runs").status_code == 303
        other.cookies.set(COOKIE, good)
        assert other.get("/runs").status_code == 200
        web.clock.advance(hours=13)
        assert other.get("/runs").status_code == 303


def test_the_session_key_is_private_to_its_owner(web: WebHome) -> None:
    mode = stat.S_IMODE((web.home / KEY_FILE).stat().st_mode)
    assert mode == 0o600


def test_an_approval_in_the_inbox_is_bound_to_the_plan_hash_and_runs_in_a_worker(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "abe")
        page = client.get("/inbox")
        csrf = hidden(page.text, "csrf")
        stale = client.post(f"/inbox/{WAITING}/approve", data={"plan_hash": "0" * 64, "csrf": csrf})
        assert stale.status_code == 403 and "plan" in stale.text
        assert web.store.read(WAITING)[-1].kind == "run.awaiting_approval"
        form = {"plan_hash": hidden(page.text, "plan_hash"), "csrf": csrf, "comment": "looks right"}
        answer = client.post(f"/inbox/{WAITING}/approve", data=form)
        assert answer.status_code == 303 and answer.headers["location"] == f"/runs/{WAITING}"
        for _ in range(500):
            if web.store.read(WAITING)[-1].kind == "run.finished":
                break
            web.clock.sleep(0.01)
        kinds = [e.kind for e in web.store.read(WAITING)]
        assert "approval.granted" in kinds and kinds[-1] == "run.finished"
        granted = next(e for e in web.store.read(WAITING) if e.kind == "approval.granted")
        assert granted.data["by"] == "human:abe" and granted.data.get("comment") == "looks right"
        run = client.get(f"/runs/{WAITING}")
        assert "succeeded" in run.text and "workspace.write_file" in run.text
        assert WAITING not in client.get("/inbox").text


def test_pages_speak_the_persons_language(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "ada")
        polish = client.get("/runs?lang=pl")
        assert 'lang="pl"' in polish.text and "Przebiegi" in polish.text
        inbox = html.unescape(client.get("/inbox").text)
        assert 'lang="pl"' in inbox  # remembered in a cookie
        # why the run waits, in the page's language (the journal keeps the English sentence)
        assert "Wymaga zatwierdzenia przez człowieka" in inbox and "Needs a human approval" not in inbox
        assert "Needs a human approval" in html.unescape(client.get("/inbox?lang=en").text)
        client.cookies.delete("alicorn_lang")
        russian = client.get("/runs", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"})
        assert 'lang="ru"' in russian.text and "Запуски" in russian.text


def test_an_unknown_run_is_a_page_saying_so(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        missing = client.get("/runs/run-nope")
        assert missing.status_code == 404 and "<html" in missing.text
        assert "there is no run 'run-nope'" in html.unescape(missing.text)


def test_only_the_person_or_an_admin_sets_a_password_and_only_its_hash_is_journaled(tmp_path: Path) -> None:
    application = open_app(tmp_path / "home")
    clock = StepClock()
    people = People(application.store, tmp_path / "home" / "keys", clock)
    ada = parse_principal("human:ada")
    people.bootstrap(ada)
    people.add("abe", "approver", by=ada)
    passwords = Passwords(people, clock)
    passwords.set("abe", "abe-own-password", by=parse_principal("human:abe"))
    assert passwords.verify("human:abe", "abe-own-password")
    assert not passwords.verify("human:abe", "abe-own-passwore")
    assert not passwords.verify("human:nobody", "abe-own-password")
    line = application.store.read(PASSWORDS_STREAM)[-1].line
    assert "abe-own-password" not in line and "$argon2id$" in line
    with pytest.raises(PasswordError, match="only human:ada or an admin"):
        passwords.set("ada", "taking-over-ada", by=parse_principal("human:abe"))
    with pytest.raises(PasswordError, match="at least 10"):
        passwords.set("abe", "short", by=ada)
    with pytest.raises(PasswordError, match="not one of this home's people"):
        passwords.set("zed", "a-long-password", by=ada)
    assert len(application.store.read(PASSWORDS_STREAM)) == 1
    application.close()
