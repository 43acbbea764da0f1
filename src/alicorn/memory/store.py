"""`MemoryStore`: a handle on one project's memory. The project is bound when the handle is made and every query
names it, so a caller cannot read or write another project through it (records of other projects are "not
found"; a record that names another project is refused with `ScopeError`).

Writes pass write gating (`gate`): input checks, trust (only operators write instructions), near-duplicates
merged into the existing record (which gains a source), contradictions recorded, supersession for operators.
Embeddings are computed before the transaction opens and everything of one call is one transaction: an error
leaves the store unchanged. With a `JournalStore`, every change is also journaled on the stream
`memory:<project>` (see `journaling`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from alicorn import canonical
from alicorn.memory import graph
from alicorn.memory.chunking import chunk_text
from alicorn.memory.embedders import Embedder, EmbedderSpec, default_embedder, make_embedder, normalise
from alicorn.memory.engine import FORMAT, VERSION, Engine, Vector, to_utc
from alicorn.memory.errors import (
    EmbedderError,
    MemoryInputError,
    RecordNotFoundError,
    StoreUnavailableError,
    TooLargeError,
    TrustError,
    ValidityError,
    VectorSizeError,
)
from alicorn.memory.gate import GatePolicy, check_project, check_record, content_hash, name_key
from alicorn.memory.journaling import sync_journal
from alicorn.memory.models import (
    AddResult,
    Classification,
    Contradiction,
    Filters,
    Graph,
    HistoryEntry,
    NewRecord,
    NewRelation,
    Path,
    Provenance,
    Record,
    Relation,
    SearchResult,
    Trust,
    utc_now,
)
from alicorn.memory.rows import load_contradictions, load_records
from alicorn.memory.search import search as search_records
from alicorn.memory.writes import WriteBatch

if TYPE_CHECKING:
    from alicorn.journal.store import JournalStore

Clock = Callable[[], datetime]
IdFactory = Callable[[str], str]


def random_id(prefix: str) -> str:
    """`m-` (record), `r-` (relation), `c-` (contradiction) + 16 hex digits."""
    return f"{prefix}-{secrets.token_hex(8)}"


class MemoryStore:
    """One project's memory over an engine (SQLite or PostgreSQL).

    `embedder` may be left out for an existing store: the one it was created with is rebuilt from its metadata.
    A different embedder than the store's is refused (vectors of two models are not comparable). `clock` and
    `ids` are injectable for tests and replay; `journal` turns on journaling of every change.
    """

    def __init__(
        self,
        engine: Engine,
        project: str,
        *,
        embedder: Embedder | None = None,
        clock: Clock = utc_now,
        ids: IdFactory = random_id,
        policy: GatePolicy | None = None,
        journal: JournalStore | None = None,
        owns_engine: bool = True,
    ) -> None:
        self.engine = engine
        self.project = check_project(project)
        self.clock, self.ids = clock, ids
        self.policy = policy or GatePolicy()
        self.journal = journal
        self._owns_engine = owns_engine
        self.embedder = self._bind_embedder(embedder)
        self.dim = self.embedder.dim

    def _bind_embedder(self, embedder: Embedder | None) -> Embedder:
        meta = self.engine.meta()
        if not meta:
            chosen = embedder or default_embedder()
            spec = chosen.spec.model_dump_json()
            self.engine.initialise(
                {"format": FORMAT, "version": VERSION, "dim": str(chosen.dim), "embedder": spec}, chosen.dim
            )
            return chosen
        if meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise StoreUnavailableError(
                f"{self.engine.location} is not an Alicorn memory store of version {VERSION} (format "
                f"{meta.get('format')!r}, version {meta.get('version')!r}); nothing was changed"
            )
        stored = EmbedderSpec.model_validate_json(meta["embedder"])
        if embedder is None:
            return make_embedder(stored)
        mine = embedder.spec
        if (mine.kind, mine.model, mine.dim) != (stored.kind, stored.model, stored.dim):
            raise EmbedderError(
                f"the memory store {self.engine.location} was built with the embedder {stored.label}; it cannot be "
                f"searched or extended with {mine.label} (their vectors are not comparable). Open it without "
                "choosing an embedder, or use a new store for the other embedder."
            )
        return embedder

    def close(self) -> None:
        """Close the embedder's connections and (if this handle owns it) the engine."""
        self.embedder.close()
        if self._owns_engine:
            self.engine.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- vectors ----------------------------------------------------------------------------------------------

    def check_vectors(self, vectors: npt.ArrayLike, count: int, what: str) -> Vector:
        array = np.asarray(vectors, dtype=np.float32)
        if array.ndim == 1:
            array = array.reshape(1, -1)
        if array.ndim != 2 or array.shape[0] != count:
            raise MemoryInputError(
                f"expected {count} {what}(s), got an array of shape {array.shape}; nothing was written"
            )
        if array.shape[1] != self.dim:
            raise VectorSizeError(array.shape[1], self.dim, what=what)
        if not np.isfinite(array).all():
            raise MemoryInputError(f"a {what} contains NaN or infinity; nothing was written")
        return normalise(array)

    def embed(self, texts: Sequence[str], purpose: Literal["query", "document"] = "document") -> Vector:
        """Embed with the store's embedder, checking what comes back."""
        return self.check_vectors(
            self.embedder.embed(texts, purpose), len(texts), f"embedding from {self.embedder.spec.label}"
        )

    # ---- writes -----------------------------------------------------------------------------------------------

    def add(self, record: NewRecord, *, vector: npt.ArrayLike | None = None, supersede: bool = False) -> AddResult:
        """Add one record through write gating (see `add_many`)."""
        vectors = None if vector is None else np.asarray(vector, dtype=np.float32).reshape(1, -1)
        return self.add_many([record], vectors=vectors, supersede=supersede)[0]

    def add_many(
        self,
        records: Sequence[NewRecord],
        *,
        vectors: npt.ArrayLike | None = None,
        dedupe: bool = True,
        supersede: bool = False,
    ) -> list[AddResult]:
        """Add records in one transaction, each through write gating; results in input order.

        `vectors` (n x dim) replaces the embedder (precomputed embeddings). `dedupe=False` skips the near-duplicate
        check (a bulk import of data known to be distinct); trust, scope, size and validity are always checked.
        `supersede=True` (operator-authored records only) invalidates the facts a record contradicts.
        """
        records = list(records)
        if not records:
            return []
        for record in records:
            check_record(record, self.project, self.policy)
            if supersede and record.provenance.origin != "operator":
                raise TrustError(
                    f"only operator-authored records may supersede others; {record.text[:40]!r} comes from "
                    f"{record.provenance.origin!r}. Add it without supersede (the contradiction is recorded)."
                )
            try:
                canonical.dumps(record.meta)
            except (TypeError, ValueError) as exc:
                raise MemoryInputError(f"a record's meta is not JSON ({exc}); nothing was written") from exc
        if vectors is None:
            matrix = self.embed([r.text for r in records], "document")
        else:
            matrix = self.check_vectors(vectors, len(records), "embedding")
        name_vectors = self._entity_vectors([n for r in records for n in r.entities])
        now = to_utc(self.clock()) or utc_now()
        with self.engine.write(self.project) as tx:
            batch = self.write_batch(tx, now, len(records), name_vectors)
            outcomes = [
                batch.add(record, vector, dedupe=dedupe, supersede=supersede)
                for record, vector in zip(records, matrix, strict=True)
            ]
            batch.flush()
            merged = load_records(self.engine, tx, self.project, sorted(batch.merged)) if batch.merged else {}
        self.after_write()
        results = []
        for record, outcome in zip(records, outcomes, strict=True):
            stored = merged.get(outcome.id) or self._fresh(outcome.id, record, now, outcome.contradicts)
            results.append(
                AddResult(
                    status="merged" if outcome.status == "merged" else "added",
                    record=stored,
                    contradicts=tuple(outcome.contradicts),
                    superseded=tuple(outcome.superseded),
                )
            )
        return results

    def bulk_load(self) -> AbstractContextManager[None]:
        """Wrap a large import (`with store.bulk_load(): store.add_many(...)`): PostgreSQL drops its HNSW index and
        builds it once at the end; SQLite has nothing to defer. Searches meanwhile stay correct (exact)."""
        return self.engine.defer_vector_index()

    def add_document(
        self,
        text: str,
        *,
        provenance: Provenance,
        title: str = "",
        trust: Trust = "data",
        classification: Classification = "internal",
        tags: Sequence[str] = (),
        chunk_chars: int = 1500,
    ) -> list[AddResult]:
        """Store a long text as `chunk` records (split at paragraph and sentence ends), all in one transaction."""
        if len(text) > self.policy.max_document_chars:
            raise TooLargeError(len(text), self.policy.max_document_chars, what="document")
        chunks = chunk_text(text, max_chars=min(chunk_chars, self.policy.max_text_chars))
        if not chunks:
            raise MemoryInputError("the document is empty; nothing was written")
        document = self.ids("d")
        drafts = [
            NewRecord(
                text=chunk,
                kind="chunk",
                provenance=provenance,
                trust=trust,
                classification=classification,
                tags=tuple(tags),
                meta={"document": document, "title": title, "chunk": i, "chunks": len(chunks)},
            )
            for i, chunk in enumerate(chunks)
        ]
        return self.add_many(drafts)

    def invalidate(self, record_id: str, *, by: Provenance, reason: str, at: datetime | None = None) -> Record:
        """Mark a record no longer true from valid time `at` (default: now). Nothing is deleted: the record keeps
        its text and history and stays visible to searches of earlier times (`Filters.valid_at`, `as_of`)."""
        now = to_utc(self.clock()) or utc_now()
        when = to_utc(at) or now
        if not reason.strip():
            raise MemoryInputError("say why the record stops being true (`reason`); nothing was changed")
        with self.engine.write(self.project) as tx:
            record = self._require(tx, record_id)
            if record.invalidated_at is not None and record.invalid_from is not None:
                raise ValidityError(
                    f"record {record_id} is already invalid from {record.invalid_from.isoformat()} (recorded "
                    f"{record.invalidated_at.isoformat()}: {record.invalidation_reason}); nothing was changed"
                )
            if record.valid_from is not None and when < record.valid_from:
                raise ValidityError(
                    f"record {record_id} only became valid at {record.valid_from.isoformat()}; it cannot stop being "
                    f"valid before that ({when.isoformat()}). Nothing was changed."
                )
            if record.trust == "instruction" and by.origin != "operator":
                raise TrustError(f"only an operator may invalidate the instruction {record_id}; nothing was changed")
            batch = self.write_batch(tx, now, 0, {})
            batch.invalidate(record_id, when, reason, by)
            batch.flush()
            updated = self._require(tx, record_id)
        self.after_write()
        return updated

    def write_batch(self, tx: Any, now: datetime, capacity: int, name_vectors: dict[str, Vector]) -> WriteBatch:
        def vector_for(name: str) -> Vector:
            found = name_vectors.get(name_key(name))
            return found if found is not None else self.embed([name])[0]

        return WriteBatch(
            self.engine,
            tx,
            self.project,
            now=now,
            ids=self.ids,
            policy=self.policy,
            dim=self.dim,
            capacity=capacity,
            name_vectors=vector_for,
        )

    def _entity_vectors(self, names: Sequence[str]) -> dict[str, Vector]:
        """Vectors for the entity names that do not exist yet (embedded before the write transaction opens)."""
        keys = {name_key(n): n for n in names}
        if not keys:
            return {}
        with self.engine.read() as tx:
            marks = ", ".join("?" * len(keys))
            known = {
                row[0]
                for row in self.engine.rows(
                    tx,
                    f"SELECT name_key FROM memory_records WHERE project = ? AND name_key IN ({marks})",
                    [self.project, *keys],
                )
            }
        missing = [k for k in keys if k not in known]
        if not missing:
            return {}
        return dict(zip(missing, self.embed([keys[k] for k in missing]), strict=True))

    def _fresh(self, rid: str, record: NewRecord, now: datetime, contradicts: list[str]) -> Record:
        return Record(
            id=rid,
            project=self.project,
            kind=record.kind,
            text=record.text,
            trust=record.trust,
            classification=record.classification,
            tags=tuple(sorted(set(record.tags))),
            key=record.key,
            name=record.name,
            meta=dict(record.meta),
            valid_from=to_utc(record.valid_from),
            valid_to=to_utc(record.valid_to),
            recorded_at=now,
            invalid_from=None,
            invalidated_at=None,
            invalidation_reason=None,
            content_hash=content_hash(record.text),
            sources=(record.provenance,),
            contradicts=tuple(contradicts),
        )

    def after_write(self) -> None:
        """Copy the history of a committed write into the journal, when the store journals (`journaling`)."""
        if self.journal is not None:
            sync_journal(self)

    # ---- reads ------------------------------------------------------------------------------------------------

    def _require(self, tx: Any, record_id: str) -> Record:
        found = load_records(self.engine, tx, self.project, [record_id])
        if record_id not in found:
            raise RecordNotFoundError(f"record {record_id!r}", self.project)
        return found[record_id]

    def get(self, record_id: str) -> Record:
        """A record of this project (RecordNotFoundError otherwise, including for other projects' ids)."""
        with self.engine.read() as tx:
            return self._require(tx, record_id)

    def get_many(self, record_ids: Sequence[str]) -> dict[str, Record]:
        """The records of this project among `record_ids` (others are left out)."""
        with self.engine.read() as tx:
            return load_records(self.engine, tx, self.project, record_ids)

    def vector(self, record_id: str) -> Vector:
        """A record's stored unit vector."""
        with self.engine.read() as tx:
            self._require(tx, record_id)
            found = self.engine.vector_of(tx, record_id)
        if found is None:
            raise RecordNotFoundError(f"record {record_id!r}", self.project)
        return found

    def count(self) -> int:
        """How many records the project holds (valid or not)."""
        with self.engine.read() as tx:
            return int(
                self.engine.rows(tx, "SELECT count(*) FROM memory_records WHERE project = ?", [self.project])[0][0]
            )

    def contradictions(self, record_id: str | None = None) -> list[Contradiction]:
        """Recorded contradictions of the project (or involving one record)."""
        with self.engine.read() as tx:
            return load_contradictions(self.engine, tx, self.project, record_id)

    def history(self, record_id: str | None = None, *, after: int = 0) -> list[HistoryEntry]:
        """The project's change history (every add, merge, contradiction, relation and invalidation)."""
        with self.engine.read() as tx:
            rows = self.engine.history_rows(tx, self.project, after, only_unjournaled=False)
            entries = [
                HistoryEntry(seq=seq, kind=kind, at=self.engine.required_timestamp(at), record=rid, data=_loads(data))
                for seq, kind, at, rid, data in rows
            ]
        if record_id is None:
            return entries
        return [e for e in entries if e.record == record_id or record_id in e.data.values()]

    # ---- search and graph (in their own modules, over `handle.StoreHandle`) ---------------------------------------

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        filters: Filters | None = None,
        mode: Literal["hybrid", "vector", "text"] = "hybrid",
        expand: int = 0,
        vector: npt.ArrayLike | None = None,
    ) -> SearchResult:
        """Hybrid search (vector + full text, fused by reciprocal rank), filtered; `expand` adds graph neighbours
        of the hits up to that many steps away. See `alicorn.memory.search`."""
        return search_records(self, query, k=k, filters=filters or Filters(), mode=mode, expand=expand, vector=vector)

    def relate(self, relation: NewRelation) -> Relation:
        """Add an edge; `source`/`target` are record ids or entity names (entities are made if missing)."""
        return graph.relate(self, relation)

    def neighbours(self, node: str, *, depth: int = 1, types: Sequence[str] = (), at: datetime | None = None) -> Graph:
        """The records within `depth` steps of `node` (a record id or an entity name) over edges valid at `at`."""
        return graph.neighbours(self, node, depth=depth, types=types, at=at)

    def path(self, source: str, target: str, *, max_depth: int = 4, types: Sequence[str] = ()) -> Path | None:
        """A shortest path between two nodes over edges valid now, or None within `max_depth` steps."""
        return graph.path(self, source, target, max_depth=max_depth, types=types)


def _loads(text: str) -> dict[str, Any]:
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}
