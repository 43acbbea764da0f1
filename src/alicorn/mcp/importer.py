"""Importing the configured MCP servers: connect, list, compare with the pins, and offer only what is pinned.

For each server: start it (or reach its URL) and list its tools within its start timeout. A server that cannot be
used is reported (`problems`) and skipped; the others, and every other operation, go on working. Its tools, the
changed and the new ones, and those whose schemas cannot be offered are withheld, each with the sentence a plan
naming it is refused with. The pins learnt from the listing are journaled in `control:mcp` (one append per server).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from alicorn.clock import Clock
from alicorn.journal.store import JournalStore
from alicorn.mcp.definitions import ToolDefinition, from_listing
from alicorn.mcp.operations import mcp_operation
from alicorn.mcp.pins import ToolStatus, compare, read_book, record
from alicorn.mcp.pool import McpServerError, SessionPool
from alicorn.mcp.schemas import UnsupportedSchema
from alicorn.mcp.settings import ServerSettings
from alicorn.ops.registry import Operation

#: Who a first-use pin is journaled as: the operator, by configuring the server in alicorn.toml.
FIRST_USE_BY = "config:alicorn.toml"


@dataclass
class McpImport:
    """What importing found: the operations to register, every tool's status, what is withheld and why, the
    servers that could not be used, and the pool holding the open sessions (closed with `close`)."""

    pool: SessionPool
    operations: list[Operation] = field(default_factory=list)
    tools: list[ToolStatus] = field(default_factory=list)
    withheld: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)

    def close(self) -> None:
        self.pool.close()


def import_servers(servers: dict[str, ServerSettings], store: JournalStore, clock: Clock) -> McpImport:
    """Import every server in `servers` (see the module docstring). Servers start side by side (each may take
    seconds); their listings are compared and journaled one after the other."""
    found = McpImport(SessionPool())
    try:
        with ThreadPoolExecutor(max_workers=max(1, min(8, len(servers))), thread_name_prefix="mcp-start") as starting:
            listings = list(starting.map(lambda settings: _listing(settings, found.pool), servers.values()))
        for settings, listed in zip(servers.values(), listings, strict=True):
            _import_one(settings, listed, store, clock, found)
    except BaseException:
        found.close()
        raise
    return found


def _listing(settings: ServerSettings, pool: SessionPool) -> list[ToolDefinition] | McpServerError:
    try:
        pool.connect(settings)
        return [from_listing(settings.name, tool) for tool in pool.list_tools(settings)]
    except McpServerError as exc:
        return exc


def _import_one(
    settings: ServerSettings,
    listed: list[ToolDefinition] | McpServerError,
    store: JournalStore,
    clock: Clock,
    found: McpImport,
) -> None:
    book = read_book(store)
    if isinstance(listed, McpServerError):
        found.problems[settings.name] = str(listed)
        for tool in sorted(book.of(settings.name)):
            found.withheld[f"mcp.{settings.name}.{tool}"] = f"{listed} (so its tool {tool!r} cannot be used now)"
        return
    statuses = compare(settings.name, listed, book)
    record(store, book, statuses, at=clock.now(), by=FIRST_USE_BY)
    found.tools.extend(statuses)
    for status in statuses:
        if status.status == "missing":
            continue
        if status.status != "pinned" or status.definition is None:
            found.withheld[status.operation] = status.reason()
            continue
        try:
            found.operations.append(mcp_operation(status.definition, settings, found.pool))
        except UnsupportedSchema as exc:
            found.withheld[status.operation] = (
                f"MCP tool {status.operation} cannot be offered: {exc}; it stays unused (nothing to accept)"
            )


def pinned_operations(servers: dict[str, ServerSettings], store: JournalStore) -> McpImport:
    """The configured servers' pinned tools as operations, from `control:mcp` alone: nothing is started or written.

    For opening a home read-only (`alicorn replay`, `show`): a replay feeds the recorded results and never calls a
    tool, but needs the same registry (its fingerprint) as the run had. A call would find no session and say so."""
    found = McpImport(SessionPool())
    book = read_book(store)
    for settings in servers.values():
        for tool, pinned in sorted(book.of(settings.name).items()):
            try:
                found.operations.append(mcp_operation(pinned.definition, settings, found.pool))
            except UnsupportedSchema as exc:
                found.withheld[f"mcp.{settings.name}.{tool}"] = f"MCP tool mcp.{settings.name}.{tool}: {exc}"
    return found
