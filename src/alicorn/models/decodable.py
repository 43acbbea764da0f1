"""JSON Schemas as a constrained decoder can take them: `pattern`s without the escapes llama.cpp cannot parse.

llama.cpp turns a request's JSON Schema into a GBNF grammar (in process through llama-cpp-python, and in its
OpenAI-compatible server), copying a `pattern`'s escapes into the grammar's string literals: `\\d` becomes the
literal `"\\d"`, which the grammar parser rejects ("unknown escape"). llama-cpp-python 0.3.36 then hands llama.cpp
a NULL sampler, and the first token sampled kills the process with SIGSEGV: every slot-filling request of the
schedule and alarms templates (their month and day patterns use `\\d`) crashed the in-process model and the server
alike (bench/model_crash_bench.py: 10 of 10 in process, and a control with `[0-9]` that did not crash).

So what goes to a decoder is rewritten: outside a character class `\\d`, `\\w`, `\\s` become `[0-9]`,
`[A-Za-z0-9_]`, `[ \\t\\n\\r]`, inside one their ranges; any other escape (`\\.`, `\\b`, `\\D`, a back reference)
leaves the pattern out of the decoder's schema altogether. Long bounds go too: llama.cpp spells `maxLength: 2000`
as 2,000 nested optional characters, a grammar its parser refuses just the same (the cited answer's schema killed
the server on every request: bench/structured_bench.py), so a `maxLength` above MAX_DECODED_LENGTH and a `maxItems`
above MAX_DECODED_ITEMS are left out. Nothing is lost: the answer is validated against the original schema after
decoding (models/structured.py), so a value the decoder let through is fed back and repaired.
"""

from __future__ import annotations

import copy
from typing import Any

#: The longest string and list bounds a decoder is given; longer ones are checked after decoding only.
MAX_DECODED_LENGTH = 256
MAX_DECODED_ITEMS = 32
#: The class escapes rewritten: (outside a class, inside one). Tab, newline and return are the characters themselves.
_CLASSES = {"d": ("[0-9]", "0-9"), "w": ("[A-Za-z0-9_]", "A-Za-z0-9_"), "s": ("[ \t\n\r]", " \t\n\r")}


def decodable_pattern(pattern: str) -> str | None:
    """`pattern` with its class escapes spelled as ranges, or None when it holds an escape a decoder cannot take."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 >= len(pattern):
                return None
            escaped = pattern[i + 1]
            if escaped not in _CLASSES:
                return None
            out.append(_CLASSES[escaped][1 if in_class else 0])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class and out and out[-1] != "[":
            in_class = False
        out.append(char)
        i += 1
    return "".join(out)


def decodable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of `schema` whose every `pattern` a decoder can take (see the module docstring); `schema` is kept."""
    copied: dict[str, Any] = copy.deepcopy(schema)
    _rewrite(copied)
    return copied


def _rewrite(node: Any) -> None:
    if isinstance(node, dict):
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            safe = decodable_pattern(pattern)
            if safe is None:
                del node["pattern"]
            else:
                node["pattern"] = safe
        for bound, limit in (("maxLength", MAX_DECODED_LENGTH), ("maxItems", MAX_DECODED_ITEMS)):
            value = node.get(bound)
            if isinstance(value, int) and not isinstance(value, bool) and value > limit:
                del node[bound]
        for value in node.values():  # a property named "pattern" holds a schema, and is walked like any other
            _rewrite(value)
    elif isinstance(node, list):
        for item in node:
            _rewrite(item)
