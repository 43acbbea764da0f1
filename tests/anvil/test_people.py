"""The home's people: bootstrap, roles, admin-only changes, and the `alicorn people` commands."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.anvil.errors import PeopleError, RoleError, UnknownPersonError
from alicorn.anvil.identity import claimed
from alicorn.anvil.people import PEOPLE_STREAM, People, authenticate
from alicorn.cli import app
from alicorn.errors import ReadOnlyStorageError, StorageIOError
from alicorn.journal.events import Draft, Event
from alicorn.journal.memory import InMemoryStore
from alicorn.testing.people import act_as

ROOT = claimed("root")


def _people(tmp_path: Path) -> People:
    return People(InMemoryStore(), tmp_path / "keys")


def test_the_first_authenticated_human_of_a_new_home_is_its_admin_and_only_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    people = _people(tmp_path)
    act_as(monkeypatch, "Root")
    me, enrolled = authenticate(people, None, role="approver", doing="approve runs")
    assert (me.id, enrolled) == ("human:root", True)
    first = people.store.read(PEOPLE_STREAM)[0]
    assert first.kind == "person.added" and first.data["bootstrap"] is True and first.data["role"] == "admin"
    act_as(monkeypatch, "eve")  # a second OS user is not enrolled by running a command
    with pytest.raises(UnknownPersonError, match="human:eve is not one of this home's people"):
        authenticate(people, None, role="approver", doing="approve runs")
    assert len(people.store.read(PEOPLE_STREAM)) == 1


def test_roles_and_who_may_change_them(tmp_path: Path) -> None:
    people = _people(tmp_path)
    people.bootstrap(ROOT)
    people.add("vic", "viewer", by=ROOT)
    with pytest.raises(RoleError, match=r"human:vic is a viewer .* needs the role approver"):
        people.require(claimed("vic"), "approver", doing="approve run r")
    with pytest.raises(PeopleError, match=r"only an admin may add human:zed, and human:vic is viewer"):
        people.add("zed", "approver", by=claimed("vic"))
    old = people.roster().people["human:vic"].fingerprint
    people.add("VIC", "approver", by=ROOT)  # again: a new role and a new key; the old key ends here
    roster = people.roster()
    assert roster.people["human:vic"].role == "approver" and roster.people["human:vic"].fingerprint != old
    assert roster.keys[old].ended_seq == roster.people["human:vic"].added_seq
    with pytest.raises(PeopleError, match="choose viewer, requester, approver or admin"):
        people.add("zed", "boss", by=ROOT)
    with pytest.raises(PeopleError, match="is an agent"):
        people.add("agent:planner", "approver", by=ROOT)


def test_a_requester_may_ask_but_not_decide(tmp_path: Path) -> None:
    """viewer < requester < approver < admin: a requester passes what needs a requester or a viewer, and is refused
    what needs an approver, with the fix naming the role it needs."""
    people = _people(tmp_path)
    people.bootstrap(ROOT)
    people.add("rita", "requester", by=ROOT)
    people.add("vic", "viewer", by=ROOT)
    rita = claimed("rita")
    assert people.require(rita, "requester", doing="talk to Core").role == "requester"
    assert people.require(rita, "viewer", doing="read runs").role == "requester"
    with pytest.raises(RoleError, match=r"human:rita is a requester \(may look and ask Core for work\), and to "):
        people.require(rita, "approver", doing="approve run r")
    with pytest.raises(RoleError, match=r"human:vic is a viewer .* needs the role requester; an admin runs "
                       r"`alicorn people add vic --role requester`"):  # fmt: skip
        people.require(claimed("vic"), "requester", doing="talk to Core")
    approver = people.add("abe", "approver", by=ROOT)
    assert approver.may("requester") and not people.roster().people["human:vic"].may("requester")


def test_removal_ends_the_key_and_the_last_admin_stays(tmp_path: Path) -> None:
    people = _people(tmp_path)
    people.bootstrap(ROOT)
    with pytest.raises(PeopleError, match="human:root is the last admin"):
        people.remove("root", by=ROOT)
    people.add("bob", "approver", by=ROOT)
    fingerprint = people.roster().people["human:bob"].fingerprint
    assert people.key_file("human:bob").exists()
    people.remove("Bob", by=ROOT)
    roster = people.roster()
    assert "human:bob" not in roster.people and roster.keys[fingerprint].ended_seq == roster.seq
    assert not people.key_file("human:bob").exists()
    with pytest.raises(PeopleError, match="human:bob is not one of this home's people"):
        people.remove("bob", by=ROOT)
    # A home whose people were all enrolled once never bootstraps again.
    assert people.bootstrap(claimed("mallory")) is None


def _cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["people", *args, "--home", str(home)], catch_exceptions=False)


def test_the_people_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    assert "no people yet" in _cli(home, "list").stdout and not home.exists()  # listing creates nothing
    act_as(monkeypatch, "alice")
    added = _cli(home, "add", "bob", "--role", "viewer")
    assert added.exit_code == 0 and "human:bob: viewer" in added.stdout and "(mode 0600)" in added.stdout
    assert "human:alice is this home's first person: enrolled as admin" in added.stderr
    asker = _cli(home, "add", "rita", "--role", "requester")
    assert asker.exit_code == 0 and "human:rita: requester" in asker.stdout
    listed = _cli(home, "list")
    assert "human:alice: admin (first admin)" in listed.stdout and "human:bob: viewer" in listed.stdout
    assert "human:rita: requester" in listed.stdout
    act_as(monkeypatch, "bob")
    refused = _cli(home, "add", "carol")
    assert refused.exit_code == 1 and "needs the role admin" in refused.stderr
    assert "alicorn people add bob --role admin" in refused.stderr
    assert _cli(home, "remove", "alice").exit_code == 1
    act_as(monkeypatch, "alice")
    assert _cli(home, "remove", "bob").exit_code == 0
    assert "human:bob" not in _cli(home, "list").stdout
    mismatch = _cli(home, "add", "carol", "--as", "bob")
    assert mismatch.exit_code == 1 and "runs as the OS user 'alice'" in mismatch.stderr


class _Failing(InMemoryStore):
    """A journal whose appends fail while `failing` says how: "refused" (nothing written: a read-only or locked
    journal) or "in doubt" (written, then the answer lost: a PostgreSQL commit whose reply never came)."""

    failing: str | None = None

    def append(self, stream: str, drafts: Sequence[Draft], *, expect: int) -> list[Event]:
        if self.failing == "refused":
            raise ReadOnlyStorageError("journal.db is read-only; nothing was written")
        events = super().append(stream, drafts, expect=expect)
        if self.failing == "in doubt":
            raise StorageIOError("the commit's answer was lost; the append is in doubt")
        return events


def _key_files(keys: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in keys.iterdir()} if keys.exists() else {}


def test_a_refused_enrolment_writes_no_key_and_keeps_the_current_one(tmp_path: Path) -> None:
    """The new key is put in place only once the journal has the enrolment: a refused append (a read-only or
    locked journal) leaves no file, and a re-enrolment that fails leaves the journaled key as it was."""
    store = _Failing()
    store.failing = "refused"
    people = People(store, tmp_path / "keys")
    with pytest.raises(ReadOnlyStorageError):
        people.bootstrap(ROOT)
    assert not (tmp_path / "keys").exists()  # not even the folder
    store.failing = None
    people.bootstrap(ROOT)
    before = _key_files(tmp_path / "keys")
    store.failing = "refused"
    for attempt in (lambda: people.add("alice", "approver", by=ROOT), lambda: people.add("root", "admin", by=ROOT)):
        with pytest.raises(ReadOnlyStorageError):
            attempt()
        assert _key_files(tmp_path / "keys") == before  # root's journaled key, and nothing else
    store.failing = None
    people.authorize("human:root", "run-x", "approve")  # root's key still matches the journal


def test_an_enrolment_the_journal_took_never_loses_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An append in doubt that the journal did take keeps its key in place; a crash between the append and the
    key's rename leaves it beside its place, and the next use of the key puts it there."""
    store = _Failing()
    people = People(store, tmp_path / "keys")
    people.bootstrap(ROOT)
    store.failing = "in doubt"
    with pytest.raises(StorageIOError):
        people.add("alice", "approver", by=ROOT)
    store.failing = None
    assert sorted(_key_files(tmp_path / "keys")) == ["alice.ed25519", "root.ed25519"]
    people.authorize("human:alice", "run-x", "approve")  # the key file is the journaled one

    rename = os.replace

    def crash_at_the_key(source: Any, target: Any) -> None:
        if str(target).endswith("bob.ed25519"):
            raise KeyboardInterrupt  # the process dies here: the journal has bob, his key is still pending
        rename(source, target)

    monkeypatch.setattr(os, "replace", crash_at_the_key)
    with pytest.raises(KeyboardInterrupt):
        people.add("bob", "approver", by=ROOT)
    monkeypatch.setattr(os, "replace", rename)
    assert "human:bob" in people.roster().people and "bob.ed25519" not in _key_files(tmp_path / "keys")
    people.authorize("human:bob", "run-x", "approve")  # settled: the pending key was the journaled one
    assert sorted(_key_files(tmp_path / "keys")) == ["alice.ed25519", "bob.ed25519", "root.ed25519"]
    stale = tmp_path / "keys" / "carol.ed25519.0123456789abcdef.new"  # died before its append: named by no journal
    stale.write_bytes(b"-----BEGIN PRIVATE KEY-----")
    people.add("carol", "viewer", by=ROOT)
    assert sorted(_key_files(tmp_path / "keys")) == ["alice.ed25519", "bob.ed25519", "carol.ed25519", "root.ed25519"]


def test_an_enrolment_in_progress_keeps_its_pending_key(tmp_path: Path) -> None:
    """Settling removes only the pending keys it can lock: one held by an enrolment in progress (this process or
    another) is not taken for the leftover of a dead one."""
    from alicorn.anvil import keyfiles, signing

    final = tmp_path / "keys" / "dave.ed25519"
    with keyfiles.PendingKey(final, signing.new_key()[0]) as pending:
        keyfiles.settle(final, None)
        assert pending.path.exists()
    assert not pending.path.exists() and not (tmp_path / "keys").exists()  # left without a commit: discarded


def test_a_bad_role_or_person_is_refused_before_a_new_home_enrols_anyone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "alice")
    for args, said in ((("zed", "--role", "boss"), "choose viewer, requester"), (("agent:x",), "is an agent")):
        refused = _cli(home, "add", *args)
        assert refused.exit_code == 1 and said in refused.stderr and "first person" not in refused.stderr
    assert not home.exists()


def test_a_role_is_said_with_its_article() -> None:
    # "human:abe is a approver" was the service's refusal
    from alicorn.anvil.people import ROLE_NAMES, a_role

    assert [a_role(r) for r in ROLE_NAMES] == ["a viewer", "a requester", "an approver", "an admin"]
