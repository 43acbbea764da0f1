"""Passkeys bound to the decision: an approval's WebAuthn challenge is the digest of the run, plan hash, goal hash,
terms digest, person, comment and a one-time nonce; an answer counts once, expires, and is refused for another run,
another plan, another person's credential or a sign count that did not go up, with nothing journaled. A verified
proof can be re-verified from the journal alone (`audit`)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.identity import parse_principal
from alicorn.anvil.people import People
from alicorn.anvil.signing import terms_digest
from alicorn.app import App, open_app
from alicorn.runtime.state import RunState, fold
from alicorn.service.passkeys import (
    MAX_PENDING,
    PASSKEYS_STREAM,
    PasskeyRefused,
    Passkeys,
    approval_message,
    audit,
    b64url,
    challenge_of,
)
from tests.service.authenticator import SoftAuthenticator
from tests.service.conftest import StepClock
from tests.service.webhome import WAITING, _waiting_run

ORIGIN = "http://localhost:8700"


@dataclass
class Home:
    app: App
    clock: StepClock
    passkeys: Passkeys

    def state(self) -> RunState:
        return fold(self.app.store.read(WAITING), WAITING)

    def used(self) -> int:
        events = self.app.store.read(PASSKEYS_STREAM) if self.app.store.head(PASSKEYS_STREAM) else []
        return sum(e.kind == "passkey.used" for e in events)

    def enrol(self, person: str) -> SoftAuthenticator:
        device = SoftAuthenticator(ORIGIN)
        self.passkeys.register(person, device.create(self.passkeys.registration_options(person, "localhost", ORIGIN)))
        return device


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    clock = StepClock()
    application = open_app(tmp_path / "home")
    people = People(application.store, tmp_path / "home" / "keys", clock)
    ada = parse_principal("human:ada")
    people.bootstrap(ada)
    people.add("abe", "approver", by=ada)
    _waiting_run(application, clock, tmp_path / "work")
    try:
        yield Home(application, clock, Passkeys(application.store, clock))
    finally:
        application.close()


def _refused(code: str, act: Any) -> PasskeyRefused:
    with pytest.raises(PasskeyRefused) as caught:
        act()
    assert caught.value.code == code, caught.value.sentence
    assert "nothing was done" in caught.value.sentence
    return caught.value


def test_the_challenge_is_the_digest_of_the_decision_and_a_nonce(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    options = home.passkeys.approval_options("human:abe", state, "looks right")
    assert options is not None and [c["id"] for c in options["allowCredentials"]] == [device.id]
    message = home.passkeys._pending[options["challenge"]].message
    assert message is not None
    assert message == approval_message(state, "human:abe", "looks right", message["nonce"])
    assert message["plan_hash"] == state.plan_hash and message["goal_hash"] == state.goal_hash
    assert message["terms"] == terms_digest(state.terms) and message["run"] == WAITING
    assert options["challenge"] == b64url(challenge_of(message))
    for field, other in (("run", "run-other"), ("plan_hash", "0" * 64), ("goal_hash", "1" * 64), ("terms", "x"),
                         ("by", "human:ada"), ("note", "other"), ("nonce", "f" * 32)):  # fmt: skip
        assert challenge_of({**message, field: other}) != challenge_of(message), field
    again = home.passkeys.approval_options("human:abe", state, "looks right")
    assert again is not None and again["challenge"] != options["challenge"]  # a fresh nonce each time


def test_a_verified_assertion_is_the_proof_and_an_audit_re_verifies_it(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    options = home.passkeys.approval_options("human:abe", state, "ok")
    assert options is not None
    proof = home.passkeys.approval_proof("human:abe", state, "ok", device.get(options))
    assert proof is not None and proof["credential_id"] == device.id and proof["sign_count"] == 1
    assert proof["challenge"] == options["challenge"] and proof["message"]["plan_hash"] == state.plan_hash
    assert home.used() == 1 and home.passkeys.current().credentials[device.id].sign_count == 1
    granted = {"by": "human:abe", "comment": "ok", "plan_hash": state.plan_hash}
    assert audit(proof, home.passkeys.current(), granted, state) is None
    assert audit(proof, home.passkeys.current(), {**granted, "comment": "changed"}, state) is not None
    forged = copy.deepcopy(proof)
    forged["signature"] = b64url(b"\x30\x06\x02\x01\x01\x02\x01\x01")
    assert "does not verify" in str(audit(forged, home.passkeys.current(), granted, state))


def test_a_replayed_assertion_is_refused_and_nothing_is_journaled(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    options = home.passkeys.approval_options("human:abe", state, "")
    assert options is not None
    answer = device.get(options)
    assert home.passkeys.approval_proof("human:abe", state, "", answer) is not None
    head = home.app.store.head(PASSKEYS_STREAM)
    _refused("passkey-challenge-used", lambda: home.passkeys.approval_proof("human:abe", state, "", answer))
    assert home.app.store.head(PASSKEYS_STREAM) == head and home.used() == 1


def test_a_challenge_expires(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    options = home.passkeys.approval_options("human:abe", state, "")
    assert options is not None
    home.clock.advance(seconds=301)
    _refused(
        "passkey-challenge-expired", lambda: home.passkeys.approval_proof("human:abe", state, "", device.get(options))
    )
    assert home.used() == 0


def test_another_run_another_plan_or_another_comment_is_refused(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    changed = "passkey-decision-changed"
    cases = [
        ("passkey-for-another-run", "run_id", "run-other", ""),
        (changed, "plan_hash", "0" * 64, ""),
        (changed, "goal_hash", "1" * 64, ""),
        (changed, None, None, "edited"),
    ]
    for code, field, value, note in cases:
        options = home.passkeys.approval_options("human:abe", state, "")
        assert options is not None
        now = copy.copy(state)
        if field is not None:
            setattr(now, field, value)
        refusal = _refused(code, lambda now=now, options=options, note=note: home.passkeys.approval_proof(
            "human:abe", now, note, device.get(options)))  # fmt: skip
        if field == "plan_hash":
            assert "plan_hash" in refusal.sentence and "0" * 64 in refusal.sentence
    assert home.used() == 0


def test_another_persons_challenge_or_credential_is_refused(home: Home) -> None:
    abes = home.enrol("human:abe")
    adas = home.enrol("human:ada")
    state = home.state()
    options = home.passkeys.approval_options("human:abe", state, "")
    assert options is not None
    _refused(
        "passkey-of-another-person", lambda: home.passkeys.approval_proof("human:ada", state, "", abes.get(options))
    )
    options = home.passkeys.approval_options("human:abe", state, "")
    assert options is not None
    _refused("passkey-not-yours", lambda: home.passkeys.approval_proof("human:abe", state, "", adas.get(options)))
    assert home.used() == 0


def test_a_sign_count_that_does_not_go_up_is_refused(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    for _ in range(2):
        options = home.passkeys.approval_options("human:abe", state, "")
        assert options is not None
        assert home.passkeys.approval_proof("human:abe", state, "", device.get(options)) is not None
    device.sign_count = 1  # a cloned authenticator: its next count (2) is not above the journaled 2
    options = home.passkeys.approval_options("human:abe", state, "")
    assert options is not None
    refusal = _refused(
        "passkey-not-verified", lambda: home.passkeys.approval_proof("human:abe", state, "", device.get(options))
    )
    assert "sign count" in refusal.sentence and home.used() == 2


def test_when_the_home_requires_passkeys_an_approval_without_one_is_refused(home: Home) -> None:
    assert home.passkeys.approval_proof("human:abe", home.state(), "", None) is None  # not required: no proof
    home.passkeys.set_required(True, "human:ada")
    refusal = _refused("passkey-required", lambda: home.passkeys.approval_proof("human:abe", home.state(), "", None))
    assert "human:ada" in refusal.sentence and "Passkeys page" in refusal.sentence
    assert home.passkeys.approval_options("human:abe", home.state(), "") is None  # abe has none to sign with


def test_a_registration_answer_counts_once_and_only_for_its_person(home: Home) -> None:
    device = SoftAuthenticator(ORIGIN)
    options = home.passkeys.registration_options("human:abe", "localhost", ORIGIN)
    made = device.create(options)
    _refused("passkey-of-another-person", lambda: home.passkeys.register("human:ada", made))
    options = home.passkeys.registration_options("human:abe", "localhost", ORIGIN)
    made = device.create(options)
    home.passkeys.register("human:abe", made, "laptop")
    _refused("passkey-challenge-used", lambda: home.passkeys.register("human:abe", made))
    found = home.passkeys.current().of("human:abe")
    assert [(c.id, c.name, c.rp_id, c.origin, c.transports) for c in found] == [
        (device.id, "laptop", "localhost", ORIGIN, ("internal",))
    ]


def test_a_person_holds_a_bounded_number_of_open_challenges(home: Home) -> None:
    device = home.enrol("human:abe")
    state = home.state()
    first = home.passkeys.approval_options("human:abe", state, "")
    assert first is not None
    for _ in range(MAX_PENDING):
        home.passkeys.approval_options("human:abe", state, "")
    assert sum(p.person == "human:abe" for p in home.passkeys._pending.values()) == MAX_PENDING
    _refused("passkey-challenge-used", lambda: home.passkeys.approval_proof("human:abe", state, "", device.get(first)))
