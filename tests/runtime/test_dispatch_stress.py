"""ThreadDispatcher under stress: many tiny calls on worker threads, with the interpreter switching threads as often
as it can, so that any moment a call is neither pending nor done would be seen.

A call moves from "pending" to "done" in one step under the dispatcher's lock. When a worker took the call out of
`_pending` before putting its outcome on `_done`, `next_outcome` could look at both in between and raise "called
with no call in flight" (bench/README.md); these tests caught that within a few thousand calls.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.runtime.dispatch import Call, CancelSignal, Outcome, ThreadDispatcher


class _Tag(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tag: str = ""
    hold: bool = False


class _Echo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tag: str


class _Clock:
    """Real durations, a fixed day (tests never read the wall clock)."""

    def now(self) -> str:
        return "2026-11-30T08:00:00.000000Z"

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


RELEASE = threading.Event()


def _echo(inputs: _Tag, ctx: OperationContext) -> _Echo:
    if inputs.hold:
        RELEASE.wait(10)
    return _Echo(tag=inputs.tag)


REGISTRY = Registry([Operation("t.echo", "echo", _Tag, _Echo, "none", "repeatable", _echo, timeout_s=30)])


@pytest.fixture
def dispatcher(tmp_path: Path) -> Iterator[ThreadDispatcher]:
    def context(call: Call, cancel: threading.Event) -> OperationContext:
        return OperationContext("run", call.node, call.attempt, call.key, tmp_path, tmp_path, cancel)

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show within a few thousand calls
    d = ThreadDispatcher(REGISTRY, context, _Clock())
    try:
        yield d
    finally:
        sys.setswitchinterval(before)
        RELEASE.set()
        d.close()


def _call(n: int, **inputs: object) -> Call:
    return Call(f"n{n}", 1, "t.echo", {"tag": f"n{n}", **inputs}, "k", 30.0)


def _take(d: ThreadDispatcher) -> Outcome:
    while True:
        outcome = d.next_outcome(0.5)
        if outcome is not None:
            assert not isinstance(outcome, CancelSignal)
            return outcome


def test_one_call_at_a_time_never_loses_its_outcome(dispatcher: ThreadDispatcher) -> None:
    """The shape of a chain of no-ops (the bench's): submit, take its outcome, submit the next."""
    for n in range(20_000):
        dispatcher.submit(_call(n))
        outcome = _take(dispatcher)
        assert outcome.ok and outcome.node == f"n{n}" and outcome.output == {"tag": f"n{n}"}


def test_many_calls_in_flight_each_outcome_exactly_once(dispatcher: ThreadDispatcher) -> None:
    total, width = 20_000, 8
    submitted = seen = 0
    nodes: set[str] = set()
    while seen < total:
        while submitted < total and submitted - seen < width:
            dispatcher.submit(_call(submitted))
            submitted += 1
        outcome = _take(dispatcher)
        assert outcome.ok and outcome.output == {"tag": outcome.node}
        assert outcome.node not in nodes
        nodes.add(outcome.node)
        seen += 1
    assert len(nodes) == total


def test_a_late_result_of_an_abandoned_call_never_stands_in_for_a_new_one(dispatcher: ThreadDispatcher) -> None:
    RELEASE.clear()
    dispatcher.submit(Call("n", 1, "t.echo", {"tag": "abandoned", "hold": True}, "k", 0.05))
    timed_out = _take(dispatcher)
    assert not timed_out.ok and timed_out.error is not None and timed_out.error["type"] == "timeout"
    dispatcher.submit(Call("n", 1, "t.echo", {"tag": "fresh", "hold": True}, "k", 30.0))  # the same slot again
    RELEASE.set()  # both finish now: only the fresh call's own result may come back
    outcome = _take(dispatcher)
    assert outcome.ok and outcome.output == {"tag": "fresh"}
    time.sleep(0.05)
    with pytest.raises(RuntimeError, match="no call in flight"):
        dispatcher.next_outcome(0.05)
