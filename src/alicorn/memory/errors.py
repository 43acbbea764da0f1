"""Pegas Memory's exceptions, all under `alicorn.errors.AlicornError`.

    MemoryStoreError                 memory cannot do what was asked; the message says what to do
    ├── MemoryInputError             a bad input; nothing was written
    │   ├── VectorSizeError          an embedding of the wrong dimension
    │   ├── ValidityError            an impossible validity interval (valid_to before valid_from ...)
    │   └── TooLargeError            a text or document over the size limit
    ├── ScopeError                   a record of another project, or a handle used outside its project
    ├── RecordNotFoundError          no such record or entity in this project
    ├── TrustError                   write gating refused a trust label (only operators write instructions)
    ├── EmbedderError                an embedder failed (endpoint down, bad answer) or does not match the store
    └── StoreUnavailableError        the store cannot be opened or reached (corrupt file, server down)

Errors carry the ids involved (record id, project) as attributes as well as in the message.
"""

from __future__ import annotations

from alicorn.errors import AlicornError


class MemoryStoreError(AlicornError):
    """Base of Pegas Memory's errors."""


class MemoryInputError(MemoryStoreError):
    """A bad input: the store is unchanged."""


class VectorSizeError(MemoryInputError):
    """An embedding does not have the store's dimension."""

    def __init__(self, got: int, expected: int, *, what: str = "embedding") -> None:
        super().__init__(
            f"the {what} has {got} dimensions but this store holds {expected}-dimensional vectors; embed with the "
            f"store's embedder (or open a store made for {got} dimensions). Nothing was written."
        )
        self.got = got
        self.expected = expected


class ValidityError(MemoryInputError):
    """An impossible validity interval or invalidation time."""


class TooLargeError(MemoryInputError):
    """A text over the size limit of one record (or a document over the limit of `add_document`)."""

    def __init__(self, size: int, limit: int, *, what: str = "record text") -> None:
        super().__init__(
            f"the {what} is {size:,} characters, over the limit of {limit:,}; store a long text with "
            "`add_document` (it is split into chunks) or split it yourself. Nothing was written."
        )
        self.size = size
        self.limit = limit


class ScopeError(MemoryStoreError):
    """A record for another project: a store handle reads and writes only its own project."""

    def __init__(self, message: str, *, project: str, other: str | None = None) -> None:
        super().__init__(message)
        self.project = project
        self.other = other


class RecordNotFoundError(MemoryStoreError):
    """No record (or entity) with that id or name in this project."""

    def __init__(self, what: str, project: str) -> None:
        super().__init__(
            f"no {what} in project {project!r}; `alicorn memory search` finds records (ids look like m-...)"
        )
        self.what = what
        self.project = project


class TrustError(MemoryStoreError):
    """Write gating refused a trust label: only operator-authored content may be an instruction."""


class EmbedderError(MemoryStoreError):
    """An embedder failed or does not match the store."""


class StoreUnavailableError(MemoryStoreError):
    """The store cannot be opened or reached: a corrupt or foreign file, a server that is down."""
