"""Running calls: a live dispatcher on worker threads, with per-call timeouts and cancellation.

The executor decides what to call and journals it; a dispatcher only runs calls and reports outcomes, one at a time,
in the order they complete. That order is an input like any other: it is journaled (as the order of result
events), and replay feeds it back through a recorded dispatcher instead of this one.

A call has a purpose: `run` (an attempt of a node), `lookup` (ask the target whether an effect's key was applied)
or `compensate` (undo a completed effect).
"""

from __future__ import annotations

import collections
import queue
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from alicorn.crashpoints import DISARMED, CrashPoints
from alicorn.errors import OperationError
from alicorn.ops.registry import LookupResult, OperationContext, Registry
from alicorn.records import quick_init
from alicorn.runtime.world import Clock, parse_time

Purpose = Literal["run", "lookup", "compensate"]

#: Failures after which the effect certainly did not happen (the operation said so, or never started).
CERTAIN_FAILURES = frozenset({"operation_error", "invalid_inputs", "cancelled"})
#: The error type of an operation that said its effect may have happened (`EffectUnknown`, or any OperationError
#: with certain=False). Like a timeout or an unexpected exception, it is not a certain failure.
OUTCOME_UNKNOWN = "outcome_unknown"


@quick_init
@dataclass(frozen=True, slots=True)
class Call:
    """One attempt of one node (or one lookup or compensation), as the executor journaled it."""

    node: str
    attempt: int
    operation: str
    inputs: dict[str, Any]
    key: str
    timeout_s: float
    not_before: str | None = None
    purpose: Purpose = "run"

    @property
    def slot(self) -> tuple[str, str, int]:
        return (self.purpose, self.node, self.attempt)


@quick_init
@dataclass(frozen=True, slots=True)
class Outcome:
    """What came back from a call: an output, or an error {type, message, retryable}."""

    node: str
    attempt: int
    ok: bool
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    purpose: Purpose = "run"

    def to_event(self) -> dict[str, Any]:
        data: dict[str, Any] = {"node": self.node, "attempt": self.attempt, "ok": self.ok}
        if self.ok:
            data["output"] = self.output
        else:
            data["error"] = self.error
        return data


@dataclass(frozen=True)
class CancelSignal:
    """A cancellation that arrived while waiting (replay hands back the recorded one)."""

    by: str
    reason: str


