"""A tool's definition as its server lists it, reduced to what is pinned, and the pin itself.

The pin covers the name, the description, the input and output schemas and the annotations: everything that decides
what the tool is offered as and what a model reads about it. A server that changes any of these after the operator
accepted the tool (a "rug pull": a harmless description that turns into an injection, a schema that starts taking a
new argument) changes the pin, and the tool is withheld until the operator accepts the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from alicorn import canonical


@dataclass(frozen=True)
class ToolDefinition:
    """One tool of one server, as JSON (what is pinned and journaled)."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any]

    @property
    def operation(self) -> str:
        return f"mcp.{self.server}.{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations,
        }

    @property
    def pin(self) -> str:
        """`sha256:` and the hex SHA-256 of the canonical JSON of the definition (the server's name is not part of
        it: the operator may rename a server in alicorn.toml without re-accepting its tools)."""
        return "sha256:" + canonical.digest(self.to_json())

    @classmethod
    def from_json(cls, server: str, data: dict[str, Any]) -> ToolDefinition:
        return cls(
            server=server,
            name=str(data["name"]),
            description=str(data.get("description") or ""),
            input_schema=dict(data.get("input_schema") or {}),
            output_schema=data.get("output_schema"),
            annotations=dict(data.get("annotations") or {}),
        )


def from_listing(server: str, tool: Any) -> ToolDefinition:
    """A definition from the SDK's `Tool` (listed by `tools/list`), as plain JSON in the wire's spelling."""
    annotations = tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True) if tool.annotations else {}
    return ToolDefinition(
        server=server,
        name=str(tool.name),
        description=str(tool.description or ""),
        input_schema=dict(tool.input_schema or {}),
        output_schema=dict(tool.output_schema) if tool.output_schema is not None else None,
        annotations=annotations,
    )
