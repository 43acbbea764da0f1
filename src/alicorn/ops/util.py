"""`util.noop` and `util.sleep`: operations for measuring the runtime and exercising timeouts and cancellation.

`util.noop` does nothing, a baseline for the runtime's own cost per node. `util.sleep` sleeps in slices of
`SLEEP_SLICE_S`, checking `ctx.cancelled` between them, so a cancelled attempt stops promptly with a retryable error.
"""

from __future__ import annotations

import time

from pydantic import Field

from alicorn.errors import OperationError
from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext

SLEEP_SLICE_S = 0.05


class NoopInputs(Model):
    pass


class NoopOutputs(Model):
    pass


def noop(inputs: NoopInputs, ctx: OperationContext) -> NoopOutputs:
    """Do nothing (a baseline for measuring the runtime's own cost)."""
    return NoopOutputs()


class SleepInputs(Model):
    seconds: float = Field(ge=0, le=3600, description="how long to sleep")


class SleepOutputs(Model):
    slept: float = Field(ge=0, description="the seconds slept (as asked: the sleep ran to its end)")


def sleep(inputs: SleepInputs, ctx: OperationContext) -> SleepOutputs:
    """Sleep, waking early with a retryable OperationError when the run cancels the attempt."""
    deadline = time.monotonic() + inputs.seconds
    while True:
        if ctx.cancelled.is_set():
            raise OperationError(
                f"node {ctx.node_id!r}: sleep of {inputs.seconds} s cancelled before it finished", retryable=True
            )
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return SleepOutputs(slept=inputs.seconds)
        ctx.cancelled.wait(min(remaining, SLEEP_SLICE_S))


NOOP = Operation(
    "util.noop",
    "Do nothing; for measuring the runtime's overhead.",
    NoopInputs,
    NoopOutputs,
    "none",
    "repeatable",
    noop,
    timeout_s=5.0,
    inline=True,  # nothing to wait for: runs in the session's thread (runtime.dispatch)
)

SLEEP = Operation(
    "util.sleep",
    "Sleep for a number of seconds, stopping early when cancelled.",
    SleepInputs,
    SleepOutputs,
    "none",
    "repeatable",
    sleep,
    timeout_s=3660.0,
)
