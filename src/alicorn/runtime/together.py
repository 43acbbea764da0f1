"""Many runs driven by one thread: each run's sessions move exactly as `Session.drive` moves them, and the steps
of all the runs that moved are made durable in one transaction, one fsync, before any of their calls is dispatched.

Why: a thread per run pays a wake-up, a hand-off of the interpreter lock and a cold cache on every step of every
run, and with tens of runs those cost more than the steps. One thread that goes round the runs keeps the step's own
work and shares the commit: the durability of each step is unchanged (its events are committed before its calls
run), and so is the order of each run's events. What differs from tens of threads is only who waits: while the
thread handles one run's outcome, another run's finished operation waits for its turn.

The loop:
    open     every session's first move (a cancellation asked meanwhile, what is ready), then one commit for all
    round    every running session that has something to do moves once (`Session.step` with no wait); the batches
             of those that moved are appended together (`JournalStore.append_together`), then each session's calls
             are dispatched; inline operations run there, so their outcomes are ready for the next round
    wait     when no session had anything to do, wait until an operation of any of them finishes (its dispatcher's
             `on_outcome`), at most the poll interval (cancellations and timeouts are looked for every round)

A session whose step or append fails leaves the loop with its error (its calls cancelled, its state as journaled);
the others go on. A crash (a BaseException that is not an Exception) stops them all, as it would stop a process.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from alicorn.journal.events import Draft
from alicorn.journal.store import JournalStore
from alicorn.runtime.dispatch import ThreadDispatcher
from alicorn.runtime.session import Session
from alicorn.runtime.state import RunState


@dataclass
class _Driven:
    session: Session
    error: Exception | None = None

    @property
    def running(self) -> bool:
        """Still to be driven: no error ended it, and its run is running."""
        return self.error is None and self.session.state.status == "running"


def drive_together(store: JournalStore, sessions: Sequence[Session], poll_s: float) -> list[RunState | Exception]:
    """Drive `sessions` (of distinct runs, on `store`) until each one finishes, blocks, waits for a human or fails;
    each one's final state, or the error that ended it, in the order given."""
    wake = threading.Event()
    driven = [_Driven(session) for session in sessions]
    try:
        moved = []
        for item in driven:
            try:
                item.session.open()
                moved.append(item)
            except Exception as exc:
                _fail(item, exc)
        _commit(store, moved, wake)
        while True:
            running = [item for item in driven if item.running]
            if not running:
                break
            wake.clear()  # an outcome from here on sets it again; one before is seen by the round below
            moved = []
            for item in running:
                try:
                    if item.session.step(0.0):
                        moved.append(item)
                except Exception as exc:
                    _fail(item, exc)
            if moved:
                _commit(store, moved, wake)
            else:
                wake.wait(poll_s)
    finally:
        for item in driven:
            if item.session.dispatcher is not None:
                item.session.dispatcher.close()
    return [item.error if item.error is not None else item.session.state for item in driven]


def _commit(store: JournalStore, moved: list[_Driven], wake: threading.Event) -> None:
    """Append the batches of the sessions that moved in one call, then hand each its events (its calls go out)."""
    batches: list[tuple[_Driven, list[Draft]]] = []
    for item in moved:
        try:
            batch = item.session.take_batch()
        except Exception as exc:
            _fail(item, exc)
            continue
        if batch:
            batches.append((item, batch))
        _listen(item, wake)  # a deferred batch dispatched its calls already
    answers = store.append_together([(i.session.run_id, batch, i.session.committed) for i, batch in batches])
    for (item, batch), answer in zip(batches, answers, strict=True):
        if isinstance(answer, Exception):
            _fail(item, answer)
            continue
        try:
            item.session.committed_batch(batch, answer)
        except Exception as exc:
            _fail(item, exc)
        _listen(item, wake)


def _listen(item: _Driven, wake: threading.Event) -> None:
    """Have the session's dispatcher wake the driver when one of its operations finishes."""
    dispatcher = item.session.dispatcher
    if isinstance(dispatcher, ThreadDispatcher) and dispatcher.on_outcome is None:
        dispatcher.on_outcome = wake.set


def _fail(item: _Driven, exc: Exception) -> None:
    item.error = exc
    if item.session.dispatcher is not None:
        item.session.dispatcher.cancel_all()
