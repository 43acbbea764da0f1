"""Runs as jobs on the journal's own engine: claimed under leases, fenced by epochs.

A job is a run some worker should drive. It is written in the transaction that creates the run (an append guard of
the journal store, so a run is never created without its job, nor a job without its run), then:

    ready ── claim (epoch + 1, lease) ──> claimed ── run finished ──────────────> done
      ^                                     │ ├──── waits for a human/blocked ──> waiting ── run's journal moved on ─┐
      │                                     │ └──── worker failed ──> ready (not before a back-off)                  │
      └──── lease expired (worker dead) ────┘                                                                        │
      └──────────────────────────────────────────────────────────────────────────────────────────────────────────────┘

**Fencing.** Every claim increments the job's epoch. While a worker drives a run, each of its appends to the run's
stream first checks, inside the append's own transaction, that the job is still claimed at the worker's epoch
(`Broker.fence`); a worker whose lease expired and was taken over is refused by the database (`LeaseLost`) and can
never append, so never record or commit an effect, for that run again. A lease that expired but was not yet taken
over still lets its worker append: nobody else drives the run, so nothing can be doubled.

**Time.** Leases are measured on the broker's clock (seconds since the epoch, injected; the machines' clocks must
agree to well within a lease, as NTP keeps them). Nothing is ever decided by a lease alone: a claim is an atomic
update of the job's row, and the epoch is what appends are checked against.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from alicorn.errors import JournalError

#: The states of a job (see the module docstring).
STATES = ("ready", "claimed", "waiting", "done")
#: What a concurrency limit counts runs of.
LIMIT_KINDS = ("project", "operation")
#: The job table's name and columns on every engine, in the order `job_from_row` reads them.
TABLE = "broker_jobs"
LIMITS = "broker_limits"
COLUMNS = (
    "run, project, operations, contracts, state, epoch, worker, lease_until, not_before, parked_seq, attempts, note, "
    "enqueued_at"
)
#: How many of each project's oldest claimable jobs one claim chooses among (limits or a worker's version may rule
#: some out; a project's later jobs wait for its earlier ones).
PER_PROJECT = 8


class LeaseLost(JournalError):
    """A worker's append was refused because its lease on the run was taken over (its epoch is not the job's)."""


class BrokerError(JournalError):
    """The broker cannot do what was asked (a bad limit, a job that does not exist...)."""


@dataclass(frozen=True, slots=True)
class Job:
    """One row of the broker: a run, what it needs, and who holds it."""

    run: str
    project: str
    operations: tuple[str, ...]
    contracts: str  # the run's operation contracts (canonical JSON): a worker serves it only with the same ones
    state: str
    epoch: int
    worker: str
    lease_until: float
    not_before: float
    parked_seq: int
    attempts: int
    note: str
    enqueued_at: float

    def live(self, now: float) -> bool:
        """Whether a worker holds this job now (claimed and its lease not expired)."""
        return self.state == "claimed" and self.lease_until > now


@dataclass(frozen=True, slots=True)
class Claim:
    """A worker's hold on a run: appends it makes are checked against `epoch`."""

    run: str
    epoch: int
    worker: str
    lease_until: float
    project: str
    operations: tuple[str, ...]
    #: Set when the claim took the run over from a worker whose lease expired.
    taken_from: str = ""
    #: The job's failed attempts before this claim (a claim does not change them; only `release` counts one).
    attempts: int = 0

    @classmethod
    def of(cls, job: Job, worker: str, lease_until: float, taken_from: str) -> Claim:
        """The claim `worker` made of `job` (one epoch after the job's)."""
        return cls(job.run, job.epoch + 1, worker, lease_until, job.project, job.operations, taken_from, job.attempts)


