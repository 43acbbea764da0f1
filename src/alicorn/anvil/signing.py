"""Ed25519 keys and signed decisions: what makes an approval (or a rejection) attributable to one person.

Each person has a key pair: the private key in `<home>/keys/<name>.ed25519` (PEM, mode 0600), the public key
journaled with `person.added` on the `control:people` stream. A decision is signed over the canonical JSON of
`decision_message(...)`: the run, its plan hash, goal hash and terms digest, the decision, the person, their note,
the key's fingerprint and the people stream's seq at signing. The signature travels in the decision's event
(`seal`) and is read back by replay, never made again; `alicorn verify` checks it against the people stream.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from alicorn import canonical
from alicorn.anvil.errors import SigningKeyError

MESSAGE_FORMAT = "alicorn-decision/1"


def fingerprint(public_key: str) -> str:
    """`sha256:` + the hex SHA-256 of the raw 32-byte public key (given as base64)."""
    return "sha256:" + hashlib.sha256(base64.b64decode(public_key)).hexdigest()


def new_key() -> tuple[Ed25519PrivateKey, str]:
    """A fresh private key and its public key as base64 of the raw 32 bytes."""
    private = Ed25519PrivateKey.generate()
    return private, public_of(private)


def public_of(private: Ed25519PrivateKey) -> str:
    raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")


def key_path(keys_dir: Path, name: str) -> Path:
    """Where the private key of the person with canonical NAME (without `human:`) lives."""
    return keys_dir / f"{name}.ed25519"


def write_private(path: Path, private: Ed25519PrivateKey) -> None:
    """Write a private key readable by its owner only (0600), in a directory only its owner may enter (0700);
    a file already there is replaced atomically."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, pem)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def load_private(path: Path, person: str) -> Ed25519PrivateKey:
    """The private key at `path`; SigningKeyError naming the file and the fix when it cannot be used."""
    fix = f"an admin re-enrols them with `alicorn people add {person.removeprefix('human:')} --role approver`"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SigningKeyError(f"{person} has no signing key at {path}, so they cannot sign a decision; {fix}") from None
    except OSError as exc:
        raise SigningKeyError(f"cannot read {person}'s signing key {path} ({exc.strerror}); {fix}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise SigningKeyError(f"{path} is not a usable Ed25519 private key; {fix}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} is not an Ed25519 private key; {fix}")
    return key


def decision_message(
    *,
    run: str,
    plan_hash: str,
    goal_hash: str,
    terms: str,
    decision: str,
    by: str,
    note: str,
    fingerprint: str,
    people_seq: int,
) -> dict[str, Any]:
    """What a person signs when they decide about a run (`terms` is `terms_digest` of its run.created terms)."""
    return {
        "format": MESSAGE_FORMAT,
        "run": run,
        "plan_hash": plan_hash,
        "goal_hash": goal_hash,
        "terms": terms,
        "decision": decision,
        "by": by,
        "note": note,
        "fingerprint": fingerprint,
        "people_seq": people_seq,
    }


def terms_digest(terms: dict[str, Any]) -> str:
    """The digest of a run's terms as `run.created` journaled them."""
    return canonical.digest(terms)


def sign(private: Ed25519PrivateKey, message: dict[str, Any]) -> str:
    """The base64 Ed25519 signature of the canonical JSON of `message`."""
    return base64.b64encode(private.sign(canonical.dumps(message).encode("utf-8"))).decode("ascii")


def verify(public_key: str, message: dict[str, Any], signature: str) -> bool:
    """Whether `signature` (base64) is `public_key`'s signature of `message`."""
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(base64.b64decode(signature, validate=True), canonical.dumps(message).encode("utf-8"))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True
