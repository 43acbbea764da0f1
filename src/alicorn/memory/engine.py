"""The storage engine interface: what a backend (SQLite, PostgreSQL) must provide, and the SQL both share.

An engine owns a connection and knows nothing of projects beyond the `project` column; `MemoryStore` binds a
project and holds all the logic (gating, search fusion, graph walks, journaling), in the manner of DBOS's system
database: one place for logic, small per-engine modules for the parts that differ (vector search, full-text
search, schema, transactions). SQL is written once with `?` placeholders; the PostgreSQL engine rewrites them.

Tables (both engines): memory_meta, memory_records (+ the engine's vector and full-text columns), memory_tags,
memory_sources, memory_relations, memory_contradictions, memory_history (the outbox that can be journaled).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from alicorn.memory.errors import StoreUnavailableError
from alicorn.memory.models import Filters

Tx = Any
"""An engine's transaction handle (a connection or a cursor); only the engine that made it looks inside."""
Vector = npt.NDArray[np.float32]

FORMAT = "alicorn-memory"
VERSION = "1"

# Columns written when a record is added, in this order (the engine appends the vector and full-text parts).
RECORD_COLUMNS = (
    "id",
    "project",
    "kind",
    "text",
    "content_hash",
    "trust",
    "classification",
    "key",
    "name",
    "name_key",
    "tags",
    "meta",
    "valid_from",
    "valid_to",
    "recorded_at",
)
# Columns read back to build a Record (sources and contradictions come from their own tables).
READ_COLUMNS = (
    "r.id, r.project, r.kind, r.text, r.content_hash, r.trust, r.classification, r.key, r.name, r.tags, r.meta, "
    "r.valid_from, r.valid_to, r.recorded_at, r.invalid_from, r.invalidated_at, r.invalidation_reason"
)
RELATION_COLUMNS = (
    "e.id, e.project, e.source, e.type, e.target, e.valid_from, e.valid_to, e.recorded_at, e.invalid_from, "
    "e.invalidated_at, e.origin, e.ref, e.note"
)


def iso(moment: datetime) -> str:
    """Fixed-width ISO 8601 in UTC with microseconds: sorts as text exactly as the instants sort."""
    d = moment.astimezone(UTC)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d}.{d.microsecond:06d}Z"


def to_utc(moment: datetime | None) -> datetime | None:
    """An aware datetime moved to UTC (None stays None)."""
    return None if moment is None else moment.astimezone(UTC)


def validity_sql(alias: str, at: datetime, as_of: datetime) -> tuple[str, list[Any]]:
    """Rows of `alias` true at valid time `at`, as known at system time `as_of` (bi-temporal "as of")."""
    a = alias
    sql = (
        f"({a}.valid_from IS NULL OR {a}.valid_from <= ?) AND ({a}.valid_to IS NULL OR {a}.valid_to > ?) "
        f"AND NOT ({a}.invalidated_at IS NOT NULL AND {a}.invalidated_at <= ? AND {a}.invalid_from <= ?)"
    )
    return sql, [at, at, as_of, at]


def record_filter(project: str, filters: Filters, now: datetime) -> tuple[str, list[Any]]:
    """The WHERE clause (over alias `r`) that scopes a search to one project and applies `filters`."""
    parts = ["r.project = ?"]
    params: list[Any] = [project]
    for column, values in (
        ("kind", filters.kinds),
        ("trust", filters.trust),
        ("classification", filters.classifications),
    ):
        if values:
            parts.append(f"r.{column} IN ({', '.join('?' * len(values))})")
            params.extend(values)
    for tag in sorted(set(filters.tags)):
        parts.append("EXISTS (SELECT 1 FROM memory_tags t WHERE t.record_id = r.id AND t.tag = ?)")
        params.append(tag)
    as_of = to_utc(filters.as_of) or now
    parts.append("r.recorded_at <= ?")
    params.append(as_of)
    if not filters.include_invalid:
        sql, more = validity_sql("r", to_utc(filters.valid_at) or now, as_of)
        parts.append(sql)
        params.extend(more)
    if filters.recorded_after is not None:
        parts.append("r.recorded_at >= ?")
        params.append(to_utc(filters.recorded_after))
    if filters.recorded_before is not None:
        parts.append("r.recorded_at < ?")
        params.append(to_utc(filters.recorded_before))
    return " AND ".join(parts), params


