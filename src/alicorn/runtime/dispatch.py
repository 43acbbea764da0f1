"""Running tool calls: a live dispatcher on threads, with per-call timeouts.

The executor decides what to call and journals it; a dispatcher only runs calls and reports outcomes, one at a time,
in the order they complete. That order is an input like any other: it is journaled (as the order of `tool.result`
events), and replay feeds it back through a recorded dispatcher instead of this one.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from alicorn.errors import OperationError
from alicorn.ops.registry import OperationContext, Registry
from alicorn.runtime.world import Clock, parse_time


@dataclass(frozen=True)
class Call:
    """One attempt of one node, as the executor journaled it in `tool.call`."""

    node: str
    attempt: int
    operation: str
    inputs: dict[str, Any]
    key: str
    timeout_s: float
    not_before: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What came back from a call: an output, or an error {type, message, retryable}."""

    node: str
    attempt: int
    ok: bool
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def to_event(self) -> dict[str, Any]:
        data: dict[str, Any] = {"node": self.node, "attempt": self.attempt, "ok": self.ok}
        if self.ok:
            data["output"] = self.output
        else:
            data["error"] = self.error
        return data


class Dispatcher(Protocol):
    def submit(self, call: Call) -> None: ...
    def next_outcome(self) -> Outcome: ...
    def close(self) -> None: ...


def error(kind: str, message: str, *, retryable: bool) -> dict[str, Any]:
    return {"type": kind, "message": message, "retryable": retryable}


ContextFactory = Callable[[Call, threading.Event], OperationContext]


@dataclass
class _Pending:
    call: Call
    cancel: threading.Event = field(default_factory=threading.Event)
    deadline: float | None = None  # monotonic; set when the operation actually starts


class ThreadDispatcher:
    """Runs calls on worker threads; a call that outlives its timeout is abandoned and cancelled.

    Workers are reused, and a new one is started whenever no worker is idle, so an abandoned operation that ignores
    cancellation can never starve later calls (it keeps its thread; everyone else gets another).
    """

    def __init__(self, registry: Registry, make_context: ContextFactory, clock: Clock) -> None:
        self._registry = registry
        self._make_context = make_context
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, int], _Pending] = {}
        self._done: queue.SimpleQueue[Outcome] = queue.SimpleQueue()
        self._wakeup = threading.Event()
        self._jobs: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._idle = 0
        self._workers = 0

    def submit(self, call: Call) -> None:
        entry = _Pending(call)
        with self._lock:
            self._pending[(call.node, call.attempt)] = entry
            spawn = self._idle == 0
            if spawn:
                self._workers += 1
            else:
                self._idle -= 1  # reserve an idle worker for this job
        self._jobs.put(entry)
        if spawn:
            threading.Thread(target=self._worker, name=f"alicorn-worker-{self._workers}", daemon=True).start()

    def _worker(self) -> None:
        while True:
            entry = self._jobs.get()
            if entry is None:
                return
            self._work(entry)
            with self._lock:
                self._idle += 1

    def _work(self, entry: _Pending) -> None:
        call = entry.call
        if call.not_before is not None:
            wait = (parse_time(call.not_before) - parse_time(self._clock.now())).total_seconds()
            if wait > 0 and entry.cancel.wait(wait):
                return
        with self._lock:
            entry.deadline = self._clock.monotonic() + call.timeout_s
        self._wakeup.set()
        outcome = self._invoke(call, entry.cancel)
        with self._lock:
            if self._pending.pop((call.node, call.attempt), None) is None:
                return  # abandoned after its timeout: the late result is dropped
        self._done.put(outcome)
        self._wakeup.set()

    def _invoke(self, call: Call, cancel: threading.Event) -> Outcome:
        op = self._registry.get(call.operation)
        try:
            inputs = op.inputs.model_validate(call.inputs)
        except ValidationError as exc:
            return Outcome(
                call.node,
                call.attempt,
                False,
                error=error(
                    "invalid_inputs",
                    f"inputs do not match {op.name}'s schema: {_first(exc)}",
                    retryable=False,
                ),
            )
        try:
            result = op.run(inputs, self._make_context(call, cancel))
            output = _as_output(op.outputs, result)
        except OperationError as exc:
            return Outcome(
                call.node,
                call.attempt,
                False,
                error=error("operation_error", str(exc), retryable=exc.retryable),
            )
        except ValidationError as exc:
            return Outcome(
                call.node,
                call.attempt,
                False,
                error=error(
                    "invalid_output",
                    f"{op.name} returned output that does not match its schema: {_first(exc)}",
                    retryable=False,
                ),
            )
        except Exception as exc:  # an operation's bug must not kill the run: record it and apply the retry policy
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return Outcome(
                call.node,
                call.attempt,
                False,
                error=error(
                    "exception",
                    f"{type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})",
                    retryable=True,
                ),
            )
        return Outcome(call.node, call.attempt, True, output=output)

    def next_outcome(self) -> Outcome:
        while True:
            try:
                return self._done.get_nowait()
            except queue.Empty:
                pass
            self._wakeup.clear()
            expired = self._expire()
            if expired is not None:
                return expired
            with self._lock:
                deadlines = [p.deadline for p in self._pending.values() if p.deadline is not None]
                if not self._pending:
                    raise RuntimeError("next_outcome() called with no call in flight")
            timeout = max(0.0, min(deadlines) - self._clock.monotonic()) if deadlines else None
            if self._done.empty():
                self._wakeup.wait(timeout)

    def _expire(self) -> Outcome | None:
        now = self._clock.monotonic()
        with self._lock:
            for key, entry in sorted(self._pending.items()):
                if entry.deadline is not None and entry.deadline <= now:
                    del self._pending[key]
                    entry.cancel.set()
                    call = entry.call
                    return Outcome(
                        call.node,
                        call.attempt,
                        False,
                        error=error(
                            "timeout",
                            f"{call.operation} did not finish within {call.timeout_s:g} s",
                            retryable=True,
                        ),
                    )
        return None

    def close(self) -> None:
        with self._lock:
            for entry in self._pending.values():
                entry.cancel.set()
            self._pending.clear()
            workers, self._workers, self._idle = self._workers, 0, 0
        for _ in range(workers):
            self._jobs.put(None)


def _as_output(model: type[BaseModel], result: Any) -> dict[str, Any]:
    if not isinstance(result, model):
        result = model.model_validate(result.model_dump() if isinstance(result, BaseModel) else result)
    dumped: dict[str, Any] = result.model_dump(mode="json")
    return dumped


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {err['msg']}{more}" if where else f"{err['msg']}{more}"
