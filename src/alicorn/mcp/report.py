"""What `alicorn mcp tools` shows and what `alicorn mcp accept` does, over an opened app (no typer here)."""

from __future__ import annotations

from typing import Any

from alicorn.clock import default_clock
from alicorn.errors import AlicornError
from alicorn.mcp.effects import effect_of
from alicorn.mcp.pins import accept, read_book


class McpAcceptError(AlicornError):
    """`alicorn mcp accept` names nothing that can be accepted."""


def tool_rows(app: Any) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """One row per tool of every configured server, and the servers that could not be used (name -> sentence)."""
    found = app.mcp
    if found is None:
        return [], {}
    rows = []
    pins = read_book(app.store).pins
    for status in found.tools:
        settings = app.config.mcp_servers[status.server]
        annotations = status.definition.annotations if status.definition is not None else {}
        withheld = found.withheld.get(status.operation)
        note = "" if status.status == "pinned" and withheld is None else (withheld or "")
        pinned = pins.get((status.server, status.tool))
        changed: list[str] = []
        if status.status == "changed" and pinned is not None and status.definition is not None:
            before, after = pinned.definition.to_json(), status.definition.to_json()
            changed = sorted(part for part in after if after[part] != before.get(part))
        rows.append(
            {
                "server": status.server,
                "tool": status.tool,
                "operation": status.operation,
                "status": status.status,
                "effect": effect_of(settings, status.tool, annotations),
                "pin": status.pinned or status.seen,
                "seen": status.seen,
                "offered": status.operation in app.registry,
                "changed": changed,
                "description": status.definition.description if status.definition is not None else None,
                "note": note,
            }
        )
    return rows, dict(found.problems)


def accept_changes(app: Any, target: str, *, by: str) -> list[str]:
    """Accept the changes of server `target` (or of one tool, `SERVER.TOOL`), journaled as `by`; lines to print."""
    server, _, tool = target.partition(".")
    configured = app.config.mcp_servers
    if server not in configured:
        known = ", ".join(sorted(configured)) or "none"
        raise McpAcceptError(f"{server!r} is not an MCP server of this home (configured: {known}); nothing was changed")
    found = app.mcp
    if found is None or server in found.problems:
        problem = found.problems.get(server, "") if found is not None else ""
        raise McpAcceptError(
            f"MCP server {server!r} is not available, so what it lists cannot be reviewed ({problem}); nothing was "
            "changed"
        )
    statuses = [s for s in found.tools if s.server == server and (not tool or s.tool == tool)]
    if tool and not statuses:
        raise McpAcceptError(
            f"server {server!r} has no tool {tool!r} (`alicorn mcp tools` lists them); nothing was changed"
        )
    pending = [s for s in statuses if s.status != "pinned"]
    if not pending:
        raise McpAcceptError(f"{target}: nothing to accept, every tool is pinned as listed; nothing was changed")
    done = accept(app.store, read_book(app.store), pending, at=default_clock().now(), by=by)
    return [
        f"accepted {s.operation} ({s.status}): "
        + (f"pinned {str(s.seen)[:19]}…" if s.definition is not None else "its pin was dropped")
        + f" by {by}"
        for s in done
    ]
