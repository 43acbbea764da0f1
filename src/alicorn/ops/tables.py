"""`records.select`, `records.group` and `records.join`: the table operations an ordinary request on files needs.

With `records.filter`, `records.dedupe` and `records.sort` (ops/records.py) they let a free plan answer "which
customers ordered more than 10 items last month, by region" from a CSV: pick and rename columns, group and aggregate
(count, sum, min, max, mean, distinct), join two tables on keys. Like every record operation they are pure: no files,
no clock, no randomness, a deterministic output order (groups in the order their key first appears; joined rows in
the left table's order), so a replay that feeds the journaled outputs reproduces a run. Bad input is an
OperationError naming the record and the field.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, model_validator

from alicorn import canonical
from alicorn.errors import OperationError
from alicorn.ops._common import FieldKey, Model, Records
from alicorn.ops.registry import Operation, OperationContext

# ---------------------------------------------------------------------------------------------------- select


class SelectInputs(Model):
    records: Records
    fields: list[FieldKey] = Field(min_length=1, max_length=200, description="fields to keep, in this order")
    rename: dict[FieldKey, FieldKey] = Field(default_factory=dict, description="old name -> new name (kept fields)")

    @model_validator(mode="after")
    def _renames_kept_fields(self) -> SelectInputs:
        unknown = sorted(set(self.rename) - set(self.fields))
        if unknown:
            raise ValueError(f"rename names field(s) not kept: {', '.join(unknown)}; add them to fields")
        names = [self.rename.get(f, f) for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError("two kept fields would get the same name; rename one of them differently")
        return self


class SelectOutputs(Model):
    records: Records
    count: int = Field(ge=0)


def select(inputs: SelectInputs, ctx: OperationContext) -> SelectOutputs:
    """Keep only `fields` of every record (a missing one becomes null), renamed as asked, in the given order."""
    out = [{inputs.rename.get(f, f): record.get(f) for f in inputs.fields} for record in inputs.records]
    return SelectOutputs(records=out, count=len(out))


# ---------------------------------------------------------------------------------------------------- group

Aggregate = Literal["count", "sum", "min", "max", "mean", "distinct"]


class Aggregation(Model):
    op: Aggregate = Field(description="count (records, or non-null values of `field`), sum, min, max, mean, distinct")
    field: FieldKey | None = Field(None, description="the field aggregated (count without one counts records)")
    name: FieldKey = Field(description="the output field")

    @model_validator(mode="after")
    def _field_when_needed(self) -> Aggregation:
        if self.op != "count" and self.field is None:
            raise ValueError(f"{self.op} needs the field it aggregates")
        return self


class GroupInputs(Model):
    records: Records
    by: list[FieldKey] = Field(
        default_factory=list, max_length=16, description="fields whose values form a group (none: one total row)"
    )
    aggregates: list[Aggregation] = Field(min_length=1, max_length=32)

    @model_validator(mode="after")
    def _distinct_names(self) -> GroupInputs:
        names = [*self.by, *(a.name for a in self.aggregates)]
        if len(set(names)) != len(names):
            raise ValueError("every output field (the group fields and each aggregate's name) needs its own name")
        return self


class GroupOutputs(Model):
    records: Records
    count: int = Field(ge=0, description="groups")


def _number(value: Any, index: int, name: str) -> float | None:
    """A record's value as a number for sum/mean/min/max (null and missing are skipped; text is an error)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OperationError(
            f"record {index}: field {name!r} is {value!r}, not a number; read the column as int or float "
            "(data.read_csv types) or aggregate another field"
        )
    return float(value)


def _aggregate(agg: Aggregation, rows: list[tuple[int, dict[str, Any]]]) -> Any:
    if agg.op == "count":
        return len(rows) if agg.field is None else sum(1 for _, r in rows if r.get(agg.field) is not None)
    assert agg.field is not None  # checked by the model
    if agg.op == "distinct":
        return len({canonical.dumps(r.get(agg.field)) for _, r in rows if r.get(agg.field) is not None})
    values = [v for v in (_number(r.get(agg.field), i, agg.field) for i, r in rows) if v is not None]
    if not values:
        return None
    if agg.op == "sum":
        total = math.fsum(values)
        return int(total) if total.is_integer() and all(float(v).is_integer() for v in values) else total
    if agg.op == "mean":
        return math.fsum(values) / len(values)
    found = min(values) if agg.op == "min" else max(values)
    return int(found) if found.is_integer() else found


def group(inputs: GroupInputs, ctx: OperationContext) -> GroupOutputs:
    """One record per distinct combination of the `by` fields, with each aggregate; groups in first-seen order."""
    groups: dict[str, tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]] = {}
    for index, record in enumerate(inputs.records):
        values = {f: record.get(f) for f in inputs.by}
        key = canonical.dumps([values[f] for f in inputs.by])
        groups.setdefault(key, (values, []))[1].append((index, record))
    if not inputs.by and not groups:
        groups[""] = ({}, [])  # a total over no records is still one row (count 0)
    out = [{**values, **{a.name: _aggregate(a, rows) for a in inputs.aggregates}} for values, rows in groups.values()]
    return GroupOutputs(records=out, count=len(out))


# ---------------------------------------------------------------------------------------------------- join


class JoinInputs(Model):
    left: Records
    right: Records
    on: list[FieldKey] = Field(min_length=1, max_length=8, description="fields both tables share, matched exactly")
    how: Literal["inner", "left"] = Field("inner", description="inner: matched rows only; left: every left row")
    right_prefix: str = Field(
        "right_", max_length=40, description="put before a right field whose name the left row already has"
    )


class JoinOutputs(Model):
    records: Records
    count: int = Field(ge=0)
    unmatched: int = Field(ge=0, description="left rows with no match (dropped by inner, kept by left)")


MAX_JOINED = 1_000_000


def join(inputs: JoinInputs, ctx: OperationContext) -> JoinOutputs:
    """Rows of `left` with the matching rows of `right` (equal `on` values), in the left table's order."""
    index: dict[str, list[dict[str, Any]]] = {}
    for row in inputs.right:
        index.setdefault(canonical.dumps([row.get(f) for f in inputs.on]), []).append(row)
    out: list[dict[str, Any]] = []
    unmatched = 0
    for row in inputs.left:
        matches = index.get(canonical.dumps([row.get(f) for f in inputs.on]), [])
        if not matches:
            unmatched += 1
            if inputs.how == "left":
                out.append(dict(row))
            continue
        for match in matches:
            merged = dict(row)
            for name, value in match.items():
                if name in inputs.on:
                    continue
                merged[inputs.right_prefix + name if name in row else name] = value
            out.append(merged)
        if len(out) > MAX_JOINED:
            raise OperationError(
                f"the join makes more than {MAX_JOINED} rows (keys {', '.join(inputs.on)} repeat on both sides); "
                "dedupe or group one table first"
            )
    return JoinOutputs(records=out, count=len(out), unmatched=unmatched)


SELECT = Operation(
    "records.select",
    "Keep (and rename) some fields of every record, in a given order.",
    SelectInputs,
    SelectOutputs,
    "none",
    "repeatable",
    select,
)

GROUP = Operation(
    "records.group",
    "Group records by fields and aggregate them: count, sum, min, max, mean, distinct (no fields: one total).",
    GroupInputs,
    GroupOutputs,
    "none",
    "repeatable",
    group,
)

JOIN = Operation(
    "records.join",
    "Join two lists of records on shared fields (inner or left).",
    JoinInputs,
    JoinOutputs,
    "none",
    "repeatable",
    join,
)
