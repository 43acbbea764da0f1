"""A worker: claims runs from the broker and drives them, fenced by its claim's epoch.

    claim ── fold the run's journal ── finished? ───────────────> job done
                 │                   └ waits for a human? ──────> job waiting (woken when the journal moves on)
                 └ resume under `store.guard_appends(run, fence)` while a thread renews the lease
                       ├ finished ──────────────────────────────> job done
                       ├ waits for a human / blocked ───────────> job waiting
                       ├ LeaseLost (taken over) ────────────────> nothing more: the new holder owns the run
                       └ any other failure ─────────────────────> job ready again after a back-off

Nothing a worker knows is the truth: the run's journal is. A worker killed at any point leaves a claimed job whose
lease expires; the next worker to claim it resumes the run from its journal, exactly as `alicorn resume` would (no
finished node redone, no unsafe effect repeated). A worker that only stalled and comes back after its run was taken
over is refused by the database at its next append (`LeaseLost`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass

from alicorn.broker.jobs import Broker, Claim, Job, LeaseLost, contract_mismatch
from alicorn.errors import AlicornError, StreamLockedError
from alicorn.journal.store import JournalStore
from alicorn.runtime.executor import Executor
from alicorn.runtime.state import RunState, fold

_log = logging.getLogger("alicorn.broker.worker")
_WAITING = ("awaiting_approval", "blocked")


def default_name() -> str:
    """`worker:HOST:PID`, unique among the live workers of one journal."""
    return f"worker:{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class Outcome:
    """What one claim came to: `result` is done, waiting, released or lost."""

    run: str
    result: str
    note: str
    taken_from: str = ""


class _Renewer:
    """Renews a claim's lease every third of it from a thread of its own, until stopped or refused."""

    def __init__(self, broker: Broker, claim: Claim, lease_s: float) -> None:
        self.broker, self.claim, self.lease_s = broker, claim, lease_s
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"lease {claim.run}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            try:
                if not self.broker.renew(self.claim, self.lease_s):
                    self.lost = True
                    return
            except AlicornError as exc:  # the server is away: the fence decides if the lease lapses meanwhile
                _log.warning("could not renew the lease of run %s: %s", self.claim.run, exc)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


class Worker:
    """Drives the broker's runs with `executor` (whose store is the broker's journal)."""

    def __init__(
        self,
        broker: Broker,
        executor: Executor,
        *,
        name: str | None = None,
        lease_s: float = 30.0,
        backoff_s: float = 5.0,
        max_attempts: int = 5,
        executor_for: Callable[[RunState], Executor] | None = None,
    ) -> None:
        self.broker = broker
        self.executor = executor
        #: The executor that drives one run (the command line's gives each run the data folder it was started
        #: with); by default `executor` drives them all.
        self.executor_for = executor_for or (lambda state: executor)
        self.store: JournalStore = executor.store
        self.name = name or default_name()
        self.lease_s = lease_s
        self.backoff_s = backoff_s
        self.max_attempts = max_attempts
        #: Jobs this worker refused and why (another registry's operations), so it says so once per job.
        self.refused: dict[str, str] = {}

    def accepts(self, job: Job) -> str | None:
        """None if this worker may drive `job`; else why not (its operations' contracts differ)."""
        reason = contract_mismatch(job, self.executor.registry.contracts(job.operations))
        if reason is not None and self.refused.get(job.run) != reason:
            self.refused[job.run] = reason
            _log.warning("%s leaves run %s to another worker: %s", self.name, job.run, reason)
        return reason

    def wake(self) -> int:
        """Make ready the waiting jobs whose run's journal moved on (an approval, a resolution, a cancellation)."""
        return self.broker.wake_waiting(lambda job: self.store.last_seq(job.run) > job.parked_seq)

    def step(self) -> Outcome | None:
        """Claim one job and drive its run as far as it goes; None when there was nothing to claim."""
        self.wake()
        claim = self.broker.claim(self.name, self.lease_s, self.accepts)
        if claim is None:
            return None
        if claim.taken_from:
            _log.warning("%s took run %s over from %s (its lease expired)", self.name, claim.run, claim.taken_from)
        renewer = _Renewer(self.broker, claim, self.lease_s)
        try:
            return self._drive(claim)
        finally:
            renewer.stop()

    def _drive(self, claim: Claim) -> Outcome:
        run = claim.run
        try:
            with self.store.guard_appends(run, self.broker.fence(claim)):
                events = self.store.read(run)
                state = fold(events, run) if events else None
                if state is None:
                    return self._release(claim, f"run {run} has no journal yet", failed=True)
                if not state.finished and state.status not in _WAITING:
                    state = self.executor_for(state).resume(run)
        except LeaseLost as exc:
            return Outcome(run, "lost", str(exc), claim.taken_from)
        except StreamLockedError as exc:  # a person's command (approve, resume, cancel) is driving it right now
            return self._release(claim, str(exc), failed=False)
        except AlicornError as exc:
            return self._release(claim, str(exc), failed=True)
        if state.finished:
            note = f"{state.status} (driven by {self.name})"
            return Outcome(run, "done" if self.broker.finish(claim, note) else "lost", note, claim.taken_from)
        note = f"{state.status}: waits for a person (`alicorn show {run}`)"
        kept = self.broker.park(claim, self.store.last_seq(run), note)
        return Outcome(run, "waiting" if kept else "lost", note, claim.taken_from)

    def _release(self, claim: Claim, reason: str, *, failed: bool) -> Outcome:
        attempts = claim.attempts + (1 if failed else 0)
        if failed and attempts >= self.max_attempts:
            note = f"gave up after {attempts} failed attempts; the last: {reason}. `alicorn resume {claim.run}` to see"
            self.broker.park(claim, self.store.last_seq(claim.run), note)
            return Outcome(claim.run, "waiting", note, claim.taken_from)
        delay = self.backoff_s * (2 ** max(attempts - 1, 0)) if failed else self.backoff_s
        kept = self.broker.release(claim, self.broker.clock() + delay, reason, failed=failed)
        return Outcome(claim.run, "released" if kept else "lost", reason, claim.taken_from)

    def serve(
        self,
        stop: threading.Event,
        *,
        poll_s: float = 1.0,
        on_outcome: Callable[[Outcome], None] | None = None,
        until_idle: bool = False,
    ) -> int:
        """Claim and drive runs until `stop` is set (or, with `until_idle`, until nothing is claimable); how many
        claims it made."""
        claims = 0
        while not stop.is_set():
            try:
                outcome = self.step()
            except AlicornError as exc:  # the journal's server is away: wait and try again
                _log.warning("%s: %s", self.name, exc)
                stop.wait(poll_s)
                continue
            if outcome is None:
                if until_idle:
                    break
                self.broker.wait(poll_s)
                continue
            claims += 1
            if on_outcome is not None:
                on_outcome(outcome)
        return claims
