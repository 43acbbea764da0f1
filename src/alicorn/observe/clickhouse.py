"""ClickHouse: the OpenTelemetry collector's `otel_traces` table, and span records loaded into it.

The table is the one the collector-contrib ClickHouse exporter creates (exporter/clickhouseexporter, its
`traces_table.sql` with the default `MergeTree()` engine and no TTL), so a standard collector and this loader fill
the same table and the same queries and dashboards read both. Rows are what that exporter writes: `Timestamp` is
the span's start, `Duration` nanoseconds, kinds and status codes as `SPAN_KIND_*` / `STATUS_CODE_*`, every attribute
value as text (arrays as JSON, booleans `true`/`false`).

The embedded engine (`chdb`) is a large optional dependency (the `dev` extra): `connect` imports it only when
called and says how to install it when it is missing. A table of that name with other columns (another version of
the exporter's schema) is refused with the differences named, before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy

from alicorn import __version__
from alicorn.observe.errors import ClickHouseSchemaError, ObserveError
from alicorn.observe.spans import AttributeValue, SpanRecord

DATABASE = "otel"
TABLE = "otel_traces"
#: The schema version this module writes: the exporter's layout since attributes became Map columns.
SCHEMA = "clickhouseexporter traces (Map attributes, Nested Events/Links)"

TRACES_DDL = """CREATE TABLE IF NOT EXISTS {database}.{table} (
    Timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Duration UInt64 CODEC(ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))
SETTINGS index_granularity=8192, ttl_only_drop_parts = 1"""

_MAP = "Map(LowCardinality(String), String)"
#: The columns (as ClickHouse's system.columns names their types) the queries and the loader rely on.
COLUMNS: dict[str, str] = {
    "Timestamp": "DateTime64(9)",
    "TraceId": "String",
    "SpanId": "String",
    "ParentSpanId": "String",
    "TraceState": "String",
    "SpanName": "LowCardinality(String)",
    "SpanKind": "LowCardinality(String)",
    "ServiceName": "LowCardinality(String)",
    "ResourceAttributes": _MAP,
    "ScopeName": "String",
    "ScopeVersion": "String",
    "SpanAttributes": _MAP,
    "Duration": "UInt64",
    "StatusCode": "LowCardinality(String)",
    "StatusMessage": "String",
    "Events.Timestamp": "Array(DateTime64(9))",
    "Events.Name": "Array(LowCardinality(String))",
    "Events.Attributes": f"Array({_MAP})",
    "Links.TraceId": "Array(String)",
    "Links.SpanId": "Array(String)",
    "Links.TraceState": "Array(String)",
    "Links.Attributes": f"Array({_MAP})",
}
_KIND = {"internal": "SPAN_KIND_INTERNAL", "client": "SPAN_KIND_CLIENT"}
_STATUS = {"unset": "STATUS_CODE_UNSET", "ok": "STATUS_CODE_OK", "error": "STATUS_CODE_ERROR"}


class Session(Protocol):
    """What the loader needs of a ClickHouse connection: run one statement, get its text back."""

    def query(self, sql: str, fmt: str = "CSV") -> Any: ...

    def close(self) -> None: ...


def connect(path: str | None = None) -> Session:
    """An embedded ClickHouse (chdb) session, in memory or at `path`; ObserveError when chdb is not installed."""
    try:
        from chdb import session
    except ImportError:
        raise ObserveError(
            "ClickHouse loading needs the embedded engine chdb, which is not installed; "
            "pip install 'alicorn[dev]' (or: pip install chdb)"
        ) from None
    return session.Session(path) if path else session.Session()  # type: ignore[no-untyped-call]


def rows(spans: Iterable[SpanRecord], service: str = "alicorn") -> list[dict[str, Any]]:
    """Span records as rows of `otel_traces`, as the collector's exporter would write them."""
    resource = {"service.name": service, "service.version": __version__}
    out = []
    for s in spans:
        out.append(
            {
                "Timestamp": _time(s.start_ns),
                "TraceId": s.trace_id,
                "SpanId": s.span_id,
                "ParentSpanId": s.parent_id or "",
                "TraceState": "",
                "SpanName": s.name,
                "SpanKind": _KIND[s.kind],
                "ServiceName": service,
                "ResourceAttributes": resource,
                "ScopeName": "alicorn.observe",
                "ScopeVersion": __version__,
                "SpanAttributes": text_map(s.attributes),
                "Duration": s.duration_ns,
                "StatusCode": _STATUS[s.status],
                "StatusMessage": s.status_message,
                "Events.Timestamp": [_time(e.time_ns) for e in s.events],
                "Events.Name": [e.name for e in s.events],
                "Events.Attributes": [text_map(e.attributes) for e in s.events],
                "Links.TraceId": [link.trace_id for link in s.links],
                "Links.SpanId": [link.span_id for link in s.links],
                "Links.TraceState": ["" for _ in s.links],
                "Links.Attributes": [text_map(link.attributes) for link in s.links],
            }
        )
    return out


