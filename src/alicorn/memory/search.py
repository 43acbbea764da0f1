"""Hybrid search: a vector search and a full-text search over the same filtered records, fused by reciprocal rank
(RRF, k=60: each list contributes 1/(60 + rank)), then optionally expanded through the graph.

RRF needs no score calibration between cosine similarities and BM25/ts_rank, which live on unrelated scales;
a record found by both searches rises above one found by either alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Literal

import numpy.typing as npt

from alicorn.memory.engine import Tx, query_terms, record_filter, to_utc
from alicorn.memory.errors import MemoryInputError, ValidityError
from alicorn.memory.graph import walk
from alicorn.memory.models import Filters, Hit, Related, SearchResult, utc_now
from alicorn.memory.rows import load_records

if TYPE_CHECKING:
    from alicorn.memory.handle import StoreHandle

RRF_K = 60
MAX_K = 1000
MAX_EXPAND = 3


def rrf(rankings: Sequence[Sequence[str]], *, k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: ids by the sum of 1/(k + rank) over the rankings that contain them.

    Ties are broken by the best rank reached in any list, then by id, so the result is deterministic.
    """
    scores: dict[str, float] = {}
    best: dict[str, int] = {}
    for ranking in rankings:
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            best[item] = min(best.get(item, rank), rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], best[pair[0]], pair[0]))


def check_filters(filters: Filters) -> None:
    """Time ranges must be ranges."""
    if filters.recorded_after and filters.recorded_before and filters.recorded_before <= filters.recorded_after:
        raise ValidityError(
            f"recorded_before {filters.recorded_before.isoformat()} is not after recorded_after "
            f"{filters.recorded_after.isoformat()}; nothing can match"
        )


def search(
    store: StoreHandle,
    query: str,
    *,
    k: int,
    filters: Filters,
    mode: Literal["hybrid", "vector", "text"],
    expand: int,
    vector: npt.ArrayLike | None,
) -> SearchResult:
    """See `MemoryStore.search`."""
    if not 1 <= k <= MAX_K:
        raise MemoryInputError(f"k must be between 1 and {MAX_K}, not {k}")
    if mode not in ("hybrid", "vector", "text"):
        raise MemoryInputError(f"unknown search mode {mode!r}; use hybrid, vector or text")
    if not 0 <= expand <= MAX_EXPAND:
        raise MemoryInputError(f"expand must be between 0 and {MAX_EXPAND} graph steps, not {expand}")
    check_filters(filters)
    now = to_utc(store.clock()) or utc_now()
    where, params = record_filter(store.project, filters, now)
    probe = None
    if mode != "text":
        if vector is not None:
            probe = store.check_vectors(vector, 1, "query vector")[0]
        elif query.strip():
            probe = store.embed([query], "query")[0]
    pool = k if mode != "hybrid" else max(2 * k, 20)
    engine = store.engine
    with engine.read() as tx:
        by_vector = engine.vector_search(tx, store.project, probe, pool, where, params) if probe is not None else []
        by_text = engine.text_search(tx, query_terms(query), pool, where, params) if mode != "vector" else []
        fused = rrf([[rid for rid, _ in by_vector], by_text])[:k]
        records = load_records(engine, tx, store.project, [rid for rid, _ in fused])
        related: list[Related] = []
        if expand and fused:
            related = _expand(store, tx, [rid for rid, _ in fused], expand, filters, now, limit=3 * k)
    similarity = dict(by_vector)
    vector_rank = {rid: i for i, (rid, _) in enumerate(by_vector, start=1)}
    text_rank = {rid: i for i, rid in enumerate(by_text, start=1)}
    hits = tuple(
        Hit(
            record=records[rid],
            score=score,
            similarity=similarity.get(rid),
            vector_rank=vector_rank.get(rid),
            text_rank=text_rank.get(rid),
        )
        for rid, score in fused
        if rid in records
    )
    return SearchResult(query=query, hits=hits, related=tuple(related))


def _expand(
    store: StoreHandle, tx: Tx, seeds: list[str], depth: int, filters: Filters, now: datetime, *, limit: int
) -> list[Related]:
    """Records reachable from the hits within `depth` valid edges, nearest (then best hit) first. They pass the
    same filters as hits except `kinds` (expansion is how a fact's entities and their other facts come in)."""
    at = to_utc(filters.valid_at) or now
    as_of = to_utc(filters.as_of) or now
    rank = {rid: i for i, rid in enumerate(seeds)}
    reached: dict[str, tuple[int, int, str]] = {}
    for seed, node, distance in walk(store, tx, seeds, depth, (), at, as_of):
        if node in rank:
            continue
        candidate = (distance, rank[seed], seed)
        if node not in reached or candidate < reached[node]:
            reached[node] = candidate
    if not reached:
        return []
    ordered = sorted(reached, key=lambda node: (reached[node], node))
    where, params = record_filter(store.project, filters.model_copy(update={"kinds": ()}), now)
    allowed: set[str] = set()
    for chunk in store.engine.iter_ids(ordered):
        marks = ", ".join("?" * len(chunk))
        rows = store.engine.rows(
            tx, f"SELECT r.id FROM memory_records r WHERE r.id IN ({marks}) AND {where}", [*chunk, *params]
        )
        allowed.update(row[0] for row in rows)
    chosen = [node for node in ordered if node in allowed][:limit]
    records = load_records(store.engine, tx, store.project, chosen)
    return [Related(record=records[n], via=reached[n][2], depth=reached[n][0]) for n in chosen if n in records]
