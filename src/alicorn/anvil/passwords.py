"""Passwords of the home's people, for signing in to `alicorn serve` from a browser.

One append-only stream, `control:passwords`, holds `password.set` (the person, the argon2id hash of their password
and who set it) and `password.cleared`. Never the password: only the hash (argon2id, with argon2-cffi's default
cost and a random salt), so a copy of the journal does not give anyone's password away, and checking one costs tens
of milliseconds, which makes guessing slow. The passwords in force are a fold of the stream.

A person sets their own password; an admin may set anyone's. Only people enrolled in the home (`alicorn people`) have
one, and removing a person from the home makes theirs useless (the service checks the roster at every sign-in).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from alicorn.anvil.errors import PeopleError
from alicorn.anvil.identity import Principal
from alicorn.anvil.people import People, person_id
from alicorn.clock import Clock, default_clock
from alicorn.journal.events import Draft, Event

PASSWORDS_STREAM = "control:passwords"
MIN_LENGTH = 10
MAX_LENGTH = 1024
_HASHER = PasswordHasher()  # argon2id, the library's current recommended cost
#: Verified for a person with no password, so an unknown name costs as long as a wrong password.
_DUMMY = _HASHER.hash("alicorn: no password here")


class PasswordError(PeopleError):
    """A password cannot be set as asked; nothing was changed."""


@dataclass
class PasswordSet:
    """The stream folded: each person's current argon2id hash, and the last seq."""

    hashes: dict[str, str] = field(default_factory=dict)
    seq: int = 0


def fold_passwords(events: list[Event]) -> PasswordSet:
    found = PasswordSet()
    for event in events:
        found.seq = event.seq
        person = str(event.data.get("person", ""))
        if event.kind == "password.set":
            found.hashes[person] = str(event.data["hash"])
        elif event.kind == "password.cleared":
            found.hashes.pop(person, None)
    return found


def check_strength(password: str) -> None:
    """Refuse a password too short or too long to be worth hashing (before anything is journaled)."""
    if len(password) < MIN_LENGTH:
        raise PasswordError(
            f"the password has {len(password)} characters; use at least {MIN_LENGTH} (a few words make a good one); "
            "nothing was changed"
        )
    if len(password) > MAX_LENGTH:
        raise PasswordError(
            f"the password is longer than {MAX_LENGTH} characters; use a shorter one; nothing was changed"
        )


class Passwords:
    """The people's passwords over the home's journal; `people` is the roster they must be on."""

    def __init__(self, people: People, clock: Clock | None = None) -> None:
        self.people = people
        self.store = people.store
        self._clock = clock

    def current(self) -> PasswordSet:
        events = self.store.read(PASSWORDS_STREAM) if self.store.head(PASSWORDS_STREAM) is not None else []
        return fold_passwords(events)

    def set(self, name: str, password: str, *, by: Principal) -> str:
        """`by` sets the password of `name` (themselves, or anyone when `by` is an admin); returns the person's id."""
        who = person_id(name)
        check_strength(password)
        roster = self.people.roster()
        if who.id not in roster.people:
            raise PasswordError(
                f"{who} is not one of this home's people; enrol them first (`alicorn people add {who.name}`); "
                "nothing was changed"
            )
        setter = roster.people.get(by.id)
        if by.id != who.id and (setter is None or setter.role != "admin"):
            raise PasswordError(
                f"only {who} or an admin may set the password of {who}, and {by} is neither; nothing was changed"
            )
        found = self.current()
        data = {"person": who.id, "hash": _HASHER.hash(password), "by": by.id}
        now = (self._clock or default_clock()).now()
        self.store.append(PASSWORDS_STREAM, [Draft("password.set", now, data)], expect=found.seq)
        return who.id

    def verify(self, person: str, password: str) -> bool:
        """Whether `password` is the current password of `person` (an id such as `human:ada`). An unknown person
        or one without a password costs as much as a wrong password, so timing does not tell who has one."""
        stored = self.current().hashes.get(person)
        try:
            return bool(_HASHER.verify(stored or _DUMMY, password)) and stored is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
