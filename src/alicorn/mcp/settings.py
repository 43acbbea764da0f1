"""`[mcp.servers.NAME]` in alicorn.toml: which external MCP servers a home uses, and what their tools may do.

    [mcp.servers.time]
    command = ["python", "-m", "mcp_server_time", "--local-timezone", "UTC"]   # stdio: a process Alicorn starts
    # url = "http://127.0.0.1:8765/mcp"                                       # or streamable HTTP
    env = { TZ = "UTC" }                   # extra environment for a stdio server
    trusted = false                        # whether the server's annotations may lower an effect class
    effect = "read"                        # the class of every tool not named below (else external_transmission)
    idempotency = "repeatable"             # likewise (else unsafe)
    timeout_s = 30                         # per call; starting and listing tools get `start_timeout_s`
    [mcp.servers.time.tools]
    get_current_time = "read"              # a tool's effect class: the operator's word, never the server's

This module reads the table only (no MCP import, nothing started): it is part of reading the configuration, so a
malformed section refuses every command before anything is touched. It raises ValueError with the sentence;
alicorn.config turns it into a ConfigError naming the file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, cast, get_args

from alicorn.plan.dsl import EFFECT_ORDER, EffectClass, IdempotencyClass

#: A server's name: it becomes part of operation names (`mcp.NAME.TOOL`), so it is kept to a safe alphabet.
SERVER_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_KEYS = {"command", "url", "env", "trusted", "effect", "idempotency", "timeout_s", "start_timeout_s", "tools"}
_IDEMPOTENCY: tuple[str, ...] = get_args(IdempotencyClass)
_EFFECTS = ", ".join(EFFECT_ORDER)


@dataclass(frozen=True)
class ServerSettings:
    """One configured MCP server: how to reach it and the operator's effect classes for its tools."""

    name: str
    command: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    trusted: bool = False
    #: The class of a tool the operator did not name (None: external_transmission).
    effect: EffectClass | None = None
    idempotency: IdempotencyClass | None = None
    tools: dict[str, EffectClass] = field(default_factory=dict)
    timeout_s: float = 30.0
    start_timeout_s: float = 20.0

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    @property
    def target(self) -> str:
        """What the operator wrote to reach it (the command line or the URL), for messages."""
        return " ".join(self.command) if self.command else str(self.url)


def parse_mcp(section: object) -> dict[str, ServerSettings]:
    """The `[mcp]` table as settings by server name; ValueError naming the field and the fix."""
    if not isinstance(section, dict):
        raise ValueError("[mcp] must be a table with [mcp.servers.NAME] tables")
    unknown = set(section) - {"servers"}
    if unknown:
        raise ValueError(f"[mcp] has unknown key(s) {', '.join(sorted(unknown))}; only [mcp.servers.NAME] tables")
    servers = section.get("servers", {})
    if not isinstance(servers, dict):
        raise ValueError("[mcp] servers must be tables: [mcp.servers.NAME] with command = [...] or url = ...")
    return {name: _server(name, table) for name, table in servers.items()}


def _server(name: str, table: object) -> ServerSettings:
    where = f"[mcp.servers.{name}]"
    if not SERVER_NAME.fullmatch(name):
        raise ValueError(f"{where}: a server name is lower-case letters, digits, _ and - (at most 32), like `time`")
    if not isinstance(table, dict):
        raise ValueError(f'{where} must be a table with command = ["..."] or url = "http://.../mcp"')
    unknown = set(table) - _KEYS
    if unknown:
        raise ValueError(f"{where} has unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(_KEYS))}")
    command, url = table.get("command"), table.get("url")
    if (command is None) == (url is None):
        raise ValueError(f'{where}: give exactly one of command = ["program", "arg", ...] (stdio) or url = "http://…"')
    if command is not None and (
        not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command)
    ):
        raise ValueError(f'{where} command must be a non-empty list of strings, like ["python", "-m", "my_server"]')
    if url is not None and (not isinstance(url, str) or not re.fullmatch(r"https?://[^\s/@]+(/\S*)?", url)):
        raise ValueError(
            f'{where} url must be an http:// or https:// URL without credentials, like "http://127.0.0.1:8765/mcp"'
        )
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise ValueError(f'{where} env must be a table of strings, like env = {{ TZ = "UTC" }}')
    if env and url is not None:
        raise ValueError(f"{where} env applies to a server Alicorn starts (command); remove it for a url")
    trusted = table.get("trusted", False)
    if not isinstance(trusted, bool):
        raise ValueError(f"{where} trusted must be true or false")
    tools = table.get("tools", {})
    if not isinstance(tools, dict):
        raise ValueError(f'{where} tools must be a table: [mcp.servers.{name}.tools] TOOL = "read"')
    classes = {tool: _effect(f"{where} tools.{tool}", value) for tool, value in tools.items()}
    effect = table.get("effect")
    idempotency = table.get("idempotency")
    if idempotency is not None and idempotency not in _IDEMPOTENCY:
        raise ValueError(f"{where} idempotency = {idempotency!r}: choose one of {', '.join(_IDEMPOTENCY)}")
    return ServerSettings(
        name=name,
        command=tuple(command or ()),
        url=url,
        env=dict(env),
        trusted=trusted,
        effect=None if effect is None else _effect(f"{where} effect", effect),
        idempotency=cast(IdempotencyClass | None, idempotency),
        tools=classes,
        timeout_s=_seconds(f"{where} timeout_s", table.get("timeout_s", 30.0)),
        start_timeout_s=_seconds(f"{where} start_timeout_s", table.get("start_timeout_s", 20.0)),
    )


def _effect(where: str, value: Any) -> EffectClass:
    if value not in EFFECT_ORDER:
        raise ValueError(f"{where} = {value!r} is not an effect class; choose one of {_EFFECTS}")
    return cast(EffectClass, value)


def _seconds(where: str, value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 < value <= 3600
    ):
        raise ValueError(f"{where} = {value!r}: give a number of seconds between 0 and 3600, like 30")
    return float(value)
