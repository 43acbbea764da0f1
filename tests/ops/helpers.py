"""Running a built-in operation the way the runtime does: validate the inputs, run, dump the outputs as JSON."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import OperationContext

REGISTRY = builtin_registry()


def context(
    workspace: Path, data_root: Path | None = None, cancelled: threading.Event | None = None
) -> OperationContext:
    return OperationContext(
        run_id="run-test",
        node_id="node",
        attempt=1,
        idempotency_key="run-test/node/1",
        workspace=workspace,
        data_root=data_root if data_root is not None else workspace,
        cancelled=cancelled if cancelled is not None else threading.Event(),
    )


def call(name: str, ctx: OperationContext, **inputs: Any) -> dict[str, Any]:
    """Run operation `name` on JSON inputs and return its outputs as JSON."""
    op = REGISTRY.get(name)
    result = op.run(op.inputs.model_validate(inputs), ctx)
    assert isinstance(result, op.outputs)
    dumped: dict[str, Any] = result.model_dump(mode="json")
    return dumped
