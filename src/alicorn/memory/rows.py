"""Reading rows back into models, scoped to one project: every query here names the project."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from alicorn.memory.engine import READ_COLUMNS, RELATION_COLUMNS, Engine, Tx
from alicorn.memory.models import Contradiction, Provenance, Record, Relation


def load_records(engine: Engine, tx: Tx, project: str, ids: Sequence[str]) -> dict[str, Record]:
    """The records of `project` among `ids` (ids of other projects are simply absent)."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    base: list[tuple[Any, ...]] = []
    sources: dict[str, list[Provenance]] = {}
    conflicts: dict[str, list[str]] = {}
    for chunk in engine.iter_ids(wanted):
        marks = ", ".join("?" * len(chunk))
        base += engine.rows(
            tx,
            f"SELECT {READ_COLUMNS} FROM memory_records r WHERE r.project = ? AND r.id IN ({marks})",
            [project, *chunk],
        )
        for rid, origin, ref, note in engine.rows(
            tx,
            f"SELECT record_id, origin, ref, note FROM memory_sources WHERE record_id IN ({marks}) "
            "ORDER BY record_id, n",
            chunk,
        ):
            sources.setdefault(rid, []).append(Provenance(origin=origin, ref=ref, note=note))
        for a, b in engine.rows(
            tx,
            f"SELECT record_a, record_b FROM memory_contradictions WHERE project = ? AND (record_a IN ({marks}) "
            f"OR record_b IN ({marks})) ORDER BY at, id",
            [project, *chunk, *chunk],
        ):
            conflicts.setdefault(a, []).append(b)
            conflicts.setdefault(b, []).append(a)
    out: dict[str, Record] = {}
    for row in base:
        (rid, proj, kind, text, digest, trust, classification, key, name, tags, meta) = row[:11]
        valid_from, valid_to, invalid_from, invalidated_at = (engine.timestamp(row[i]) for i in (11, 12, 14, 15))
        out[rid] = Record(
            id=rid,
            project=proj,
            kind=kind,
            text=text,
            trust=trust,
            classification=classification,
            tags=tuple(json.loads(tags)),
            key=key,
            name=name,
            meta=json.loads(meta),
            valid_from=valid_from,
            valid_to=valid_to,
            recorded_at=engine.required_timestamp(row[13]),
            invalid_from=invalid_from,
            invalidated_at=invalidated_at,
            invalidation_reason=row[16],
            content_hash=digest,
            sources=tuple(sources.get(rid, ())),
            contradicts=tuple(dict.fromkeys(conflicts.get(rid, ()))),
        )
    return out


def relation_from_row(engine: Engine, row: Sequence[Any]) -> Relation:
    """A Relation from a row of RELATION_COLUMNS."""
    rid, project, source, kind, target = row[:5]
    valid_from, valid_to, invalid_from, invalidated_at = (engine.timestamp(row[i]) for i in (5, 6, 8, 9))
    return Relation(
        id=rid,
        project=project,
        source=source,
        type=kind,
        target=target,
        valid_from=valid_from,
        valid_to=valid_to,
        recorded_at=engine.required_timestamp(row[7]),
        invalid_from=invalid_from,
        invalidated_at=invalidated_at,
        provenance=Provenance(origin=row[10], ref=row[11], note=row[12]),
    )


def load_relations(engine: Engine, tx: Tx, project: str, where: str, params: Sequence[Any]) -> list[Relation]:
    """Relations of `project` matching `where` (alias e), oldest first."""
    rows = engine.rows(
        tx,
        f"SELECT {RELATION_COLUMNS} FROM memory_relations e WHERE e.project = ? AND {where} ORDER BY e.seq",
        [project, *params],
    )
    return [relation_from_row(engine, row) for row in rows]


def load_contradictions(engine: Engine, tx: Tx, project: str, record_id: str | None) -> list[Contradiction]:
    """Recorded contradictions of a project (or of one record), oldest first."""
    where, params = (
        ("", [project])
        if record_id is None
        else (" AND (record_a = ? OR record_b = ?)", [project, record_id, record_id])
    )
    rows = engine.rows(
        tx,
        f"SELECT id, record_a, record_b, key, at FROM memory_contradictions WHERE project = ?{where} ORDER BY at, id",
        params,
    )
    out = []
    for cid, a, b, key, at in rows:
        out.append(Contradiction(id=cid, first=a, second=b, key=key, recorded_at=engine.required_timestamp(at)))
    return out
