"""`schedule.publish`: announce one schedule variant to the people on it (effect: publication).

The outside system is simulated deterministically by the run workspace's `outbox/` folder: one JSON message per
idempotency key, naming the changes (every assignment) and the recipients. Publishing the same key again finds the
message already there and publishes nothing new, so the operation is `keyed`; `lookup` answers whether a key was
published. A variant with labour-law violations or unstaffed shifts is refused: it must be fixed first.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import Field

from alicorn.durable import write_atomically
from alicorn.errors import EffectUnknown, OperationError
from alicorn.ops._common import Model
from alicorn.ops.registry import LookupResult, Operation, OperationContext
from alicorn.packs.schedule.models import MAX_EMPLOYEES, MAX_VARIANTS, Employee, Month, Variant

OUTBOX = "outbox"


class PublishInputs(Model):
    month: Month
    variant: int = Field(ge=1, le=MAX_VARIANTS, description="the id of the variant to publish")
    variants: list[Variant] = Field(min_length=1, max_length=MAX_VARIANTS)
    employees: list[Employee] = Field(max_length=MAX_EMPLOYEES)
    violations: list[int] = Field(max_length=MAX_VARIANTS, description="labour-law violations per variant")
    shortfalls: list[int] = Field(max_length=MAX_VARIANTS, description="unstaffed person-shifts per variant")


class PublishOutputs(Model):
    path: str = Field(description="the message in the workspace's outbox")
    key: str
    variant: int
    recipients: int = Field(ge=0)
    changes: int = Field(ge=0, description="assignments announced")
    duplicate: bool = Field(description="the key was already published; nothing new was sent")


def _message_path(ctx: OperationContext, month: str) -> Path:
    digest = hashlib.sha256(ctx.idempotency_key.encode("utf-8")).hexdigest()[:16]
    return ctx.workspace / OUTBOX / f"schedule-{month}-{digest}.json"


def _published(ctx: OperationContext, path: Path) -> PublishOutputs | None:
    """The outputs of the message already published under this key, or None."""
    try:
        message = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise OperationError(f"the outbox message {path.name} cannot be read: {exc}", retryable=True) from None
    if message.get("key") != ctx.idempotency_key:
        raise OperationError(f"the outbox message {path.name} belongs to another key; move it away and retry")
    return PublishOutputs(
        path=path.relative_to(ctx.workspace).as_posix(),
        key=ctx.idempotency_key,
        variant=message["variant"],
        recipients=len(message["recipients"]),
        changes=len(message["changes"]),
        duplicate=True,
    )


def publish(inputs: PublishInputs, ctx: OperationContext) -> PublishOutputs:
    """Publish the chosen variant once per idempotency key; refuse a variant that breaks rules or leaves gaps."""
    chosen = next((v for v in inputs.variants if v.id == inputs.variant), None)
    if chosen is None:
        ids = ", ".join(str(v.id) for v in inputs.variants)
        raise OperationError(f"there is no variant {inputs.variant} to publish; the variants are {ids}")
    position = inputs.variants.index(chosen)
    if position < len(inputs.violations) and inputs.violations[position]:
        raise OperationError(
            f"variant {chosen.id} has {inputs.violations[position]} labour-law violation(s); fix them before "
            "publishing it"
        )
    if position < len(inputs.shortfalls) and inputs.shortfalls[position]:
        raise OperationError(
            f"variant {chosen.id} leaves {inputs.shortfalls[position]} person-shift(s) unstaffed; it cannot be "
            "published as the month's schedule"
        )
    path = _message_path(ctx, inputs.month)
    earlier = _published(ctx, path)
    if earlier is not None:
        return earlier
    names = {e.id: e.name for e in inputs.employees}
    changes = [a.model_dump(mode="json") for a in chosen.assignments]
    recipients = sorted({a.employee for a in chosen.assignments})
    message = {
        "key": ctx.idempotency_key,
        "month": inputs.month,
        "variant": chosen.id,
        "objective": chosen.objective,
        "recipients": [{"employee": r, "name": names.get(r, r)} for r in recipients],
        "changes": changes,
    }
    data = json.dumps(message, ensure_ascii=False, sort_keys=True, indent=1).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, data)
    except OSError as exc:
        problem = f"cannot write the outbox message {path.name}: {exc.strerror or exc}"
        if path.is_file():  # the message landed (it was not there before); what failed came after (an fsync)
            raise EffectUnknown(f"{problem}; it is in the outbox and may have been published") from None
        raise OperationError(problem, retryable=True) from None
    return PublishOutputs(
        path=path.relative_to(ctx.workspace).as_posix(),
        key=ctx.idempotency_key,
        variant=chosen.id,
        recipients=len(recipients),
        changes=len(changes),
        duplicate=False,
    )


def lookup(inputs: PublishInputs, ctx: OperationContext) -> LookupResult:
    """Whether the variant was already published under this key (reads the outbox; never publishes)."""
    earlier = _published(ctx, _message_path(ctx, inputs.month))
    return LookupResult(applied=earlier is not None, output=earlier)


PUBLISH = Operation(
    "schedule.publish",
    "Publish one schedule variant to the people on it (the changes and the recipients), once per key.",
    PublishInputs,
    PublishOutputs,
    "publication",
    "keyed",
    publish,
    resources=("workspace",),
    lookup=lookup,
)
