"""The runs pages over real HTTP (httpx against uvicorn on loopback): the list's decision and approver filters, a
viewer refused the chat, and an effect whose outcome is unknown resolved from the run page's form."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.passwords import Passwords
from alicorn.anvil.people import People
from alicorn.app import open_app
from alicorn.testing.ledger import applied_keys
from tests.service.acting import people_and_tokens, run_status, serving, wait_for
from tests.service.conftest import StepClock, at
from tests.service.test_control import _blind_post_killed
from tests.service.test_runs import clone_run
from tests.service.test_web_signin import browser, heads, hidden, sign_in
from tests.service.webhome import WAITING, WebHome


def test_the_runs_page_filters_by_decision_and_approver(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        page = client.get("/runs", params={"decision": "needs_approval"})
        assert page.status_code == 200
        shown = set(_runs(page.text))
        assert shown == {"corpus-anvil-approved", "corpus-anvil-rejected", WAITING}
        assert '<option value="needs_approval" selected>' in page.text
        by_reviewer = client.get("/runs", params={"approver": "reviewer"})
        assert _runs(by_reviewer.text) == ["corpus-anvil-approved"]
        assert "human:reviewer" in by_reviewer.text and 'value="reviewer"' in by_reviewer.text
        assert _runs(client.get("/runs", params={"approver": "reviewer", "decision": "deny"}).text) == []
        agent = client.get("/runs", params={"approver": "agent:scribe"})
        assert agent.status_code == 422 and "is an agent; people are humans" in agent.text
        unknown = client.get("/runs", params={"decision": "perhaps"})
        assert unknown.status_code == 422 and "allow, needs_approval, deny" in unknown.text


def test_the_page_links_keep_the_new_filters(web: WebHome) -> None:
    for i in range(30):  # more than a page of runs Anvil allowed
        clone_run(web.store, "corpus-stop", f"run-allowed-{i:02d}", at(20, i % 12))
    with browser(web) as client:
        sign_in(client, "vic")
        first = client.get("/runs", params={"decision": "allow"})
        later = first.text.split('rel="next"')[0].rsplit('href="', 1)[1].split('"')[0].replace("&amp;", "&")
        assert "decision=allow" in later and "cursor=" in later
        second = client.get(later)
        assert len(_runs(first.text)) == 25 and _runs(second.text)
        assert set(_runs(first.text)).isdisjoint(_runs(second.text))
        others = {"corpus-anvil-approved", "corpus-anvil-rejected", "corpus-anvil-denied", WAITING}
        assert others.isdisjoint(_runs(second.text))  # still only what Anvil allowed


def test_a_viewer_is_refused_the_chat_and_nothing_is_journaled(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        page = client.get("/chat")
        before = heads(web)
        refused = client.post("/chat", data={"text": "Analyse the alarms", "csrf": hidden(page.text, "csrf")})
        assert refused.status_code == 403 and "needs the role requester" in refused.text
        assert heads(web) == before


PASSWORD = {"abe": "abe-battery-staple", "vic": "vic-viewer-only-1"}


def test_an_unknown_effect_is_resolved_from_the_run_page(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    run = _blind_post_killed(home)  # the effect happened; the journal does not know it
    clock = StepClock()
    tokens = people_and_tokens(home, clock)
    application = open_app(home)
    try:
        passwords = Passwords(People(application.store, home / "keys", clock), clock)
        for name, password in PASSWORD.items():
            passwords.set(name, password, by=parse_principal("human:ada"))
    finally:
        application.close()
    with serving(home, tokens) as served:
        wait_for(lambda: run_status(served, run) == "blocked", "the run to block on the unknown effect")
        with httpx.Client(base_url=served.url, timeout=20.0, follow_redirects=False) as vic:
            sign_in(vic, "vic", PASSWORD["vic"])
            page = vic.get(f"/runs/{run}")
            assert page.status_code == 200 and f'action="/runs/{run}/effects/post/resolve"' in page.text
            assert "<td>sending outside</td>" in page.text and "intended → <strong>unknown</strong>" in page.text
            polish = vic.get(f"/runs/{run}?lang=pl").text  # the ledger in the page's language
            assert "<td>wysyłanie na zewnątrz</td>" in polish and "zamierzony → <strong>nieznany</strong>" in polish
            page = vic.get(f"/runs/{run}?lang=en")
            before = served.heads()
            form = {"outcome": "not-applied", "csrf": hidden(page.text, "csrf")}
            refused = vic.post(f"/runs/{run}/effects/post/resolve", data=form)
            assert refused.status_code == 403 and "is a viewer" in refused.text and "approver" in refused.text
            assert served.heads() == before
        with httpx.Client(base_url=served.url, timeout=20.0, follow_redirects=False) as abe:
            sign_in(abe, "abe", PASSWORD["abe"])
            csrf = hidden(abe.get(f"/runs/{run}").text, "csrf")
            output = {"entry": 1, "account": "acme", "amount": 5}
            cases = [
                ("post", {"outcome": "applied", "output": json.dumps(output)}, 403, "security token"),  # no CSRF
                ("post", {"csrf": csrf}, 422, "applied or not applied"),
                ("post", {"csrf": csrf, "outcome": "applied", "output": "{nope"}, 422, "is not JSON"),
                ("post", {"csrf": csrf, "outcome": "applied", "output": "[1]"}, 422, "JSON object"),
                ("post", {"csrf": csrf, "outcome": "applied", "output": '{"entry": "one"}'}, 422, "outputs"),
                ("nowhere", {"csrf": csrf, "outcome": "not-applied"}, 404, "has no node &#39;nowhere&#39;"),
            ]
            for node, data, status, said in cases:
                response = abe.post(f"/runs/{run}/effects/{node}/resolve", data=data)
                assert response.status_code == status and said in response.text, (data, response.text[:300])
                assert served.heads() == before
            form = {"csrf": csrf, "outcome": "applied", "output": json.dumps(output), "note": "seen in the ledger"}
            done = abe.post(f"/runs/{run}/effects/post/resolve", data=form)
            assert done.status_code == 303 and done.headers["location"] == f"/runs/{run}"
            wait_for(lambda: run_status(served, run) == "succeeded", "the resolved run")
            resolved = next(e.data for e in served.store.read(run) if e.kind == "effect.resolved")
            assert (resolved["by"], resolved["applied"], resolved["output"]) == ("human:abe", True, output)
            assert resolved["note"] == "seen in the ledger"
            shown = abe.get(f"/runs/{run}").text
            assert "resolved by human:abe: applied (seen in the ledger)" in shown
            assert 'effects/post/resolve"' not in shown  # nothing waits any more: no form
            again = abe.post(f"/runs/{run}/effects/post/resolve", data={"csrf": csrf, "outcome": "not-applied"})
            assert again.status_code == 409 and "no effect waiting" in again.text
    assert len(applied_keys(home / "ledger.db")) == 1  # never posted twice


def _runs(html: str) -> list[str]:
    """The runs a list page shows, in order."""
    return [cell.split('"', 1)[0] for cell in html.split('<td><a href="/runs/')[1:]]


def test_a_form_past_its_limit_is_a_refusal_page_not_json(web: WebHome) -> None:
    # a rejection reason of 10,000 characters showed the raw problem JSON to the person
    with browser(web) as client:
        sign_in(client, "abe")
        inbox = client.get("/inbox")
        assert 'maxlength="4000"' in inbox.text  # the page says its limit too
        before = heads(web)
        csrf = hidden(inbox.text, "csrf")
        refused = client.post(f"/inbox/{WAITING}/reject", data={"reason": "x" * 10_000, "csrf": csrf})
        assert refused.status_code == 422 and refused.headers["content-type"].startswith("text/html")
        assert "“reason” is longer than 4000 characters" in refused.text and '"type":' not in refused.text
        assert heads(web) == before
