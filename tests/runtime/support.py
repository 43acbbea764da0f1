"""Operations and helpers for runtime tests: small real operations whose behaviour a test controls."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from alicorn.errors import OperationError
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Executor, RunEnvironment


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Number(_M):
    x: int = 0


class Flaky(_M):
    x: int = 0
    name: str = "flaky"
    fail_times: int = 1
    retryable: bool = True


class Sleep(_M):
    seconds: float = 0.0


class Slept(_M):
    slept: float


class Gate(_M):
    name: str
    parties: int


class Opened(_M):
    opened: bool


@dataclass
class Behaviour:
    """Shared, test-controlled state the operations read and count into."""

    calls: Counter[str] = field(default_factory=Counter)
    barriers: dict[str, threading.Barrier] = field(default_factory=dict)
    concurrent: int = 0
    max_concurrent: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def registry(self) -> Registry:
        def inc(i: Number, ctx: OperationContext) -> Number:
            self._count("inc")
            return Number(x=i.x + 1)

        def flaky(i: Flaky, ctx: OperationContext) -> Number:
            n = self._count(i.name)
            if n <= i.fail_times:
                raise OperationError(f"{i.name} failure {n}", retryable=i.retryable)
            return Number(x=i.x)

        def crash(i: Number, ctx: OperationContext) -> Number:
            self._count("crash")
            raise ZeroDivisionError("boom")

        def sleep(i: Sleep, ctx: OperationContext) -> Slept:
            self._count("sleep")
            with self.lock:
                self.concurrent += 1
                self.max_concurrent = max(self.max_concurrent, self.concurrent)
            try:
                ctx.cancelled.wait(i.seconds)
            finally:
                with self.lock:
                    self.concurrent -= 1
            return Slept(slept=i.seconds)

        def gate(i: Gate, ctx: OperationContext) -> Opened:
            with self.lock:
                barrier = self.barriers.setdefault(i.name, threading.Barrier(i.parties, timeout=10))
            barrier.wait()
            return Opened(opened=True)

        def send(i: Number, ctx: OperationContext) -> Number:
            self._count("send")
            return Number(x=i.x)

        def bad_output(i: Number, ctx: OperationContext) -> Any:
            return {"x": "not a number"}

        return Registry(
            [
                Operation("t.inc", "add one", Number, Number, "none", "repeatable", inc),
                Operation("t.flaky", "fail a few times", Flaky, Number, "none", "repeatable", flaky),
                Operation("t.crash", "raise a bug", Number, Number, "none", "repeatable", crash),
                Operation("t.sleep", "wait", Sleep, Slept, "none", "repeatable", sleep, timeout_s=5),
                Operation("t.gate", "meet at a barrier", Gate, Opened, "none", "repeatable", gate),
                Operation("t.send", "send outside", Number, Number, "external_transmission", "keyed", send),
                Operation("t.unsafe", "unsafe write", Sleep, Slept, "local_write", "unsafe", sleep),
                Operation("t.bad", "returns garbage", Number, Number, "none", "repeatable", bad_output),
            ]
        )

    def _count(self, name: str) -> int:
        with self.lock:
            self.calls[name] += 1
            return self.calls[name]


def make_plan(nodes: list[dict[str, Any]], goal: str = "test goal") -> Plan:
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes})


def executor(store: JournalStore, registry: Registry, tmp_path: Path, **kwargs: Any) -> Executor:
    parallel = kwargs.pop("max_parallel", 4)
    env = RunEnvironment(tmp_path / "ws", tmp_path, max_parallel=parallel)
    return Executor(store, registry, env, **kwargs)


def kinds(store: JournalStore, run_id: str) -> list[str]:
    return [e.kind for e in store.read(run_id)]


def ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def val(value: Any) -> dict[str, Any]:
    return {"value": value}


def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)
