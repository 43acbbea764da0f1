"""Who is asking: the bearer token of a request, checked against `control:tokens` and `control:people`.

A request needs `Authorization: Bearer alicorn_…`. No token, a malformed, unknown, revoked or expired one, or one
whose person is no longer one of the home's people: 401. A signed-in person whose role (or whose token's scope)
does not allow the route: 403. Both are decided before the route does anything, so a refused request changes
nothing. Roles are Anvil's (`viewer < requester < approver < admin`); reading runs needs `viewer`, talking to Core
`requester`, deciding about runs `approver`, managing tokens `admin`.

Both streams are folded again only when their head moved, so checking a token costs two head look-ups and a hash.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Depends

from alicorn.anvil.people import PEOPLE_STREAM, ROLE_NAMES, Role, Roster, a_role, fold_people
from alicorn.clock import Clock
from alicorn.journal.store import Head, JournalStore
from alicorn.service.problems import Problem
from alicorn.service.tokens import TOKENS_STREAM, Scope, TokenSet, fold_tokens, match

_SCHEME = "bearer"


@dataclass(frozen=True)
class Caller:
    """The person a request acts for, with their role and the scope of the token they used."""

    person: str
    role: Role
    scope: Scope
    token: str  # the token's id


class Authenticator:
    """Checks requests' tokens over `store`, at the time `clock` says."""

    def __init__(self, store: JournalStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._guard = threading.Lock()
        self._tokens: tuple[Head | None, TokenSet] = (None, TokenSet())
        self._roster: tuple[Head | None, Roster] = (None, Roster())

    def _current(self) -> tuple[TokenSet, Roster]:
        tokens_head = self.store.head(TOKENS_STREAM)
        people_head = self.store.head(PEOPLE_STREAM)
        with self._guard:
            if tokens_head != self._tokens[0]:
                events = self.store.read(TOKENS_STREAM) if tokens_head is not None else []
                self._tokens = (tokens_head, fold_tokens(events))
            if people_head != self._roster[0]:
                events = self.store.read(PEOPLE_STREAM) if people_head is not None else []
                self._roster = (people_head, fold_people(events))
            return self._tokens[1], self._roster[1]

    def caller(self, authorization: str | None) -> Caller:
        """The caller a request's Authorization header names; Problem(401) otherwise."""
        if not authorization:
            raise _unauthorized(
                "the request carries no token; send `Authorization: Bearer TOKEN` (`alicorn tokens create`)"
            )
        scheme, _, presented = authorization.strip().partition(" ")
        if scheme.lower() != _SCHEME or not presented.strip():
            raise _unauthorized("the Authorization header is not `Bearer TOKEN`; send the token that way")
        tokens, roster = self._current()
        record = match(tokens, presented.strip())
        if record is None:
            raise _unauthorized(
                "the token is not one of this home's tokens; check it, or create one (`alicorn tokens create`)"
            )
        state = record.state(self.clock.now())
        if state != "active":
            when = record.revoked_at if state == "revoked" else record.expires_at
            raise _unauthorized(
                f"token {record.id} was {state} at {when}; ask an admin for a new one (`alicorn tokens create`)"
            )
        person = roster.people.get(record.person)
        if person is None:
            raise _unauthorized(
                f"token {record.id} acts for {record.person}, who is no longer one of this home's people; an admin "
                "enrols them again (`alicorn people add`) or makes a token for someone who is"
            )
        return Caller(person.id, person.role, record.scope, record.id)

    @staticmethod
    def allow(caller: Caller, role: Role, scope: Scope, doing: str) -> None:
        """Refuse (403) a caller whose role or token scope does not allow `doing`."""
        if ROLE_NAMES.index(caller.role) < ROLE_NAMES.index(role):
            raise Problem(
                403,
                "role-not-allowed",
                f"{caller.person} is {a_role(caller.role)}, and to {doing} needs the role {role}; an admin changes "
                f"roles with `alicorn people add NAME --role {role}`. Nothing was done",
            )
        if scope == "write" and caller.scope != "write":
            raise Problem(
                403,
                "scope-not-allowed",
                f"token {caller.token} has the scope read, and to {doing} needs a token with the scope write "
                "(`alicorn tokens create --scope write`). Nothing was done",
            )


def needs(signed_in: Callable[..., Caller], role: Role, scope: Scope, doing: str) -> Callable[..., Caller]:
    """A route dependency: the caller `signed_in` gives, refused (403) before the route runs unless their role is
    at least `role` and their token's scope allows `scope` (`doing` names the route's work in the refusal)."""

    # The dependency as a default, not in an `Annotated` string: this module's annotations are postponed, and
    # FastAPI could not resolve `signed_in`, a local of the caller, from one.
    signed = Depends(signed_in)

    def allowed(caller: Caller = signed) -> Caller:
        Authenticator.allow(caller, role, scope, doing)
        return caller

    return allowed


def _unauthorized(detail: str) -> Problem:
    return Problem(401, "not-signed-in", detail)
