"""ClickHouse on the real embedded engine (chdb): the collector exporter's table, a real run's spans loaded into it,
the queries' answers against the journal's own figures, and a table of another schema refused untouched."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from alicorn.observe import clickhouse as ch
from alicorn.observe.errors import ClickHouseSchemaError, ObserveError
from alicorn.observe.export import trace
from alicorn.observe.queries import QUERIES, query
from tests.observe.conftest import Journal


@pytest.fixture(scope="module")
def loaded(journal: Journal, chdb_session: Any) -> Any:
    """The run's trace loaded into `otel.otel_traces` (emptied first: the session is shared)."""
    chdb_session.query(f"DROP TABLE IF EXISTS {ch.DATABASE}.{ch.TABLE}")
    written = ch.load(chdb_session, trace(journal.store, journal.ran.conversation).spans)
    assert written == 25
    return chdb_session


def test_the_table_is_the_exporters_schema(loaded: Any) -> None:
    columns = {r["name"]: r["type"] for r in ch.select(loaded, "DESCRIBE TABLE otel.otel_traces")}
    assert columns == ch.COLUMNS
    engine = ch.select(
        loaded, "SELECT engine, partition_key, sorting_key FROM system.tables WHERE name = 'otel_traces'"
    )
    assert engine == [
        {"engine": "MergeTree", "partition_key": "toDate(Timestamp)",
         "sorting_key": "ServiceName, SpanName, toDateTime(Timestamp)"}
    ]  # fmt: skip


def test_rows_are_written_as_the_collector_writes_them(loaded: Any, journal: Journal) -> None:
    rows = ch.select(
        loaded,
        "SELECT SpanKind, StatusCode, SpanAttributes['gen_ai.response.finish_reasons'] AS reasons, "
        "SpanAttributes['alicorn.constrained'] AS constrained, ResourceAttributes['service.name'] AS service "
        "FROM otel.otel_traces WHERE SpanAttributes['gen_ai.operation.name'] = 'chat'",
    )
    assert rows == [{"SpanKind": "SPAN_KIND_INTERNAL", "StatusCode": "STATUS_CODE_OK", "reasons": '["stop"]',
                     "constrained": "true", "service": "alicorn"}] * 2  # fmt: skip


def test_cost_and_tokens_per_project_model_day_match_the_journal(loaded: Any, journal: Journal) -> None:
    usage = [e.data["usage"] for e in journal.store.read(journal.ran.conversation) if e.kind == "llm.response"]
    [row] = ch.select(loaded, query("cost_per_project_model_day"))
    assert (row["day"], row["project"], row["model"], row["calls"]) == ("2026-11-30", "default", "bundled:smollm2", 2)
    assert row["input_tokens"] == sum(u["prompt_tokens"] for u in usage)
    assert row["output_tokens"] == sum(u["completion_tokens"] for u in usage)


def test_latency_policy_quality_and_effect_queries(loaded: Any) -> None:
    latency = {(r["operation"], r["target"]): r for r in ch.select(loaded, query("latency_per_operation"))}
    assert latency[("execute_tool", "records.filter")]["spans"] == 2
    assert all(r["p50_ms"] <= r["p90_ms"] <= r["p99_ms"] for r in latency.values())
    decisions = ch.select(loaded, query("policy_decisions_over_time"))
    assert [(r["decision"], r["decisions"]) for r in decisions] == [("allow", 6)]
    rules = ch.select(loaded, query("policy_rules"))
    assert rules == [{"rule": "permit-within-rights", "decision": "allow", "decisions": 6}]
    [quality] = ch.select(loaded, query("model_quality"))
    assert (quality["first_attempts"], quality["repairs"], quality["valid_first_try"]) == (2, 0, 2)
    effects = ch.select(loaded, query("effects_by_state"))
    assert effects == [{"effect": "local_write", "state": "done", "effects": 1}]
    window = "Timestamp >= toDateTime64('2030-01-01 00:00:00', 9)"
    assert all(ch.select(loaded, query(name, window)) == [] for name in QUERIES)  # the time filter filters


def test_a_table_of_another_schema_version_is_refused_untouched(chdb_session: Any) -> None:
    chdb_session.query("CREATE DATABASE IF NOT EXISTS old")
    chdb_session.query("DROP TABLE IF EXISTS old.otel_traces")
    chdb_session.query(  # the exporter's first layout: attributes as Nested keys/values, no Links
        "CREATE TABLE old.otel_traces (Timestamp DateTime64(9), TraceId String, SpanId String, SpanName String, "
        "SpanAttributes Nested(keys LowCardinality(String), values String), Duration Int64) "
        "ENGINE = MergeTree ORDER BY Timestamp"
    )
    with pytest.raises(ClickHouseSchemaError) as caught:
        ch.load(chdb_session, [], database="old")
    message = str(caught.value)
    assert "old.otel_traces is not the OpenTelemetry ClickHouse exporter's traces schema" in message
    assert "no column ParentSpanId, TraceState" in message and "Duration is Int64, expected UInt64" in message
    assert "nothing was written" in message
    assert ch.select(chdb_session, "SELECT count() AS n FROM old.otel_traces") == [{"n": 0}]


def test_without_chdb_the_loader_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def no_chdb(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "chdb" or name.startswith("chdb."):
            raise ImportError("No module named 'chdb'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_chdb)
    with pytest.raises(ObserveError, match=r"pip install 'alicorn\[dev\]'"):
        ch.connect()
