"""API tokens: how programs sign in to `alicorn serve`, journaled in `control:tokens` like the people are.

`token.created` records a token's id, the person it acts for, its scope (`read` or `write`), when it expires and
who made it, with the SHA-256 of the token and never the token itself: the secret is printed once and cannot be
recovered from the home. `token.revoked` ends one. The set of tokens at any point is a fold of the stream.

A token reads `alicorn_<id>_<secret>`. Checking one finds the record by its id and compares the SHA-256 of what was
presented with the stored one through `hmac.compare_digest`, so the comparison takes the same time wherever the two
differ; an unknown id is compared against a dummy hash so it costs the same too.

A token acts for a person enrolled in the home (`alicorn people`): agents are not people, so no agent principal ever
holds a token, and a token can never do more than its person's role allows (its scope can only narrow that).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Literal, get_args

from alicorn.anvil.errors import AnvilError
from alicorn.anvil.identity import Principal
from alicorn.anvil.people import People, a_role, person_id
from alicorn.clock import Clock, format_time, parse_time
from alicorn.journal.events import Draft, Event

TOKENS_STREAM = "control:tokens"
Scope = Literal["read", "write"]
SCOPES: tuple[str, ...] = get_args(Scope)
PREFIX = "alicorn_"
_TOKEN = re.compile(r"^alicorn_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")
_DUMMY = hashlib.sha256(b"alicorn: no such token").hexdigest()
MAX_DAYS = 3650


class TokenError(AnvilError):
    """A token cannot be created, revoked or listed as asked; nothing was changed."""


@dataclass(frozen=True)
class TokenRecord:
    """One token as `control:tokens` journaled it (its hash, never its secret)."""

    id: str
    person: str
    scope: Scope
    sha256: str
    created_at: str
    created_by: str
    expires_at: str | None
    revoked_at: str | None = None
    revoked_by: str | None = None

    def state(self, now: str) -> str:
        """`active`, `revoked` or `expired` at `now` (an `at` string)."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "active"

    def to_json(self, now: str) -> dict[str, object]:
        """What listing a token shows: everything but its hash."""
        return {
            "id": self.id,
            "person": self.person,
            "scope": self.scope,
            "created_at": self.created_at,
            "created_by": self.created_by,
            "expires_at": self.expires_at,
            "revoked_at": self.revoked_at,
            "state": self.state(now),
        }


@dataclass
class TokenSet:
    """The tokens stream folded, and the seq it was folded up to."""

    tokens: dict[str, TokenRecord] = field(default_factory=dict)
    seq: int = 0


def fold_tokens(events: list[Event]) -> TokenSet:
    found = TokenSet()
    for event in events:
        found.seq = event.seq
        data = event.data
        if event.kind == "token.created":
            found.tokens[data["id"]] = TokenRecord(
                data["id"], data["person"], data["scope"], data["sha256"], event.at, data["by"], data.get("expires_at")
            )
        elif event.kind == "token.revoked" and data["id"] in found.tokens:
            found.tokens[data["id"]] = replace(found.tokens[data["id"]], revoked_at=event.at, revoked_by=data["by"])
    return found


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def match(found: TokenSet, presented: str) -> TokenRecord | None:
    """The record `presented` is the token of (revoked and expired ones included: the caller says which is which),
    or None. The hashes are compared in constant time."""
    shape = _TOKEN.fullmatch(presented)
    record = found.tokens.get(shape.group(1)) if shape else None
    expected = record.sha256 if record is not None else _DUMMY
    same = hmac.compare_digest(expected.encode(), digest(presented).encode())
    return record if same and record is not None else None


def check_request(person: str, *, scope: str, expires_days: int | None) -> Principal:
    """The person a token is asked for, once the request's own values are checked (scope, days, a human): what
    needs no journal, so the command line refuses it before anyone is enrolled or anything is opened."""
    if scope not in SCOPES:
        raise TokenError(f"--scope {scope!r}: choose read or write; nothing was changed")
    if expires_days is not None and not 1 <= expires_days <= MAX_DAYS:
        raise TokenError(f"--expires {expires_days}: give a number of days from 1 to {MAX_DAYS}; nothing was changed")
    return person_id(person)  # an agent is refused here: agents never hold tokens


def not_enrolled(who: Principal) -> TokenError:
    """The refusal of a token for someone who is not one of the home's people."""
    return TokenError(
        f"{who} is not one of this home's people; enrol them first (`alicorn people add {who.name} --role viewer`); "
        "nothing was changed"
    )


@dataclass(frozen=True)
class Created:
    """A new token: its record, and the secret, which exists only here (print it once)."""

    record: TokenRecord
    token: str


class Tokens:
    """The home's API tokens over its journal; `people` is the roster a token's person must be on."""

    def __init__(self, people: People, clock: Clock) -> None:
        self.people = people
        self.store = people.store
        self.clock = clock

    def events(self) -> list[Event]:
        return self.store.read(TOKENS_STREAM) if self.store.head(TOKENS_STREAM) is not None else []

    def current(self) -> TokenSet:
        return fold_tokens(self.events())

    def create(self, person: str, *, scope: str, expires_days: int | None, by: Principal) -> Created:
        """`by` (an admin) makes a token for `person` (enrolled, a human)."""
        who = check_request(person, scope=scope, expires_days=expires_days)
        roster = self.people.roster()
        self._require_admin(roster.people.get(by.id), by, f"create a token for {who}")
        if who.id not in roster.people:
            raise not_enrolled(who)
        now = self.clock.now()
        expires = format_time(parse_time(now) + timedelta(days=expires_days)) if expires_days is not None else None
        token_id = secrets.token_hex(8)
        token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        data: dict[str, object] = {"id": token_id, "person": who.id, "scope": scope, "sha256": digest(token)}
        data.update({"expires_at": expires, "by": by.id})
        found = self.current()
        self.store.append(TOKENS_STREAM, [Draft("token.created", now, data)], expect=found.seq)
        return Created(self.current().tokens[token_id], token)

    def revoke(self, token_id: str, *, by: Principal) -> TokenRecord:
        """`by` (an admin) ends a token; a revoked token never works again."""
        found = self.current()
        record = found.tokens.get(token_id.strip())
        if record is None:
            raise TokenError(f"no token {token_id!r} (`alicorn tokens list` shows their ids); nothing was changed")
        self._require_admin(self.people.roster().people.get(by.id), by, f"revoke token {record.id}")
        if record.revoked_at is not None:
            raise TokenError(f"token {record.id} was already revoked at {record.revoked_at}; nothing was changed")
        draft = Draft("token.revoked", self.clock.now(), {"id": record.id, "by": by.id})
        self.store.append(TOKENS_STREAM, [draft], expect=found.seq)
        return self.current().tokens[record.id]

    @staticmethod
    def _require_admin(person: object, by: Principal, doing: str) -> None:
        role = getattr(person, "role", None)
        if role != "admin":
            said = f"is {a_role(role)}" if role else "is not one of this home's people"
            raise TokenError(f"only an admin may {doing}, and {by} {said}; ask an admin; nothing was changed")
