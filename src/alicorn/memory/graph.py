"""The graph: edges between records (usually entities) in `memory_relations`, walked with `WITH RECURSIVE` on
both engines. Edges have provenance and bi-temporal validity like records; a walk follows only the edges valid at
the asked time. Neighbourhoods are breadth-first distances (the recursive query carries (seed, node, depth) with
UNION, so it stays bounded by nodes x depth even on cyclic graphs); a shortest path is read back from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from alicorn.memory.engine import Tx, iso, to_utc, validity_sql
from alicorn.memory.errors import MemoryInputError, RecordNotFoundError, TrustError, ValidityError
from alicorn.memory.gate import check_interval, name_key
from alicorn.memory.models import Graph, NewRelation, Path, Provenance, Relation, utc_now
from alicorn.memory.rows import load_records, load_relations

if TYPE_CHECKING:
    from alicorn.memory.handle import StoreHandle

MAX_DEPTH = 6
MAX_NODES = 500


def resolve(store: StoreHandle, tx: Tx, node: str) -> str | None:
    """The id of the record `node` names: a record id of this project, or an entity's name."""
    rows = store.engine.rows(
        tx,
        "SELECT id FROM memory_records WHERE project = ? AND (id = ? OR name_key = ?) ORDER BY seq",
        [store.project, node, name_key(node)],
    )
    ids = [row[0] for row in rows]
    return node if node in ids else (ids[0] if ids else None)


def _require(store: StoreHandle, tx: Tx, node: str) -> str:
    found = resolve(store, tx, node)
    if found is None:
        raise RecordNotFoundError(f"record or entity {node!r}", store.project)
    return found


def walk(
    store: StoreHandle, tx: Tx, seeds: Sequence[str], depth: int, types: Sequence[str], at: datetime, as_of: datetime
) -> list[tuple[str, str, int]]:
    """(seed, node, distance) for every node within `depth` valid edges of each seed (seeds at distance 0)."""
    if not seeds:
        return []
    valid, valid_params = validity_sql("e", at, as_of)
    type_sql = f" AND e.type IN ({', '.join('?' * len(types))})" if types else ""
    sql = (
        "WITH RECURSIVE walk(seed, node, depth) AS ("
        f" SELECT r.id, r.id, 0 FROM memory_records r WHERE r.project = ? AND r.id IN ({', '.join('?' * len(seeds))})"
        " UNION"
        " SELECT w.seed, CASE WHEN e.source = w.node THEN e.target ELSE e.source END, w.depth + 1"
        " FROM walk w JOIN memory_relations e ON (e.source = w.node OR e.target = w.node)"
        f" WHERE w.depth < ? AND e.project = ? AND {valid}{type_sql}"
        ") SELECT seed, node, min(depth) FROM walk GROUP BY seed, node ORDER BY min(depth), seed, node"
    )
    params: list[Any] = [store.project, *seeds, depth, store.project, *valid_params, *types]
    return [(str(s), str(n), int(d)) for s, n, d in store.engine.rows(tx, sql, params)]


def edges_among(
    store: StoreHandle, tx: Tx, nodes: Sequence[str], types: Sequence[str], at: datetime, as_of: datetime
) -> list[Relation]:
    """Valid edges whose two ends are both in `nodes`, oldest first."""
    inside = set(nodes)
    valid, valid_params = validity_sql("e", at, as_of)
    type_sql = f" AND e.type IN ({', '.join('?' * len(types))})" if types else ""
    found: dict[str, Relation] = {}
    for chunk in store.engine.iter_ids(list(nodes)):
        where = f"e.source IN ({', '.join('?' * len(chunk))}) AND {valid}{type_sql}"
        for relation in load_relations(store.engine, tx, store.project, where, [*chunk, *valid_params, *types]):
            if relation.target in inside:
                found[relation.id] = relation
    return sorted(found.values(), key=lambda r: (r.recorded_at, r.id))


def _check_depth(depth: int, name: str) -> None:
    if not 0 <= depth <= MAX_DEPTH:
        raise MemoryInputError(f"{name} must be between 0 and {MAX_DEPTH}, not {depth}")


def neighbours(
    store: StoreHandle, node: str, *, depth: int = 1, types: Sequence[str] = (), at: datetime | None = None
) -> Graph:
    """The nodes within `depth` steps of `node` (nearest first, at most 500) and the edges between them."""
    _check_depth(depth, "depth")
    now = to_utc(store.clock()) or utc_now()
    when = to_utc(at) or now
    with store.engine.read() as tx:
        start = _require(store, tx, node)
        depths: dict[str, int] = {}
        for _, found, distance in walk(store, tx, [start], depth, types, when, now):
            if len(depths) < MAX_NODES:
                depths.setdefault(found, distance)
        records = load_records(store.engine, tx, store.project, list(depths))
        edges = edges_among(store, tx, list(depths), types, when, now)
    nodes = tuple(records[i] for i in sorted(depths, key=lambda i: (depths[i], i)) if i in records)
    return Graph(start=start, nodes=nodes, depths=depths, edges=tuple(edges))


