"""The pieces a context is built from, and the envelope that results.

A `Fragment` is one piece of text with its provenance: the layer it belongs to, where it came from (`source`),
how sensitive it is (`classification`), whether it may instruct the model (`trust`) and how much it matters
(`priority`). Sources of kind web, mail, document, attachment, tool and memory are untrusted: their fragments are
data whatever they claim, and the builder records when it overrode a claimed ``instruction``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Layer = Literal["rules", "project", "task", "memory"]
Classification = Literal["public", "internal", "private", "secret"]
Trust = Literal["instruction", "data"]

LAYERS: tuple[Layer, ...] = ("rules", "project", "task", "memory")
CLASSIFICATION_ORDER: tuple[Classification, ...] = ("public", "internal", "private", "secret")
#: Source kinds whose text is never an instruction (the part of `source` before the first ':').
UNTRUSTED_SOURCES = frozenset({"web", "mail", "email", "document", "attachment", "artifact", "tool", "memory", "chat"})
#: Source kinds that may carry instructions: the operator's rules, project configuration, the authenticated human.
TRUSTED_SOURCES = frozenset({"rules", "policy", "project", "human", "system", "plan"})


def source_kind(source: str) -> str:
    """`web` for `web:https://…`; the whole source when it has no ':'."""
    return source.split(":", 1)[0].strip().lower()


class Fragment(BaseModel):
    """One piece of context. `required` fragments are never dropped (a budget too small for them is an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$")]
    layer: Layer
    source: Annotated[str, Field(min_length=1, max_length=512)]
    text: str
    classification: Classification = "internal"
    trust: Trust = "data"
    priority: Annotated[int, Field(ge=0, le=100)] = 50
    required: bool = False


class IncludedFragment(BaseModel):
    """A fragment as it went into the envelope (after redaction), with its count and hash."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    layer: Layer
    source: str
    classification: Classification
    trust: Trust
    tokens: int
    sha256: str
    text: str
    redactions: dict[str, int] = Field(default_factory=dict)
    notes: tuple[str, ...] = ()


class DroppedFragment(BaseModel):
    """A fragment left out, and why (budget, policy)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    layer: Layer
    tokens: int
    priority: int
    reason: str


class ContextEnvelope(BaseModel):
    """What a model call will see, and the record of how it was assembled."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    target: str
    external: bool
    counter: str
    fragments: tuple[IncludedFragment, ...]
    dropped: tuple[DroppedFragment, ...]
    budgets: dict[str, int]
    tokens_requested: int
    tokens_used: int

    @property
    def tokens_saved(self) -> int:
        """Tokens the budget kept out of the prompt."""
        return self.tokens_requested - self.tokens_used

    def tokens_by_layer(self) -> dict[str, int]:
        return {layer: sum(f.tokens for f in self.fragments if f.layer == layer) for layer in LAYERS}

    def journal_data(self) -> dict[str, object]:
        """The `context.built` event: ids, hashes, sizes and decisions; never the text itself."""
        return {
            "envelope": self.id,
            "target": self.target,
            "external": self.external,
            "counter": self.counter,
            "budgets": dict(self.budgets),
            "tokens_requested": self.tokens_requested,
            "tokens_used": self.tokens_used,
            "tokens_saved": self.tokens_saved,
            "fragments": [
                {
                    "id": f.id,
                    "layer": f.layer,
                    "source": f.source,
                    "classification": f.classification,
                    "trust": f.trust,
                    "tokens": f.tokens,
                    "sha256": f.sha256,
                    "chars": len(f.text),
                    "redactions": dict(f.redactions),
                    "notes": list(f.notes),
                }
                for f in self.fragments
            ],
            "dropped": [d.model_dump() for d in self.dropped],
        }
