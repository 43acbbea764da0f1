"""Errors of the context builder and the artifact store.

AlicornError
└── ContextError                  context cannot be built or an attachment cannot be taken as asked
    ├── BudgetError               fragments that must be kept do not fit their layer's budget
    ├── ContextBlockedError       policy forbids sending this context to the target (external) provider
    └── ArtifactError             an attachment cannot be stored or represented
        ├── ArtifactTooLargeError over the store's size limit (nothing was stored)
        └── UnknownArtifactError  no artifact with that sha256
"""

from __future__ import annotations

from alicorn.errors import AlicornError


class ContextError(AlicornError):
    """Context cannot be built, or an attachment cannot be taken, as asked."""


class BudgetError(ContextError):
    """Required fragments do not fit their layer's budget."""


class ContextBlockedError(ContextError):
    """Policy forbids sending this context to the target provider. `fragments` names the fragments that caused it."""

    def __init__(self, message: str, fragments: list[str]) -> None:
        super().__init__(message)
        self.fragments = fragments


class ArtifactError(ContextError):
    """An attachment cannot be stored or represented."""


class ArtifactTooLargeError(ArtifactError):
    """The attachment is over the store's size limit; nothing was stored."""


class UnknownArtifactError(ArtifactError):
    """No artifact with that sha256 in the store."""
