"""Passkeys (WebAuthn) for approvals: the authenticator signs the exact decision a person approves.

`control:passkeys` journals a person's credentials (`passkey.registered`: credential id, COSE public key, sign
count, transports, the relying party id and origin it was made for), each use (`passkey.used`: the new sign count,
the run and plan hash) and the home's rule (`passkeys.required`: whether approving needs a passkey, and which admin
said so). What holds now is a fold of the stream.

An approval's WebAuthn challenge is not random: it is the SHA-256 of the canonical JSON of `approval_message(...)`,
the fields `alicorn.anvil.signing.decision_message` signs (run, plan hash, goal hash, terms digest, decision,
person, note) plus a server nonce. The nonce is kept in memory, used once and expires after `CHALLENGE_S` on the
injected clock: an assertion sent twice, late, by someone else, for another run or for a plan that changed since is
refused before anything is journaled. What passes (`ApprovalProof`) travels in the `approval.granted` event, so an
audit can recompute the challenge from the journaled fields and re-verify the authenticator's signature against the
journaled public key (`audit`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from alicorn import canonical
from alicorn.anvil.signing import terms_digest
from alicorn.clock import Clock, format_time, parse_time
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore
from alicorn.runtime.state import RunState

PASSKEYS_STREAM = "control:passkeys"
MESSAGE_FORMAT = "alicorn-passkey-approval/1"
#: How long a challenge the service gave may be answered (seconds on the injected clock).
CHALLENGE_S = 300
RP_NAME = "Alicorn"
#: The most challenges one person may have open at once (asking for more forgets their oldest).
MAX_PENDING = 16


class PasskeyRefused(Exception):
    """A passkey step that did not pass: `status` (403 who/what, 409 used/stale/expired, 422 malformed), a
    problem `code` and one sentence saying what was wrong and what to do. Nothing was journaled."""

    def __init__(self, status: int, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.status, self.code, self.sentence = status, code, sentence


@dataclass(frozen=True)
class Credential:
    """One registered passkey, as the stream folds it (its sign count is the latest journaled)."""

    id: str  # base64url credential id
    person: str
    public_key: str  # base64url COSE key
    sign_count: int
    transports: tuple[str, ...]
    rp_id: str
    origin: str
    name: str
    registered_at: str


@dataclass
class PasskeySet:
    """`control:passkeys` folded: the credentials by id, whether approvals need one, the stream's seq."""

    credentials: dict[str, Credential] = field(default_factory=dict)
    required: bool = False
    required_by: str | None = None
    seq: int = 0

    def of(self, person: str) -> list[Credential]:
        return sorted((c for c in self.credentials.values() if c.person == person), key=lambda c: c.registered_at)


def fold_passkeys(events: list[Event]) -> PasskeySet:
    found = PasskeySet()
    for event in events:
        data = event.data
        if event.kind == "passkey.registered":
            found.credentials[data["credential_id"]] = Credential(
                data["credential_id"], data["person"], data["public_key"], int(data["sign_count"]),
                tuple(data.get("transports", ())), data["rp_id"], data["origin"], data.get("name", ""), event.at,
            )  # fmt: skip
        elif event.kind == "passkey.used" and data["credential_id"] in found.credentials:
            old = found.credentials[data["credential_id"]]
            found.credentials[old.id] = replace(old, sign_count=int(data["sign_count"]))
        elif event.kind == "passkeys.required":
            found.required, found.required_by = bool(data["required"]), data["by"]
        found.seq = event.seq
    return found


def approval_message(state: RunState, by: str, note: str, nonce: str) -> dict[str, Any]:
    """What an approval's challenge commits to: decision_message's fields about the run, and the server nonce."""
    return {
        "format": MESSAGE_FORMAT,
        "run": state.run_id,
        "plan_hash": state.plan_hash,
        "goal_hash": state.goal_hash,
        "terms": terms_digest(state.terms),
        "decision": "approved",
        "by": by,
        "note": note,
        "nonce": nonce,
    }


