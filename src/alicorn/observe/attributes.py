"""Span attributes from journaled event data: the GenAI conventions' and Alicorn's, for tools and model calls.

Pure functions of one event's data (the projector decides which span they go on). Nothing here copies content:
prompts, outputs and error messages stay in the journal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from alicorn.observe import semconv as sc
from alicorn.observe.spans import AttributeValue

#: Conversation events that start a turn of Norbi Core.
TURN_STARTS = frozenset({"intent.received", "message.received", "clarification.answered"})


def chat_request_attributes(data: dict[str, Any]) -> dict[str, AttributeValue]:
    """A `chat` span's attributes from its `llm.request`."""
    profile = data.get("profile") or {}
    provider = text(data.get("provider")) or text(profile.get("provider"))
    purpose = text(data.get("purpose"))
    base, _, repair = purpose.partition(":repair")
    attrs: dict[str, AttributeValue] = {
        sc.OPERATION_NAME: sc.CHAT,
        sc.PROVIDER_NAME: provider or "unknown",
        sc.REQUEST_MODEL: text(profile.get("model")),
        sc.PROFILE: text(profile.get("id")),
        sc.LOCATION: text(profile.get("location")),
        sc.PURPOSE: base,
        sc.REPAIR: int(repair) if repair.isdigit() else 0,
        sc.OUTPUT_TYPE: "json" if data.get("schema") else "text",
    }
    for name, key in ((sc.REQUEST_MAX_TOKENS, "max_tokens"), (sc.REQUEST_SEED, "seed")):
        if isinstance(data.get(key), int):
            attrs[name] = data[key]
    if isinstance(data.get("temperature"), int | float):
        attrs[sc.REQUEST_TEMPERATURE] = float(data["temperature"])
    if data.get("schema_name"):
        attrs[sc.SCHEMA_NAME] = str(data["schema_name"])
    return attrs


def chat_response_attributes(data: dict[str, Any], requested: str) -> dict[str, AttributeValue]:
    """What an `llm.response` adds to its `chat` span (`requested`: the request's model)."""
    out: dict[str, AttributeValue] = {}
    usage = data.get("usage") or {}
    out[sc.RESPONSE_MODEL] = text(data.get("model")) or requested
    out[sc.RESPONSE_ID] = text(data.get("call"))
    out[sc.USAGE_INPUT_TOKENS] = int(usage.get("prompt_tokens") or 0)
    out[sc.USAGE_OUTPUT_TOKENS] = int(usage.get("completion_tokens") or 0)
    out["alicorn.usage.estimated"] = bool(usage.get("estimated"))
    if data.get("finish_reason"):
        out[sc.RESPONSE_FINISH_REASONS] = [str(data["finish_reason"])]
    out[sc.COST] = float(data.get("cost") or 0.0)
    out[sc.CURRENCY] = text(data.get("currency"))
    out[sc.CONSTRAINED] = bool(data.get("constrained"))
    return out


def stream_kind(first_kind: str) -> str | None:
    if first_kind == "run.created":
        return "run"
    if first_kind in TURN_STARTS:
        return "conversation"
    return None  # agents', control and model streams hold no spans


def tool_attributes(op: str, data: dict[str, Any], stream: str, seq: int) -> dict[str, AttributeValue]:
    effect = text(data.get("effect")) or "none"
    attrs: dict[str, AttributeValue] = {
        sc.OPERATION_NAME: sc.EXECUTE_TOOL,
        sc.TOOL_NAME: op,
        sc.TOOL_TYPE: "function",
        sc.TOOL_CALL_ID: f"{stream}#{seq}",
        sc.NODE: text(data.get("node")),
        sc.ATTEMPT: int(data.get("attempt", 1)),
        sc.EFFECT: effect,
    }
    if op.startswith("mcp.") and op.count(".") >= 2:
        _, server, tool = op.split(".", 2)
        attrs.update({sc.MCP_METHOD_NAME: sc.MCP_TOOLS_CALL, sc.TOOL_NAME: tool, sc.TOOL_TYPE: "extension"})
        attrs["alicorn.mcp.server"] = server
        attrs["alicorn.operation"] = op  # the registry's name, which gen_ai.tool.name no longer is
    if effect not in ("none", "read") and data.get("key"):
        attrs[sc.EFFECT_KEY] = str(data["key"])
    return attrs


def text(value: object) -> str:
    return value if isinstance(value, str) else ""


def find_text(value: object, name: str, depth: int = 0) -> str | None:
    """The first string under key `name` anywhere in `value` (a few levels deep)."""
    if depth > 6:
        return None
    if isinstance(value, dict):
        if isinstance(value.get(name), str):
            return str(value[name])
        items: Iterable[object] = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = find_text(item, name, depth + 1)
        if found is not None:
            return found
    return None
