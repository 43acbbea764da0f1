"""The questions asked of `otel_traces`: cost and tokens, latency, policy decisions, model quality, effects.

Each query is ClickHouse SQL over the exporter's table with one `{where}` for a time filter (`TRUE` when none), so
the library, the benchmark and the Grafana dashboards (deploy/grafana, whose panels write `$__timeFilter(Timestamp)`
there) ask the same thing. Attribute values are text in that table: numbers are read with `toUInt64OrZero` /
`toFloat64OrZero`.

Model quality is what the journal records of structured output: a first attempt is a `chat` span with
`alicorn.repair = 0` and a JSON schema; a repair (`alicorn.repair > 0`) means the attempt before it did not
validate. "Schema-valid at first try" counts first attempts no repair followed, per turn (parent span) and purpose.
"""

from __future__ import annotations

from alicorn.observe.clickhouse import DATABASE, TABLE

TABLE_NAME = f"{DATABASE}.{TABLE}"
_A = "SpanAttributes"

QUERIES: dict[str, str] = {
    "cost_per_project_model_day": f"""
SELECT toDate(Timestamp) AS day,
       {_A}['alicorn.project'] AS project,
       {_A}['gen_ai.response.model'] AS model,
       count() AS calls,
       sum(toUInt64OrZero({_A}['gen_ai.usage.input_tokens'])) AS input_tokens,
       sum(toUInt64OrZero({_A}['gen_ai.usage.output_tokens'])) AS output_tokens,
       sum(toFloat64OrZero({_A}['alicorn.cost'])) AS cost
FROM {TABLE_NAME}
WHERE {_A}['gen_ai.operation.name'] = 'chat' AND {{where}}
GROUP BY day, project, model
ORDER BY day, project, model""",
    "latency_per_operation": f"""
SELECT {_A}['gen_ai.operation.name'] AS operation,
       if(operation = 'chat', {_A}['gen_ai.request.model'], {_A}['gen_ai.tool.name']) AS target,
       count() AS spans,
       quantile(0.5)(Duration) / 1e6 AS p50_ms,
       quantile(0.9)(Duration) / 1e6 AS p90_ms,
       quantile(0.99)(Duration) / 1e6 AS p99_ms
FROM {TABLE_NAME}
WHERE operation IN ('chat', 'execute_tool', 'invoke_workflow', 'invoke_agent') AND {{where}}
GROUP BY operation, target
ORDER BY operation, target""",
    "policy_decisions_over_time": f"""
SELECT toStartOfHour(Timestamp) AS hour,
       {_A}['alicorn.policy.decision'] AS decision,
       count() AS decisions
FROM {TABLE_NAME}
WHERE mapContains({_A}, 'alicorn.policy.decision') AND {{where}}
GROUP BY hour, decision
ORDER BY hour, decision""",
    "policy_rules": f"""
SELECT arrayJoin(JSONExtract({_A}['alicorn.policy.rules'], 'Array(String)')) AS rule,
       {_A}['alicorn.policy.decision'] AS decision,
       count() AS decisions
FROM {TABLE_NAME}
WHERE mapContains({_A}, 'alicorn.policy.decision') AND {{where}}
GROUP BY rule, decision
ORDER BY decisions DESC, rule""",
    "model_quality": f"""
SELECT {_A}['gen_ai.request.model'] AS model,
       countIf(toUInt32OrZero({_A}['alicorn.repair']) = 0) AS first_attempts,
       countIf(toUInt32OrZero({_A}['alicorn.repair']) > 0) AS repairs,
       first_attempts - uniqExactIf((ParentSpanId, {_A}['alicorn.purpose']),
                                    toUInt32OrZero({_A}['alicorn.repair']) = 1) AS valid_first_try,
       if(first_attempts = 0, 0, valid_first_try / first_attempts) AS valid_first_try_rate,
       countIf(StatusCode = 'STATUS_CODE_ERROR') AS errors,
       countIf({_A}['alicorn.constrained'] = 'true') AS constrained
FROM {TABLE_NAME}
WHERE {_A}['gen_ai.operation.name'] = 'chat' AND {_A}['gen_ai.output.type'] = 'json' AND {{where}}
GROUP BY model
ORDER BY model""",
    "effects_by_state": f"""
SELECT {_A}['alicorn.effect'] AS effect,
       {_A}['alicorn.effect.state'] AS state,
       count() AS effects
FROM {TABLE_NAME}
WHERE mapContains({_A}, 'alicorn.effect.state') AND {{where}}
GROUP BY effect, state
ORDER BY effect, state""",
}


def query(name: str, where: str = "TRUE") -> str:
    """The named query with its time filter (a ClickHouse boolean expression over `Timestamp`)."""
    return QUERIES[name].format(where=where).strip()
