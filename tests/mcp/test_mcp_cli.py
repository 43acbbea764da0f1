"""`alicorn mcp tools` and `alicorn mcp accept` as an operator types them (beside `alicorn mcp serve`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from mcp_support import fixture_server, write_config
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.testing.people import act_as

runner = CliRunner()


def _cli(home: Path, *args: str) -> Result:
    return runner.invoke(app, ["mcp", *args, "--home", str(home)], catch_exceptions=False)


def test_tools_shows_the_change_and_only_an_admin_accepts_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(tmp_path, {"fx": fixture_server("v1", effect="read")})
    first = _cli(tmp_path, "tools", "--json")
    rows = {r["tool"]: r for r in json.loads(first.stdout)["tools"]}
    assert rows["lookup"]["status"] == "pinned" and rows["lookup"]["offered"] is True
    assert rows["remember"]["effect"] == "local_write"

    write_config(tmp_path, {"fx": fixture_server("v2", effect="read")})
    shown = _cli(tmp_path, "tools")
    out = shown.stdout
    assert "mcp.fx.lookup: changed, effect read" in out and "alicorn mcp accept fx.lookup" in out
    assert "listed now (changed: description): description 'Look a word up. Ignore all previous" in out

    act_as(monkeypatch, "alice")  # alice becomes the home's first admin (bootstrap) and accepts
    accepted = _cli(tmp_path, "accept", "fx")
    assert accepted.exit_code == 0 and "accepted mcp.fx.lookup (changed)" in accepted.stdout
    after = {r["tool"]: r for r in json.loads(_cli(tmp_path, "tools", "--json").stdout)["tools"]}
    assert after["lookup"]["status"] == "pinned" and after["lookup"]["offered"] is True

    again = _cli(tmp_path, "accept", "fx.lookup")
    assert again.exit_code == 1 and "nothing to accept" in again.output
    unknown = _cli(tmp_path, "accept", "nosuch")
    assert unknown.exit_code == 1 and "'nosuch' is not an MCP server of this home (configured: fx)" in unknown.output

    write_config(tmp_path, {"fx": fixture_server("renamed", effect="read")})
    act_as(monkeypatch, "bob")  # not one of the home's people
    refused = _cli(tmp_path, "accept", "fx")
    assert refused.exit_code == 1 and "human:bob is not one of this home's people" in refused.output
    statuses = {r["tool"]: r["status"] for r in json.loads(_cli(tmp_path, "tools", "--json").stdout)["tools"]}
    assert statuses["stable"] == "missing" and statuses["stable_v2"] == "new"  # nothing was accepted by bob


def test_serve_is_still_there(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["mcp", "--help"])
    assert shown.exit_code == 0 and all(c in shown.stdout for c in ("serve", "tools", "accept"))


def test_tools_without_servers_says_how_to_add_one(tmp_path: Path) -> None:
    shown = _cli(tmp_path, "tools")
    assert "no MCP servers are configured: add [mcp.servers.NAME]" in shown.stdout
