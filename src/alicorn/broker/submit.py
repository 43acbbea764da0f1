"""Opening a journal's broker, and submitting a run to it (created and enqueued in one transaction)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from alicorn.anvil.terms import RunTerms
from alicorn.broker.jobs import Broker, BrokerError, Limits, contracts_json
from alicorn.clock import wall_now
from alicorn.journal.events import Event
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.plan.dsl import Plan
from alicorn.runtime.executor import Approval, Executor
from alicorn.runtime.state import RunState


def wall_seconds() -> float:
    """The broker's default clock: the wall clock's seconds (leases are shared by machines, so not monotonic)."""
    return wall_now().timestamp()


def is_queued(events: list[Event]) -> bool:
    """Whether the run whose events these are was submitted to a job broker (its `run.created` says so): workers
    drive it, so Core and the service journal what people decide and never drive it themselves."""
    return bool(events) and events[0].kind == "run.created" and bool(events[0].data.get("queued", False))


def broker_for(
    store: JournalStore,
    *,
    clock: Callable[[], float] = wall_seconds,
    limits: Limits | None = None,
    read_only: bool = False,
) -> Broker:
    """The broker on `store`'s engine: a table in the SQLite journal's file, or in the PostgreSQL journal's schema.
    `read_only`: to list jobs and limits only; nothing is created."""
    if isinstance(store, SQLiteStore):
        from alicorn.broker.sqlite import SQLiteBroker

        return SQLiteBroker(store.path, clock, limits, read_only=read_only)
    from alicorn.journal.postgres import PostgresJournalStore

    if isinstance(store, PostgresJournalStore):
        from alicorn.broker.postgres import PostgresBroker

        return PostgresBroker(store, clock, limits, read_only=read_only)
    raise BrokerError(
        f"{store.location} has no job broker: workers share a journal file (SQLite) or a PostgreSQL database"
    )


@contextmanager
def enqueuing(executor: Executor, broker: Broker, run_id: str, plan: Plan, project: str) -> Iterator[None]:
    """While inside, the append that creates `run_id` (`Executor.start` or `replan` with `drive=False`) also writes
    its job, ready for a worker, in the same transaction: a run is never created without its job, nor a job
    without its run."""
    operations = [node.operation for node in plan.nodes]
    contracts = contracts_json(executor.registry.contracts(operations))
    enqueue = broker.enqueue_guard(run_id, project, operations, contracts)
    with executor.store.guard_appends(run_id, enqueue):
        yield


def submit(
    executor: Executor,
    broker: Broker,
    plan: Plan,
    *,
    terms: RunTerms | None = None,
    run_id: str | None = None,
    approvals: Iterable[Approval] = (),
) -> RunState:
    """Journal a new run (validated, decided by Anvil) and its job in the same transaction, and drive nothing: a
    worker claims it. A plan that is refused is journaled as denied (its job then ends at the first claim)."""
    terms = terms or executor.default_terms
    run_id = run_id or executor.ids.run_id()
    with enqueuing(executor, broker, run_id, plan, terms.project):
        return executor.start(plan, run_id=run_id, terms=terms, approvals=approvals, drive=False)
