"""Pydantic models for an external tool's inputs and outputs, built from the JSON Schemas it was pinned with.

A plan names inputs and outputs by field, so each top-level property becomes a field typed by its JSON type (the
simple subset: string, integer, number, boolean, array, object; anything else any JSON value). The full schema,
with everything the subset cannot say (patterns, enums, nested shapes), is kept and checked with `jsonschema` on
every call: arguments before they are sent, structured results when they come back. Descriptions from the server
are not copied into the models: they are untrusted text, and the models are shown to planners and operators.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

#: The field names a plan can use (alicorn.plan.dsl FieldName) that pydantic also takes (no leading underscore).
_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
#: The output field that carries the tool's text content (joined text blocks), unless its schema has one so named.
CONTENT_FIELD = "content"
#: The output field that carries a structured result whose schema names no properties (a free-form object).
STRUCTURED_FIELD = "structured"


class UnsupportedSchema(ValueError):
    """A schema the registry cannot offer as typed fields (the sentence says which property and why)."""


def _annotation(prop: object) -> Any:
    if not isinstance(prop, dict):
        return JsonValue
    kind = prop.get("type")
    if kind in _TYPES:
        return _TYPES[kind]
    if kind == "array":
        return list[JsonValue]
    if kind == "object":
        return dict[str, JsonValue]
    return JsonValue


def _properties(schema: dict[str, Any] | None, what: str) -> tuple[dict[str, Any], set[str]]:
    if not schema:
        return {}, set()
    if schema.get("type", "object") != "object":
        raise UnsupportedSchema(f"its {what} schema is not an object (type {schema.get('type')!r})")
    props = schema.get("properties") or {}
    if not isinstance(props, dict):
        raise UnsupportedSchema(f"its {what} schema's properties are not a table")
    bad = sorted(name for name in props if not _FIELD.fullmatch(name))
    if bad:
        raise UnsupportedSchema(f"{what} property {bad[0]!r} is not a field name a plan can use (letters, digits, _)")
    required = schema.get("required") or []
    return props, {r for r in required if isinstance(r, str)}


def check_schema(schema: dict[str, Any], what: str) -> None:
    """Refuse a schema `jsonschema` cannot use (it would fail every call later, with a worse message)."""
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise UnsupportedSchema(f"its {what} schema is not valid JSON Schema ({exc.message})") from None


def input_model(operation: str, schema: dict[str, Any]) -> type[BaseModel]:
    """The inputs of `operation`: one field per property (required ones required), nothing else accepted."""
    check_schema(schema, "input")
    props, required = _properties(schema, "input")
    fields: dict[str, Any] = {}
    for name, prop in props.items():
        annotation = _annotation(prop)
        fields[name] = (annotation, ...) if name in required else (annotation | None, Field(default=None))
    model: type[BaseModel] = create_model(
        _model_name(operation, "Inputs"), __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def output_model(operation: str, schema: dict[str, Any] | None) -> type[BaseModel]:
    """The outputs of `operation`: the structured result's properties (each optional: the schema is checked as a
    whole), or `structured` (the whole result) when its schema names none, and `content`, the text returned."""
    if schema is not None:
        check_schema(schema, "output")
    props, _ = _properties(schema, "output")
    fields: dict[str, Any] = {name: (_annotation(p) | None, Field(default=None)) for name, p in props.items()}
    if schema is not None and not props:
        fields[STRUCTURED_FIELD] = (JsonValue, Field(default=None))
    fields.setdefault(CONTENT_FIELD, (str, Field(default="")))
    model: type[BaseModel] = create_model(
        _model_name(operation, "Outputs"), __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def violation(value: Any, schema: dict[str, Any]) -> str | None:
    """The first way `value` breaks `schema` (a short sentence), or None when it conforms."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "the top level"
    return f"at {where}: {error.message[:300]}"


def _model_name(operation: str, suffix: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", operation) if part) + suffix
