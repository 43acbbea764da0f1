"""What a context builder asks memory for: the top records for a query as labelled fragments.

A fragment keeps the record's text verbatim and says where it came from, how far it may be trusted and how
sensitive it is. Only `trust == "instruction"` fragments (operator-authored) may go to a model's instruction
channel; everything else is data, whatever its text says.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from alicorn.memory.models import Classification, Filters, Kind, Origin, Trust
from alicorn.memory.store import MemoryStore


class Fragment(BaseModel):
    """One memory record as context: its text and the labels a context builder needs."""

    model_config = ConfigDict(frozen=True)

    text: str
    source: str
    """`memory:<project>/<record id>`: cite it, fetch it (`alicorn memory show`)."""
    provenance: str
    """Where the record came from (a journal event, an artifact, a URL ...)."""
    origin: Origin
    trust: Trust
    classification: Classification
    kind: Kind
    valid_from: datetime | None
    valid_to: datetime | None
    score: float
    contradicted: bool
    """Another valid record with the same key says something else: present both, or ask."""


def memory_context(
    store: MemoryStore,
    query: str,
    *,
    k: int = 5,
    max_chars: int = 4000,
    filters: Filters | None = None,
) -> list[Fragment]:
    """The best records for `query` as fragments, best first, within `max_chars` of text in total (a record that
    would overflow the budget is skipped, a smaller one after it may still fit)."""
    result = store.search(query, k=k, filters=filters)
    fragments: list[Fragment] = []
    used = 0
    for hit in result.hits:
        record = hit.record
        if used + len(record.text) > max_chars:
            continue
        used += len(record.text)
        invalid_to = record.invalid_from if record.invalidated_at is not None else None
        ends = [t for t in (record.valid_to, invalid_to) if t is not None]
        fragments.append(
            Fragment(
                text=record.text,
                source=f"memory:{record.project}/{record.id}",
                provenance=record.provenance.ref,
                origin=record.provenance.origin,
                trust=record.trust,
                classification=record.classification,
                kind=record.kind,
                valid_from=record.valid_from,
                valid_to=min(ends) if ends else None,
                score=hit.score,
                contradicted=bool(record.contradicts),
            )
        )
    return fragments