@dataclass(frozen=True)
class Limits:
    """How many runs may be claimed at once per project and per operation (a run counts for each operation its
    plan uses); a project or operation not named is not limited."""

    per_project: Mapping[str, int] = field(default_factory=dict)
    per_operation: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for what, limits in (("project", self.per_project), ("operation", self.per_operation)):
            for name, limit in limits.items():
                if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
                    raise BrokerError(
                        f"the concurrency limit of {what} {name!r} is {limit!r}: give a whole number of at least 1"
                    )

    @property
    def any(self) -> bool:
        return bool(self.per_project or self.per_operation)

    def merged(self, rows: Iterable[tuple[str, str, int]]) -> Limits:
        """These limits with the broker's stored ones (`kind, name, limit` rows) over them."""
        project, operation = dict(self.per_project), dict(self.per_operation)
        for kind, name, limit in rows:
            (project if kind == "project" else operation)[name] = int(limit)
        return Limits(project, operation)

    def admits(self, job: Job, active: Sequence[Job]) -> str | None:
        """None if `job` may be claimed while `active` are held; else why not."""
        project_limit = self.per_project.get(job.project)
        if project_limit is not None and sum(1 for a in active if a.project == job.project) >= project_limit:
            return f"project {job.project!r} has {project_limit} runs claimed (its limit)"
        for op in job.operations:
            op_limit = self.per_operation.get(op)
            if op_limit is not None and sum(1 for a in active if op in a.operations) >= op_limit:
                return f"operation {op!r} has {op_limit} runs claimed (its limit)"
        return None


def job_from_row(row: Sequence[Any]) -> Job:
    """A `SELECT COLUMNS` row as a Job."""
    return Job(
        run=row[0],
        project=row[1],
        operations=tuple(json.loads(row[2])),
        contracts=row[3],
        state=row[4],
        epoch=int(row[5]),
        worker=row[6],
        lease_until=float(row[7]),
        not_before=float(row[8]),
        parked_seq=int(row[9]),
        attempts=int(row[10]),
        note=row[11],
        enqueued_at=float(row[12]),
    )


def check_held(claim: Claim, row: Sequence[Any] | None) -> None:
    """Refuse an append (LeaseLost) unless the job's row (`epoch, state, worker`) is still `claim`'s."""
    if row is None or int(row[0]) != claim.epoch or row[1] != "claimed":
        holder = "nobody" if row is None else f"{row[2] or 'nobody'} (epoch {row[0]}, {row[1]})"
        raise LeaseLost(
            f"{claim.worker} no longer holds run {claim.run!r} (its epoch {claim.epoch}; the job is now held by "
            f"{holder}): nothing was appended. Its lease expired and another worker took the run over."
        )


def claim_note(job: Job, worker: str) -> tuple[str, str]:
    """Whom a claim of `job` takes the run from (or ""), and the note it leaves."""
    taken_from = job.worker if job.state == "claimed" else ""
    return taken_from, f"taken over from {taken_from} (its lease expired)" if taken_from else f"claimed by {worker}"


#: A worker's own test of a job it may claim: None to accept it, or the reason it cannot serve it.
Acceptor = Callable[[Job], "str | None"]


def contracts_json(contracts: Mapping[str, str]) -> str:
    """How a job carries its operations' contracts (operation → digest, as `Registry.contracts` gives them)."""
    return json.dumps(dict(contracts), sort_keys=True, separators=(",", ":"))


def contract_mismatch(job: Job, mine: Mapping[str, str]) -> str | None:
    """None if a registry whose `contracts(job.operations)` is `mine` may drive `job`; else what differs."""
    theirs = json.loads(job.contracts)
    differ = [
        f"{name} ({'not registered here' if mine.get(name, 'missing') == 'missing' else 'another contract'})"
        for name in sorted(theirs)
        if mine.get(name, "missing") != theirs[name]
    ]
    return None if not differ else "this worker's operations differ: " + ", ".join(differ)


def fair_order(candidates: Iterable[Job], active: Sequence[Job]) -> list[Job]:
    """Candidates in the order a claim tries them: projects with fewer runs claimed first, then the oldest job."""
    held = Counter(a.project for a in active)
    return sorted(candidates, key=lambda j: (held[j.project], j.enqueued_at, j.run))