def challenge_of(message: dict[str, Any]) -> bytes:
    """The WebAuthn challenge for `message`: the SHA-256 of its canonical JSON."""
    return hashlib.sha256(canonical.dumps(message).encode("utf-8")).digest()


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class _Pending:
    purpose: str  # "register" or "approve"
    person: str
    expires: str
    message: dict[str, Any] | None = None  # an approval's message
    rp_id: str = ""
    origin: str = ""


def _client_challenge(credential: dict[str, Any]) -> str:
    """The challenge an assertion or attestation says it answers (base64url), read from its clientDataJSON."""
    try:
        client = json.loads(unb64url(credential["response"]["clientDataJSON"]))
        challenge = client["challenge"]
    except (KeyError, TypeError, ValueError):
        raise PasskeyRefused(
            422, "malformed-passkey", "the passkey answer is not a WebAuthn credential (no readable clientDataJSON); "
            "sign again with your passkey; nothing was done",
        ) from None  # fmt: skip
    if not isinstance(challenge, str):
        raise PasskeyRefused(422, "malformed-passkey", "the passkey answer names no challenge; nothing was done")
    return challenge


class Passkeys:
    """Registration and approval ceremonies over `store`, at the time `clock` says (see the module docstring)."""

    def __init__(self, store: JournalStore, clock: Clock, *, challenge_s: int = CHALLENGE_S) -> None:
        self.store = store
        self.clock = clock
        self.challenge_s = challenge_s
        self._guard = threading.Lock()
        self._pending: dict[str, _Pending] = {}

    def current(self) -> PasskeySet:
        return fold_passkeys(self.store.read(PASSKEYS_STREAM) if self.store.head(PASSKEYS_STREAM) else [])

    def _append(self, kind: str, data: dict[str, Any], expect: int) -> None:
        try:
            self.store.append(PASSKEYS_STREAM, [Draft(kind, self.clock.now(), data)], expect=expect)
        except ConcurrentAppendError:
            raise PasskeyRefused(
                409, "passkeys-changed", "the passkeys changed while this was checked; try again; nothing was done"
            ) from None

    # ---- pending challenges ---------------------------------------------------------------------------------

    def _remember(self, challenge: bytes, pending: _Pending) -> None:
        now = self.clock.now()
        with self._guard:
            self._pending = {k: p for k, p in self._pending.items() if p.expires > now}  # forget the expired
            theirs = [k for k, p in self._pending.items() if p.person == pending.person]
            for key in theirs[: max(0, len(theirs) - MAX_PENDING + 1)]:  # the oldest go: memory stays bounded
                del self._pending[key]
            self._pending[b64url(challenge)] = pending

    def _take(self, credential: dict[str, Any], purpose: str, person: str) -> _Pending:
        """The pending challenge `credential` answers, removed (used once); refused when unknown, used, expired,
        for another purpose or another person."""
        key = _client_challenge(credential)
        with self._guard:
            pending = self._pending.pop(key, None)
        if pending is None or pending.purpose != purpose:
            raise PasskeyRefused(
                409, "passkey-challenge-used",
                "this passkey answer is for a challenge this service did not give or has already used (an answer "
                "counts once); ask for a new challenge and sign again; nothing was done",
            )  # fmt: skip
        if pending.person != person:
            raise PasskeyRefused(
                403, "passkey-of-another-person",
                f"this passkey challenge was given to {pending.person}, not {person}; sign with your own passkey; "
                "nothing was done",
            )  # fmt: skip
        if self.clock.now() >= pending.expires:
            raise PasskeyRefused(
                409, "passkey-challenge-expired",
                f"this passkey challenge expired (challenges last {self.challenge_s} seconds); ask for a new one and "
                "sign again; nothing was done",
            )  # fmt: skip
        return pending

    def _expiry(self) -> str:
        return format_time(parse_time(self.clock.now()) + timedelta(seconds=self.challenge_s))

    # ---- registration -----------------------------------------------------------------------------------------

    def registration_options(self, person: str, rp_id: str, origin: str) -> dict[str, Any]:
        """The options for navigator.credentials.create() (WebAuthn JSON), remembered for `register`."""
        challenge = secrets.token_bytes(32)
        existing = self.current().of(person)
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_id=hashlib.sha256(person.encode("utf-8")).digest()[:16],
            user_name=person.removeprefix("human:"),
            user_display_name=person,
            challenge=challenge,
            exclude_credentials=[PublicKeyCredentialDescriptor(id=unb64url(c.id)) for c in existing],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.PREFERRED, user_verification=UserVerificationRequirement.REQUIRED
            ),
        )
        self._remember(challenge, _Pending("register", person, self._expiry(), rp_id=rp_id, origin=origin))
        result: dict[str, Any] = json.loads(options_to_json(options))
        return result

    def register(self, person: str, credential: dict[str, Any], name: str = "") -> Credential:
        """Verify an attestation answering this person's registration challenge, and journal the credential."""
        pending = self._take(credential, "register", person)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=unb64url(_client_challenge(credential)),
                expected_rp_id=pending.rp_id,
                expected_origin=pending.origin,
                require_user_verification=True,
            )
        except (InvalidRegistrationResponse, ValueError, TypeError, KeyError) as exc:
            raise PasskeyRefused(
                403, "passkey-not-registered", f"the passkey could not be verified ({exc}); try again; nothing was done"
            ) from None
        found = self.current()
        credential_id = b64url(verified.credential_id)
        if credential_id in found.credentials:
            raise PasskeyRefused(409, "passkey-known", "this passkey is already registered; nothing was done")
        transports = credential.get("response", {}).get("transports") or []
        known = {t.value for t in AuthenticatorTransport}
        data = {
            "person": person,
            "credential_id": credential_id,
            "public_key": b64url(verified.credential_public_key),
            "sign_count": verified.sign_count,
            "transports": sorted(t for t in transports if isinstance(t, str) and t in known),
            "rp_id": pending.rp_id,
            "origin": pending.origin,
            "name": name.strip()[:80],
        }
        self._append("passkey.registered", data, found.seq)
        return self.current().credentials[credential_id]

    def set_required(self, required: bool, by: str) -> None:
        """Journal the home's rule (the caller checked that `by` is an admin)."""
        self._append("passkeys.required", {"required": required, "by": by}, self.current().seq)

    # ---- approvals --------------------------------------------------------------------------------------------

    def approval_options(self, person: str, state: RunState, note: str) -> dict[str, Any] | None:
        """The options for navigator.credentials.get() whose challenge binds this person's approval of `state`
        with `note`; None when the person has no passkey."""
        mine = self.current().of(person)
        if not mine:
            return None
        message = approval_message(state, person, note, secrets.token_hex(16))
        challenge = challenge_of(message)
        options = generate_authentication_options(
            rp_id=mine[0].rp_id,
            challenge=challenge,
            allow_credentials=[
                PublicKeyCredentialDescriptor(
                    id=unb64url(c.id), transports=[AuthenticatorTransport(t) for t in c.transports]
                )
                for c in mine
            ],
            user_verification=UserVerificationRequirement.REQUIRED,
            timeout=self.challenge_s * 1000,
        )
        self._remember(challenge, _Pending("approve", person, self._expiry(), message=message))
        result: dict[str, Any] = json.loads(options_to_json(options))
        return result

    def approval_proof(
        self, person: str, state: RunState, note: str, assertion: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """The verified passkey assertion to journal with `person`'s approval of `state`, or None when none was
        given and the home does not require one; PasskeyRefused otherwise (nothing journaled). A verified one
        journals its new sign count (`passkey.used`)."""
        found = self.current()
        if assertion is None:
            if found.required:
                raise PasskeyRefused(
                    403, "passkey-required",
                    f"approving in this home needs a passkey (an admin, {found.required_by}, turned that on): "
                    "register one on the Passkeys page, then approve in the inbox and sign with it; nothing was done",
                )  # fmt: skip
            return None
        pending = self._take(assertion, "approve", person)
        assert pending.message is not None
        message = pending.message
        now = approval_message(state, person, note, message["nonce"])
        if message["run"] != state.run_id:
            raise PasskeyRefused(
                403, "passkey-for-another-run",
                f"this passkey signed an approval of run {message['run']}, not run {state.run_id}; approve each run "
                "with its own signature; nothing was done",
            )  # fmt: skip
        if message != now:
            changed = ", ".join(k for k in now if now[k] != message[k])
            raise PasskeyRefused(
                409, "passkey-decision-changed",
                f"the passkey signed run {state.run_id} as it was, but its {changed} changed since (the plan hash "
                f"now is {state.plan_hash}); look at the proposal again and sign it anew; nothing was done",
            )  # fmt: skip
        credential = found.credentials.get(str(assertion.get("id", "")))
        if credential is None or credential.person != person:
            whose = "not registered in this home" if credential is None else "another person's"
            raise PasskeyRefused(
                403, "passkey-not-yours",
                f"this passkey is {whose}; sign with a passkey you registered on the Passkeys page; nothing was done",
            )  # fmt: skip
        try:
            verified = verify_authentication_response(
                credential=assertion,
                expected_challenge=challenge_of(message),
                expected_rp_id=credential.rp_id,
                expected_origin=credential.origin,
                credential_public_key=unb64url(credential.public_key),
                credential_current_sign_count=credential.sign_count,
                require_user_verification=True,
            )
        except (InvalidAuthenticationResponse, ValueError, TypeError, KeyError) as exc:
            raise PasskeyRefused(
                403, "passkey-not-verified",
                f"the passkey's signature was refused ({exc}); if the authenticator was cloned or reset, register it "
                "again; nothing was done",
            ) from None  # fmt: skip
        response = assertion["response"]
        used = {
            "person": person, "credential_id": credential.id, "sign_count": verified.new_sign_count,
            "run": state.run_id, "plan_hash": state.plan_hash,
        }  # fmt: skip
        self._append("passkey.used", used, found.seq)
        return {
            "credential_id": credential.id,
            "message": message,
            "challenge": b64url(challenge_of(message)),
            "authenticator_data": response["authenticatorData"],
            "client_data_json": response["clientDataJSON"],
            "signature": response["signature"],
            "sign_count": verified.new_sign_count,
            "rp_id": credential.rp_id,
            "origin": credential.origin,
        }


def audit(proof: dict[str, Any], found: PasskeySet, approval: dict[str, Any], run: RunState) -> str | None:
    """Re-verify a journaled passkey proof: None when the journaled credential signed exactly this approval
    (`approval`: the `approval.granted` data) of `run`, else the sentence saying what does not hold."""
    credential = found.credentials.get(proof.get("credential_id", ""))
    if credential is None:
        return f"credential {proof.get('credential_id')!r} is not in {PASSKEYS_STREAM}"
    message = proof["message"]
    expected = approval_message(run, approval["by"], approval.get("comment", ""), message.get("nonce", ""))
    if message != expected or credential.person != approval["by"]:
        return f"the signed decision is not this approval of run {run.run_id} by {approval['by']}"
    assertion = {
        "id": credential.id,
        "rawId": credential.id,
        "type": "public-key",
        "response": {
            "authenticatorData": proof["authenticator_data"],
            "clientDataJSON": proof["client_data_json"],
            "signature": proof["signature"],
        },
    }
    try:
        verify_authentication_response(
            credential=assertion,
            expected_challenge=challenge_of(expected),
            expected_rp_id=credential.rp_id,
            expected_origin=credential.origin,
            credential_public_key=unb64url(credential.public_key),
            credential_current_sign_count=0,
            require_user_verification=True,
        )
    except (InvalidAuthenticationResponse, ValueError, TypeError, KeyError) as exc:
        return f"the authenticator's signature does not verify: {exc}"
    return None
