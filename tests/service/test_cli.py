"""`alicorn tokens create|list|revoke` and `alicorn serve` from the command line."""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from alicorn.anvil.people import PEOPLE_STREAM
from alicorn.cli import app
from alicorn.journal.sqlite import SQLiteStore
from alicorn.service.tokens import TOKENS_STREAM
from alicorn.testing.people import act_as
from tests.service.acting import interrupted_run
from tests.service.conftest import serve_process

runner = CliRunner()


def cli(home: Path, *args: str) -> Any:
    return runner.invoke(app, [*args, "--home", str(home)])


def _token_events(home: Path) -> list[Any]:
    with SQLiteStore(home / "journal.db", read_only=True) as store:
        return store.read(TOKENS_STREAM) if store.head(TOKENS_STREAM) else []


def test_create_list_revoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")  # the OS user: on this new home, its first admin
    assert cli(home, "people", "add", "vic", "--role", "viewer").exit_code == 0
    made = cli(home, "tokens", "create", "--person", "vic", "--expires", "7")
    assert made.exit_code == 0, made.output
    token = made.stdout.strip().splitlines()[-1]
    assert token.startswith("alicorn_") and "shown once" in made.stderr
    [created] = _token_events(home)
    assert token not in created.line and created.data["person"] == "human:vic"
    assert created.data["expires_at"].startswith("2026-12-07")  # ALICORN_NOW pins 2026-11-30 (tests/conftest.py)
    listed = json.loads(cli(home, "tokens", "list", "--json").stdout)
    assert [(t["id"], t["state"]) for t in listed] == [(created.data["id"], "active")]
    assert token not in cli(home, "tokens", "list").stdout
    revoked = cli(home, "tokens", "revoke", created.data["id"])
    assert revoked.exit_code == 0 and "revoked" in revoked.stdout
    assert json.loads(cli(home, "tokens", "list", "--json").stdout)[0]["state"] == "revoked"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--person", "agent:planner"), "is an agent"),
        (("--person", "nobody"), "not one of this home's people"),
        (("--person", "vic", "--scope", "admin"), "choose read or write"),
        (("--person", "vic", "--expires", "0"), "number of days"),
    ],
)
def test_refusals_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], said: str
) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")
    assert cli(home, "people", "add", "vic", "--role", "viewer").exit_code == 0
    result = cli(home, "tokens", "create", *args)
    assert result.exit_code == 1 and said in result.stderr and "Traceback" not in result.output
    assert _token_events(home) == []


def test_only_an_admin_creates_or_revokes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")
    assert cli(home, "people", "add", "vic", "--role", "viewer").exit_code == 0
    made = cli(home, "tokens", "create", "--person", "vic")
    act_as(monkeypatch, "vic")
    refused = cli(home, "tokens", "create", "--person", "vic", "--scope", "write")
    assert refused.exit_code == 1 and "admin" in refused.stderr
    [created] = _token_events(home)
    refused = cli(home, "tokens", "revoke", created.data["id"])
    assert refused.exit_code == 1 and "admin" in refused.stderr
    assert len(_token_events(home)) == 1 and made.exit_code == 0
    act_as(monkeypatch, "dana")
    assert "no token" in cli(home, "tokens", "revoke", "feedfacefeedface").stderr


def test_serve_answers_over_http(tmp_path: Path) -> None:
    with serve_process(tmp_path / "home", "/api/v1/runs", timeout=30) as (base, response):
        assert response.status_code == 401
        assert response.headers["content-type"].startswith("application/problem+json")
        assert httpx.get(f"{base}/openapi.json", timeout=5).json()["info"]["title"] == "Alicorn"


def _files(home: Path) -> dict[str, str]:
    """Every file under `home` with the hash of its bytes: equal before and after a command that changed nothing."""
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest() for p in home.rglob("*") if p.is_file()
    }


def test_serve_on_a_port_in_use_or_a_host_it_cannot_bind_says_so_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The address is bound before the home is opened: the service neither creates its files nor resumes the
    home's interrupted run when it cannot listen (a port in use: the environment, exit 5; a bad --host: exit 1)."""
    home = tmp_path / "home"
    interrupted_run(home, seconds=30)
    before = _files(home)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = cli(home, "serve", "--port", port)
        assert busy.exit_code == 5, busy.output
        assert f"port {port} on 127.0.0.1 is in use; choose another --port" in busy.stderr
        assert "alicorn serve: http" not in busy.output and "Traceback" not in busy.output
    foreign = cli(home, "serve", "--host", "192.0.2.1", "--port", port)  # TEST-NET-1: no machine's own address
    assert foreign.exit_code == 1 and "--host 192.0.2.1 is not an address of this machine" in foreign.stderr

    def no_such_name(*_: object, **__: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)  # a resolver that knows no such name, without DNS
    unknown = cli(home, "serve", "--host", "999.1.1.1", "--port", port)
    assert unknown.exit_code == 1, unknown.output
    assert "--host '999.1.1.1' is not an address this machine can resolve" in unknown.stderr
    assert _files(home) == before  # no service files, no run.resumed: the interrupted run waits as it was


def test_a_token_for_someone_else_on_a_home_without_people_enrols_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused `tokens create` is refused before a new home enrols its first admin: nothing was changed is true."""
    act_as(monkeypatch, "dana")
    fresh = tmp_path / "fresh"
    refused = cli(fresh, "tokens", "create", "--person", "nobody")
    assert refused.exit_code == 1 and "human:nobody is not one of this home's people" in refused.stderr
    assert "first person" not in refused.stderr and not fresh.exists()
    home = tmp_path / "home"
    SQLiteStore(home / "journal.db").close()  # a home with a journal and no people yet
    for args in (("--person", "nobody"), ("--person", "dana", "--scope", "admin"), ("--person", "dana", "--as", "x")):
        refused = cli(home, "tokens", "create", *args)
        assert refused.exit_code == 1 and "first person" not in refused.stderr, refused.output
    with SQLiteStore(home / "journal.db", read_only=True) as store:
        assert store.head(PEOPLE_STREAM) is None
    assert not (home / "keys").exists()
    mine = cli(home, "tokens", "create", "--person", "dana")  # the caller: enrolled as the first admin, then a token
    assert mine.exit_code == 0 and "human:dana is this home's first person" in mine.stderr
