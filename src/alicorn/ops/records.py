"""`records.filter`, `records.dedupe` and `records.sort`: pure transformations of lists of records.

Each takes records (JSON objects) and returns new ones, in a deterministic order, without touching files, the clock
or randomness, so a replay that feeds the journaled outputs reproduces a run. Filtering uses the same declarative
criteria as plans; dedupe merges records with equal keys, optionally within a time window; sort is stable and puts
missing values last.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from alicorn import canonical
from alicorn.errors import OperationError
from alicorn.ops._common import FieldKey, Model, Records
from alicorn.ops.registry import Operation, OperationContext
from alicorn.plan import criteria
from alicorn.plan.dsl import Criterion


class FilterInputs(Model):
    records: Records
    where: Criterion = Field(description="kept records satisfy this criterion (paths are record fields)")


class FilterOutputs(Model):
    records: Records
    count: int = Field(ge=0, description="records kept")
    dropped: int = Field(ge=0, description="records that did not satisfy the criterion")


def filter_records(inputs: FilterInputs, ctx: OperationContext) -> FilterOutputs:
    """Keep the records that satisfy a declarative criterion, in their order."""
    kept = [record for record in inputs.records if criteria.evaluate(inputs.where, record)]
    return FilterOutputs(records=kept, count=len(kept), dropped=len(inputs.records) - len(kept))


class DedupeWindow(Model):
    field: FieldKey = Field(description="ISO 8601 timestamp field (a trailing Z is accepted; naive means UTC)")
    seconds: float = Field(ge=0, le=366 * 86400, description="a record this close to the kept one is merged")


class DedupeInputs(Model):
    records: Records
    keys: list[FieldKey] = Field(min_length=1, max_length=32, description="fields whose values identify a record")
    window: DedupeWindow | None = Field(None, description="merge only within this time window (else any repeat)")
    count_field: FieldKey | None = Field("duplicates", description="kept records get the merged count here")


class DedupeOutputs(Model):
    records: Records
    count: int = Field(ge=0, description="records kept")
    removed: int = Field(ge=0, description="duplicates merged into a kept record")


def _instant(value: Any, index: int, name: str) -> datetime:
    if isinstance(value, str):
        text = value.strip()
        text = text[:-1] + "+00:00" if text[-1:] in ("Z", "z") else text
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    raise OperationError(
        f"record {index}: window field {name!r} is {value!r}, not an ISO 8601 timestamp "
        "(e.g. 2026-11-29T02:14:05 or 2026-11-29T02:14:05Z)"
    )


def dedupe(inputs: DedupeInputs, ctx: OperationContext) -> DedupeOutputs:
    """Merge records with equal key values (within a time window of the last kept one, when given)."""
    window = inputs.window
    moments: list[datetime | None]
    if window is None:
        ordered, moments = list(inputs.records), [None] * len(inputs.records)
    else:
        stamped = [(_instant(r.get(window.field), i, window.field), r) for i, r in enumerate(inputs.records)]
        stamped.sort(key=lambda pair: pair[0])  # stable: equal times keep their input order
        ordered, moments = [r for _, r in stamped], [m for m, _ in stamped]
    last: dict[str, tuple[datetime | None, int]] = {}
    kept: list[dict[str, Any]] = []
    merged: list[int] = []
    for record, moment in zip(ordered, moments, strict=True):
        key = canonical.dumps([[k in record, record.get(k)] for k in inputs.keys])
        previous = last.get(key)
        if previous is not None:
            anchor, slot = previous
            if window is None or (
                moment is not None and anchor is not None and (moment - anchor).total_seconds() <= window.seconds
            ):
                merged[slot] += 1
                continue
        last[key] = (moment, len(kept))
        kept.append(record)
        merged.append(0)
    field = inputs.count_field
    out = [dict(r) if field is None else {**r, field: n} for r, n in zip(kept, merged, strict=True)]
    return DedupeOutputs(records=out, count=len(out), removed=len(ordered) - len(out))


class SortInputs(Model):
    records: Records
    by: list[FieldKey] = Field(min_length=1, max_length=16, description="fields to sort by, most significant first")
    descending: bool = False


class SortOutputs(Model):
    records: Records
    count: int = Field(ge=0)


def _rank(value: Any) -> tuple[int, Any]:
    """A key that orders any JSON values without comparing across kinds: numbers, booleans, strings, the rest."""
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, str):
        return (2, value)
    return (3, canonical.dumps(value))


def sort_records(inputs: SortInputs, ctx: OperationContext) -> SortOutputs:
    """Sort records stably by fields; records missing a field (or holding null) come last either way."""
    ordered = list(inputs.records)
    for name in reversed(inputs.by):  # least significant first; each pass is stable
        present = [r for r in ordered if r.get(name) is not None]
        absent = [r for r in ordered if r.get(name) is None]
        present.sort(key=lambda r: _rank(r[name]), reverse=inputs.descending)
        ordered = present + absent
    return SortOutputs(records=ordered, count=len(ordered))


FILTER = Operation(
    "records.filter",
    "Keep the records that satisfy a declarative criterion.",
    FilterInputs,
    FilterOutputs,
    "none",
    "repeatable",
    filter_records,
)

DEDUPE = Operation(
    "records.dedupe",
    "Merge records with equal keys, optionally within a time window.",
    DedupeInputs,
    DedupeOutputs,
    "none",
    "repeatable",
    dedupe,
)

SORT = Operation(
    "records.sort",
    "Sort records stably by fields; missing values last.",
    SortInputs,
    SortOutputs,
    "none",
    "repeatable",
    sort_records,
)
