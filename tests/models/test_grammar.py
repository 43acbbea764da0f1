"""JSON Schema → GBNF: every grammar is parsed and run by a small GBNF recogniser written here (the syntax of
llama.cpp's grammars/README.md: literals, character classes, groups, `| ? * +`, `{m}`, `{m,}`, `{m,n}`), and must
accept the valid answers and refuse the invalid ones."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from alicorn.models.grammar import GrammarError, schema_to_gbnf
from alicorn.models.intent.classifier import IntentFlags
from alicorn.models.structured import schema_of

Node = tuple[Any, ...]
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "]": "]", "[": "[", "-": "-", "^": "^", "/": "/"}


class Grammar:
    """A parsed GBNF grammar; `accepts(text)` says whether `root` derives exactly `text`."""

    def __init__(self, source: str) -> None:
        self.rules: dict[str, Node] = {}
        self.references: set[str] = set()
        for line in source.strip().splitlines():
            name, _, body = line.partition(" ::= ")
            assert re.fullmatch(r"[a-z0-9-]+", name), f"bad rule name {name!r}"
            assert name not in self.rules, f"rule {name} defined twice"
            self.body, self.at = body, 0
            self.rules[name] = self.alternatives()
            assert self.at == len(body), f"unparsed rest of {name}: {body[self.at :]!r}"
        for name in self.references:
            assert name in self.rules, f"undefined rule {name}"

    # ---- parsing ----------------------------------------------------------------------------------------------
    def skip(self) -> None:
        while self.at < len(self.body) and self.body[self.at] == " ":
            self.at += 1

    def alternatives(self) -> Node:
        options = [self.sequence()]
        while self.at < len(self.body) and self.body[self.at] == "|":
            self.at += 1
            options.append(self.sequence())
        return ("alt", options)

    def sequence(self) -> Node:
        items: list[Node] = []
        self.skip()
        while self.at < len(self.body) and self.body[self.at] not in "|)":
            items.append(self.postfix(self.atom()))
            self.skip()
        return ("seq", items)

    def escape(self) -> str:
        char = self.body[self.at]
        if char == "x":
            value = chr(int(self.body[self.at + 1 : self.at + 3], 16))
            self.at += 3
            return value
        self.at += 1
        return _ESCAPES[char]

    def char(self) -> str:
        char = self.body[self.at]
        self.at += 1
        return self.escape() if char == "\\" else char

    def atom(self) -> Node:
        char = self.body[self.at]
        if char == '"':
            self.at += 1
            text = ""
            while self.body[self.at] != '"':
                text += self.char()
            self.at += 1
            return ("lit", text)
        if char == "[":
            self.at += 1
            negated = self.body[self.at] == "^"
            self.at += negated
            ranges: list[tuple[str, str]] = []
            while self.body[self.at] != "]":
                low = self.char()
                high = low
                if self.body[self.at] == "-" and self.body[self.at + 1] != "]":
                    self.at += 1
                    high = self.char()
                ranges.append((low, high))
            self.at += 1
            return ("cls", negated, tuple(ranges))
        if char == "(":
            self.at += 1
            inner = self.alternatives()
            assert self.body[self.at] == ")", "unclosed group"
            self.at += 1
            return inner
        name = re.match(r"[a-z0-9-]+", self.body[self.at :])
        assert name, f"unexpected {self.body[self.at :]!r}"
        self.at += len(name.group(0))
        self.references.add(name.group(0))
        return ("ref", name.group(0))

    def postfix(self, node: Node) -> Node:
        if self.at >= len(self.body):
            return node
        char = self.body[self.at]
        if char in "?*+":
            self.at += 1
            return ("rep", node, 0 if char != "+" else 1, 1 if char == "?" else None)
        bounds = re.match(r"\{(\d+)(,(\d*))?\}", self.body[self.at :])
        if bounds:
            self.at += len(bounds.group(0))
            low = int(bounds.group(1))
            high = low if bounds.group(2) is None else (int(bounds.group(3)) if bounds.group(3) else None)
            return ("rep", node, low, high)
        return node

    # ---- matching: the set of positions where `node` can end when started at `at` ---------------------------
    def accepts(self, text: str) -> bool:
        @cache
        def rule(name: str, at: int) -> frozenset[int]:
            return frozenset(match(self.rules[name], at))

        def match(node: Node, at: int) -> set[int]:
            kind = node[0]
            if kind == "lit":
                return {at + len(node[1])} if text.startswith(node[1], at) else set()
            if kind == "cls":
                if at >= len(text):
                    return set()
                inside = any(low <= text[at] <= high for low, high in node[2])
                return {at + 1} if inside != node[1] else set()
            if kind == "ref":
                return set(rule(node[1], at))
            if kind == "alt":
                return set().union(*(match(option, at) for option in node[1]))
            if kind == "seq":
                ends = {at}
                for item in node[1]:
                    ends = set().union(*(match(item, end) for end in ends)) if ends else set()
                return ends
            _, inner, low, high = node
            ends, frontier, count = ({at} if low == 0 else set()), {at}, 0
            while frontier and (high is None or count < high):
                frontier = set().union(*(match(inner, end) for end in frontier)) - ({at} if count else set())
                count += 1
                if count >= low:
                    ends |= frontier
                if high is None and count > len(text) + 1:
                    break
            return ends

        return len(text) in rule("root", 0)


class Kind(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["task", "question"]
    count: int
    score: float | None = None
    tags: list[str] = Field(default_factory=list, max_length=2)
    done: bool = False


class Node_(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    children: list[Node_] = Field(default_factory=list)


def grammar_of(model: type[BaseModel]) -> Grammar:
    return Grammar(schema_to_gbnf(schema_of(model)))


def test_object_with_required_optional_enum_number_array_and_nullable() -> None:
    grammar = grammar_of(Kind)
    valid = [
        {"kind": "task", "count": 3},
        {"kind": "question", "count": -12, "score": 0.5, "tags": ["a", 'say "hi"\n'], "done": True},
        {"kind": "task", "count": 0, "score": None, "tags": []},
        {"kind": "task", "count": 1, "done": False},
    ]
    for value in valid:
        assert grammar.accepts(json.dumps(value)), value
        assert grammar.accepts(json.dumps(value, indent=2)), value
        assert Kind.model_validate(value)
    invalid = [
        '{"kind": "other", "count": 3}',  # not in the enum
        '{"count": 3}',  # required field missing
        '{"kind": "task", "count": 3.5}',  # an integer
        '{"kind": "task", "count": 3, "tags": ["a", "b", "c"]}',  # maxItems 2
        '{"kind": "task", "count": 3, "extra": 1}',  # no invented fields
        '{"kind": "task", "count": 3,}',  # JSON, not JavaScript
        '{"kind": "task", "count": 03}',
        '{"kind": "task", "count": 3, "done": "yes"}',
        "Sure! Here it is",
    ]
    for text in invalid:
        assert not grammar.accepts(text), text


def test_recursive_definitions_through_ref() -> None:
    grammar = grammar_of(Node_)
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}, {"name": "d"}]}
    assert grammar.accepts(json.dumps(tree))
    assert not grammar.accepts(json.dumps({"name": "a", "children": [{"children": []}]}))


def test_the_classifier_schema_converts_and_admits_only_its_flags() -> None:
    grammar = grammar_of(IntentFlags)
    names = list(schema_of(IntentFlags)["$defs"]["ForbiddenFlags"]["properties"])
    flags = {name: i == 1 for i, name in enumerate(names)}
    answer = {"kind": "task", "language": "pl", "forbidden": flags}
    assert grammar.accepts(json.dumps(answer, ensure_ascii=False))
    assert not grammar.accepts(json.dumps({**answer, "kind": "chat"}))


def test_only_optional_properties_and_maps() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "additionalProperties": False,
    }
    grammar = Grammar(schema_to_gbnf(schema))
    for text in ("{}", '{"a": 1}', '{"b": "x"}', '{"a": 1, "b": "x"}'):
        assert grammar.accepts(text), text
    assert not grammar.accepts('{"a": 1 "b": "x"}') and not grammar.accepts('{, "b": "x"}')
    counts = Grammar(schema_to_gbnf({"type": "object", "additionalProperties": {"type": "integer"}}))
    assert counts.accepts('{"x": 1, "y": 2}') and counts.accepts("{}") and not counts.accepts('{"x": "1"}')


def test_arrays_bounds_type_lists_and_const() -> None:
    between = Grammar(schema_to_gbnf({"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 3}))
    assert [between.accepts(json.dumps([True] * n)) for n in range(5)] == [False, False, True, True, False]
    nullable = Grammar(schema_to_gbnf({"type": ["number", "null"]}))
    assert nullable.accepts("null") and nullable.accepts("-1.5e3") and not nullable.accepts('"1"')
    fixed = Grammar(schema_to_gbnf({"const": "yes"}))
    assert fixed.accepts('"yes"') and not fixed.accepts('"no"')
    anything = Grammar(schema_to_gbnf({}))
    assert anything.accepts('[1, {"a": null}, "x", true]') and not anything.accepts("[1,")


@pytest.mark.parametrize(
    "schema",
    [
        {"not": {"type": "string"}},
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"$ref": "https://example.com/schema.json"},
        {"allOf": [{"type": "string"}, {"minLength": 2}]},
        {"type": "date"},
    ],
)
def test_what_has_no_grammar_is_refused_with_a_reason(schema: dict[str, Any]) -> None:
    with pytest.raises(GrammarError) as info:
        schema_to_gbnf(schema)
    assert str(info.value)
