"""The home's people: who may look (viewer), ask Core for work (requester), decide about runs (approver) and manage
people (admin). Each role may do what the ones before it may: viewer < requester < approver < admin.

One append-only stream, `control:people`, holds `person.added` (a person, their role, their public key and who added
them) and `person.removed`; the roster at any point is a fold of it. Adding someone again changes their role and
gives them a new key (the old one stops being valid at that seq). Only an admin adds or removes people, and the last
admin cannot be removed. Bootstrap: while the stream has no event at all, the first authenticated human (the OS user
running a command that needs one) is enrolled as admin, journaled with `bootstrap: true`, so a fresh home works
without setup. A stream that had people and has none left never bootstraps again.

`People` is also what the executor asks before journaling a human decision (`authorize`) and what signs it
(`seal`): the person must be enrolled with a role that decides, and their private key file must be the key the
stream journaled.

A new key never replaces a person's key file before the journal has their enrolment, and a key the journal names
is never lost: it is written beside its place, the enrolment is appended, and only then is it put in place; a
refused enrolment leaves no file (alicorn.anvil.keyfiles says how, crashes included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from alicorn.anvil import keyfiles, signing
from alicorn.anvil.errors import PeopleError, RoleError, SigningKeyError, UnknownPersonError
from alicorn.anvil.identity import Principal, claimed, parse_principal
from alicorn.clock import Clock, default_clock
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PEOPLE_STREAM = "control:people"
Role = Literal["viewer", "requester", "approver", "admin"]
ROLE_NAMES: tuple[str, ...] = get_args(Role)
_RANK = {name: rank for rank, name in enumerate(ROLE_NAMES)}
_MAY = {
    "viewer": "look at runs",
    "requester": "look and ask Core for work",
    "approver": "look, ask, approve and reject",
    "admin": "approve and manage people",
}
#: The roles as a sentence's choice, in their order.
ROLE_CHOICE = "viewer, requester, approver or admin"


@dataclass(frozen=True)
class Key:
    """One public key as the people stream journaled it, and the seqs between which it was valid."""

    person: str
    public_key: str
    fingerprint: str
    added_seq: int
    added_at: str
    ended_seq: int | None = None  # the seq of the removal or re-enrolment that ended it
    ended_at: str | None = None

    def valid_at(self, seq: int) -> bool:
        return self.added_seq <= seq and (self.ended_seq is None or seq < self.ended_seq)


@dataclass(frozen=True)
class Person:
    id: str
    role: Role
    fingerprint: str
    added_by: str
    added_seq: int
    bootstrap: bool = False

    def may(self, role: Role) -> bool:
        return _RANK[self.role] >= _RANK[role]


@dataclass
class Roster:
    """The people stream folded: current people, every key ever journaled (by fingerprint), the last seq."""

    people: dict[str, Person] = field(default_factory=dict)
    keys: dict[str, Key] = field(default_factory=dict)
    seq: int = 0

    def admins(self) -> list[str]:
        return sorted(p.id for p in self.people.values() if p.role == "admin")


def fold_people(events: list[Event], *, until: int | None = None) -> Roster:
    """The roster after the events (up to seq `until`)."""
    roster = Roster()
    for event in events:
        if until is not None and event.seq > until:
            break
        roster.seq = event.seq
        data = event.data
        person = str(data.get("person", ""))
        current = roster.people.get(person)
        if current is not None and event.kind in ("person.added", "person.removed"):
            old = roster.keys[current.fingerprint]
            roster.keys[current.fingerprint] = Key(**{**old.__dict__, "ended_seq": event.seq, "ended_at": event.at})
        if event.kind == "person.added":
            roster.keys[data["fingerprint"]] = Key(person, data["public_key"], data["fingerprint"], event.seq, event.at)
            roster.people[person] = Person(
                person, data["role"], data["fingerprint"], data["by"], event.seq, bool(data.get("bootstrap"))
            )
        elif event.kind == "person.removed":
            roster.people.pop(person, None)
    return roster


def person_id(name: str) -> Principal:
    """A person's name (`alice`, `human:alice`) as a canonical human principal; agents are not people."""
    principal = claimed(name)
    if not principal.is_human:
        raise PeopleError(f"{principal} is an agent; people are humans (`alicorn agent register` is for agents)")
    return principal


