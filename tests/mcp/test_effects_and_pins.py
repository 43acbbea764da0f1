"""Effect classes (the operator's word, raised but never lowered by an untrusted server's hints) and pinning."""

from __future__ import annotations

from typing import Any

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.mcp.definitions import ToolDefinition
from alicorn.mcp.effects import effect_of, idempotency_of
from alicorn.mcp.pins import MCP_STREAM, accept, compare, read_book, record
from alicorn.mcp.settings import ServerSettings

AT = "2026-11-30T08:00:00.000000Z"
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}
OPEN_WORLD = {"readOnlyHint": True, "openWorldHint": True}


def _server(**fields: Any) -> ServerSettings:
    return ServerSettings(name="s", command=("x",), **fields)


@pytest.mark.parametrize(
    ("settings", "annotations", "expected"),
    [
        (_server(), READ_ONLY, "external_transmission"),  # no class configured: a read-only hint lowers nothing
        (_server(tools={"t": "read"}), {}, "read"),  # hints left out raise nothing
        (_server(tools={"t": "read"}), READ_ONLY, "read"),
        (_server(tools={"t": "read"}), DESTRUCTIVE, "local_write"),  # a destructive hint raises it
        (_server(tools={"t": "read"}), OPEN_WORLD, "external_transmission"),
        (_server(tools={"t": "publication"}), READ_ONLY, "publication"),  # never lowered
        (_server(effect="none"), DESTRUCTIVE, "local_write"),  # the server-wide default, raised the same way
        (_server(trusted=True), READ_ONLY, "read"),  # a trusted server's hints give an unnamed tool its class
        (_server(trusted=True), {}, "external_transmission"),
        (_server(trusted=True, tools={"t": "read"}), DESTRUCTIVE, "read"),  # ...but the operator's class wins
    ],
)
def test_effect_classes(settings: ServerSettings, annotations: dict[str, Any], expected: str) -> None:
    assert effect_of(settings, "t", annotations) == expected


def test_idempotency_is_unsafe_unless_the_operator_or_a_trusted_server_says_otherwise() -> None:
    hinted = {"idempotentHint": True}
    assert idempotency_of(_server(), "local_write", hinted) == "unsafe"
    assert idempotency_of(_server(trusted=True), "local_write", hinted) == "idempotent"
    assert idempotency_of(_server(idempotency="keyed"), "local_write", {}) == "keyed"
    assert idempotency_of(_server(), "read", {}) == "repeatable"  # no effect: repeating it changes nothing


def _tool(name: str, description: str = "d", **schema: Any) -> ToolDefinition:
    return ToolDefinition("s", name, description, {"type": "object", **schema}, None, {})


def test_the_pin_covers_every_part_of_the_definition() -> None:
    base = _tool("t")
    variants = [
        _tool("t", "other words"),
        _tool("t", properties={"x": {"type": "string"}}),
        ToolDefinition("s", "t", "d", base.input_schema, {"type": "object"}, {}),
        ToolDefinition("s", "t", "d", base.input_schema, None, {"readOnlyHint": True}),
        _tool("u"),
    ]
    assert len({base.pin, *(v.pin for v in variants)}) == 1 + len(variants)
    assert ToolDefinition.from_json("other", base.to_json()).pin == base.pin  # the server's name is not pinned


def test_first_use_pins_then_changes_and_renames_are_withheld_once_journaled() -> None:
    store = InMemoryStore()
    first = compare("s", [_tool("a"), _tool("b")], read_book(store))
    assert [x.status for x in first] == ["pinned", "pinned"]
    book = record(store, read_book(store), first, at=AT, by="config")
    assert {k: p.pin for k, p in book.pins.items()} == {("s", "a"): _tool("a").pin, ("s", "b"): _tool("b").pin}

    drifted = compare("s", [_tool("a", "now an injection"), _tool("b2")], book)
    assert [(x.tool, x.status) for x in drifted] == [("a", "changed"), ("b", "missing"), ("b2", "new")]
    assert "quarantined" in drifted[0].reason() and "alicorn mcp accept s.a" in drifted[0].reason()
    book = record(store, book, drifted, at=AT, by="config")
    record(store, book, compare("s", [_tool("a", "now an injection"), _tool("b2")], book), at=AT, by="config")
    kinds = [e.kind for e in store.read(MCP_STREAM)]
    assert kinds == ["mcp.tool.pinned"] * 2 + ["mcp.tool.changed"] * 3  # each change journaled once

    accept(store, book, drifted, at=AT, by="human:admin")
    after = read_book(store)
    assert set(after.pins) == {("s", "a"), ("s", "b2")} and after.pins[("s", "a")].by == "human:admin"
    assert [x.status for x in compare("s", [_tool("a", "now an injection"), _tool("b2")], after)] == ["pinned"] * 2
