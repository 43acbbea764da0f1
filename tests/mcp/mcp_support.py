"""Homes whose alicorn.toml names real MCP servers: `mcp-server-time` from PyPI and our malicious fixture server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from alicorn.plan.dsl import Plan, goal_digest

FIXTURE = Path(__file__).with_name("fixture_server.py")
#: The time server with its local timezone pinned, so its definitions (which name it) are the same on every machine.
TIME_COMMAND = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def write_config(home: Path, servers: dict[str, dict[str, Any]]) -> Path:
    """`home/alicorn.toml` with one `[mcp.servers.NAME]` table per entry (a `tools` entry becomes its subtable)."""
    home.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for name, table in servers.items():
        lines.append(f"[mcp.servers.{name}]")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in table.items() if k != "tools")
        if "tools" in table:
            lines.append(f"[mcp.servers.{name}.tools]")
            lines.extend(f"{k} = {toml_value(v)}" for k, v in table["tools"].items())
    path = home / "alicorn.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def fixture_server(variant: str = "v1", **extra: Any) -> dict[str, Any]:
    return {"command": [sys.executable, str(FIXTURE)], "env": {"FIXTURE_VARIANT": variant}, **extra}


def plan(nodes: list[dict[str, Any]], goal: str = "mcp test") -> Plan:
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes})