def a_role(role: str) -> str:
    """The role with its article, as a sentence says it: "a viewer", "a requester", "an approver", "an admin"."""
    return f"an {role}" if role[:1] in "aeiou" else f"a {role}"


def check_enrolment(name: str, role: str) -> Principal:
    """The person `name` names, once `role` is a role: what an enrolment can be refused for without the journal
    (the command line asks it before a new home enrols its first admin)."""
    if role not in ROLE_NAMES:
        raise PeopleError(f"--role {role!r}: choose {ROLE_CHOICE}; nothing was changed")
    return person_id(name)


class People:
    """The home's people over its journal; private keys under `keys_dir` (see the module docstring)."""

    def __init__(self, store: JournalStore, keys_dir: Path, clock: Clock | None = None) -> None:
        self.store = store
        self.keys_dir = keys_dir
        self._clock = clock

    def _now(self) -> str:
        return (self._clock or default_clock()).now()

    def events(self) -> list[Event]:
        return self.store.read(PEOPLE_STREAM) if self.store.head(PEOPLE_STREAM) is not None else []

    def roster(self) -> Roster:
        return fold_people(self.events())

    def key_file(self, person: str) -> Path:
        return signing.key_path(self.keys_dir, parse_principal(person).name)

    def _settle(self, person: str, roster: Roster | None = None) -> None:
        """Put in place a pending key of `person` the journal enrolled (a crash came between the append and the
        rename), and remove pending keys no journal names (alicorn.anvil.keyfiles)."""
        final = self.key_file(person)
        if not keyfiles.pending(final):
            return
        current = (roster or self.roster()).people.get(parse_principal(person).id)
        keyfiles.settle(final, current.fingerprint if current is not None else None)

    def _private(self, person: Person, roster: Roster | None = None) -> Ed25519PrivateKey:
        """The private key file of `person` (a pending one the journal enrolled is put in place first)."""
        self._settle(person.id, roster)
        return signing.load_private(self.key_file(person.id), person.id)

    # ---- changing who is who -----------------------------------------------------------------------------------

    def bootstrap(self, who: Principal) -> Person | None:
        """Enrol `who` as the first admin if the people stream has never had an event; None otherwise."""
        if self.store.head(PEOPLE_STREAM) is not None:
            return None
        return self._add(who, "admin", by=who, bootstrap=True)

    def add(self, name: str, role: str, *, by: Principal) -> Person:
        """`by` (an admin) enrols `name` with `role` and a new key pair (or changes their role, with a new key)."""
        who = check_enrolment(name, role)
        roster = self.roster()
        self._require_admin(roster, by, f"add {who}")
        current = roster.people.get(who.id)
        if current is not None and current.role == "admin" and role != "admin" and roster.admins() == [who.id]:
            raise PeopleError(f"{who} is the last admin; make someone else admin first; nothing was changed")
        return self._add(who, role, by=by, bootstrap=False, expect=roster.seq)

    def remove(self, name: str, *, by: Principal) -> Person:
        """`by` (an admin) removes `name`: their key stops being valid and its file is deleted."""
        who = person_id(name)
        roster = self.roster()
        self._require_admin(roster, by, f"remove {who}")
        person = roster.people.get(who.id)
        if person is None:
            raise PeopleError(f"{who} is not one of this home's people (`alicorn people list`); nothing was changed")
        if person.role == "admin" and roster.admins() == [who.id]:
            raise PeopleError(
                f"{who} is the last admin, and a home needs one to manage its people; make someone else admin "
                "first (`alicorn people add NAME --role admin`); nothing was changed"
            )
        data = {"person": who.id, "fingerprint": person.fingerprint, "by": by.id}
        self.store.append(PEOPLE_STREAM, [Draft("person.removed", self._now(), data)], expect=roster.seq)
        self.key_file(who.id).unlink(missing_ok=True)
        keyfiles.settle(self.key_file(who.id), None)  # a pending key of theirs is no one's now
        return person

    def _add(self, who: Principal, role: str, *, by: Principal, bootstrap: bool, expect: int = 0) -> Person:
        """Journal `who`'s enrolment with a new key; the key file is put in place only once the journal has it."""
        self._settle(who.id)
        private, public = signing.new_key()
        data: dict[str, Any] = {
            "person": who.id,
            "role": role,
            "public_key": public,
            "fingerprint": signing.fingerprint(public),
            "by": by.id,
        }
        if bootstrap:
            data["bootstrap"] = True
        with keyfiles.PendingKey(self.key_file(who.id), private) as pending:
            try:
                self.store.append(PEOPLE_STREAM, [Draft("person.added", self._now(), data)], expect=expect)
            except BaseException:
                taken = self._journaled(who.id, pending.fingerprint)
                if taken:  # an append in doubt that the journal did take
                    pending.commit()
                elif taken is None:
                    pending.keep()
                raise  # not taken: leaving the block removes the pending key
            pending.commit()
        return self.roster().people[who.id]

    def _journaled(self, person: str, fingerprint: str) -> bool | None:
        """Whether the journal enrolled `person` with the key `fingerprint`, asked after an append that failed; None
        when the journal cannot be read to say."""
        try:
            current = self.roster().people.get(person)
        except Exception:
            return None
        return current is not None and current.fingerprint == fingerprint

    def _require_admin(self, roster: Roster, by: Principal, doing: str) -> None:
        person = roster.people.get(by.id)
        if person is None or person.role != "admin":
            role = f"is {person.role}" if person is not None else "is not one of this home's people"
            admins = ", ".join(roster.admins()) or "none"
            raise PeopleError(
                f"only an admin may {doing}, and {by} {role}; ask an admin ({admins}) to run it; nothing was changed"
            )

    # ---- who may do what ---------------------------------------------------------------------------------------

    def require(self, who: Principal, role: Role, *, doing: str) -> Person:
        """The person `who` with at least `role`; UnknownPersonError or RoleError naming the rule and the fix."""
        person = self.roster().people.get(who.id)
        fix = f"an admin runs `alicorn people add {who.name} --role {role}`"
        if person is None:
            raise UnknownPersonError(
                f"{who} is not one of this home's people, and only enrolled people may {doing}; {fix}. Nothing was done"
            )
        if not person.may(role):
            raise RoleError(
                f"{who} is {a_role(person.role)} (may {_MAY[person.role]}), and to {doing} needs the role {role}; "
                f"{fix}. Nothing was done"
            )
        return person

    def authorize(self, who: str, run_id: str, action: str) -> None:
        """Refuse, before anything is journaled, a decision by someone who may not make it or cannot sign it."""
        principal = parse_principal(who)
        person = self.require(principal, "approver", doing=f"{action} run {run_id}")
        key = self._private(person)
        if signing.fingerprint(signing.public_of(key)) != person.fingerprint:
            raise SigningKeyError(
                f"{self.key_file(person.id)} is not the key journaled for {person.id} (fingerprint "
                f"{person.fingerprint[:23]}…): the file was replaced. An admin re-enrols them with `alicorn people "
                f"add {principal.name} --role {person.role}`; nothing was done"
            )

    def seal(self, who: str, body: dict[str, Any]) -> dict[str, Any]:
        """Sign a decision: `body` is decision_message's fields but fingerprint and people_seq, which this adds."""
        principal = parse_principal(who)
        roster = self.roster()
        person = roster.people.get(principal.id)
        if person is None:
            raise UnknownPersonError(f"{principal} is not one of this home's people; nothing was done")
        key = self._private(person, roster)
        message = signing.decision_message(**body, fingerprint=person.fingerprint, people_seq=roster.seq)
        return {
            "signer": person.id,
            "fingerprint": person.fingerprint,
            "people_seq": roster.seq,
            "signature": signing.sign(key, message),
        }


def authenticate(people: People, asserted: str | None, *, role: str, doing: str) -> tuple[Principal, bool]:
    """The human running this process (the OS user; `asserted` must be them), enrolled with at least `role`.

    On a home that never had people, they are first enrolled as its admin (bootstrap); the flag says so."""
    from alicorn.anvil.identity import acting_human

    me = acting_human(asserted)
    enrolled = people.bootstrap(me) is not None
    if role not in ROLE_NAMES:
        raise PeopleError(f"{role!r} is not a role: choose {ROLE_CHOICE}")
    people.require(me, cast(Role, role), doing=doing)
    return me, enrolled