_TERM = re.compile(r"\w+")


def query_terms(text: str, limit: int = 32) -> list[str]:
    """Words of a search query for full-text search: case-folded, unique, at most `limit` (operators dropped)."""
    seen: dict[str, None] = {}
    for word in _TERM.findall(text.casefold()):
        if len(seen) >= limit:
            break
        seen.setdefault(word, None)
    return list(seen)


class Engine(ABC):
    """A storage backend. All methods but `write`/`read`/`close` run inside a transaction handle `tx`."""

    location: str
    """Where the data lives (a path, a URL without password), for messages."""

    @abstractmethod
    def write(self, project: str) -> AbstractContextManager[Tx]:
        """A write transaction; writers of one project are serialised. Raising inside rolls everything back."""

    @abstractmethod
    def read(self) -> AbstractContextManager[Tx]:
        """A read transaction (a consistent snapshot)."""

    @abstractmethod
    def rows(self, tx: Tx, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a query written with `?` placeholders; datetimes in `params` are converted for the engine."""

    @abstractmethod
    def run(self, tx: Tx, sql: str, params: Sequence[Any] = ()) -> None:
        """Run a statement."""

    @abstractmethod
    def run_many(self, tx: Tx, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run a statement once per row of parameters."""

    @abstractmethod
    def timestamp(self, value: Any) -> datetime | None:
        """A timestamp column's value as an aware UTC datetime."""

    def required_timestamp(self, value: Any) -> datetime:
        """A NOT NULL timestamp column's value (a missing one means the store was damaged)."""
        moment = self.timestamp(value)
        if moment is None:
            raise StoreUnavailableError(f"the memory store {self.location} has a row without a required time: damaged")
        return moment

    @abstractmethod
    def meta(self) -> dict[str, str]:
        """The store's metadata (format, version, dim, embedder); empty for a new store."""

    @abstractmethod
    def initialise(self, meta: dict[str, str], dim: int) -> None:
        """Create the schema for `dim`-dimensional vectors and record `meta` (a no-op if it exists)."""

    @abstractmethod
    def insert_records(self, tx: Tx, rows: Sequence[Sequence[Any]], vectors: Vector) -> None:
        """Insert records (values in RECORD_COLUMNS order) with their unit vectors and full-text entries."""

    @abstractmethod
    def vector_search(
        self, tx: Tx, project: str, vector: Vector, n: int, where: str, params: Sequence[Any]
    ) -> list[tuple[str, float]]:
        """Up to `n` (id, cosine similarity) of records matching `where` (alias r), most similar first."""

    @abstractmethod
    def text_search(self, tx: Tx, terms: Sequence[str], n: int, where: str, params: Sequence[Any]) -> list[str]:
        """Up to `n` ids of records matching `where` whose text contains any of `terms`, best first."""

    @abstractmethod
    def vector_of(self, tx: Tx, record_id: str) -> Vector | None:
        """A record's stored unit vector."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""

    def defer_vector_index(self) -> AbstractContextManager[None]:
        """For a large import: an engine with an incremental ANN index may build it once at the end instead.
        The default (exact search) has nothing to defer."""
        return nullcontext()

    def history_rows(self, tx: Tx, project: str, after: int, only_unjournaled: bool) -> list[tuple[Any, ...]]:
        """History entries of a project after `seq`, in order."""
        extra = " AND journaled = 0" if only_unjournaled else ""
        return self.rows(
            tx,
            "SELECT seq, kind, at, record_id, data FROM memory_history WHERE project = ? AND seq > ?"
            f"{extra} ORDER BY seq",
            (project, after),
        )

    def iter_ids(self, values: Sequence[str], size: int = 500) -> Iterator[Sequence[str]]:
        """Slices of `values` small enough for an IN (...) list."""
        for start in range(0, len(values), size):
            yield values[start : start + size]
