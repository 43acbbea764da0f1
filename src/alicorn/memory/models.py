"""Pegas Memory's values: what goes in (`NewRecord`, `NewRelation`, `Filters`) and what comes out (`Record`,
`Relation`, `SearchResult`, `Graph`, ...). Pydantic models, frozen, with `extra="forbid"` at the boundary.

Time is bi-temporal. *Valid time* is when a fact is true in the world (`valid_from`, `valid_to`, and `invalid_from`
once someone says it stopped being true); *system time* is when the store learned something (`recorded_at`,
`invalidated_at`). Nothing is overwritten or deleted: invalidating a record sets `invalid_from`/`invalidated_at`
once, so "what did we believe at S about time T" stays answerable.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from alicorn.clock import default_clock, parse_time

Kind = Literal["fact", "episode", "chunk", "entity"]
"""fact: a statement that can stop being true; episode: something that happened (a conversation, a run);
chunk: a piece of a document; entity: a node of the graph (a person, a camera, a project...)."""

Trust = Literal["instruction", "data"]
"""`instruction` may steer an agent and only an operator can write it; everything else is `data`, forever."""

Classification = Literal["public", "internal", "confidential", "secret"]

Origin = Literal["operator", "human", "agent", "tool", "web", "mail", "document", "import"]
"""Who or what authored the content. Only `operator` may write `instruction` records."""

KINDS: tuple[Kind, ...] = ("fact", "episode", "chunk", "entity")
TRUSTS: tuple[Trust, ...] = ("instruction", "data")
CLASSIFICATIONS: tuple[Classification, ...] = ("public", "internal", "confidential", "secret")
ORIGINS: tuple[Origin, ...] = ("operator", "human", "agent", "tool", "web", "mail", "document", "import")

Tag = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[^\s,]+$")]
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
JsonDict = dict[str, Any]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


def utc_now() -> datetime:
    """The default clock: the current time in UTC (stores take an injected clock for tests and replay)."""
    return parse_time(default_clock().now())


class Provenance(BaseModel):
    """Where content came from: every write carries one (a journal event, an artifact, a URL, a person)."""

    model_config = _FROZEN

    origin: Origin
    ref: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    """`journal:<stream>#<seq>`, `artifact:<id>`, a URL, `cli:<user>`, `mcp:<client>` ..."""
    note: Annotated[str, StringConstraints(max_length=500)] = ""

    @classmethod
    def journal_event(cls, stream: str, seq: int, *, origin: Origin = "agent", note: str = "") -> Provenance:
        """Provenance pointing at one journal event."""
        return cls(origin=origin, ref=f"journal:{stream}#{seq}", note=note)

    @classmethod
    def artifact(cls, artifact_id: str, *, origin: Origin = "document", note: str = "") -> Provenance:
        """Provenance pointing at an artifact in the Artifact Store."""
        return cls(origin=origin, ref=f"artifact:{artifact_id}", note=note)


class NewRecord(BaseModel):
    """A record to add. `project` may be left out; if given it must be the store's project (ScopeError)."""

    model_config = _FROZEN

    text: Annotated[str, StringConstraints(min_length=1)]
    provenance: Provenance
    kind: Kind = "fact"
    project: str | None = None
    trust: Trust = "data"
    classification: Classification = "internal"
    tags: tuple[Tag, ...] = ()
    key: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    """The slot a fact fills (`anna/vacation`): two valid facts with one key and different text contradict."""
    name: Name | None = None
    """An entity's name (required for kind `entity`, unique per project, compared case-insensitively)."""
    entities: tuple[Name, ...] = ()
    """Names of entities the record is about: linked in the graph by `mentions` relations (created if new)."""
    valid_from: AwareDatetime | None = None
    """When it became true; None: always (as far as we know)."""
    valid_to: AwareDatetime | None = None
    """When it stops being true, if known in advance; None: open-ended."""
    meta: JsonDict = Field(default_factory=dict)


