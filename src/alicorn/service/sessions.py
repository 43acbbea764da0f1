"""Browser sign-in: a password checked against `control:passwords`, then a session in a signed cookie.

The cookie holds the person, a random session id and when it was issued, as base64 JSON followed by an HMAC-SHA256
of it under the home's session key (`<home>/service-session.key`, 32 random bytes, mode 0600, made on first use):
the service keeps no session table, and a cookie whose bytes were changed is simply not a session. A session lasts
`max_age_s` on the injected clock. Signing out journals the session's end in `control:sessions` (its id's SHA-256:
alicorn.service.signin_state), so a copy of the cookie stops working too, also after `alicorn serve` restarts.

Every state-changing form carries a CSRF token: the HMAC of the session id under the same key, in a hidden field,
compared in constant time. The sign-in form, before there is a session, carries a random token that must equal the
one in a short-lived `alicorn_signin` cookie (double submit). A POST without the right token is refused (403) before
anything is done.

A wrong password gets one sentence that does not say whether the name exists, after `failure_delay_s`; after
`max_failures` wrong passwords in a row a name is locked for `lockout_s` on the injected clock (counted per name in
`<home>/service-signin.db`, alicorn.service.signin_state: a restart keeps the count and the lock).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from alicorn.anvil.errors import AnvilError
from alicorn.anvil.passwords import Passwords
from alicorn.anvil.people import People, Person
from alicorn.clock import Clock, format_time, parse_time
from alicorn.service.signin_state import EndedSessions, SignInFailures

KEY_FILE = "service-session.key"
COOKIE = "alicorn_session"
SIGNIN_COOKIE = "alicorn_signin"
MAX_AGE_S = 12 * 3600


class SignInRefused(Exception):
    """A sign-in that did not succeed; the sentence is what the person is shown."""


@dataclass(frozen=True)
class Session:
    """A signed-in person: their id, the session's id and when it began (an `at` string)."""

    person: str
    sid: str
    issued_at: str


def load_key(home: Path) -> bytes:
    """The home's session key, made (mode 0600) if it is missing."""
    path = home / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_bytes()
        if len(key) < 32:
            raise AnvilError(
                f"{path} holds {len(key)} bytes, not a session key; delete it (everyone signs in again) and restart"
            ) from None
        return key
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
    return key


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Sign-in, sessions and CSRF tokens for the home whose people are `people` (see the module docstring)."""

    def __init__(
        self,
        people: People,
        key: bytes,
        clock: Clock,
        *,
        max_age_s: int = MAX_AGE_S,
        max_failures: int = 5,
        lockout_s: float = 60.0,
        failure_delay_s: float = 0.5,
        failures: SignInFailures | None = None,
    ) -> None:
        self.people = people
        self.passwords = Passwords(people, clock)
        self.clock = clock
        self.max_age_s = max_age_s
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.failure_delay_s = failure_delay_s
        self._key = key
        self._guard = threading.Lock()  # one sign-in's count is read and written at a time
        #: Wrong passwords per name (`failures`: the home's file; None: in memory, for a home-less Sessions).
        self.failures = failures if failures is not None else SignInFailures(None)
        self.ended = EndedSessions(people.store, clock)

    def _mac(self, purpose: str, payload: bytes) -> bytes:
        return hmac.new(self._key, purpose.encode() + b"\0" + payload, hashlib.sha256).digest()

    # ---- signing in and out --------------------------------------------------------------------------------------

    def sign_in(self, name: str, password: str) -> Session:
        """A new session for `name` if `password` is theirs; SignInRefused with the sentence to show otherwise."""
        key = name.strip().lower()
        now = self.clock.now()
        count, until = self.failures.get(key)
        if until > now:
            wait = (parse_time(until) - parse_time(now)).total_seconds()
            raise SignInRefused(f"too many wrong passwords for this name; wait {int(wait) + 1} seconds and try again")
        person = self._person(name)
        if person is None or not self.passwords.verify(person.id, password):
            self.clock.sleep(self.failure_delay_s)
            with self._guard:
                count = self.failures.get(key)[0] + 1  # read again: another try may have counted meanwhile
                locked = count >= self.max_failures
                until = format_time(parse_time(now) + timedelta(seconds=self.lockout_s)) if locked else ""
                self.failures.put(key, 0 if locked else count, until, now)
            raise SignInRefused(
                "the name or the password is not right; try again (a person sets theirs with "
                "`alicorn people password NAME`)"
            )
        if count:
            self.failures.clear(key)
        return Session(person.id, secrets.token_hex(16), self.clock.now())

    def _person(self, name: str) -> Person | None:
        try:
            from alicorn.anvil.people import person_id

            who = person_id(name.strip())
        except AnvilError:
            return None
        return self.people.roster().people.get(who.id)

    def sign_out(self, session: Session) -> None:
        """End `session` for good: journaled, so neither the cookie nor a copy of it works again."""
        self.ended.end(session.sid, session.person, session.issued_at)

    # ---- the cookie ----------------------------------------------------------------------------------------------

    def cookie(self, session: Session) -> str:
        payload = json.dumps([session.person, session.sid, session.issued_at], separators=(",", ":")).encode()
        return f"{_b64(payload)}.{_b64(self._mac('session', payload))}"

    def read(self, cookie: str | None) -> tuple[Session, Person] | None:
        """The session a cookie holds and its person, or None: unsigned, altered, expired, signed out, or its
        person no longer one of the home's people."""
        if not cookie or cookie.count(".") != 1:
            return None
        body, mac = cookie.split(".")
        try:
            payload, presented = _unb64(body), _unb64(mac)
            person, sid, issued = json.loads(payload)
        except (ValueError, TypeError):
            return None
        if not hmac.compare_digest(presented, self._mac("session", payload)):
            return None
        if self.ended.is_ended(sid):
            return None
        try:
            ends = format_time(parse_time(issued) + timedelta(seconds=self.max_age_s))
        except ValueError:
            return None
        if self.clock.now() >= ends:
            return None
        found = self.people.roster().people.get(person)
        return (Session(person, sid, issued), found) if found is not None else None

    # ---- CSRF ----------------------------------------------------------------------------------------------------

    def csrf(self, session: Session) -> str:
        """The token every form of this session carries."""
        return _b64(self._mac("csrf", session.sid.encode()))

    def csrf_ok(self, session: Session, presented: str | None) -> bool:
        return bool(presented) and hmac.compare_digest(self.csrf(session).encode(), (presented or "").encode())

    @staticmethod
    def signin_token() -> str:
        return secrets.token_urlsafe(24)

    @staticmethod
    def signin_ok(cookie: str | None, presented: str | None) -> bool:
        return (
            bool(cookie)
            and bool(presented)
            and hmac.compare_digest((cookie or "").encode(), (presented or "").encode())
        )