def text_map(attributes: Mapping[str, AttributeValue]) -> dict[str, str]:
    """Attribute values as the exporter stores them: text, arrays as JSON, booleans as `true`/`false`."""
    return {key: _text(value) for key, value in attributes.items()}


def _text(value: AttributeValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str | int):
        return str(value)
    return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))


def _float(value: float) -> str:
    """Go's strconv 'f' -1 (what the exporter uses): the shortest digits that read back, never an exponent."""
    return str(numpy.format_float_positional(value, trim="-"))


def _time(ns: int) -> str:
    seconds, rest = divmod(ns, 1_000_000_000)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S") + f".{rest:09d}"


def ensure_table(db: Session, database: str = DATABASE, table: str = TABLE) -> None:
    """Create the database and table when missing; ClickHouseSchemaError, changing nothing, when a table of that
    name exists with other columns."""
    db.query(f"CREATE DATABASE IF NOT EXISTS {database}")
    found = _columns(db, database, table)
    if not found:
        db.query(TRACES_DDL.format(database=database, table=table))
        return
    check_schema(found, f"{database}.{table}")


def check_schema(found: Mapping[str, str], where: str) -> None:
    """Compare a table's columns with the exporter's schema this module writes; say what differs."""
    missing = [name for name in COLUMNS if name not in found]
    changed = [
        f"{name} is {found[name]}, expected {kind}" for name, kind in COLUMNS.items() if found.get(name, kind) != kind
    ]
    if missing or changed:
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        problems = "; ".join([*changed[:4], *([f"no column {shown}"] if missing else [])])
        raise ClickHouseSchemaError(
            f"{where} is not the OpenTelemetry ClickHouse exporter's traces schema this Alicorn writes ({SCHEMA}): "
            f"{problems}. It was made by another version of the exporter or is another table; load into another "
            "table (or database), or migrate it; nothing was written"
        )


def _columns(db: Session, database: str, table: str) -> dict[str, str]:
    result = db.query(
        f"SELECT name, type FROM system.columns WHERE database = '{database}' AND table = '{table}'", "JSONEachRow"
    )
    return {row["name"]: row["type"] for row in _json_rows(result)}


def load(db: Session, spans: Sequence[SpanRecord], database: str = DATABASE, table: str = TABLE) -> int:
    """Insert span records (the table is made or checked first); the number of rows written."""
    ensure_table(db, database, table)
    batch = rows(spans)
    for start in range(0, len(batch), 5000):
        chunk = "\n".join(json.dumps(r, ensure_ascii=False) for r in batch[start : start + 5000])
        db.query(f"INSERT INTO {database}.{table} FORMAT JSONEachRow\n{chunk}")
    return len(batch)


def select(db: Session, sql: str) -> list[dict[str, Any]]:
    """Rows of a SELECT as dictionaries."""
    return _json_rows(db.query(sql, "JSONEachRow"))


def _json_rows(result: Any) -> list[dict[str, Any]]:
    text = result.bytes().decode("utf-8") if hasattr(result, "bytes") else str(result)
    return [json.loads(line) for line in text.splitlines() if line.strip()]
