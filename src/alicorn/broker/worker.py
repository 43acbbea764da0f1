"""A worker: claims runs from the broker and drives them, each fenced by its claim's epoch; with `runs_at_once` > 1
it claims up to that many and drives them together from one thread (runtime.together), each as below.

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

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from alicorn.broker.jobs import Broker, Claim, Job, LeaseLost, contract_mismatch
from alicorn.errors import AlicornError, StreamLockedError
from alicorn.journal.store import JournalStore
from alicorn.runtime.executor import Executor
from alicorn.runtime.session import Session
from alicorn.runtime.state import RunState, fold
from alicorn.runtime.together import drive_together

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
    """Renews the leases of `claims` every third of the lease from a thread of its own, until stopped; a claim the
    broker refuses to renew (taken over) is not renewed again."""

    def __init__(self, broker: Broker, claims: Sequence[Claim], lease_s: float) -> None:
        self.broker, self.claims, self.lease_s = broker, list(claims), lease_s
        self.lost: set[str] = set()
        self._stop = threading.Event()
        name = f"lease {claims[0].run}" + (f" and {len(claims) - 1} more" if len(claims) > 1 else "")
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            for claim in self.claims:
                if claim.run in self.lost:
                    continue
                try:
                    if not self.broker.renew(claim, self.lease_s):
                        self.lost.add(claim.run)
                except AlicornError as exc:  # the server is away: the fence decides if the lease lapses meanwhile
                    _log.warning("could not renew the lease of run %s: %s", claim.run, exc)

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
        runs_at_once: int = 1,
    ) -> None:
        if runs_at_once < 1:
            raise ValueError(f"runs_at_once must be at least 1, not {runs_at_once}")
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
        #: How many claimed runs one step drives together from one thread (runtime.together): their steps share
        #: commits, each still fenced by its own claim's epoch.
        self.runs_at_once = runs_at_once

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
        outcomes = self._claim_and_drive(1)
        return outcomes[0] if outcomes else None

    def step_together(self) -> list[Outcome]:
        """Claim up to `runs_at_once` jobs and drive their runs together from this thread, each as far as it goes
        (as `step` drives one); [] when there was nothing to claim. Each run keeps its own fence: a run whose lease
        was taken over is refused at its next append and only that run stops ("lost")."""
        return self._claim_and_drive(self.runs_at_once)

    def _claim_and_drive(self, most: int) -> list[Outcome]:
        self.wake()
        claims: list[Claim] = []
        while len(claims) < most and (claim := self._claim()) is not None:
            claims.append(claim)
        if not claims:
            return []
        renewer = _Renewer(self.broker, claims, self.lease_s)
        try:
            return self._drive_together(claims)
        finally:
            renewer.stop()

    def _claim(self) -> Claim | None:
        claim = self.broker.claim(self.name, self.lease_s, self.accepts)
        if claim is not None and claim.taken_from:
            _log.warning("%s took run %s over from %s (its lease expired)", self.name, claim.run, claim.taken_from)
        return claim

    def _drive_together(self, claims: list[Claim]) -> list[Outcome]:
        outcomes: dict[str, Outcome] = {}
        driving: list[tuple[Claim, Executor, Session]] = []
        unexpected: list[Exception] = []  # a bug in one run: the others are settled first, then it is raised

        def answer(claim: Claim, outcome: Callable[..., Outcome], *args: Any) -> None:
            try:
                outcomes[claim.run] = outcome(claim, *args)
            except Exception as exc:
                unexpected.append(exc)

        with contextlib.ExitStack() as held:
            for claim in claims:
                run = claim.run
                try:
                    held.enter_context(self.store.guard_appends(run, self.broker.fence(claim), reads_only=True))
                    events = self.store.read(run)
                    state = fold(events, run) if events else None
                    if state is None or state.finished or state.status in _WAITING:
                        answer(claim, self._settle_or_release, state)
                        continue
                    executor = self.executor_for(state)
                    opened = executor.reopen(run, held)
                except Exception as exc:
                    answer(claim, self._failed, exc)
                    continue
                if isinstance(opened, RunState):
                    answer(claim, self._settle_driven, executor, opened)
                else:
                    driving.append((claim, executor, opened))
            ended = drive_together(self.store, [session for _, _, session in driving], self.executor.poll_s)
            for (claim, executor, _), end in zip(driving, ended, strict=True):
                if isinstance(end, Exception):
                    answer(claim, self._failed, end)
                else:
                    answer(claim, self._settle_driven, executor, end)
        if unexpected:
            raise unexpected[0]
        return [outcomes[claim.run] for claim in claims]

    def _settle_driven(self, claim: Claim, executor: Executor, state: RunState) -> Outcome:
        return self._settle(claim, executor.settled(state))

    def _settle_or_release(self, claim: Claim, state: RunState | None) -> Outcome:
        """A claimed run found with no journal (released, a failure counted), or already finished or waiting."""
        if state is None:
            return self._release(claim, f"run {claim.run} has no journal yet", failed=True)
        return self._settle(claim, state)

    def _failed(self, claim: Claim, exc: Exception) -> Outcome:
        """What an error that stopped a claimed run comes to: lost (taken over), released (someone else is driving
        it, or a failure to retry after a back-off); anything but Alicorn's own errors is re-raised."""
        if isinstance(exc, LeaseLost):
            return Outcome(claim.run, "lost", str(exc), claim.taken_from)
        if isinstance(exc, StreamLockedError):  # a person's command (approve, resume, cancel) is driving it now
            return self._release(claim, str(exc), failed=False)
        if isinstance(exc, AlicornError):
            return self._release(claim, str(exc), failed=True)
        raise exc

    def _settle(self, claim: Claim, state: RunState) -> Outcome:
        """The job of a run that stopped moving: done when it finished, else waiting for a person."""
        run = claim.run
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
                outcomes = self.step_together()
            except AlicornError as exc:  # the journal's server is away: wait and try again
                _log.warning("%s: %s", self.name, exc)
                stop.wait(poll_s)
                continue
            if not outcomes:
                if until_idle:
                    break
                self.broker.wait(poll_s)
                continue
            claims += len(outcomes)
            for outcome in outcomes:
                if on_outcome is not None:
                    on_outcome(outcome)
        return claims
