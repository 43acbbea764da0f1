"""Metrics from span records, through the OpenTelemetry metrics API: token usage, operation duration, cost,
policy decisions and effects by state.

The GenAI instruments follow the conventions' names and units (`gen_ai.client.token.usage` in `{token}`,
`gen_ai.client.operation.duration` in seconds). Values come from the journal, but a metric point's timestamp is the
metrics SDK's own reading when it collects: metrics say how much, spans say when.
"""

from __future__ import annotations

from collections.abc import Iterable

from opentelemetry.metrics import Meter

from alicorn.observe import semconv as sc
from alicorn.observe.spans import Attributes, AttributeValue, SpanRecord

#: Bucket boundaries the conventions advise for the two GenAI histograms.
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)


class SpanMetrics:
    """Records each finished span's measurements on `meter`'s instruments."""

    def __init__(self, meter: Meter) -> None:
        self.tokens = meter.create_histogram(
            sc.METRIC_TOKEN_USAGE,
            unit="{token}",
            description="Tokens used per model call, by input and output",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.duration = meter.create_histogram(
            sc.METRIC_OPERATION_DURATION,
            unit="s",
            description="Duration of model calls and tool executions, from journaled times",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self.cost = meter.create_counter("alicorn.model.cost", unit="{currency}", description="Money spent on models")
        self.decisions = meter.create_counter("alicorn.policy.decisions", description="Anvil's decisions per operation")
        self.effects = meter.create_counter("alicorn.effects", description="Effects by class and final state")

    def record(self, spans: Iterable[SpanRecord]) -> None:
        for span in spans:
            self._record(span)

    def _record(self, span: SpanRecord) -> None:
        attrs = span.attributes
        operation = span.operation
        if operation in (sc.CHAT, sc.EXECUTE_TOOL):
            keys = (sc.OPERATION_NAME, sc.PROVIDER_NAME, sc.REQUEST_MODEL, sc.RESPONSE_MODEL, sc.TOOL_NAME)
            common = _pick(attrs, keys)
            if sc.ERROR_TYPE in attrs:
                common[sc.ERROR_TYPE] = attrs[sc.ERROR_TYPE]
            self.duration.record(span.duration_ns / 1e9, common)
        if operation == sc.CHAT:
            base = _pick(attrs, (sc.OPERATION_NAME, sc.PROVIDER_NAME, sc.REQUEST_MODEL, sc.RESPONSE_MODEL))
            for token_type, key in (("input", sc.USAGE_INPUT_TOKENS), ("output", sc.USAGE_OUTPUT_TOKENS)):
                value = attrs.get(key)
                if isinstance(value, int):
                    self.tokens.record(value, {**base, sc.TOKEN_TYPE: token_type})
            cost = attrs.get(sc.COST)
            if isinstance(cost, int | float) and cost > 0:
                self.cost.add(float(cost), _pick(attrs, (sc.REQUEST_MODEL, sc.CURRENCY, sc.PROJECT)))
        if sc.POLICY_DECISION in attrs:
            self.decisions.add(1, _pick(attrs, (sc.POLICY_DECISION, sc.TOOL_NAME, sc.PROJECT)))
        if sc.EFFECT_STATE in attrs:
            self.effects.add(1, _pick(attrs, (sc.EFFECT, sc.EFFECT_STATE, sc.PROJECT)))


def _pick(attrs: Attributes, keys: Iterable[str]) -> dict[str, AttributeValue]:
    out: dict[str, AttributeValue] = {}
    for key in keys:
        value = attrs.get(key)
        if value not in (None, ""):
            out[key] = value
    return out
