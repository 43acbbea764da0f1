"""`alicorn mcp tools` and `alicorn mcp accept`, added to the `mcp` group beside `alicorn mcp serve`.

Only typer is imported here; the MCP SDK loads when a command opens the home (and only if alicorn.toml names MCP
servers). `tools` opens the home like any command that may write (so a first use pins) and lists every configured
server's tools with their effect, pin and status; `accept` is an admin's decision, journaled in `control:mcp`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

Home = Annotated[Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home: journal.db, alicorn.toml.")]


def register(group: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any]) -> None:
    """Add `tools` and `accept` to the `mcp` group (the helpers come from alicorn.cli)."""

    @group.command("tools")
    @guard
    def mcp_tools(home: Home = Path(".alicorn"), as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """The configured MCP servers' tools: operation, effect, pin and status (pinned, changed, new, missing)."""
        from alicorn.mcp.report import tool_rows

        application = open_app(home, create=True)
        rows, problems = tool_rows(application)
        if as_json:
            typer.echo(json.dumps({"tools": rows, "problems": problems}, ensure_ascii=False, indent=2))
            return
        if not rows and not problems:
            typer.echo("no MCP servers are configured: add [mcp.servers.NAME] to alicorn.toml (docs/mcp.md)")
        for row in rows:
            pin = (row["pin"] or "-")[:19]
            note = f"  ({row['note']})" if row["note"] else ""
            typer.echo(f"{row['operation']}: {row['status']}, effect {row['effect']}, pin {pin}…{note}")
            if row["status"] in ("changed", "new"):  # what the admin reviews before `alicorn mcp accept`
                parts = f" (changed: {', '.join(row['changed'])})" if row["changed"] else ""
                typer.echo(f"    listed now{parts}: description {row['description']!r}")
        for server, problem in problems.items():
            typer.echo(f"{server}: not available: {problem}", err=True)

    @group.command("accept")
    @guard
    def mcp_accept(
        target: Annotated[str, typer.Argument(help="SERVER (all its changes) or SERVER.TOOL.")],
        home: Home = Path(".alicorn"),
        who: Annotated[
            str | None, typer.Option("--as", help="Optional: your name, which must be the OS user running this.")
        ] = None,
    ) -> None:
        """Accept what a server lists now (changed or new tools; a missing tool's pin is dropped), as an admin."""
        from alicorn.anvil.people import authenticate
        from alicorn.mcp.report import accept_changes

        application = open_app(home, create=True)
        me, enrolled = authenticate(application.people, who, role="admin", doing="accept MCP tool definitions")
        if enrolled:
            typer.echo(f"{me} is this home's first person: enrolled as admin (`alicorn people list`)", err=True)
        for line in accept_changes(application, target, by=me.id):
            typer.echo(line)
