"""What goes to a constrained decoder: patterns without the escapes llama.cpp's grammar cannot parse."""

from __future__ import annotations

import re

import pytest

from alicorn.models.decodable import decodable_pattern, decodable_schema


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"^\d{4}-\d{2}-\d{2}$", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
        (r"^([01]\d|2[0-3]):[0-5]\d$", "^([01][0-9]|2[0-3]):[0-5][0-9]$"),
        (r"^[\d_]+$", "^[0-9_]+$"),
        (r"^\w+\s\w+$", "^[A-Za-z0-9_]+[ \t\n\r][A-Za-z0-9_]+$"),
        (r"^[A-Za-z0-9_.-]+$", "^[A-Za-z0-9_.-]+$"),
        (r"^[]\d]$", "^[]0-9]$"),  # a leading ] is a member of the class, not its end
        (r"^a\.b$", None),
        (r"\bword\b", None),
        (r"^\D+$", None),
        ("trailing\\", None),
    ],
)
def test_class_escapes_become_ranges_and_other_escapes_drop_the_pattern(pattern: str, expected: str | None) -> None:
    assert decodable_pattern(pattern) == expected


@pytest.mark.parametrize("text", ["2026-11-29", "1999-01-01", "2026-1-29", "x2026-11-29", "2026-11-299"])
def test_a_rewritten_pattern_accepts_exactly_what_the_original_does_on_ascii(text: str) -> None:
    original = r"^\d{4}-\d{2}-\d{2}$"
    rewritten = decodable_pattern(original)
    assert rewritten is not None
    assert bool(re.fullmatch(original, text, re.ASCII)) == bool(re.fullmatch(rewritten, text))


def test_every_pattern_in_a_schema_is_rewritten_and_the_original_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "day": {"type": "string", "pattern": r"^\d{4}$"},
            "dotted": {"type": "string", "pattern": r"^a\.b$"},
            "pattern": {"type": "array", "items": {"type": "string", "pattern": r"\d"}},  # a field named pattern
        },
        "$defs": {"Inner": {"type": "string", "pattern": r"^\s$"}},
    }
    decoded = decodable_schema(schema)
    assert decoded["properties"]["day"]["pattern"] == "^[0-9]{4}$"
    assert "pattern" not in decoded["properties"]["dotted"]  # left to validation after decoding
    assert decoded["properties"]["pattern"]["items"]["pattern"] == "[0-9]"
    assert decoded["$defs"]["Inner"]["pattern"] == "^[ \t\n\r]$"
    assert schema["properties"]["day"]["pattern"] == r"^\d{4}$"  # the caller's schema is untouched


def test_long_bounds_are_left_to_validation_and_short_ones_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "minLength": 1, "maxLength": 2000},
            "code": {"type": "string", "maxLength": 12},
            "items": {"type": "array", "items": {"type": "string"}, "maxItems": 100, "minItems": 1},
            "few": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        },
    }
    decoded = decodable_schema(schema)["properties"]
    assert "maxLength" not in decoded["answer"] and decoded["answer"]["minLength"] == 1
    assert decoded["code"]["maxLength"] == 12
    assert "maxItems" not in decoded["items"] and decoded["items"]["minItems"] == 1
    assert decoded["few"]["maxItems"] == 3


def test_the_provider_sends_the_decodable_schema() -> None:
    from pydantic import BaseModel, Field

    from alicorn.models.messages import ChatRequest
    from alicorn.models.providers.openai_http import OpenAICompatibleProvider

    class Day(BaseModel):
        day: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")

    request = ChatRequest.chat("s", "u").model_copy(
        update={"json_schema": Day.model_json_schema(), "schema_name": "Day"}
    )
    provider = OpenAICompatibleProvider("http://127.0.0.1:9/v1", "m", profile="p")
    body = provider._mode_body(request, "json_schema")
    sent = body["response_format"]["json_schema"]["schema"]["properties"]["day"]["pattern"]
    assert sent == "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
