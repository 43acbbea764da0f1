"""Structured output that survives weak models: schema in the request, validation after, bounded repair.

ask_structured(client, request, Schema)
    ─► the request carries Schema's JSON Schema (constrained decoding where the provider supports it)
    ─► answer ─► JSON extracted (code fences and chatter around one object are tolerated) ─► Schema validated
    ─► invalid (garbage, truncated, invented fields, wrong values): the answer and the validation error are
       fed back, at most `max_repairs` times ─► StructuredOutputError with every attempt
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from alicorn.models.errors import StructuredOutputError
from alicorn.models.messages import ChatMessage, ChatRequest, Usage
from alicorn.models.recorder import ModelClient

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class StructuredResult(Generic[T]):
    """A validated answer and how it was obtained."""

    value: T
    attempts: int
    errors: tuple[str, ...]
    usage: Usage
    constrained: bool

    @property
    def valid_first_try(self) -> bool:
        return self.attempts == 1


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema sent to the model: pydantic's, with titles removed (fewer tokens for small models)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    result: dict[str, Any] = strip(model.model_json_schema())
    return result


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, a fenced block, or the outermost {...}."""
    candidates = [text.strip()]
    candidates.extend(m.group(1).strip() for m in _FENCE.finditer(text))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    if not text.strip():
        raise ValueError("the answer is empty; reply with one JSON object")
    raise ValueError("the answer is not JSON; reply with one JSON object and nothing else")


def describe_errors(exc: ValidationError) -> str:
    """Validation errors in a few lines a small model can act on."""
    lines = []
    for error in exc.errors(include_url=False)[:8]:
        where = ".".join(str(p) for p in error["loc"]) or "(the object)"
        given = json.dumps(error.get("input"), ensure_ascii=False, default=str)[:80]
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "this field is not in the schema; remove it"
        lines.append(f"- {where}: {message} (given: {given})")
    return "\n".join(lines)


def validate_answer(text: str, schema: type[T], *, truncated: bool = False) -> T:
    """Parse and validate one answer; ValueError with a message meant for the model when it is invalid."""
    try:
        raw = extract_json(text)
    except ValueError as exc:
        if truncated:
            raise ValueError("the answer was cut off at the token limit; reply with a shorter JSON object") from None
        raise ValueError(str(exc)) from None
    try:
        return schema.model_validate(raw)
    except ValidationError as exc:
        raise ValueError("the JSON does not match the schema:\n" + describe_errors(exc)) from None


def ask_structured(
    client: ModelClient,
    request: ChatRequest,
    schema: type[T],
    *,
    max_repairs: int = 2,
    purpose: str = "structured",
    repair_temperature: float = 0.4,
) -> StructuredResult[T]:
    """Ask until the answer validates against `schema`, feeding each error back; at most 1 + `max_repairs` calls.

    Repairs are sampled with at least `repair_temperature` and a seed moved by the attempt number: at temperature 0
    with a fixed seed a small model repeats its invalid answer word for word (constrained decoding included). The
    seed and temperature of every attempt are in its `llm.request`, so a replay reproduces them.
    """
    json_schema = schema_of(schema)
    messages = list(request.messages)
    errors: list[str] = []
    attempts: list[tuple[str, str]] = []
    prompt_tokens = completion_tokens = 0
    estimated = constrained = False
    for attempt in range(1, max_repairs + 2):
        update: dict[str, object] = {
            "messages": tuple(messages),
            "json_schema": json_schema,
            "schema_name": schema.__name__,
        }
        if attempt > 1:
            update["temperature"] = max(request.temperature, repair_temperature)
            update["seed"] = None if request.seed is None else request.seed + attempt - 1
        current = request.model_copy(update=update)
        response = client.complete(current, purpose=purpose if attempt == 1 else f"{purpose}:repair{attempt - 1}")
        prompt_tokens += response.usage.prompt_tokens
        completion_tokens += response.usage.completion_tokens
        estimated = estimated or response.usage.estimated
        constrained = constrained or response.constrained
        try:
            value = validate_answer(response.text, schema, truncated=response.truncated)
        except ValueError as exc:
            errors.append(str(exc))
            attempts.append((response.text, str(exc)))
            messages.extend(
                [
                    ChatMessage(role="assistant", content=response.text[:2000]),
                    ChatMessage(
                        role="user",
                        content=f"That answer is invalid.\n{exc}\nReply again with only a JSON object that matches "
                        f"the schema: {json.dumps(json_schema, ensure_ascii=False)}",
                    ),
                ]
            )
            continue
        usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, estimated=estimated)
        return StructuredResult(value, attempt, tuple(errors), usage, constrained)
    raise StructuredOutputError(
        f"the model of profile {client.profile.id!r} gave no valid {schema.__name__} in {max_repairs + 1} attempts; "
        f"last error: {errors[-1]}. Use a stronger profile, constrained decoding, or a fallback signal",
        attempts,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
