"""A pinned MCP tool as a registry `Operation`: `mcp.SERVER.TOOL`, whose run is one `tools/call` on the pool.

What a call can end in, and what the runtime is told:

- arguments that break the pinned input schema: refused before sending (OperationError, certainly not applied);
- the server's answer `isError`: an OperationError carrying the server's text (quoted, as data);
- a structured result that breaks the pinned output schema: an error naming the server and the tool;
- no answer within the operation's timeout, or a lost connection: for a tool without an effect a retryable
  OperationError; for a tool with one `EffectUnknown`, since the request may have been applied.

The tool's description becomes the operation's summary, marked as the server's words: it is untrusted text, and
the planner fences it as data (alicorn.core.planner.operation_menu).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from alicorn.context.fence import clean
from alicorn.errors import EffectUnknown, OperationError
from alicorn.mcp.definitions import ToolDefinition
from alicorn.mcp.effects import effect_of, idempotency_of
from alicorn.mcp.pool import McpServerError, SessionPool
from alicorn.mcp.schemas import CONTENT_FIELD, STRUCTURED_FIELD, input_model, output_model, violation
from alicorn.mcp.settings import ServerSettings
from alicorn.ops.registry import Operation, OperationContext

#: Every external tool's operation name starts with this (the planner fences their summaries).
PREFIX = "mcp."
MAX_SUMMARY = 600
MAX_CONTENT = 1 << 20


def mcp_operation(definition: ToolDefinition, settings: ServerSettings, pool: SessionPool) -> Operation:
    """The operation for `definition` (pinned and unchanged); UnsupportedSchema when its schemas cannot be fields."""
    name = definition.operation
    inputs = input_model(name, definition.input_schema)
    outputs = output_model(name, definition.output_schema)
    effect = effect_of(settings, definition.name, definition.annotations)
    described = clean(definition.description).strip()[:MAX_SUMMARY] or "(no description)"
    call = _Call(definition, settings, pool, outputs, effect not in ("none", "read"))
    return Operation(
        name=name,
        summary=f"[MCP server {settings.name!r}, untrusted description] {described}",
        inputs=inputs,
        outputs=outputs,
        effect=effect,
        idempotency=idempotency_of(settings, effect, definition.annotations),
        run=call,
        timeout_s=settings.timeout_s,
    )


class _Call:
    """The run function of one MCP operation (a class, so the operation stays a frozen, hashable value)."""

    def __init__(
        self,
        definition: ToolDefinition,
        settings: ServerSettings,
        pool: SessionPool,
        outputs: type[BaseModel],
        has_effect: bool,
    ) -> None:
        self.definition = definition
        self.settings = settings
        self.pool = pool
        self.outputs = outputs
        self.has_effect = has_effect

    @property
    def where(self) -> str:
        return f"MCP server {self.settings.name!r} tool {self.definition.name!r}"

    def __call__(self, inputs: BaseModel, ctx: OperationContext) -> BaseModel:
        arguments = inputs.model_dump(mode="json", exclude_unset=True)
        broken = violation(arguments, self.definition.input_schema)
        if broken is not None:
            raise OperationError(f"the arguments for {self.where} break its input schema {broken}; nothing was sent")
        try:
            result = self.pool.call_tool(
                self.settings.name, self.definition.name, arguments, self.settings.timeout_s, ctx.cancelled
            )
        except TimeoutError:
            raise self._unanswered(f"did not answer within {self.settings.timeout_s:g} s") from None
        except InterruptedError:
            raise OperationError(f"the call of {self.where} was cancelled", certain=not self.has_effect) from None
        except McpServerError as exc:
            raise OperationError(str(exc)) from None
        except RuntimeError as exc:  # the SDK's own check of the result against the listed output schema
            raise self._bad_result((str(exc).strip().splitlines() or ["no detail"])[0][:300]) from None
        except Exception as exc:
            from mcp.shared.exceptions import MCPError
            from mcp_types import REQUEST_TIMEOUT

            if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT:
                raise self._unanswered(f"did not answer within {self.settings.timeout_s:g} s") from None
            if isinstance(exc, MCPError):  # the server refused the request (unknown tool, invalid params)
                raise OperationError(f"{self.where} refused the call: {exc}"[:600]) from None
            raise self._unanswered(f"failed before answering ({type(exc).__name__}: {str(exc)[:200]})") from None
        text = _text(result)
        if getattr(result, "is_error", False):
            raise OperationError(f"{self.where} answered with an error: {text[:500] or '(no text)'}")
        structured = getattr(result, "structured_content", None)
        schema = self.definition.output_schema
        fields: dict[str, Any] = {}
        if schema is not None:
            if structured is None:
                raise self._bad_result("it has an output schema but returned no structured content")
            broken = violation(structured, schema)
            if broken is not None:
                raise self._bad_result(f"its structured content breaks its output schema {broken}")
            if STRUCTURED_FIELD in self.outputs.model_fields and not schema.get("properties"):
                fields = {STRUCTURED_FIELD: structured}
            elif isinstance(structured, dict):
                fields = {k: v for k, v in structured.items() if k in self.outputs.model_fields}
        fields.setdefault(CONTENT_FIELD, text[:MAX_CONTENT])
        try:
            return self.outputs.model_validate(fields)
        except ValueError as exc:
            raise self._bad_result(f"its result does not fit the pinned output fields ({str(exc)[:200]})") from None

    def _unanswered(self, what: str) -> OperationError:
        message = f"{self.where} {what}"
        if self.has_effect:
            return EffectUnknown(f"{message}; the call may have been applied")
        return OperationError(message, retryable=True)

    def _bad_result(self, what: str) -> OperationError:
        message = (
            f"{self.where} returned a result that violates its own schema: {what}; the result was not used "
            "(report it to the server's maintainer)"
        )
        if self.has_effect:
            return EffectUnknown(message, retryable=False)
        return OperationError(message)


def _text(result: Any) -> str:
    """The text blocks of a result, joined (other blocks, such as images, are named, not carried)."""
    parts = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        parts.append(str(getattr(block, "text", "")) if kind == "text" else f"[{kind or 'unknown'} content]")
    return "\n".join(parts)