class Broker(ABC):
    """Jobs on one journal's engine. Engines implement the row operations; the choice of a job is made here."""

    #: Where the jobs are, for messages.
    location: str = "a broker"

    def __init__(self, clock: Callable[[], float], limits: Limits | None = None) -> None:
        self.clock = clock
        self.limits = limits or Limits()

    # ---- what workers and submitters call ---------------------------------------------------------------------

    def claim(self, worker: str, lease_s: float, accepts: Acceptor | None = None) -> Claim | None:
        """Claim the next job this worker may drive (fair across projects, within the limits): a ready job whose
        back-off has passed, or a claimed one whose lease expired. None when there is none."""
        if lease_s <= 0:
            raise BrokerError(f"a lease of {lease_s} s cannot be held: give a positive number of seconds")
        now = self.clock()
        return self._claim(worker, now, now + lease_s, accepts or (lambda job: None))

    def choose(self, candidates: Sequence[Job], active: Sequence[Job], accepts: Acceptor, limits: Limits) -> Job | None:
        """The job to claim among `candidates` (read in the claim's transaction), or None."""
        for job in fair_order(candidates, active):
            if limits.admits(job, active) is None and accepts(job) is None:
                return job
        return None

    def set_limit(self, kind: str, name: str, limit: int | None) -> None:
        """Store a concurrency limit every worker of this journal keeps to (`kind` project or operation); None
        removes it."""
        if kind not in LIMIT_KINDS:
            raise BrokerError(f"a limit is per project or per operation, not per {kind!r}")
        if not name:
            raise BrokerError(f"name the {kind} the limit is for")
        if limit is not None:
            Limits(**{f"per_{kind}": {name: limit}})  # refuses a limit below 1 with its sentence
        self._set_limit(kind, name, limit)

    @abstractmethod
    def _set_limit(self, kind: str, name: str, limit: int | None) -> None: ...

    @abstractmethod
    def stored_limits(self) -> Limits:
        """The limits stored in the journal's database (`set_limit`)."""

    @abstractmethod
    def _claim(self, worker: str, now: float, lease_until: float, accepts: Acceptor) -> Claim | None: ...

    def renew(self, claim: Claim, lease_s: float) -> bool:
        """Extend the lease; False if the job is no longer this claim's (taken over, or finished)."""
        return self._update(claim, "lease_until = {p}", (self.clock() + lease_s,))

    def finish(self, claim: Claim, note: str) -> bool:
        """The run finished: the job is done. False if the claim was lost meanwhile."""
        return self._update(claim, "state = 'done', lease_until = 0, note = {p}", (note,))

    def park(self, claim: Claim, head_seq: int, note: str) -> bool:
        """The run waits for something outside it (a human's approval, a resolution): the job sleeps until the run's
        journal grows past `head_seq`."""
        return self._update(claim, "state = 'waiting', lease_until = 0, parked_seq = {p}, note = {p}", (head_seq, note))

    def release(self, claim: Claim, not_before: float, note: str, *, failed: bool) -> bool:
        """Give the job back, to be claimed again from `not_before` on; `failed` counts an attempt."""
        return self._update(
            claim,
            "state = 'ready', lease_until = 0, not_before = {p}, note = {p}, attempts = attempts + {p}",
            (not_before, note, 1 if failed else 0),
            released=True,
        )

    @abstractmethod
    def _update(self, claim: Claim, sets: str, params: Sequence[Any], *, released: bool = False) -> bool:
        """Apply `sets` (its parameters marked `{p}`, the engine's mark) to `claim`'s job if it is still claimed at
        the claim's epoch; whether it was. `released`: the job is claimable again (an engine that wakes idle
        workers says so)."""

    @abstractmethod
    def fence(self, claim: Claim) -> Callable[[Any], None]:
        """An append guard (`JournalStore.guard_appends`) refusing appends once `claim` is no longer the job's. It
        only reads (the job's row, locked for sharing on PostgreSQL): it is installed with `reads_only=True`."""

    @abstractmethod
    def enqueue_guard(self, run: str, project: str, operations: Sequence[str], contracts: str) -> Callable[[Any], None]:
        """An append guard that writes the run's job (ready now) in the transaction that creates the run."""

    def jobs(self, *, states: Sequence[str] = STATES) -> list[Job]:
        """Every job in `states`, oldest first."""
        unknown = [s for s in states if s not in STATES]
        if unknown:
            raise BrokerError(f"unknown job state {unknown[0]!r}: use one of {', '.join(STATES)}")
        return self._jobs(states)

    @abstractmethod
    def _jobs(self, states: Sequence[str]) -> list[Job]: ...

    @abstractmethod
    def job(self, run: str) -> Job | None:
        """The job of `run`, in whatever state; None if the run was never queued."""

    @abstractmethod
    def wake_waiting(self, moved: Callable[[Job], bool]) -> int:
        """Make ready the waiting jobs for which `moved(job)` says the run's journal grew; how many."""

    def wait(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for new work: engines without notifications poll (sleep); PostgreSQL listens."""
        time.sleep(timeout_s)

    def close(self) -> None:  # noqa: B027 - optional hook
        pass
