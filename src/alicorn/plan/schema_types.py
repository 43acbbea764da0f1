"""The JSON types a JSON Schema fragment admits (used to type-check references and to fingerprint operations)."""

from __future__ import annotations

from typing import Any


def json_types(prop: dict[str, Any], defs: dict[str, Any]) -> frozenset[str]:
    """The set of JSON types `prop` admits; empty means any type."""
    if "$ref" in prop:
        return json_types(defs.get(prop["$ref"].rsplit("/", 1)[-1], {}), defs)
    if "type" in prop:
        kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        return frozenset(kinds)
    for key in ("anyOf", "oneOf"):
        if key in prop:
            parts = [json_types(p, defs) for p in prop[key]]
            if any(not p for p in parts):
                return frozenset()
            return frozenset().union(*parts)
    if "enum" in prop or "const" in prop:
        values = prop.get("enum", [prop.get("const")])
        names = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
        return frozenset(names.get(type(v), "object") for v in values)
    return frozenset()
