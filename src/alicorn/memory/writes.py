"""One write transaction: decide what each new record does (added, merged, contradicting), then write it all.

`WriteBatch` first reads (duplicates, keys, entity names) against the store *and* the records already decided in
the same batch, then `flush` inserts everything with one statement per table. Every change also appends a
history row (the outbox that `journaling.sync_journal` copies into the journal).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from alicorn import canonical
from alicorn.memory.engine import Engine, Tx, Vector, iso, record_filter, to_utc
from alicorn.memory.gate import GatePolicy, content_hash, name_key, numbers
from alicorn.memory.models import Filters, NewRecord, Provenance


@dataclass
class Outcome:
    """What happened to one new record inside the batch."""

    status: str
    id: str
    contradicts: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)


@dataclass
class _Decided:
    id: str
    numbers: list[str]


def _provenance(p: Provenance) -> dict[str, str]:
    return {"origin": p.origin, "ref": p.ref}


class WriteBatch:
    """The decisions and rows of one write transaction of one project."""

    def __init__(
        self,
        engine: Engine,
        tx: Tx,
        project: str,
        *,
        now: datetime,
        ids: Callable[[str], str],
        policy: GatePolicy,
        dim: int,
        capacity: int,
        name_vectors: Callable[[str], Vector],
    ) -> None:
        self.engine, self.tx, self.project, self.now = engine, tx, project, now
        self.ids, self.policy, self.name_vectors = ids, policy, name_vectors
        self.records: list[Sequence[Any]] = []
        self.vectors: list[Vector] = []
        self.tags: list[tuple[str, str]] = []
        self.sources: list[tuple[Any, ...]] = []
        self.contradictions: list[tuple[Any, ...]] = []
        self.relations: list[tuple[Any, ...]] = []
        self.invalidations: list[tuple[Any, ...]] = []
        self.history: list[tuple[Any, ...]] = []
        self.decided: list[_Decided] = []
        self._pending = np.zeros((max(capacity, 1), dim), dtype=np.float32)
        self._entities: dict[str, str] = {}
        self._source_counts: dict[str, int] = {}
        self._groups: dict[tuple[Any, ...], list[int]] = {}
        self._digests: dict[tuple[Any, ...], str] = {}
        self._keys: dict[str, list[tuple[str, str]]] = {}
        self.merged: set[str] = set()

    # ---- decisions --------------------------------------------------------------------------------------------

    def add(self, record: NewRecord, vector: Vector, *, dedupe: bool, supersede: bool) -> Outcome:
        """Decide and stage one record (already checked by gate.check_record)."""
        digest = content_hash(record.text)
        valid_from, valid_to = to_utc(record.valid_from), to_utc(record.valid_to)
        if record.kind == "entity" and record.name:
            existing = self.entity(record.name)
            if existing is not None:
                self._merge(existing, record.provenance)
                return Outcome("merged", existing)
            rid = self._insert(record, vector, digest, name_key(record.name))
            self._link(rid, record)
            return Outcome("added", rid)
        if dedupe:
            duplicate = self._duplicate(record, vector, digest, valid_from, valid_to)
            if duplicate is not None:
                self._merge(duplicate, record.provenance)
                return Outcome("merged", duplicate)
        contradicts = self._conflicts(record.key, digest) if record.key else []
        rid = self._insert(record, vector, digest, None)
        outcome = Outcome("added", rid, contradicts)
        for other in contradicts:
            self.contradictions.append((self.ids("c"), self.project, other, rid, record.key, self.now))
            self.log("contradiction", rid, {"record": rid, "contradicts": other, "key": record.key})
            if supersede:
                self.invalidate(other, valid_from or self.now, f"superseded by {rid}", record.provenance)
                outcome.superseded.append(other)
        self._link(rid, record)
        return outcome

    def entity(self, name: str) -> str | None:
        """The id of the entity called `name` (in the store or decided in this batch), or None."""
        key = name_key(name)
        if key in self._entities:
            return self._entities[key]
        rows = self.engine.rows(
            self.tx, "SELECT id FROM memory_records WHERE project = ? AND name_key = ?", (self.project, key)
        )
        if rows:
            found = self._entities[key] = str(rows[0][0])
            return found
        return None

    def ensure_entity(self, name: str, provenance: Provenance) -> str:
        """The entity called `name`, created (trust data, from `provenance`) if it does not exist."""
        existing = self.entity(name)
        if existing is not None:
            return existing
        draft = NewRecord(text=name, name=name, kind="entity", provenance=provenance)
        return self._insert(draft, self.name_vectors(name), content_hash(name), name_key(name))

    def _duplicate(
        self, record: NewRecord, vector: Vector, digest: str, valid_from: datetime | None, valid_to: datetime | None
    ) -> str | None:
        def same(key: Any, vf: Any, vt: Any, text_numbers: list[str]) -> bool:
            return (
                (record.key is None or key == record.key)
                and self.engine.timestamp(vf) == valid_from
                and self.engine.timestamp(vt) == valid_to
                and text_numbers == numbers(record.text)
            )

        where, params = record_filter(self.project, Filters(kinds=(record.kind,), trust=(record.trust,)), self.now)
        columns = "SELECT r.id, r.key, r.valid_from, r.valid_to, r.text FROM memory_records r"
        exact = self.engine.rows(
            self.tx, f"{columns} WHERE r.content_hash = ? AND {where} ORDER BY r.seq", [digest, *params]
        )
        for rid, key, vf, vt, text in exact:
            if same(key, vf, vt, numbers(text)):
                return str(rid)
        group = (record.kind, record.trust, record.key, valid_from, valid_to)
        if (group, digest) in self._digests:
            return self._digests[(group, digest)]
        threshold = self.policy.duplicate_similarity
        near = [
            rid
            for rid, sim in self.engine.vector_search(self.tx, self.project, vector, 5, where, params)
            if sim >= threshold
        ]
        if near:
            marks = ", ".join("?" * len(near))
            found = {row[0]: row for row in self.engine.rows(self.tx, f"{columns} WHERE r.id IN ({marks})", near)}
            for rid in near:
                _, key, vf, vt, text = found[rid]
                if same(key, vf, vt, numbers(text)):
                    return rid
        positions = self._groups.get(group, [])
        if positions:
            sims = self._pending[positions] @ vector
            order: list[int] = np.argsort(-sims, kind="stable").tolist()
            for i in order:
                if sims[i] < threshold:
                    break
                candidate = self.decided[positions[i]]
                if candidate.numbers == numbers(record.text):
                    return candidate.id
        return None

    def _conflicts(self, key: str, digest: str) -> list[str]:
        where, params = record_filter(self.project, Filters(), self.now)
        rows = self.engine.rows(
            self.tx,
            f"SELECT r.id, r.content_hash FROM memory_records r WHERE r.key = ? AND {where} ORDER BY r.seq",
            [key, *params],
        )
        found = [str(rid) for rid, other in rows if other != digest]
        found += [rid for rid, other in self._keys.get(key, []) if other != digest]
        return list(dict.fromkeys(found))

    # ---- staging ----------------------------------------------------------------------------------------------

    def _insert(self, record: NewRecord, vector: Vector, digest: str, entity_key: str | None) -> str:
        rid = self.ids("m")
        tags = sorted(set(record.tags))
        valid_from, valid_to = to_utc(record.valid_from), to_utc(record.valid_to)
        self.records.append(
            (
                rid,
                self.project,
                record.kind,
                record.text,
                digest,
                record.trust,
                record.classification,
                record.key,
                record.name,
                entity_key,
                json.dumps(tags, ensure_ascii=False),
                canonical.dumps(record.meta),
                valid_from,
                valid_to,
                self.now,
            )
        )
        self.vectors.append(vector)
        self.tags.extend((tag, rid) for tag in tags)
        if entity_key is not None:
            self._entities[entity_key] = rid
        elif len(self.decided) < len(self._pending):
            group = (record.kind, record.trust, record.key, valid_from, valid_to)
            self._groups.setdefault(group, []).append(len(self.decided))
            self._digests.setdefault((group, digest), rid)
            self._pending[len(self.decided)] = vector
            self.decided.append(_Decided(rid, numbers(record.text)))
        if record.key is not None:
            self._keys.setdefault(record.key, []).append((rid, digest))
        self._source_counts[rid] = 0  # a new record: no need to ask the store how many sources it has
        self._source(rid, record.provenance)
        data = {
            "record": rid,
            "kind": record.kind,
            "trust": record.trust,
            "classification": record.classification,
            "content_sha256": digest,
            "key": record.key,
            "name": record.name,
            "provenance": _provenance(record.provenance),
            "valid_from": None if valid_from is None else iso(valid_from),
            "valid_to": None if valid_to is None else iso(valid_to),
        }
        self.log("added", rid, data)
        return rid

    def _link(self, rid: str, record: NewRecord) -> None:
        for name in dict.fromkeys(record.entities):
            target = self.ensure_entity(name, record.provenance)
            if target != rid:
                self.relate(rid, "mentions", target, record.provenance, None, None, {})

    def relate(
        self,
        source: str,
        kind: str,
        target: str,
        provenance: Provenance,
        valid_from: datetime | None,
        valid_to: datetime | None,
        meta: dict[str, Any],
    ) -> str:
        """Stage an edge; returns its id."""
        rid = self.ids("r")
        self.relations.append(
            (
                rid,
                self.project,
                source,
                kind,
                target,
                to_utc(valid_from),
                to_utc(valid_to),
                self.now,
                provenance.origin,
                provenance.ref,
                provenance.note,
                canonical.dumps(meta),
            )
        )
        data = {
            "relation": rid,
            "source": source,
            "type": kind,
            "target": target,
            "provenance": _provenance(provenance),
        }
        self.log("related", rid, data)
        return rid

    def invalidate(self, rid: str, at: datetime, reason: str, by: Provenance) -> None:
        """Stage the invalidation of a record from valid time `at`."""
        self.invalidations.append((at, self.now, reason, rid, self.project))
        self.log("invalidated", rid, {"record": rid, "from": iso(at), "reason": reason, "by": _provenance(by)})

    def _merge(self, rid: str, provenance: Provenance) -> None:
        self._source(rid, provenance)
        self.merged.add(rid)
        self.log("merged", rid, {"record": rid, "provenance": _provenance(provenance)})

    def _source(self, rid: str, provenance: Provenance) -> None:
        n = self._source_counts.get(rid)
        if n is None:
            row = self.engine.rows(self.tx, "SELECT max(n) FROM memory_sources WHERE record_id = ?", (rid,))
            n = 0 if not row or row[0][0] is None else int(row[0][0]) + 1
        self._source_counts[rid] = n + 1
        self.sources.append((rid, n, self.now, provenance.origin, provenance.ref, provenance.note))

    def log(self, kind: str, rid: str, data: dict[str, Any]) -> None:
        """Stage a history entry (journaled as `memory.<kind>` when the store has a journal)."""
        self.history.append((self.project, kind, self.now, rid, canonical.dumps(data)))

    # ---- writing ----------------------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write everything staged, one statement per table."""
        engine, tx = self.engine, self.tx
        if self.records:
            engine.insert_records(tx, self.records, np.stack(self.vectors))
        engine.run_many(tx, "INSERT INTO memory_tags (tag, record_id) VALUES (?, ?)", self.tags)
        engine.run_many(
            tx,
            "INSERT INTO memory_sources (record_id, n, at, origin, ref, note) VALUES (?, ?, ?, ?, ?, ?)",
            self.sources,
        )
        engine.run_many(
            tx,
            "INSERT INTO memory_contradictions (id, project, record_a, record_b, key, at) VALUES (?, ?, ?, ?, ?, ?)",
            self.contradictions,
        )
        engine.run_many(
            tx,
            "INSERT INTO memory_relations (id, project, source, type, target, valid_from, valid_to, recorded_at, "
            "origin, ref, note, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            self.relations,
        )
        engine.run_many(
            tx,
            "UPDATE memory_records SET invalid_from = ?, invalidated_at = ?, invalidation_reason = ? "
            "WHERE id = ? AND project = ? AND invalidated_at IS NULL",
            self.invalidations,
        )
        engine.run_many(
            tx, "INSERT INTO memory_history (project, kind, at, record_id, data) VALUES (?, ?, ?, ?, ?)", self.history
        )
