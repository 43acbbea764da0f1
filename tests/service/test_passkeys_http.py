"""Approving over the API with a passkey, over real HTTP: when the home requires passkeys an approval without an
assertion is refused (403, nothing journaled); with one answering `POST /api/v1/passkeys/approval-challenge` the
run goes on, and its `approval.granted` carries the assertion, which re-verifies from the journal alone."""

from __future__ import annotations

import time

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.people import People
from alicorn.runtime.signatures import audit_decisions
from alicorn.runtime.state import fold
from alicorn.service.passkeys import audit
from alicorn.service.tokens import Tokens
from alicorn.service.web_passkeys import passkeys_of
from tests.service.authenticator import SoftAuthenticator
from tests.service.webhome import WAITING, WebHome


def test_an_api_approval_needs_and_journals_a_passkey_bound_to_the_plan(web: WebHome) -> None:
    import httpx

    service = web.api.state.service
    people = People(web.store, web.home / "keys", web.clock)
    token = Tokens(people, web.clock).create("abe", scope="write", expires_days=None, by=parse_principal("human:ada"))
    passkeys = passkeys_of(service)
    origin = web.url.replace("127.0.0.1", "localhost")
    device = SoftAuthenticator(origin)
    passkeys.register("human:abe", device.create(passkeys.registration_options("human:abe", "localhost", origin)))
    passkeys.set_required(True, "human:ada")
    plan_hash = fold(web.store.read(WAITING), WAITING).plan_hash
    with httpx.Client(base_url=web.url, headers={"Authorization": f"Bearer {token.token}"}, timeout=10) as client:
        listed = client.get("/api/v1/passkeys")
        assert listed.status_code == 200, listed.text
        assert listed.json()["required"] is True
        before = len(web.store.read(WAITING))
        bare = client.post(f"/api/v1/proposals/{WAITING}/approve", json={"plan_hash": plan_hash})
        assert bare.status_code == 403 and bare.json()["type"].endswith("passkey-required")
        assert len(web.store.read(WAITING)) == before

        asked = client.post(
            "/api/v1/passkeys/approval-challenge", json={"run": WAITING, "plan_hash": plan_hash, "comment": "ok"}
        )
        assert asked.status_code == 200, asked.text
        answer = device.get(asked.json()["options"])
        wrong = client.post(
            f"/api/v1/proposals/{WAITING}/approve",
            json={"plan_hash": plan_hash, "comment": "not ok", "passkey": answer},
        )
        assert wrong.status_code == 409 and "note" in wrong.json()["detail"]  # the signed comment was "ok"
        assert len(web.store.read(WAITING)) == before

        asked = client.post(
            "/api/v1/passkeys/approval-challenge", json={"run": WAITING, "plan_hash": plan_hash, "comment": "ok"}
        )
        answer = device.get(asked.json()["options"])
        body = {"plan_hash": plan_hash, "comment": "ok", "passkey": answer}
        done = client.post(f"/api/v1/proposals/{WAITING}/approve", json=body)
        assert done.status_code == 202, done.text
        deadline = time.monotonic() + 30
        while fold(web.store.read(WAITING), WAITING).status != "succeeded":
            assert time.monotonic() < deadline, fold(web.store.read(WAITING), WAITING).status
            time.sleep(0.05)
        replayed = client.post(f"/api/v1/proposals/{WAITING}/approve", json=body)
        assert replayed.status_code == 409
    events = web.store.read(WAITING)
    granted = [e.data for e in events if e.kind == "approval.granted"]
    assert len(granted) == 1 and granted[0]["by"] == "human:abe" and granted[0]["passkey"]["credential_id"] == device.id
    run = fold(events, WAITING)
    assert audit(granted[0]["passkey"], passkeys.current(), granted[0], run) is None
    assert audit_decisions(web.store, [WAITING]) == []  # the Ed25519 seal verifies too