class Record(BaseModel):
    """A stored record. `sources` starts with the provenance it was added with; merged near-duplicates append."""

    model_config = ConfigDict(frozen=True)

    id: str
    project: str
    kind: Kind
    text: str
    trust: Trust
    classification: Classification
    tags: tuple[str, ...]
    key: str | None
    name: str | None
    meta: JsonDict
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    invalid_from: datetime | None
    invalidated_at: datetime | None
    invalidation_reason: str | None
    content_hash: str
    sources: tuple[Provenance, ...]
    contradicts: tuple[str, ...] = ()
    """Ids of records recorded as contradicting this one (both stay; a human or a supersede decides)."""

    @property
    def provenance(self) -> Provenance:
        """Where the record first came from."""
        return self.sources[0]

    def valid_at(self, when: datetime, *, known_at: datetime | None = None) -> bool:
        """Whether the record was true at `when`, as the store knew at `known_at` (default: now)."""
        if self.valid_from is not None and self.valid_from > when:
            return False
        if self.valid_to is not None and self.valid_to <= when:
            return False
        if self.invalidated_at is not None and self.invalid_from is not None:
            known = known_at if known_at is not None else utc_now()
            if self.invalidated_at <= known and self.invalid_from <= when:
                return False
        return True


class NewRelation(BaseModel):
    """An edge to add: `source` and `target` are record ids or entity names (entities are created if new)."""

    model_config = _FROZEN

    source: Name
    type: Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
    target: Name
    provenance: Provenance
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    meta: JsonDict = Field(default_factory=dict)


class Relation(BaseModel):
    """A stored edge between two records (usually entities)."""

    model_config = ConfigDict(frozen=True)

    id: str
    project: str
    source: str
    type: str
    target: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    invalid_from: datetime | None
    invalidated_at: datetime | None
    provenance: Provenance


class Filters(BaseModel):
    """Search filters. By default: records valid now, as known now, of every kind, trust and classification."""

    model_config = _FROZEN

    kinds: tuple[Kind, ...] = ()
    trust: tuple[Trust, ...] = ()
    classifications: tuple[Classification, ...] = ()
    tags: tuple[Tag, ...] = ()
    """Records carrying all of these tags."""
    valid_at: AwareDatetime | None = None
    """Valid time: records true at this moment (default: now)."""
    as_of: AwareDatetime | None = None
    """System time: what the store knew at this moment (default: now)."""
    include_invalid: bool = False
    """Ignore valid time: also records that were invalidated or are not (yet / any more) true."""
    recorded_after: AwareDatetime | None = None
    recorded_before: AwareDatetime | None = None


class Hit(BaseModel):
    """One search result. `score` is the fused (reciprocal-rank) score; the ranks say which search found it."""

    model_config = ConfigDict(frozen=True)

    record: Record
    score: float
    similarity: float | None = None
    vector_rank: int | None = None
    text_rank: int | None = None


class Related(BaseModel):
    """A record reached from a hit through the graph (search with `expand`)."""

    model_config = ConfigDict(frozen=True)

    record: Record
    via: str
    """The id of the hit it was reached from."""
    depth: int


class SearchResult(BaseModel):
    """Hits in rank order, then records related to them through the graph."""

    model_config = ConfigDict(frozen=True)

    query: str
    hits: tuple[Hit, ...]
    related: tuple[Related, ...] = ()


class AddResult(BaseModel):
    """What a write did: `added` a new record, or `merged` it into a near-duplicate (which gained a source)."""

    model_config = ConfigDict(frozen=True)

    status: Literal["added", "merged"]
    record: Record
    contradicts: tuple[str, ...] = ()
    """Valid records with the same key and different content: the contradiction is recorded, both are kept."""
    superseded: tuple[str, ...] = ()
    """Records invalidated because the write superseded them (operator writes with `supersede=True`)."""


class Graph(BaseModel):
    """A neighbourhood: nodes with their distance from the start, and the edges between them."""

    model_config = ConfigDict(frozen=True)

    start: str
    nodes: tuple[Record, ...]
    depths: dict[str, int]
    edges: tuple[Relation, ...]


class Path(BaseModel):
    """A shortest path: nodes from source to target and the edge taken at each step."""

    model_config = ConfigDict(frozen=True)

    nodes: tuple[Record, ...]
    edges: tuple[Relation, ...]


class Contradiction(BaseModel):
    """Two records recorded as contradicting each other (same key, different content)."""

    model_config = ConfigDict(frozen=True)

    id: str
    first: str
    second: str
    key: str | None
    recorded_at: datetime


class HistoryEntry(BaseModel):
    """One entry of a project's memory history (the outbox that can be journaled)."""

    model_config = ConfigDict(frozen=True)

    seq: int
    kind: str
    at: datetime
    record: str
    data: JsonDict
