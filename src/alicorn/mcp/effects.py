"""The effect and idempotency class of an external tool: the operator's word first, the server's hints only upward.

Annotations are hints from the server, and a server can lie. So for a server the operator has not marked trusted
they may only *raise* the class the operator gave (a tool the operator called `read` that says it is destructive
becomes at least a local write; one that says it reaches the open world, an external transmission); they never
lower it, and a hint the server leaves out raises nothing. A tool without a class in the config is an
`external_transmission`: it sends its arguments to a process or host that is not Alicorn's. For a trusted server,
hints may also give an unnamed tool its class (a read-only hint makes it `read`) and an idempotent hint makes it
`idempotent`; an explicit class still wins.
"""

from __future__ import annotations

from typing import Any

from alicorn.mcp.settings import ServerSettings
from alicorn.plan.dsl import EffectClass, IdempotencyClass, effect_rank

DEFAULT_EFFECT: EffectClass = "external_transmission"


def _claimed(annotations: dict[str, Any]) -> EffectClass:
    """The class the hints claim, with MCP's defaults for hints left out (not read-only, open world)."""
    if annotations.get("readOnlyHint") is True:
        return "external_transmission" if annotations.get("openWorldHint") is True else "read"
    if annotations.get("openWorldHint", True) is not False:
        return "external_transmission"
    return "local_write"


def _floor(annotations: dict[str, Any]) -> EffectClass:
    """The least class the hints a server states imply (absent hints imply nothing: only what is said can raise)."""
    floor: EffectClass = "none"
    if annotations.get("readOnlyHint") is False or (
        annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True
    ):
        floor = "local_write"
    if annotations.get("openWorldHint") is True:
        floor = "external_transmission"
    return floor


def effect_of(settings: ServerSettings, tool: str, annotations: dict[str, Any]) -> EffectClass:
    """The tool's effect class (see the module docstring)."""
    configured = settings.tools.get(tool, settings.effect)
    if settings.trusted:
        return configured if configured is not None else _claimed(annotations)
    base = configured if configured is not None else DEFAULT_EFFECT
    floor = _floor(annotations)
    return floor if effect_rank(floor) > effect_rank(base) else base


def idempotency_of(settings: ServerSettings, effect: EffectClass, annotations: dict[str, Any]) -> IdempotencyClass:
    """`unsafe` unless the operator says otherwise; a trusted server's idempotent hint makes it `idempotent`; a tool
    without an effect (none or read) may be repeated freely."""
    if settings.idempotency is not None:
        return settings.idempotency
    if effect in ("none", "read"):
        return "repeatable"
    if settings.trusted and annotations.get("idempotentHint") is True:
        return "idempotent"
    return "unsafe"
