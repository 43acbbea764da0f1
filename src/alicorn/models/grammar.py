"""JSON Schema → GBNF, llama.cpp's grammar format, for the subset of JSON Schema that Alicorn's schemas use.

A server that takes a `grammar` field (llama.cpp's server, llama-cpp-python's) but no JSON-schema response format
can still be made to decode only answers of the right shape. Supported: objects (declared properties, required
and optional; `additionalProperties` as a schema for maps), strings, `enum` / `const` of any JSON values, integers,
numbers, booleans, null, arrays (`items`, `minItems`, `maxItems`), `anyOf` / `oneOf` / a type list (so nullable
fields), one-element `allOf`, and local `$ref`s (`#/$defs/…`, recursive ones too). Keywords that only narrow a
value (pattern, format, lengths, minimum/maximum, uniqueItems) are not encoded: the answer is validated against the
schema afterwards anyway. Anything else raises `GrammarError`, and the caller decodes without a grammar.

Declared properties are emitted required ones first, then optional ones, each in schema order: JSON objects are
unordered, so this only fixes the order a model writes them in.
"""

from __future__ import annotations

import json
import re
from typing import Any

from alicorn.models.errors import ModelError

_UNSUPPORTED = ("not", "if", "then", "else", "patternProperties", "dependentSchemas", "prefixItems", "contains")

_PRIMITIVES = {
    "ws": r'| " " | "\n" [ \t]{0,20}',
    "string": r'"\"" char* "\""',
    "char": r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "integer": r'"-"? ("0" | [1-9] [0-9]{0,18})',
    "number": r'"-"? ("0" | [1-9] [0-9]{0,18}) ("." [0-9]{1,18})? ([eE] [-+]? [0-9]{1,4})?',
    "boolean": r'"true" | "false"',
    "null": r'"null"',
    "value": r"object | array | string | number | boolean | null",
    "object": r'"{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* ws )? "}"',
    "array": r'"[" ws ( value ( ws "," ws value )* ws )? "]"',
}
_DEPENDS = {
    "string": ("char",),
    "value": ("object", "array", "string", "number", "boolean", "null"),
    "object": ("ws", "string", "value"),
    "array": ("ws", "value"),
}


class GrammarError(ModelError):
    """The schema uses JSON Schema beyond what `schema_to_gbnf` converts; decode without a grammar."""


def literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


