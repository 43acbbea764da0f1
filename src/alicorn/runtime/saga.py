"""Ending a run, and the saga that undoes its effects when it fails or is cancelled.

When a run ends failed, cancelled, or stopped because a node failed, the completed effects whose operations declare
a compensation are undone in reverse order of completion, one at a time. Each compensation is itself journaled as
intended before it runs (`compensation.call`, with its own idempotency key derived from the effect's) and as done or
failed after, so a crash mid-saga resumes it without repeating what was already undone. The run's final event says
exactly what was compensated and what is left undone, and why.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from alicorn import canonical
from alicorn.runtime.dispatch import CERTAIN_FAILURES, Call, Outcome
from alicorn.runtime.state import pending_effects
from alicorn.runtime.world import format_time, parse_time

if TYPE_CHECKING:
    from alicorn.runtime.needs import RunSession

#: Effect states that may still have changed the world and have not been undone (besides any effect whose outcome
#: is not known: EffectState.outcome_unknown).
_LIVE = frozenset({"done", "compensation_failed"})


def _status(session: RunSession) -> str:
    state = session.state
    if state.stopping:
        return "cancelled" if state.stop_cause == "cancelled" else "stopped"
    standby = set(session.primary_of)
    failed = [n for n in state.order if n not in standby and session.effective_status(n) == "failed"]
    if not failed:
        return "succeeded"
    return "partial" if any(state.nodes[n].status == "succeeded" for n in state.order) else "failed"


def _compensable(session: RunSession, status: str) -> bool:
    if status in ("failed", "cancelled"):
        return True
    return status == "stopped" and session.state.stop_cause == "failure"


def conclude(session: RunSession) -> None:
    """Nothing is left to run: start or continue the saga if one is due, else journal the run's end."""
    state = session.state
    status = _status(session)
    if state.saga is None and _compensable(session, status):
        order = [
            e.node
            for e in sorted(state.effects_log.values(), key=lambda e: -(e.done_order or 0))
            if e.status == "done" and session.op(e.node).compensation is not None
        ]
        if order:
            session.emit("saga.started", {"reason": f"the run {status}", "order": order})
    if state.saga is not None and _next_compensation(session):
        return
    _finish(session, status)


def _next_compensation(session: RunSession) -> bool:
    """Issue the next compensation, or report one in flight. False when the saga has nothing left to do."""
    state = session.state
    assert state.saga is not None
    for node_id in state.saga["order"]:
        effect = state.effects_log[node_id]
        if effect.status == "compensating":
            return True  # one at a time, in order
        if effect.status == "done":
            _call(session, node_id, None)
            return True
    return False


def _call(session: RunSession, node_id: str, not_before: str | None) -> None:
    effect = session.state.effects_log[node_id]
    undo = session.registry.get(session.op(node_id).compensation or "")
    original_inputs, journaled = session.resolve(session.nodes[node_id])
    original_output = session.state.nodes[node_id].output or {}
    key = canonical.digest({"compensates": effect.key})
    attempt = effect.compensation_attempt + 1
    session.emit(
        "compensation.call",
        {
            "node": node_id,
            "attempt": attempt,
            "op": undo.name,
            "effect": undo.effect,
            "key": key,
            "compensates": effect.key,
            "inputs": {"original_inputs": journaled, "original_output_sha256": canonical.digest(original_output)},
            "not_before": not_before,
        },
    )
    inputs = {"original_inputs": original_inputs, "original_output": original_output, "original_key": effect.key}
    session.calls.append(
        Call(node_id, attempt, undo.name, inputs, key, undo.timeout_s, not_before, purpose="compensate")
    )


def on_outcome(session: RunSession, outcome: Outcome) -> None:
    """A compensation came back: record it, retry it under its policy, or record what is left undone."""
    effect = session.state.effects_log[outcome.node]
    session.emit("compensation.result", outcome.to_event())
    if outcome.ok:
        session.emit("effect.compensated", {"node": outcome.node, "key": effect.key})
        return
    undo = session.registry.get(session.op(outcome.node).compensation or "")
    err = outcome.error or {}
    reason = f"{err.get('type')}: {err.get('message')}"
    certain = err.get("type") in CERTAIN_FAILURES or undo.idempotency in ("repeatable", "idempotent", "keyed")
    base = {"node": outcome.node, "attempt": outcome.attempt, "reason": reason}
    if certain and err.get("retryable") and outcome.attempt < undo.retry.max_attempts:
        delay = undo.retry.delay_after(outcome.attempt)
        session.emit("compensation.failed", {**base, "final": False, "retry_in_s": delay})
        later = format_time(parse_time(session.now) + timedelta(seconds=delay)) if delay > 0 else None
        _call(session, outcome.node, later)
        return
    session.emit("compensation.failed", {**base, "final": True, **({} if certain else {"unknown_outcome": True})})


def recover(session: RunSession, node_id: str) -> None:
    """A compensation was in flight when the previous session died."""
    undo = session.registry.get(session.op(node_id).compensation or "")
    effect = session.state.effects_log[node_id]
    if undo.idempotency in ("repeatable", "idempotent", "keyed"):
        _call(session, node_id, None)
        return
    session.emit(
        "compensation.failed",
        {
            "node": node_id,
            "attempt": effect.compensation_attempt,
            "final": True,
            "unknown_outcome": True,
            "reason": f"the process stopped while {undo.name} ran and it is not safe to repeat; check the target",
        },
    )


def _finish(session: RunSession, status: str) -> None:
    state = session.state
    for node_id in state.order:
        if state.nodes[node_id].status == "standby":
            primary = session.primary_of.get(node_id)
            session.emit("node.skipped", {"node": node_id, "reason": f"alternative not used: {primary} did not fail"})
    counts: dict[str, int] = {}
    for n in state.order:
        counts[state.nodes[n].status] = counts.get(state.nodes[n].status, 0) + 1
    data: dict[str, Any] = {"status": status, "nodes": dict(sorted(counts.items()))}
    if state.stop_reason is not None:
        data["reason"] = state.stop_reason
    if state.effects_log:
        data["effects"] = effect_summary(session, status)
    session.emit("run.finished", data)


def effect_summary(session: RunSession, status: str) -> dict[str, Any]:
    """What happened to every effect: done, compensated, or left undone with the reason."""
    state = session.state
    compensated = [e.node for e in state.effects_log.values() if e.status == "compensated"]
    left: list[dict[str, Any]] = []
    for e in state.effects_log.values():
        if not (e.status in _LIVE or e.outcome_unknown) or (e.status == "done" and status in ("succeeded", "partial")):
            continue
        if e.status == "done" and session.op(e.node).compensation is None:
            why = "no compensation is declared for this operation"
        elif e.status == "done":
            why = f"the run {status}; compensation applies only to failed, cancelled or failure-stopped runs"
        elif e.status == "failed":  # the last attempt certainly failed; an earlier one may have applied it
            why = f"{e.note or 'failed'}; an earlier attempt may have applied it (its outcome was never known)"
        else:
            why = e.note or e.status
        left.append({"node": e.node, "key": e.key, "state": e.status, "reason": why})
    return {"compensated": compensated, "left_undone": left, "may_be_pending": pending_effects(state)}
