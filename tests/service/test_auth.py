"""Programs sign in with API tokens: 401 without a valid one, 403 when the role or scope does not allow the route,
and neither changes anything."""

from __future__ import annotations

import hashlib

from alicorn.anvil.identity import parse_principal
from alicorn.service.tokens import TOKENS_STREAM, Tokens, fold_tokens, match
from tests.service.conftest import Served
from tests.service.test_problems import _problem


def test_a_valid_token_signs_in_as_its_person(served: Served) -> None:
    for who, person, role, scope in (
        ("ada", "human:ada", "admin", "write"),
        ("vic", "human:vic", "viewer", "read"),
        ("abe", "human:abe", "approver", "write"),
    ):
        with served.client(who) as client:
            me = client.get("/api/v1/me").json()
            assert (me["person"], me["role"], me["scope"]) == (person, role, scope)
            assert client.get("/api/v1/runs").status_code == 200


def test_missing_malformed_and_unknown_tokens_are_401(served: Served) -> None:
    before = served.heads()
    real = served.tokens["vic"]
    with served.client(None) as client:
        for headers in (
            {},
            {"Authorization": "Basic dmljOnB3"},
            {"Authorization": "Bearer"},
            {"Authorization": "Bearer not-a-token"},
            {"Authorization": f"Bearer {real[:-1]}{'A' if real[-1] != 'A' else 'B'}"},  # one character off
            {"Authorization": f"Bearer alicorn_{'0' * 16}_{real.split('_', 2)[2]}"},  # someone else's id
        ):
            response = client.get("/api/v1/runs", headers=headers)
            _problem(response, 401, "not-signed-in")
            assert response.headers["www-authenticate"].startswith("Bearer")
    assert served.heads() == before


def test_revoked_expired_and_removed_person_tokens_are_401(served: Served) -> None:
    with served.client("vic") as vic:
        assert vic.get("/api/v1/runs").status_code == 200
        served.clock.advance(days=30)  # vic's token expires after 30 days: at that instant it stops
        body = _problem(vic.get("/api/v1/runs"), 401, "not-signed-in")
        assert "expired" in str(body["detail"])
    with served.client("abe") as abe:
        assert abe.get("/api/v1/runs").status_code == 200
        ada = parse_principal("human:ada")
        served.people.remove("abe", by=ada)
        body = _problem(abe.get("/api/v1/runs"), 401, "not-signed-in")
        assert "no longer one of this home's people" in str(body["detail"])
    with served.client("ada-read") as reader:
        tokens = Tokens(served.people, served.clock)
        record = match(tokens.current(), served.tokens["ada-read"])
        assert record is not None
        tokens.revoke(record.id, by=parse_principal("human:ada"))
        body = _problem(reader.get("/api/v1/runs"), 401, "not-signed-in")
        assert "revoked" in str(body["detail"])


def test_role_and_scope_refusals_are_403_and_change_nothing(served: Served) -> None:
    before = served.heads()
    with served.client("vic") as vic:
        _problem(vic.get("/api/v1/tokens"), 403, "role-not-allowed")
        _problem(vic.post("/api/v1/tokens", json={"person": "vic"}), 403, "role-not-allowed")
    with served.client("abe") as abe:  # an approver may not manage tokens either
        _problem(abe.post("/api/v1/tokens", json={"person": "abe", "scope": "write"}), 403, "role-not-allowed")
    with served.client("ada-read") as reader:  # an admin, but a read token: no writes
        assert reader.get("/api/v1/tokens").status_code == 200
        _problem(reader.post("/api/v1/tokens", json={"person": "vic"}), 403, "scope-not-allowed")
        _problem(reader.post("/api/v1/tokens/whatever/revoke"), 403, "scope-not-allowed")
    assert served.heads() == before


def test_tokens_are_stored_as_hashes_and_shown_once(served: Served) -> None:
    with served.client("ada") as ada:
        made = ada.post("/api/v1/tokens", json={"person": "vic", "expires_days": 1})
        assert made.status_code == 201
        token = made.json()["token"]
        listed = ada.get("/api/v1/tokens")
        assert token not in listed.text and "sha256" not in listed.text
        with served.client(None) as fresh:
            assert fresh.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).json()["person"] == "human:vic"
        revoked = ada.post(f"/api/v1/tokens/{made.json()['id']}/revoke")
        assert revoked.json()["state"] == "revoked"
        _problem(ada.post("/api/v1/tokens/0000000000000000/revoke"), 404, "token-refused")
    lines = [e.line for e in served.store.read(TOKENS_STREAM)]
    assert all(token not in line for line in lines)
    assert any(hashlib.sha256(token.encode()).hexdigest() in line for line in lines)
    with served.client(None) as fresh:
        _problem(fresh.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}), 401, "not-signed-in")


def test_match_finds_only_the_exact_token() -> None:
    from alicorn.journal.events import Draft, chain

    token = "alicorn_0123456789abcdef_" + "a" * 43
    data = {"id": "0123456789abcdef", "person": "human:x", "scope": "read", "by": "human:x", "expires_at": None}
    events = chain(
        TOKENS_STREAM,
        0,
        None,
        [Draft("token.created", "t", {**data, "sha256": hashlib.sha256(token.encode()).hexdigest()})],
    )
    found = fold_tokens(events)
    assert match(found, token) is not None
    assert match(found, token[:-1] + "b") is None
    assert match(found, token + "a") is None
    assert match(found, "") is None