class _Builder:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.rules: dict[str, str] = {}
        self.by_body: dict[str, str] = {}
        self.refs: dict[str, str] = {}
        self.used: set[str] = set()

    def primitive(self, name: str) -> str:
        pending = [name]
        while pending:
            current = pending.pop()
            if current not in self.used:
                self.used.add(current)
                pending.extend(_DEPENDS.get(current, ()))
        return name

    def rule(self, hint: str, body: str) -> str:
        if body in self.by_body:
            return self.by_body[body]
        base = re.sub(r"[^a-z0-9]+", "-", hint.lower()).strip("-") or "r"
        name, n = base, 1
        while name in self.rules or name in _PRIMITIVES or name == "root":
            n += 1
            name = f"{base}-{n}"
        self.rules[name] = body
        self.by_body[body] = name
        return name

    def ref(self, pointer: str) -> str:
        if pointer in self.refs:
            return self.refs[pointer]
        match = re.fullmatch(r"#/(\$defs|definitions)/([^/]+)", pointer)
        target = self.root.get(match.group(1), {}).get(match.group(2)) if match else None
        if not isinstance(target, dict):
            raise GrammarError(f"the schema's $ref {pointer!r} does not point into its own $defs")
        name = self.rule(f"def-{match.group(2) if match else 'ref'}", f"<pending {pointer}>")
        self.refs[pointer] = name
        body = self.expression(target, name)
        del self.by_body[self.rules[name]]
        self.rules[name] = body
        return name

    def expression(self, schema: Any, hint: str) -> str:
        """A GBNF expression matching the JSON texts valid for `schema` (up to the narrowing keywords)."""
        if schema is True or schema == {}:
            return self.primitive("value")
        if not isinstance(schema, dict):
            raise GrammarError(f"a schema must be an object, not {json.dumps(schema)[:40]}")
        for keyword in _UNSUPPORTED:
            if keyword in schema:
                raise GrammarError(f"the schema keyword {keyword!r} has no grammar here")
        if "$ref" in schema:
            return self.ref(str(schema["$ref"]))
        if "const" in schema:
            return literal(json.dumps(schema["const"], ensure_ascii=False))
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                raise GrammarError("an enum must list at least one value")
            return "(" + " | ".join(literal(json.dumps(v, ensure_ascii=False)) for v in values) + ")"
        for keyword in ("anyOf", "oneOf"):
            if keyword in schema:
                return self.alternatives(schema[keyword], hint)
        if "allOf" in schema:
            parts = schema["allOf"]
            if isinstance(parts, list) and len(parts) == 1:
                return self.expression(parts[0], hint)
            raise GrammarError("allOf with more than one schema has no grammar here")
        kind = schema.get("type")
        if isinstance(kind, list):
            rest = {k: v for k, v in schema.items() if k != "type"}
            return self.alternatives([{**rest, "type": t} for t in kind], hint)
        if kind is None:
            if "properties" in schema:
                kind = "object"
            elif "items" in schema:
                kind = "array"
            else:
                return self.primitive("value")
        if kind in ("string", "integer", "number", "boolean", "null"):
            return self.primitive(kind)
        if kind == "object":
            return self.rule(hint, self.object_body(schema, hint))
        if kind == "array":
            return self.rule(hint, self.array_body(schema, hint))
        raise GrammarError(f"the schema type {kind!r} is not a JSON Schema type")

    def alternatives(self, options: Any, hint: str) -> str:
        if not isinstance(options, list) or not options:
            raise GrammarError("anyOf / oneOf must list at least one schema")
        parts = [self.expression(option, f"{hint}-{i}") for i, option in enumerate(options, 1)]
        return "(" + " | ".join(parts) + ")"

    def object_body(self, schema: dict[str, Any], hint: str) -> str:
        ws = self.primitive("ws")
        properties = schema.get("properties") or {}
        if not isinstance(properties, dict):
            raise GrammarError("properties must be an object")
        if not properties:
            extra = schema.get("additionalProperties", True)
            if extra is False:
                return f'"{{" {ws} "}}"'
            value = self.expression(extra, f"{hint}-value")
            key = self.primitive("string")
            pair = f'{key} {ws} ":" {ws} {value}'
            return f'"{{" {ws} ( {pair} ( {ws} "," {ws} {pair} )* {ws} )? "}}"'
        required = set(schema.get("required") or ())
        pairs = {
            name: f'{literal(json.dumps(name, ensure_ascii=False))} {ws} ":" {ws} '
            f"{self.expression(sub, f'{hint}-{name}')}"
            for name, sub in properties.items()
        }
        must = [pairs[name] for name in properties if name in required]
        may = [pairs[name] for name in properties if name not in required]
        sep = f' {ws} "," {ws} '
        if must:
            inner = sep.join(must) + "".join(f" ({sep}{pair} )?" for pair in may)
            return f'"{{" {ws} {inner} {ws} "}}"'
        chains = [pair + "".join(f" ({sep}{later} )?" for later in may[i + 1 :]) for i, pair in enumerate(may)]
        return f'"{{" {ws} ( ( {" | ".join(chains)} ) {ws} )? "}}"'

    def array_body(self, schema: dict[str, Any], hint: str) -> str:
        ws = self.primitive("ws")
        item = self.expression(schema.get("items", True), f"{hint}-item")
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        if high is not None and int(high) < low:
            raise GrammarError(f"maxItems ({high}) is below minItems ({low})")
        if high is not None and int(high) == 0:
            return f'"[" {ws} "]"'
        more_low = max(low - 1, 0)
        open_bound = "*" if more_low == 0 else f"{{{more_low},}}"
        bound = open_bound if high is None else f"{{{more_low},{int(high) - 1}}}"
        elements = item if high == 1 else f'{item} ( {ws} "," {ws} {item} ){bound}'
        if low == 0:
            return f'"[" {ws} ( {elements} {ws} )? "]"'
        return f'"[" {ws} {elements} {ws} "]"'


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """The GBNF grammar (root rule `root`) of the JSON texts valid for `schema`, or GrammarError."""
    builder = _Builder(schema)
    top = builder.expression(schema, "answer")
    lines = [f"root ::= {top}"]
    lines.extend(f"{name} ::= {body}" for name, body in builder.rules.items())
    lines.extend(f"{name} ::= {body}" for name, body in _PRIMITIVES.items() if name in builder.used)
    return "\n".join(lines) + "\n"
