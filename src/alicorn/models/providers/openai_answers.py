"""Reading what an OpenAI-compatible server (or Ollama's native /api/chat) answered with a 200.

Servers and the proxies in front of them answer 200 with things that are not chat completions: an HTML error page,
a JSON body cut off mid-way, an empty `choices` list, an event stream although none was asked for (and that stream
cut off before its end). Each becomes one `AnswerProblem` sentence saying what came back; the provider adds the
profile, the URL and the first 200 characters of the body (secrets scrubbed) and raises a `ProviderResponseError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


class AnswerProblem(ValueError):
    """The 200 body is not a usable answer; the message says what it is instead."""


@dataclass(frozen=True)
class Answer:
    """The parts of a completion the provider keeps."""

    text: str
    finish_reason: str | None
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


def _load(body: str) -> Any:
    stripped = body.strip()
    if not stripped:
        raise AnswerProblem("an empty body")
    if stripped[:1] == "<":
        raise AnswerProblem("an HTML page (an error page from a proxy or a web server?)")
    try:
        return json.loads(stripped)
    except ValueError as exc:
        pos, what = getattr(exc, "pos", 0), getattr(exc, "msg", "")
        if stripped[:1] in "{[" and (pos >= len(stripped) - 1 or what.startswith("Unterminated")):
            raise AnswerProblem(f"JSON cut off after {len(stripped)} characters (a truncated body)") from None
        raise AnswerProblem(f"a body that is not JSON ({exc})") from None


def _tokens(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def chat_completion(body: str, content_type: str = "") -> Answer:
    """An OpenAI chat completion (or, when the server streamed anyway, the stream's pieces joined)."""
    if "text/event-stream" in content_type or body.lstrip().startswith("data:"):
        return event_stream(body)
    raw = _load(body)
    if not isinstance(raw, dict):
        raise AnswerProblem(f"JSON that is not an object (a {type(raw).__name__})")
    if "error" in raw and "choices" not in raw:
        raise AnswerProblem("an error object with status 200")
    choices = raw.get("choices")
    if not isinstance(choices, list):
        raise AnswerProblem("JSON without a `choices` list")
    if not choices:
        raise AnswerProblem("an empty `choices` list (no answer at all)")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise AnswerProblem("a choice without a `message` object")
    text = message.get("content")
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise AnswerProblem(f"message content that is not text (a {type(text).__name__})")
    usage: dict[str, Any] = raw["usage"] if isinstance(raw.get("usage"), dict) else {}
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    return Answer(
        text=text,
        finish_reason=finish if isinstance(finish, str) else None,
        model=str(raw["model"]) if raw.get("model") else None,
        prompt_tokens=_tokens(usage.get("prompt_tokens")),
        completion_tokens=_tokens(usage.get("completion_tokens")),
    )


def event_stream(body: str) -> Answer:
    """The pieces of a server-sent event stream of chat-completion chunks; a stream without its end is refused."""
    pieces: list[str] = []
    finish: str | None = None
    model: str | None = None
    ended = False
    usage: dict[str, Any] = {}
    lines = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
    for number, data in enumerate(lines, 1):
        if data == "[DONE]":
            ended = True
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            if number == len(lines):
                raise AnswerProblem("an event stream cut off before its end (in the middle of a chunk)") from None
            raise AnswerProblem(f"an event stream whose chunk {number} is not JSON") from None
        if not isinstance(chunk, dict):
            raise AnswerProblem("an event stream with a chunk that is not an object")
        model = model or (str(chunk["model"]) if chunk.get("model") else None)
        usage = chunk["usage"] if isinstance(chunk.get("usage"), dict) else usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                pieces.append(delta["content"])
            if isinstance(choice, dict) and isinstance(choice.get("finish_reason"), str):
                finish = choice["finish_reason"]
    if not ended and finish is None:
        raise AnswerProblem(f"an event stream cut off before its end ({len(pieces)} pieces, no finish reason)")
    return Answer(
        text="".join(pieces),
        finish_reason=finish,
        model=model,
        prompt_tokens=_tokens(usage.get("prompt_tokens")),
        completion_tokens=_tokens(usage.get("completion_tokens")),
    )


def ollama_chat(body: str, content_type: str = "") -> Answer:
    """An answer of Ollama's native POST /api/chat (`stream: false`); `content_type` is not needed to read it."""
    raw = _load(body)
    if not isinstance(raw, dict):
        raise AnswerProblem(f"JSON that is not an object (a {type(raw).__name__})")
    if isinstance(raw.get("error"), str):
        raise AnswerProblem("an error object with status 200")
    message = raw.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content", ""), str):
        raise AnswerProblem("JSON without a `message` holding text content")
    if raw.get("done") is False:
        raise AnswerProblem("an answer marked as not done (cut off)")
    reason = raw.get("done_reason")
    return Answer(
        text=message.get("content") or "",
        finish_reason=reason if isinstance(reason, str) else None,
        model=str(raw["model"]) if raw.get("model") else None,
        prompt_tokens=_tokens(raw.get("prompt_eval_count")),
        completion_tokens=_tokens(raw.get("eval_count")),
    )
