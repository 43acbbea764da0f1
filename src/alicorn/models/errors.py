"""Errors of the model layer.

AlicornError
└── ModelError                    a model cannot be used or did not give a usable answer
    ├── ProfileError              a profile file (or profile) is invalid: every problem, with its location
    ├── RoutingError              no profile fits a role under the policy (carries the decision record)
    ├── ExtraNotInstalledError    an optional extra (in-process llama.cpp, the bundled model) is missing
    ├── ProviderError             the provider failed (`retryable` says whether trying again may help)
    │   ├── ProviderUnavailableError  the endpoint cannot be reached (down, refused, DNS)
    │   ├── ProviderTimeoutError      no answer within the timeout, after the retries
    │   ├── ProviderAuthError         the endpoint refused the credentials (names the env var, never a value)
    │   ├── UnknownModelError         the endpoint does not serve the profile's model
    │   ├── ProviderResponseError     the endpoint answered something that is not a chat completion
    │   └── ScriptExhaustedError      a scripted provider has no recorded answer left
    └── StructuredOutputError     the answer stayed invalid after the allowed repairs (carries every attempt)
"""

from __future__ import annotations

from typing import Any

from alicorn.errors import AlicornError


class ModelError(AlicornError):
    """A model cannot be used, or did not give a usable answer."""


class ProfileError(ModelError):
    """A model profile file is invalid. `problems` lists every problem, each with its location and the fix."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = list(problems)
        body = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"the model profiles in {source} are invalid:\n{body}")


class RoutingError(ModelError):
    """No profile fits the role. `decision` is the full record: every candidate and why it was rejected."""

    def __init__(self, message: str, decision: Any) -> None:
        super().__init__(message)
        self.decision = decision


class ExtraNotInstalledError(ModelError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class ProviderError(ModelError):
    """The provider failed. `retryable` tells the caller whether trying again may help."""

    retryable = False

    def __init__(self, message: str, *, profile: str | None = None) -> None:
        super().__init__(message)
        self.profile = profile


class ProviderUnavailableError(ProviderError):
    """The endpoint cannot be reached."""

    retryable = True


class ProviderTimeoutError(ProviderError):
    """The endpoint did not answer within the timeout."""

    retryable = True


class ProviderAuthError(ProviderError):
    """The endpoint refused the request's credentials."""


class UnknownModelError(ProviderError):
    """The endpoint does not serve the requested model."""


class ProviderCrashedError(ProviderError):
    """The process the model ran in died while answering (a crash in native code): this answer is lost, the next
    call starts a new process."""


class ProviderResponseError(ProviderError):
    """The endpoint's answer is not a usable chat completion."""


class ScriptExhaustedError(ProviderError):
    """A scripted provider was asked more often than it has recorded answers."""


class StructuredOutputError(ModelError):
    """The model's answer stayed invalid after the allowed repairs. `attempts` holds each answer and its error."""

    def __init__(
        self, message: str, attempts: list[tuple[str, str]], *, prompt_tokens: int = 0, completion_tokens: int = 0
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