class Dispatcher(Protocol):
    def submit(self, call: Call) -> None: ...

    def next_outcome(self, poll_s: float | None = None) -> Outcome | CancelSignal | None:
        """The next outcome; None if `poll_s` passed first (so the caller can look for a cancellation)."""

    def cancel_all(self) -> None: ...

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

    A call is in flight from `submit` until its outcome is taken by `next_outcome`: first in `_pending`, then, once
    it finished (or timed out), in `_done`. Both live under one lock, and a call moves from one to the other in a
    single step under it, so `next_outcome` never sees a call in neither place (it waits on the same lock's
    condition).
    """

    def __init__(
        self, registry: Registry, make_context: ContextFactory, clock: Clock, crash: CrashPoints = DISARMED
    ) -> None:
        self._registry = registry
        self._make_context = make_context
        self._clock = clock
        self._crash = crash
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a call finished, started (a deadline to watch) or left
        self._pending: dict[tuple[str, str, int], _Pending] = {}
        self._done: collections.deque[Outcome] = collections.deque()
        self._jobs: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._idle = 0
        self._workers = 0
        #: Called (from the worker's thread) when an outcome is ready: how a driver of many runs, waiting for any of
        #: them, learns that one has something to handle (runtime.together).
        self.on_outcome: Callable[[], None] | None = None

    def submit(self, call: Call) -> None:
        if self._runs_inline(call):
            self._run_inline(call)
            return
        entry = _Pending(call)
        with self._lock:
            self._pending[call.slot] = entry
            spawn = self._idle == 0
            if spawn:
                self._workers += 1
            else:
                self._idle -= 1  # reserve an idle worker for this job
        self._jobs.put(entry)
        if spawn:
            threading.Thread(target=self._worker, name=f"alicorn-worker-{self._workers}", daemon=True).start()

    def _runs_inline(self, call: Call) -> bool:
        """Whether `call` runs in the caller's thread: an attempt, due now, of an operation declared `inline` and
        free of effects (an effect always goes through a worker, where its timeout can cut the wait short)."""
        if call.purpose != "run" or call.not_before is not None:
            return False
        op = self._registry.get(call.operation)
        return op.inline and op.effect == "none"

    def _run_inline(self, call: Call) -> None:
        """Run `call` now, in this thread, and queue its outcome: a thread hand-off costs more than such an
        operation. An attempt that overran its timeout is reported as a timeout, as a worker's would be."""
        started = self._clock.monotonic()
        outcome = self._invoke(call, threading.Event())
        if self._clock.monotonic() - started > call.timeout_s:
            outcome = _timed_out(call)
        with self._changed:
            self._done.append(outcome)
            self._changed.notify_all()

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
        outcome: Outcome | None = None
        if call.not_before is not None:
            wait = (parse_time(call.not_before) - parse_time(self._clock.now())).total_seconds()
            if wait > 0 and entry.cancel.wait(wait):
                outcome = Outcome(
                    call.node,
                    call.attempt,
                    False,
                    error=error("cancelled", "cancelled before it started", retryable=False),
                    purpose=call.purpose,
                )
        if outcome is None:
            with self._changed:
                entry.deadline = self._clock.monotonic() + call.timeout_s
                self._changed.notify_all()
            outcome = self._invoke(call, entry.cancel)
        with self._changed:
            # One step: the call leaves _pending and its outcome joins _done together. Only this entry's own
            # outcome: an entry abandoned after its timeout (or closed) is gone, and its late result is dropped.
            if self._pending.get(call.slot) is entry:
                del self._pending[call.slot]
                self._done.append(outcome)
                self._changed.notify_all()
            else:
                return
        if self.on_outcome is not None:
            self.on_outcome()

    def _invoke(self, call: Call, cancel: threading.Event) -> Outcome:
        op = self._registry.get(call.operation)

        def failed(kind: str, message: str, retryable: bool) -> Outcome:
            return Outcome(
                call.node, call.attempt, False, error=error(kind, message, retryable=retryable), purpose=call.purpose
            )

        try:
            inputs = op.inputs.model_validate(call.inputs)
        except ValidationError as exc:
            return failed("invalid_inputs", f"inputs do not match {op.name}'s schema: {_first(exc)}", False)
        context = self._make_context(call, cancel)
        try:
            if call.purpose == "lookup":
                if op.lookup is None:
                    return failed("no_lookup", f"{op.name} cannot look up whether a key was applied", False)
                found = op.lookup(inputs, context)
                output = _lookup_output(op.outputs, found)
            else:
                result = op.run(inputs, context)
                if op.has_effect:
                    self._crash.hit("after_effect")
                output = _as_output(op.outputs, result)
        except OperationError as exc:
            return failed("operation_error" if exc.certain else OUTCOME_UNKNOWN, str(exc), exc.retryable)
        except ValidationError as exc:
            return failed(
                "invalid_output", f"{op.name} returned output that does not match its schema: {_first(exc)}", False
            )
        except Exception as exc:  # an operation's bug must not kill the run: record it and apply the retry policy
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return failed("exception", f"{type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})", True)
        return Outcome(call.node, call.attempt, True, output=output, purpose=call.purpose)

    def next_outcome(self, poll_s: float | None = None) -> Outcome | CancelSignal | None:
        give_up = None if poll_s is None else self._clock.monotonic() + poll_s
        with self._changed:
            while True:
                if self._done:
                    return self._done.popleft()
                expired = self._expire()
                if expired is not None:
                    return expired
                if not self._pending:
                    raise RuntimeError("next_outcome() called with no call in flight")
                now = self._clock.monotonic()
                deadlines = [p.deadline for p in self._pending.values() if p.deadline is not None]
                if give_up is not None:
                    if now >= give_up:
                        return None
                    deadlines.append(give_up)
                self._changed.wait(max(0.0, min(deadlines) - now) if deadlines else None)

    def _expire(self) -> Outcome | None:
        """The timeout outcome of the first call past its deadline (abandoned and cancelled), if any. Holds the lock."""
        now = self._clock.monotonic()
        for slot, entry in sorted(self._pending.items()):
            if entry.deadline is not None and entry.deadline <= now:
                del self._pending[slot]
                entry.cancel.set()
                return _timed_out(entry.call)
        return None

    def cancel_all(self) -> None:
        with self._lock:
            for entry in self._pending.values():
                entry.cancel.set()

    def close(self) -> None:
        with self._lock:
            for entry in self._pending.values():
                entry.cancel.set()
            self._pending.clear()
            workers, self._workers, self._idle = self._workers, 0, 0
        for _ in range(workers):
            self._jobs.put(None)


def _timed_out(call: Call) -> Outcome:
    """The outcome of an attempt that did not finish within its timeout (a retryable failure)."""
    return Outcome(
        call.node,
        call.attempt,
        False,
        error=error("timeout", f"{call.operation} did not finish within {call.timeout_s:g} s", retryable=True),
        purpose=call.purpose,
    )


def _as_output(model: type[BaseModel], result: Any) -> dict[str, Any]:
    if not isinstance(result, model):
        result = model.model_validate(result.model_dump() if isinstance(result, BaseModel) else result)
    dumped: dict[str, Any] = result.model_dump(mode="json")
    return dumped


def _lookup_output(model: type[BaseModel], found: LookupResult) -> dict[str, Any]:
    if not isinstance(found, LookupResult):
        raise TypeError(f"a lookup must return a LookupResult, not {type(found).__name__}")
    if not found.applied:
        return {"applied": False, "output": None}
    return {"applied": True, "output": _as_output(model, found.output or {})}


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {err['msg']}{more}" if where else f"{err['msg']}{more}"
