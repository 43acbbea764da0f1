"""The provider interface: one method, `complete`, over the shared request/response shapes."""

from __future__ import annotations

from abc import ABC, abstractmethod

from alicorn.context.tokens import TokenCounter
from alicorn.models.messages import ChatRequest, ChatResponse


class Provider(ABC):
    """A way to get chat completions. Implementations raise `ProviderError` subclasses, never raw I/O errors."""

    #: A short name of the provider kind, journaled with every call.
    kind: str = "provider"
    #: Whether a request's `json_schema` constrains decoding (grammar / response_format), not just the prompt.
    constrains_output: bool = False

    @abstractmethod
    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer `request` or raise a `ProviderError`."""

    def token_counter(self) -> TokenCounter | None:
        """The model's own tokenizer, when the provider has it locally."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook: most providers hold nothing to release
        """Release connections or model memory."""

    def __enter__(self) -> Provider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
