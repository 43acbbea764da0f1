"""What the API answers about one run, folded from its events only (the same fold `alicorn show` prints).

The detail of a run is `runtime.state.fold` of its stream: its nodes and their states, its effects ledger (each
effect's idempotency key and whether its outcome is unknown), the effects that may be pending, its approvals, and
each policy decision with the `why` explanation `alicorn why RUN#SEQ` prints (`anvil.explain`).
"""

from __future__ import annotations

from typing import Any

from alicorn.anvil.errors import AnvilError
from alicorn.anvil.explain import decisions, explain
from alicorn.journal.events import Event
from alicorn.runtime.state import fold, pending_effects


def event_json(event: Event) -> dict[str, Any]:
    """An event as journaled: every field, its hash and the previous one's."""
    return {
        "stream": event.stream,
        "seq": event.seq,
        "kind": event.kind,
        "at": event.at,
        "data": event.data,
        "prev": event.prev,
        "hash": event.hash,
    }


def _why(events: list[Event], event: Event) -> list[str]:
    try:
        return explain(events, event.seq).lines
    except (AnvilError, KeyError, TypeError):  # a decision journaled before the fields `why` reads existed
        return []


def run_detail(run_id: str, events: list[Event]) -> dict[str, Any]:
    """The folded state of the run whose stream is `events`."""
    state = fold(events, run_id)
    operations = {n["node_id"]: n.get("operation") for n in state.plan.get("nodes", [])}
    return {
        "run": run_id,
        "status": state.status,
        "goal": state.plan.get("goal", ""),
        "goal_hash": state.goal_hash,
        "plan_hash": state.plan_hash,
        "project": state.project,
        "agent": state.proposed_by,
        "created_at": state.created_at,
        "finished_at": state.finished_at,
        "last_seq": state.last_seq,
        "stop_reason": state.stop_reason,
        "awaiting": state.awaiting,
        "decision": state.decision,
        "nodes": [
            {
                "node": ns.node_id,
                "operation": operations.get(ns.node_id),
                "status": ns.status,
                "attempt": ns.attempt,
                "failures": ns.failures,
                "reason": ns.reason,
                "key": ns.key,
                "started_at": ns.started_at,
                "finished_at": ns.finished_at,
                "unknown_outcome": ns.unknown_outcome,
                "error": ns.error,
            }
            for ns in (state.nodes[node_id] for node_id in state.order)
        ],
        "effects": [
            {
                "node": e.node,
                "key": e.key,
                "operation": e.operation,
                "effect": e.effect,
                "status": e.status,
                "attempt": e.attempt,
                "outcome_unknown": e.outcome_unknown,
                "note": e.note,
            }
            for e in state.effects_log.values()
        ],
        "may_be_pending": pending_effects(state),
        "approvals": state.approvals,
        "decisions": [
            {
                "seq": e.seq,
                "kind": e.kind,
                "at": e.at,
                "decision": e.data.get("decision", "stop" if e.kind == "budget.exceeded" else None),
                "sentence": e.data.get("sentence"),
                "why": _why(events, e),
            }
            for e in decisions(events)
        ],
    }
