"""Sign-in state that must outlive `alicorn serve`: a signed-out cookie stays refused, and wrong passwords stay
counted (the lockout holds), when the same home is served again by a new app instance."""

from __future__ import annotations

from pathlib import Path

from alicorn.service.sessions import COOKIE
from alicorn.service.signin_state import FAILURES_FILE, SESSIONS_STREAM, sid_digest
from tests.service.test_web_signin import browser, hidden, sign_in
from tests.service.webhome import build_home, serve_built


def test_a_signed_out_cookie_stays_refused_after_a_restart(tmp_path: Path) -> None:
    home, clock = build_home(tmp_path)
    with serve_built(home, clock) as first, browser(first) as client:
        sign_in(client, "ada")
        copied = client.cookies[COOKIE]
        with browser(first) as another:
            kept = sign_in(another, "abe").cookies[COOKIE]  # another session, never signed out
        csrf = hidden(client.get("/runs").text, "csrf")
        assert client.post("/signout", data={"csrf": csrf}).status_code == 303
        ended = first.store.read(SESSIONS_STREAM)
        # the journal holds the session id's digest, never the id itself
        session = first.api.state.pages.sessions.read(kept)
        assert [e.kind for e in ended] == ["session.ended"] and ended[0].data["person"] == "human:ada"
        assert session is not None and ended[0].data["sid_sha256"] != sid_digest(session[0].sid)
    with serve_built(home, clock) as second:
        with browser(second) as other:
            other.cookies.set(COOKIE, copied)
            assert other.get("/runs").status_code == 303  # sent to sign in: the session ended for good
        with browser(second) as still:
            still.cookies.set(COOKIE, kept)
            assert still.get("/runs").status_code == 200  # a session nobody ended goes on


def test_wrong_passwords_stay_counted_and_the_lock_holds_after_a_restart(tmp_path: Path) -> None:
    home, clock = build_home(tmp_path)
    with serve_built(home, clock) as first, browser(first) as client:
        for _ in range(3):
            assert sign_in(client, "abe", "not-the-password").status_code == 401
    assert (home / FAILURES_FILE).is_file()
    with serve_built(home, clock) as second, browser(second) as client:
        for _ in range(2):  # 3 before the restart + 2 now = 5 in a row: the name locks
            assert sign_in(client, "abe", "not-the-password").status_code == 401
        assert "too many wrong passwords" in sign_in(client, "abe").text
    with serve_built(home, clock) as third, browser(third) as client:
        assert "too many wrong passwords" in sign_in(client, "abe").text  # a restart does not lift the lock
        clock.advance(seconds=61)  # the lock is on the injected clock, so it ends when its time has passed
        assert sign_in(client, "abe").status_code == 303