def path(store: StoreHandle, source: str, target: str, *, max_depth: int = 4, types: Sequence[str] = ()) -> Path | None:
    """A shortest path from `source` to `target` over edges valid now (either direction), or None."""
    _check_depth(max_depth, "max_depth")
    now = to_utc(store.clock()) or utc_now()
    with store.engine.read() as tx:
        start, goal = _require(store, tx, source), _require(store, tx, target)
        dist = {found: d for _, found, d in walk(store, tx, [start], max_depth, types, now, now)}
        if goal not in dist:
            return None
        edges = edges_among(store, tx, list(dist), types, now, now)
        steps: list[Relation] = []
        order = [goal]
        current = goal
        while dist[current] > 0:
            for edge in edges:
                other = edge.target if edge.source == current else edge.source if edge.target == current else None
                if other is not None and dist.get(other) == dist[current] - 1:
                    steps.append(edge)
                    order.append(other)
                    current = other
                    break
            else:  # unreachable for distances computed over the same edges; never loop forever
                return None
        records = load_records(store.engine, tx, store.project, order)
    order.reverse()
    steps.reverse()
    return Path(nodes=tuple(records[i] for i in order), edges=tuple(steps))


def relate(store: StoreHandle, relation: NewRelation) -> Relation:
    """Add an edge (or return the identical valid edge that already exists); entity names are made if new."""
    check_interval(
        relation.valid_from, relation.valid_to, f"the relation {relation.source} -{relation.type}-> {relation.target}"
    )
    with store.engine.read() as tx:
        missing = [n for n in (relation.source, relation.target) if resolve(store, tx, n) is None]
    name_vectors = {}
    if missing:
        name_vectors = dict(zip([name_key(n) for n in missing], store.embed(missing), strict=True))
    now = to_utc(store.clock()) or utc_now()
    with store.engine.write(store.project) as tx:
        batch = store.write_batch(tx, now, 0, name_vectors)
        ends = []
        for end in (relation.source, relation.target):
            found = resolve(store, tx, end)
            ends.append(found if found is not None else batch.ensure_entity(end, relation.provenance))
        valid, params = validity_sql("e", now, now)
        same = load_relations(
            store.engine,
            tx,
            store.project,
            f"e.source = ? AND e.type = ? AND e.target = ? AND {valid}",
            [ends[0], relation.type, ends[1], *params],
        )
        if same and not batch.records:
            return same[0]
        rid = batch.relate(
            ends[0], relation.type, ends[1], relation.provenance, relation.valid_from, relation.valid_to, relation.meta
        )
        batch.flush()
        (stored,) = load_relations(store.engine, tx, store.project, "e.id = ?", [rid])
    store.after_write()
    return stored


def invalidate_relation(
    store: StoreHandle, relation_id: str, *, by: Provenance, reason: str, at: datetime | None = None
) -> Relation:
    """Mark an edge no longer true from valid time `at` (default: now); it is kept for earlier times."""
    now = to_utc(store.clock()) or utc_now()
    when = to_utc(at) or now
    with store.engine.write(store.project) as tx:
        found = load_relations(store.engine, tx, store.project, "e.id = ?", [relation_id])
        if not found:
            raise RecordNotFoundError(f"relation {relation_id!r}", store.project)
        edge = found[0]
        if edge.invalidated_at is not None:
            raise ValidityError(f"relation {relation_id} is already invalid; nothing was changed")
        if edge.valid_from is not None and when < edge.valid_from:
            raise ValidityError(f"relation {relation_id} only became valid at {edge.valid_from.isoformat()}")
        if edge.provenance.origin == "operator" and by.origin != "operator":
            raise TrustError(f"only an operator may invalidate the operator's relation {relation_id}")
        store.engine.run(
            tx,
            "UPDATE memory_relations SET invalid_from = ?, invalidated_at = ?, invalidation_reason = ? "
            "WHERE id = ? AND project = ?",
            [when, now, reason, relation_id, store.project],
        )
        data = {
            "relation": relation_id,
            "from": iso(when),
            "reason": reason,
            "by": {"origin": by.origin, "ref": by.ref},
        }
        batch = store.write_batch(tx, now, 0, {})
        batch.log("relation_invalidated", relation_id, data)
        batch.flush()
        (stored,) = load_relations(store.engine, tx, store.project, "e.id = ?", [relation_id])
    store.after_write()
    return stored
