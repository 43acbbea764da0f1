"""Metrics from a real run's spans, read back with the SDK's in-memory reader."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from alicorn.observe.export import trace
from alicorn.observe.metrics import SpanMetrics
from tests.observe.conftest import Journal


def _points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    data = reader.get_metrics_data()
    assert data is not None
    return {
        m.name: list(m.data.data_points) for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
    }


def test_tokens_durations_decisions_and_effects(journal: Journal) -> None:
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    SpanMetrics(provider.get_meter("test")).record(trace(journal.store, journal.ran.conversation).spans)
    points = _points(reader)
    usage = [e.data["usage"] for e in journal.store.read(journal.ran.conversation) if e.kind == "llm.response"]
    tokens = {p.attributes["gen_ai.token.type"]: p.sum for p in points["gen_ai.client.token.usage"]}
    assert tokens == {
        "input": sum(u["prompt_tokens"] for u in usage),
        "output": sum(u["completion_tokens"] for u in usage),
    }
    durations = {p.attributes["gen_ai.operation.name"]: 0 for p in points["gen_ai.client.operation.duration"]}
    assert set(durations) == {"chat", "execute_tool"}
    assert sum(p.count for p in points["gen_ai.client.operation.duration"]) == 2 + 7
    decisions = points["alicorn.policy.decisions"]
    assert sum(p.value for p in decisions) == 6 and {p.attributes["alicorn.policy.decision"] for p in decisions} == {
        "allow"
    }
    [effect] = points["alicorn.effects"]
    assert dict(effect.attributes) == {
        "alicorn.effect": "local_write",
        "alicorn.effect.state": "done",
        "alicorn.project": "default",
    }
    assert "alicorn.model.cost" not in points  # the local model costs nothing: no point is made up
    provider.shutdown()
