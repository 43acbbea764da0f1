"""Operations declared `inline` run in the session's own thread, without a hand-off to a worker (issue 17 point 4).

Only an attempt, due now, of an effect-free operation goes inline: effects, retries waiting for their time and
lookups keep going through a worker, where a timeout can cut the wait short. An inline attempt that overran its
timeout is still reported as a timeout, and `inline` is no part of an operation's contract or fingerprint, so
runs recorded before it replay byte for byte.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.ops.util import NOOP
from alicorn.runtime.dispatch import Call, Outcome, ThreadDispatcher


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fail: bool = False
    advance_s: float = 0.0


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")
    thread: int


class _Clock:
    """A fixed day, and a monotonic clock the operation itself moves on (tests never read the wall clock)."""

    def __init__(self) -> None:
        self.mono = 100.0

    def now(self) -> str:
        return "2026-11-30T08:00:00.000000Z"

    def monotonic(self) -> float:
        return self.mono

    def sleep(self, seconds: float) -> None:
        self.mono += seconds


CLOCK = _Clock()


def _where(inputs: _In, ctx: OperationContext) -> _Out:
    CLOCK.mono += inputs.advance_s  # "takes" that long
    if inputs.fail:
        raise ValueError("boom")
    return _Out(thread=threading.get_ident())


def _op(name: str, *, inline: bool, effect: str = "none") -> Operation:
    return Operation(name, "where it ran", _In, _Out, effect, "repeatable", _where, timeout_s=5.0, inline=inline)  # type: ignore[arg-type]


REGISTRY = Registry(
    [
        _op("t.inline", inline=True),
        _op("t.worker", inline=False),
        _op("t.inline_write", inline=True, effect="local_write"),
    ]
)


@pytest.fixture
def dispatcher(tmp_path: Path) -> Iterator[ThreadDispatcher]:
    def make_context(call: Call, cancel: threading.Event) -> OperationContext:
        return OperationContext("run-1", call.node, call.attempt, call.key, tmp_path, tmp_path, cancel)

    d = ThreadDispatcher(REGISTRY, make_context, CLOCK)
    yield d
    d.close()


def _call(op: str, node: str = "n", **inputs: object) -> Call:
    return Call(node, 1, op, dict(inputs), f"key-{node}", 5.0)


def _thread_of(dispatcher: ThreadDispatcher, call: Call) -> int:
    dispatcher.submit(call)
    outcome = dispatcher.next_outcome(10)
    assert isinstance(outcome, Outcome) and outcome.ok and outcome.output is not None, outcome
    return int(outcome.output["thread"])


def test_an_inline_effect_free_operation_runs_in_the_callers_thread(dispatcher: ThreadDispatcher) -> None:
    assert _thread_of(dispatcher, _call("t.inline")) == threading.get_ident()


def test_other_operations_still_run_on_a_worker(dispatcher: ThreadDispatcher) -> None:
    assert _thread_of(dispatcher, _call("t.worker")) != threading.get_ident()


def test_an_effect_never_runs_inline_whatever_it_declares(dispatcher: ThreadDispatcher) -> None:
    assert _thread_of(dispatcher, _call("t.inline_write")) != threading.get_ident()


def test_an_attempt_waiting_for_its_time_goes_to_a_worker(dispatcher: ThreadDispatcher) -> None:
    call = dataclasses.replace(_call("t.inline"), not_before="2026-11-30T07:00:00.000000Z")  # already due
    assert _thread_of(dispatcher, call) != threading.get_ident()


def test_an_inline_attempt_that_overran_its_timeout_is_a_timeout(dispatcher: ThreadDispatcher) -> None:
    dispatcher.submit(_call("t.inline", advance_s=6.0))
    outcome = dispatcher.next_outcome(1)
    assert isinstance(outcome, Outcome) and not outcome.ok
    assert outcome.error == {"type": "timeout", "message": "t.inline did not finish within 5 s", "retryable": True}


def test_an_inline_failure_is_reported_like_a_workers(dispatcher: ThreadDispatcher) -> None:
    found = []
    for op in ("t.inline", "t.worker"):
        dispatcher.submit(_call(op, fail=True))
        outcome = dispatcher.next_outcome(10)
        assert isinstance(outcome, Outcome) and outcome.error is not None
        found.append((outcome.ok, outcome.error["type"], outcome.error["retryable"]))
    assert found == [(False, "exception", True)] * 2


def test_outcomes_of_inline_and_worker_calls_come_back_one_each(dispatcher: ThreadDispatcher) -> None:
    dispatcher.submit(_call("t.worker", node="a"))
    dispatcher.submit(_call("t.inline", node="b"))
    nodes = set()
    for _ in range(2):
        outcome = dispatcher.next_outcome(10)
        assert isinstance(outcome, Outcome) and outcome.ok
        nodes.add(outcome.node)
    assert nodes == {"a", "b"}
    with pytest.raises(RuntimeError, match="no call in flight"):
        dispatcher.next_outcome(0)


def test_inline_is_not_part_of_an_operations_contract() -> None:
    inline, worker = _op("t.same", inline=True), _op("t.same", inline=False)
    assert inline.describe() == worker.describe()
    assert Registry([inline]).fingerprint() == Registry([worker]).fingerprint()
    assert Registry([inline]).contracts(["t.same"]) == Registry([worker]).contracts(["t.same"])


def test_util_noop_is_declared_inline() -> None:
    assert NOOP.inline and NOOP.effect == "none"
