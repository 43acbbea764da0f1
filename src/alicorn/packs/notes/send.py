"""`notes.send_reply`: send the drafted reply (external transmission), deduplicated by the idempotency key.

The mail system is simulated deterministically: a sent message is a JSON file in the workspace's `outbox/`, named
after the digest of the run's idempotency key, written atomically. A delivery whose key is already in the outbox
changes nothing and returns the message recorded the first time, which is the `keyed` contract the runtime relies
on when it repeats an attempt whose outcome it could not see. The operation declares its true effect class, so
the plan builder leaves it out whenever sending is not asked for or is forbidden.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import Field, ValidationError

from alicorn import canonical
from alicorn.durable import write_atomically
from alicorn.errors import EffectUnknown, OperationError
from alicorn.ops._common import Model
from alicorn.ops.paths import confine
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.notes.model import MAX_PARTICIPANTS, Email
from alicorn.plan.dsl import RetryPolicy

OUTBOX = "outbox"


class SendReplyInputs(Model):
    to: list[Email] = Field(min_length=1, max_length=MAX_PARTICIPANTS, description="recipients' addresses")
    subject: str = Field(min_length=1, max_length=300)
    body: str = Field(min_length=1, max_length=200_000)


class SendReplyOutputs(Model):
    message_id: str = Field(pattern=r"^notes-[0-9a-f]{24}$")
    path: str = Field(description="the message in the workspace's outbox")
    to: list[Email] = Field(max_length=MAX_PARTICIPANTS)
    sent: bool = True


def _message_path(key: str) -> str:
    return f"{OUTBOX}/{hashlib.sha256(key.encode('utf-8')).hexdigest()[:24]}.json"


def send_reply(inputs: SendReplyInputs, ctx: OperationContext) -> SendReplyOutputs:
    """Put the message in the outbox once per idempotency key; a repeat returns the first delivery."""
    if not ctx.idempotency_key:
        raise OperationError("notes.send_reply needs the run's idempotency key to deduplicate; none was given")
    relative = _message_path(ctx.idempotency_key)
    message_id = "notes-" + relative.rsplit("/", 1)[1].removesuffix(".json")
    target: Path | None = None
    try:
        ctx.workspace.mkdir(parents=True, exist_ok=True)
        target = confine(ctx.workspace, relative, "workspace")
        if target.is_file():
            recorded = json.loads(target.read_text(encoding="utf-8"))
            return SendReplyOutputs(message_id=message_id, path=relative, to=recorded["to"])
        target.parent.mkdir(parents=True, exist_ok=True)
        message = {
            "message_id": message_id,
            "key": ctx.idempotency_key,
            "to": list(inputs.to),
            "subject": inputs.subject,
            "body": inputs.body,
        }
        write_atomically(target, (canonical.dumps(message) + "\n").encode("utf-8"))
    except (ValueError, KeyError, ValidationError) as exc:
        raise OperationError(f"the outbox message {relative!r} is unreadable ({exc}); inspect it by hand") from None
    except OSError as exc:
        problem = f"cannot write {relative!r} in the workspace: {exc.strerror or exc}"
        if target is not None and target.is_file():  # the message landed; what failed came after (an fsync)
            raise EffectUnknown(f"{problem}; the message is in the outbox and may have been sent") from None
        raise OperationError(problem, retryable=True) from None
    return SendReplyOutputs(message_id=message_id, path=relative, to=list(inputs.to))


SEND_REPLY = Operation(
    "notes.send_reply",
    "Send the drafted reply to its recipients (simulated: a message in the workspace's outbox), once per "
    "idempotency key.",
    SendReplyInputs,
    SendReplyOutputs,
    "external_transmission",
    "keyed",
    send_reply,
    timeout_s=30,
    retry=RetryPolicy(max_attempts=3, backoff_s=0.5),
)
