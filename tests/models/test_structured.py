"""Structured output: validation after decoding, bounded repair with the error fed back, clear failure."""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from alicorn.models.errors import StructuredOutputError
from alicorn.models.messages import ChatRequest
from alicorn.models.providers.scripted import Scripted, ScriptedProvider
from alicorn.models.recorder import ModelClient
from alicorn.models.structured import ask_structured, extract_json, schema_of
from tests.models.support import profile


class Label(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["task", "question"]
    items: list[str] = Field(default_factory=list, max_length=2)


ASK = ChatRequest.chat("Classify.", "Prepare a note")


def client(*answers: object) -> tuple[ModelClient, ScriptedProvider]:
    provider = ScriptedProvider(answers)  # type: ignore[arg-type]
    return ModelClient(profile(), provider), provider


def test_valid_first_time() -> None:
    c, provider = client('{"kind": "task"}')
    result = ask_structured(c, ASK, Label)
    assert result.value == Label(kind="task") and result.valid_first_try and result.errors == ()
    assert provider.requests[0].json_schema == schema_of(Label)


@pytest.mark.parametrize(
    ("bad", "fed_back"),
    [
        ("Sure! The kind is task.", "not JSON"),
        ('{"kind": "command"}', "kind"),
        ('{"kind": "task", "confidence": 0.9}', "confidence: this field is not in the schema"),
        ('{"kind": "task", "items": ["a", "a", "a"]}', "items"),
        ("", "empty"),
    ],
    ids=["garbage", "wrong-value", "invented-field", "too-many-items", "empty"],
)
def test_invalid_answer_is_repaired_with_the_error_fed_back(bad: str, fed_back: str) -> None:
    c, provider = client(bad, '{"kind": "question"}')
    result = ask_structured(c, ASK, Label)
    assert result.value.kind == "question" and result.attempts == 2 and not result.valid_first_try
    repair = provider.requests[1].messages
    assert repair[-2].role == "assistant" and repair[-2].content == bad[:2000]
    assert fed_back in repair[-1].content


def test_truncated_answer_asks_for_a_shorter_one() -> None:
    c, provider = client(Scripted('{"kind": "ta', finish_reason="length"), '{"kind": "task"}')
    result = ask_structured(c, ASK, Label)
    assert result.attempts == 2 and "cut off at the token limit" in provider.requests[1].messages[-1].content


def test_gives_up_after_the_allowed_repairs_with_every_attempt() -> None:
    c, provider = client("no", "still no", "never", "unused")
    with pytest.raises(StructuredOutputError, match="no valid Label in 3 attempts") as info:
        ask_structured(c, ASK, Label, max_repairs=2)
    assert [a for a, _ in info.value.attempts] == ["no", "still no", "never"] and provider.remaining == 1


def test_fenced_and_chatty_json_is_accepted() -> None:
    assert extract_json('Here you go:\n```json\n{"kind": "task"}\n```') == {"kind": "task"}
    assert extract_json('The answer is {"kind": "task"} as requested') == {"kind": "task"}


@given(st.text(max_size=200))
def test_extract_json_never_crashes(text: str) -> None:
    try:
        extract_json(text)
    except ValueError as exc:
        assert "JSON" in str(exc)


def test_repairs_are_sampled_with_a_moved_seed() -> None:
    c, provider = client("no", "no", '{"kind": "task"}')
    ask_structured(c, ASK, Label, max_repairs=2)
    assert [(r.temperature, r.seed) for r in provider.requests] == [(0.0, 0), (0.4, 1), (0.4, 2)]
