"""A software WebAuthn authenticator for the passkey tests that run without a browser: a real P-256 key, real
authenticator data, clientDataJSON and ECDSA signatures, answering the options the service gives exactly as a
browser's authenticator would (packed as navigator.credentials' JSON). The browser tests use Chromium's own
virtual authenticator instead."""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import encode_cbor

from alicorn.service.passkeys import b64url

UP, UV, AT = 0x01, 0x04, 0x40


class SoftAuthenticator:
    """One credential on one relying party; `sign_count` goes up by one per assertion (tests may set it back)."""

    def __init__(self, origin: str, rp_id: str = "localhost") -> None:
        self.origin, self.rp_id = origin, rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(16)
        self.sign_count = 0

    @property
    def id(self) -> str:
        return b64url(self.credential_id)

    def _client(self, kind: str, challenge: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}).encode()

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        return bytes(encode_cbor(cose))

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        """The attestation (fmt none) navigator.credentials.create() would give for `options`."""
        assert options["rp"]["id"] == self.rp_id
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self._cose()
        auth_data = hashlib.sha256(self.rp_id.encode()).digest() + bytes([UP | UV | AT]) + struct.pack(">I", 0)
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth_data + attested})
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(self._client("webauthn.create", options["challenge"])),
                "attestationObject": b64url(bytes(attestation)),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def get(self, options: dict[str, Any], *, origin: str | None = None) -> dict[str, Any]:
        """The assertion navigator.credentials.get() would give for `options` (signed by this credential)."""
        self.sign_count += 1
        client = self._client("webauthn.get", options["challenge"])
        if origin is not None:
            client = client.replace(self.origin.encode(), origin.encode())
        auth_data = hashlib.sha256(self.rp_id.encode()).digest() + bytes([UP | UV]) + struct.pack(">I", self.sign_count)
        signature = self.key.sign(auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "authenticatorData": b64url(auth_data),
                "clientDataJSON": b64url(client),
                "signature": b64url(signature),
                "userHandle": None,
            },
            "clientExtensionResults": {},
        }
