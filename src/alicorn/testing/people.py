"""People for tests and scripted homes: enrol humans with roles and keys, and act as one of them.

Approvals through an App are authenticated and signed, so a test that approves as `human:alice` first enrols
alice in the home (`enrol(app, "alice")`), and a test driving the CLI acts as her (`act_as(monkeypatch, "alice")`,
which replaces the one OS-user lookup, alicorn.anvil.identity.os_user).
"""

from __future__ import annotations

from typing import Any

from alicorn.anvil import identity
from alicorn.anvil.identity import claimed
from alicorn.anvil.people import People

#: The admin a test home is bootstrapped with when a test enrols people into a home that has none.
TEST_ADMIN = "human:test-admin"


def people_of(target: Any) -> People:
    """`target`'s people: an App (its `people`) or a People."""
    return target if isinstance(target, People) else target.people


def enrol(target: Any, *names: str, role: str = "approver") -> People:
    """Enrol each of `names` with `role` (bootstrapping TEST_ADMIN on a home without people); returns People."""
    people = people_of(target)
    admin = claimed(TEST_ADMIN)
    people.bootstrap(admin)
    for name in names:
        current = people.roster().people.get(claimed(name).id)
        if current is None or current.role != role:  # enrolling twice the same is enrolling once
            people.add(name, role, by=admin)
    return people


def act_as(monkeypatch: Any, name: str) -> None:
    """Make this process's OS user `name` for the rest of the test (pytest's monkeypatch undoes it)."""
    login = name.removeprefix("human:")
    monkeypatch.setattr(identity, "os_user", lambda: login)
