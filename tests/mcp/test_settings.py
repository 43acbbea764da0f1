"""`[mcp.servers.NAME]` in alicorn.toml: what is read, and a malformed section refused naming the field and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.config import ConfigError, load_config


def _load(home: Path, text: str) -> object:
    home.mkdir(parents=True, exist_ok=True)
    (home / "alicorn.toml").write_text(text, encoding="utf-8")
    return load_config(home)


def test_a_server_is_read_with_its_effect_classes(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        '[mcp.servers.time]\ncommand = ["python", "-m", "mcp_server_time"]\nenv = { TZ = "UTC" }\ntimeout_s = 5\n'
        'effect = "read"\n[mcp.servers.time.tools]\nconvert_time = "none"\n'
        '[mcp.servers.web]\nurl = "http://127.0.0.1:8765/mcp"\ntrusted = true\nidempotency = "idempotent"\n',
    )
    servers = config.mcp_servers  # type: ignore[attr-defined]
    time = servers["time"]
    assert time.command == ("python", "-m", "mcp_server_time") and time.transport == "stdio"
    assert time.env == {"TZ": "UTC"} and time.timeout_s == 5.0 and time.trusted is False
    assert time.effect == "read" and time.tools == {"convert_time": "none"} and time.idempotency is None
    web = servers["web"]
    assert web.url == "http://127.0.0.1:8765/mcp" and web.transport == "http" and web.trusted is True
    assert web.idempotency == "idempotent" and web.effect is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[mcp.servers.x]\nurl = "http://h/mcp"\ncommand = ["a"]\n', "exactly one of command"),
        ("[mcp.servers.x]\n", "exactly one of command"),
        ("[mcp.servers.x]\ncommand = []\n", "command must be a non-empty list"),
        ('[mcp.servers.x]\ncommand = "python -m x"\n', "command must be a non-empty list"),
        ('[mcp.servers.x]\nurl = "ftp://h/mcp"\n', "url must be an http"),
        ('[mcp.servers.x]\nurl = "http://user:pw@h/mcp"\n', "without credentials"),
        ('[mcp.servers.x]\ncommand = ["a"]\ntrusted = "yes"\n', "trusted must be true or false"),
        ('[mcp.servers.x]\ncommand = ["a"]\neffect = "harmless"\n', "effect = 'harmless' is not an effect class"),
        ('[mcp.servers.x]\ncommand = ["a"]\n[mcp.servers.x.tools]\nt = "safe"\n', "tools.t = 'safe'"),
        ('[mcp.servers.x]\ncommand = ["a"]\nidempotency = "maybe"\n', "idempotency = 'maybe'"),
        ('[mcp.servers.x]\ncommand = ["a"]\ntimeout_s = 0\n', "timeout_s = 0"),
        ('[mcp.servers.x]\ncommand = ["a"]\nenv = { A = 1 }\n', "env must be a table of strings"),
        ('[mcp.servers.x]\ncommand = ["a"]\nport = 3\n', "unknown key(s) port"),
        ('[mcp.servers."Bad Name"]\ncommand = ["a"]\n', "a server name is lower-case"),
        ("[mcp]\nserver = 1\n", "unknown key(s) server"),
        ('[mcp.servers.x]\nurl = "http://h/mcp"\nenv = { A = "b" }\n', "env applies to a server Alicorn starts"),
    ],
)
def test_a_malformed_section_is_a_config_error_naming_the_field(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    message = str(caught.value)
    assert named in message and "alicorn.toml" in message and "docs/mcp.md" in message


def test_without_an_mcp_section_nothing_is_started(tmp_path: Path) -> None:
    app = open_app(tmp_path)
    try:
        assert app.mcp is None and not [n for n in app.registry.names() if n.startswith("mcp.")]
    finally:
        app.close()


def test_a_malformed_section_refuses_before_the_journal_is_made(tmp_path: Path) -> None:
    (tmp_path / "alicorn.toml").write_text('[mcp.servers.x]\ncommand = ["a"]\neffect = "harmless"\n')
    with pytest.raises(ConfigError):
        open_app(tmp_path)
    assert not (tmp_path / "journal.db").exists()
