"""Attribute names of the OpenTelemetry semantic conventions Alicorn's spans follow, and Alicorn's own.

The GenAI names are those of semantic conventions v1.41 (GenAI client and agent spans, now kept in
open-telemetry/semantic-conventions-genai) as `opentelemetry-semantic-conventions` 0.66 spells them: the provider is
`gen_ai.provider.name` (not the deprecated `gen_ai.system`) and token usage is `gen_ai.usage.input_tokens` /
`output_tokens` (not `prompt_tokens` / `completion_tokens`). They are written out here rather than imported from
that package's `_incubating` modules, whose path is private and moves between releases.
"""

from __future__ import annotations

from typing import Final

# ---- GenAI (spans) ----------------------------------------------------------------------------------------------
OPERATION_NAME: Final = "gen_ai.operation.name"
PROVIDER_NAME: Final = "gen_ai.provider.name"
REQUEST_MODEL: Final = "gen_ai.request.model"
REQUEST_MAX_TOKENS: Final = "gen_ai.request.max_tokens"
REQUEST_TEMPERATURE: Final = "gen_ai.request.temperature"
REQUEST_SEED: Final = "gen_ai.request.seed"
RESPONSE_MODEL: Final = "gen_ai.response.model"
RESPONSE_ID: Final = "gen_ai.response.id"
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
OUTPUT_TYPE: Final = "gen_ai.output.type"
CONVERSATION_ID: Final = "gen_ai.conversation.id"
AGENT_NAME: Final = "gen_ai.agent.name"
AGENT_ID: Final = "gen_ai.agent.id"
WORKFLOW_NAME: Final = "gen_ai.workflow.name"
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_TYPE: Final = "gen_ai.tool.type"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_DESCRIPTION: Final = "gen_ai.tool.description"
ERROR_TYPE: Final = "error.type"

#: `gen_ai.operation.name` values used here.
CHAT: Final = "chat"
INVOKE_AGENT: Final = "invoke_agent"
INVOKE_WORKFLOW: Final = "invoke_workflow"
EXECUTE_TOOL: Final = "execute_tool"

# ---- MCP ----------------------------------------------------------------------------------------------------------
MCP_METHOD_NAME: Final = "mcp.method.name"
MCP_TOOLS_CALL: Final = "tools/call"

# ---- GenAI (metrics) ----------------------------------------------------------------------------------------------
METRIC_TOKEN_USAGE: Final = "gen_ai.client.token.usage"
METRIC_OPERATION_DURATION: Final = "gen_ai.client.operation.duration"
TOKEN_TYPE: Final = "gen_ai.token.type"

# ---- Alicorn's own ----------------------------------------------------------------------------------------------
PROJECT: Final = "alicorn.project"
RUN: Final = "alicorn.run"
NODE: Final = "alicorn.node"
ATTEMPT: Final = "alicorn.attempt"
EFFECT: Final = "alicorn.effect"
EFFECT_KEY: Final = "alicorn.effect.key"
EFFECT_STATE: Final = "alicorn.effect.state"
PURPOSE: Final = "alicorn.purpose"
REPAIR: Final = "alicorn.repair"
PROFILE: Final = "alicorn.model.profile"
LOCATION: Final = "alicorn.model.location"
CONSTRAINED: Final = "alicorn.constrained"
SCHEMA_NAME: Final = "alicorn.schema.name"
COST: Final = "alicorn.cost"
CURRENCY: Final = "alicorn.currency"
POLICY_DECISION: Final = "alicorn.policy.decision"
POLICY_RULES: Final = "alicorn.policy.rules"
POLICY_DIGEST: Final = "alicorn.policy.digest"
GOAL_HASH: Final = "alicorn.goal_hash"
PLAN_HASH: Final = "alicorn.plan_hash"
PROVENANCE: Final = "alicorn.provenance"
STATUS: Final = "alicorn.status"
EVENT_SEQ: Final = "alicorn.event.seq"
END_SEQ: Final = "alicorn.event.end_seq"
OPEN: Final = "alicorn.open"
CONTENT_REQUEST: Final = "alicorn.content.request"
CONTENT_RESPONSE: Final = "alicorn.content.response"
WORKFLOW: Final = "alicorn.workflow"
