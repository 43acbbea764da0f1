"""`alicorn tokens create|list|revoke` and `alicorn serve` from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.journal.sqlite import SQLiteStore
from alicorn.service.tokens import TOKENS_STREAM
from alicorn.testing.people import act_as
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
