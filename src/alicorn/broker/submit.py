"""Opening a journal's broker, and submitting a run to it (created and enqueued in one transaction)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from alicorn.anvil.terms import RunTerms
from alicorn.broker.jobs import Broker, BrokerError, Limits, contracts_json
from alicorn.clock import wall_now
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.plan.dsl import Plan
from alicorn.runtime.executor import Approval, Executor
from alicorn.runtime.state import RunState


def wall_seconds() -> float:
    """The broker's default clock: the wall clock's seconds (leases are shared by machines, so not monotonic)."""
    return wall_now().timestamp()


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
    operations = [node.operation for node in plan.nodes]
    contracts = contracts_json(executor.registry.contracts(operations))
    enqueue = broker.enqueue_guard(run_id, terms.project, operations, contracts)
    with executor.store.guard_appends(run_id, enqueue):
        return executor.start(plan, run_id=run_id, terms=terms, approvals=approvals, drive=False)
