"""`alicorn people password NAME`: read twice from the terminal or once from --stdin; only the hash is journaled;
a refused password changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.anvil.passwords import PASSWORDS_STREAM, Passwords
from alicorn.app import open_app
from alicorn.cli import app
from alicorn.testing.people import act_as

runner = CliRunner()


def cli(home: Path, *args: str, stdin: str = "") -> Any:
    return runner.invoke(app, [*args, "--home", str(home)], input=stdin, catch_exceptions=False)


def passwords(home: Path) -> Passwords:
    return Passwords(open_app(home, read_only=True).people)


def test_a_person_sets_their_password_twice_typed_and_signs_in_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")  # the first person of a new home: its admin
    done = cli(home, "people", "password", "dana", stdin="dana-secret-words\ndana-secret-words\n")
    assert done.exit_code == 0, done.output
    assert "human:dana: password set" in done.output
    assert "dana-secret-words" not in done.output
    assert passwords(home).verify("human:dana", "dana-secret-words")
    lines = (home / "journal.db").read_bytes()
    assert b"dana-secret-words" not in lines and b"$argon2id$" in lines


def test_typing_two_different_passwords_or_a_short_one_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")
    cli(home, "people", "add", "erin", "--role", "viewer")
    differ = cli(home, "people", "password", "erin", stdin="erin-first-try!\nerin-other-try!\n")
    assert differ.exit_code == 1 and "the two passwords differ" in differ.output
    short = cli(home, "people", "password", "erin", "--stdin", stdin="short\n")
    assert short.exit_code == 1 and "at least 10" in short.output
    application = open_app(home, read_only=True)
    assert application.store.head(PASSWORDS_STREAM) is None


def test_an_admin_sets_anyones_password_and_others_only_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")
    cli(home, "people", "add", "erin", "--role", "approver")
    assert cli(home, "people", "password", "erin", "--stdin", stdin="erin-from-admin\n").exit_code == 0
    act_as(monkeypatch, "erin")
    refused = cli(home, "people", "password", "dana", "--stdin", stdin="taking-over-dana\n")
    assert refused.exit_code == 1 and "only human:dana or an admin" in refused.output
    assert cli(home, "people", "password", "erin", "--stdin", stdin="erin-own-choice\n").exit_code == 0
    assert passwords(home).verify("human:erin", "erin-own-choice")
    assert not passwords(home).verify("human:dana", "taking-over-dana")
