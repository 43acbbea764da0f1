"""Chat requests and responses, the one shape every provider speaks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant"]


class ChatMessage(BaseModel):
    """One message of a chat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: str


class ChatRequest(BaseModel):
    """What is asked of a model. `json_schema` asks for structured output (constrained where the provider can)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: tuple[ChatMessage, ...] = Field(min_length=1)
    json_schema: dict[str, Any] | None = None
    schema_name: str = Field("answer", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    max_tokens: int = Field(256, ge=1, le=32768)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    seed: int | None = 0

    @classmethod
    def chat(cls, system: str, user: str, **options: Any) -> ChatRequest:
        """A two-message request (an empty system prompt is left out)."""
        messages = [ChatMessage(role="system", content=system)] if system else []
        messages.append(ChatMessage(role="user", content=user))
        return cls(messages=tuple(messages), **options)


class Usage(BaseModel):
    """Tokens spent. `estimated` when the provider did not report them and they were counted here."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    estimated: bool = False

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ChatResponse(BaseModel):
    """A model's answer. `constrained` when decoding was restricted to the requested schema."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    usage: Usage = Usage()
    model: str = ""
    finish_reason: str | None = None
    constrained: bool = False
    #: How structured output was obtained from an HTTP server (json_schema, json_object, grammar, ollama_format,
    #: none) and why that mode: what the server refused before it. None when no schema was asked for.
    structured_mode: str | None = None
    structured_reason: str = ""

    @property
    def truncated(self) -> bool:
        """Whether the answer stopped at the token limit."""
        return self.finish_reason == "length"
