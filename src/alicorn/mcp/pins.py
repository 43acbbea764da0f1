"""`control:mcp`: the pinned definitions of external MCP tools, and the comparison of a server's listing with them.

Events (append-only; the book is a fold of them):

    mcp.tool.pinned    {server, tool, pin, definition, reason: first_use | accepted, by}
    mcp.tool.unpinned  {server, tool, pin, by}            the operator accepted that a pinned tool is gone
    mcp.tool.changed   {server, tool, status, pinned, seen} a listing differed from the pins (journaled once per seen
                                                           definition, so an audit shows when a server drifted)

First use is the first time a server is listed at all (no pin of it yet): its tools are pinned as listed. From then
on a tool whose definition differs from its pin is `changed`, a tool without a pin is `new` (also how a rename shows:
a pinned tool `missing` and a new one appearing), and both are withheld until an admin accepts them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore
from alicorn.mcp.definitions import ToolDefinition

MCP_STREAM = "control:mcp"
Status = Literal["pinned", "changed", "new", "missing"]


@dataclass(frozen=True)
class Pin:
    pin: str
    definition: ToolDefinition
    by: str
    seq: int


@dataclass
class PinBook:
    """The stream folded: the pin of each (server, tool), the changes already journaled, the last seq."""

    pins: dict[tuple[str, str], Pin] = field(default_factory=dict)
    noted: set[tuple[str, str, str]] = field(default_factory=set)
    seen_servers: set[str] = field(default_factory=set)
    seq: int = 0

    def of(self, server: str) -> dict[str, Pin]:
        return {tool: pin for (name, tool), pin in self.pins.items() if name == server}


def fold_pins(events: Iterable[Event]) -> PinBook:
    book = PinBook()
    for event in events:
        book.seq = event.seq
        data = event.data
        key = (str(data.get("server")), str(data.get("tool")))
        if event.kind == "mcp.tool.pinned":
            definition = ToolDefinition.from_json(key[0], data["definition"])
            book.pins[key] = Pin(str(data["pin"]), definition, str(data.get("by", "")), event.seq)
            book.seen_servers.add(key[0])
        elif event.kind == "mcp.tool.unpinned":
            book.pins.pop(key, None)
        elif event.kind == "mcp.tool.changed":
            book.noted.add((*key, str(data.get("seen"))))
    return book


@dataclass(frozen=True)
class ToolStatus:
    """One tool of a server compared with its pin: what is offered (pinned) and what is withheld, and why."""

    server: str
    tool: str
    status: Status
    pinned: str | None
    seen: str | None
    definition: ToolDefinition | None  # as listed now (None when missing)

    @property
    def operation(self) -> str:
        return f"mcp.{self.server}.{self.tool}"

    def reason(self) -> str:
        """Why the tool is withheld, and the fix: the sentence a run naming it is refused with."""
        accept = f"an admin reviews it (`alicorn mcp tools`) and runs `alicorn mcp accept {self.server}.{self.tool}`"
        if self.status == "changed":
            return (
                f"MCP tool {self.operation} is quarantined: server {self.server!r} now lists a definition "
                f"({(self.seen or '')[:19]}…) different from the one pinned ({(self.pinned or '')[:19]}…); {accept}"
            )
        if self.status == "new":
            return (
                f"MCP tool {self.operation} is quarantined: server {self.server!r} lists it, but it was not among the "
                f"tools first pinned (a new tool, or a renamed one); {accept}"
            )
        return f"MCP tool {self.operation} is pinned but server {self.server!r} no longer lists it"


def compare(server: str, listed: list[ToolDefinition], book: PinBook) -> list[ToolStatus]:
    """The status of every listed or pinned tool of `server` (sorted by tool name)."""
    pins = book.of(server)
    first_use = server not in book.seen_servers
    out: list[ToolStatus] = []
    names = set()
    for definition in listed:
        names.add(definition.name)
        pinned = pins.get(definition.name)
        if pinned is None:
            status: Status = "pinned" if first_use else "new"
        else:
            status = "pinned" if pinned.pin == definition.pin else "changed"
        out.append(
            ToolStatus(
                server, definition.name, status, None if pinned is None else pinned.pin, definition.pin, definition
            )
        )
    for tool, pinned in pins.items():
        if tool not in names:
            out.append(ToolStatus(server, tool, "missing", pinned.pin, None, None))
    return sorted(out, key=lambda s: s.tool)


def record(store: JournalStore, book: PinBook, statuses: list[ToolStatus], *, at: str, by: str) -> PinBook:
    """Journal what this listing taught: pins at first use, and each change not journaled before. One append."""
    drafts: list[Draft] = []
    for status in statuses:
        definition = status.definition
        if status.status == "pinned" and status.pinned is None and definition is not None:
            drafts.append(Draft("mcp.tool.pinned", at, _pinned(definition, "first_use", by)))
        elif (
            status.status in ("changed", "new", "missing")
            and (status.server, status.tool, str(status.seen)) not in book.noted
        ):
            data: dict[str, Any] = {
                "server": status.server,
                "tool": status.tool,
                "status": status.status,
                "pinned": status.pinned,
                "seen": status.seen,
            }
            if definition is not None:
                data["definition"] = definition.to_json()
            drafts.append(Draft("mcp.tool.changed", at, data))
    if drafts:
        store.append(MCP_STREAM, drafts, expect=book.seq)
        return read_book(store)
    return book


def accept(store: JournalStore, book: PinBook, statuses: list[ToolStatus], *, at: str, by: str) -> list[ToolStatus]:
    """Pin what `statuses` list now (changed and new tools) and unpin the missing ones, as `by`; the accepted."""
    drafts: list[Draft] = []
    accepted = [s for s in statuses if s.status != "pinned"]
    for status in accepted:
        if status.definition is not None:
            drafts.append(Draft("mcp.tool.pinned", at, _pinned(status.definition, "accepted", by)))
        else:
            data = {"server": status.server, "tool": status.tool, "pin": status.pinned, "by": by}
            drafts.append(Draft("mcp.tool.unpinned", at, data))
    if drafts:
        store.append(MCP_STREAM, drafts, expect=book.seq)
    return accepted


def read_book(store: JournalStore) -> PinBook:
    return fold_pins(store.read(MCP_STREAM) if store.head(MCP_STREAM) is not None else [])


def _pinned(definition: ToolDefinition, reason: str, by: str) -> dict[str, Any]:
    return {
        "server": definition.server,
        "tool": definition.name,
        "pin": definition.pin,
        "definition": definition.to_json(),
        "reason": reason,
        "by": by,
    }
