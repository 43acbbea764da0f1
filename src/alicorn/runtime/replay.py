"""Replay: re-execute a run's logic from its journal and prove the regenerated events are byte-identical.

Replay runs the real executor, but every input comes from the recording: tool results (in their recorded order),
clock readings, the run id, the run's terms, Anvil's inputs (policy text, the proposer's rights snapshot, project
usage) and human decisions (approvals, rejections, resolutions), so every policy decision is regenerated too.
No operation is called. Each regenerated event is compared with the recorded one as it is appended; the first
difference raises NonDeterminismError naming the event. A recorded crash (events followed by `run.resumed`) is
replayed as a crash: the session ends there and `resume` takes over.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alicorn.anvil.gate import ReplayGate
from alicorn.anvil.terms import RunTerms
from alicorn.errors import NonDeterminismError
from alicorn.journal.events import Event
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import Plan
from alicorn.plan.validate import DEFAULT_RESOURCES
from alicorn.runtime.dispatch import Call, CancelSignal, Outcome
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.humans import Approval, CarriedApproval, Rejection, Resolution, Withdrawal
from alicorn.runtime.state import RunState, fold, read_run


class _SessionEnded(Exception):
    """The recording shows the live session ended here (a crash, or a stop before a resume)."""


class VerifyingStore(InMemoryStore):
    """An in-memory store that checks every appended event against the recording, byte for byte, inside the append's
    transaction (a differing event is never stored). A matching event is stored as the recorded one: the same line,
    already decoded once by the read of the recording, so replay decodes each event once. It keeps no run summaries
    (nothing lists a replay's runs)."""

    summaries_kept = False

    def __init__(self, recorded: Sequence[Event]) -> None:
        super().__init__()
        self.recorded = recorded

    def _insert_txn(self, tx: Any, events: list[Event]) -> None:
        matched = []
        for event in events:
            index = event.seq - 1
            expected = self.recorded[index] if index < len(self.recorded) else None
            if expected is None or expected.line != event.line:
                raise NonDeterminismError(event.stream, event.seq, expected.line if expected else None, event.line)
            matched.append(expected)
        tx.events.extend(matched)

    @property
    def position(self) -> int:
        """How many events have been regenerated (and matched) so far."""
        return len(self._streams.get(self.recorded[0].stream, ())) if self.recorded else 0


class ReplayClock:
    """Returns, at each reading, the `at` of the next event the recording says comes next."""

    def __init__(self, target: VerifyingStore) -> None:
        self._target = target
        self._ticks = 0.0

    def now(self) -> str:
        recorded = self._target.recorded
        position = self._target.position
        return recorded[min(position, len(recorded) - 1)].at

    def monotonic(self) -> float:
        # Every place where the live run could have looked for a cancellation is "due" in replay; whether one was
        # found there is read from the recording (ReplayControls), so throttling never hides a recorded event.
        self._ticks += 1e9
        return self._ticks

    def sleep(self, seconds: float) -> None:
        return None


class ReplayControls:
    """A cancellation is found exactly where the recording has its `run.cancelled` event."""

    def __init__(self, recorded: Sequence[Event]) -> None:
        self._recorded = recorded

    def cancel_request(self, run_id: str, next_seq: int) -> dict[str, Any] | None:
        if next_seq <= len(self._recorded) and self._recorded[next_seq - 1].kind == "run.cancelled":
            data = self._recorded[next_seq - 1].data
            return {"by": data["by"], "reason": data["reason"]}
        return None


class ReplayDispatcher:
    """Hands back recorded outcomes (tool results, lookups, compensations) in recorded order; calls nothing."""

    def __init__(self, target: VerifyingStore) -> None:
        self._target = target
        self._submitted: set[tuple[str, str, int]] = set()

    def submit(self, call: Call) -> None:
        self._submitted.add(call.slot)

    def next_outcome(self, poll_s: float | None = None) -> Outcome | CancelSignal | None:
        recorded = self._target.recorded
        position = self._target.position
        if position >= len(recorded) or recorded[position].kind == "run.resumed":
            raise _SessionEnded
        event = recorded[position]
        data = event.data
        outcome: Outcome
        if event.kind == "tool.result" and "via" not in data:
            outcome = Outcome(data["node"], data["attempt"], data["ok"], data.get("output"), data.get("error"))
        elif event.kind == "effect.checked":
            found = None
            if data.get("applied") and position + 1 < len(recorded):
                found = recorded[position + 1].data.get("output")
            output = {"applied": bool(data.get("applied")), "output": found} if data["ok"] else None
            outcome = Outcome(data["node"], data["attempt"], data["ok"], output, data.get("error"), "lookup")
        elif event.kind == "compensation.result":
            outcome = Outcome(
                data["node"], data["attempt"], data["ok"], data.get("output"), data.get("error"), "compensate"
            )
        else:
            raise NonDeterminismError(
                event.stream, event.seq, event.line, "(nothing: the executor was waiting for an outcome)"
            )
        slot = (outcome.purpose, outcome.node, outcome.attempt)
        if slot not in self._submitted:
            raise NonDeterminismError(
                event.stream, event.seq, event.line, "(no call for this outcome was made during replay)"
            )
        self._submitted.discard(slot)
        return outcome

    def cancel_all(self) -> None:
        return None

    def close(self) -> None:
        self._submitted.clear()


@dataclass(frozen=True)
class ReplayReport:
    """What a verified replay proved."""

    run_id: str
    events: int
    sessions: int
    status: str
    seconds: float


@dataclass
class _SessionInputs:
    """Human decisions journaled in the batch that opens a session (right after run.created or run.resumed)."""

    approvals: list[Approval] = field(default_factory=list)
    carried: list[CarriedApproval] = field(default_factory=list)
    resolutions: list[Resolution] = field(default_factory=list)
    rejection: Rejection | None = None
    replaced_by: str | None = None
    withdrawal: Withdrawal | None = None


def _session_inputs(recorded: Sequence[Event], position: int) -> _SessionInputs:
    found = _SessionInputs()
    for event in recorded[position + 1 :]:
        if event.at != recorded[position].at or event.kind in ("run.created", "run.resumed"):
            break
        data = event.data
        if event.kind == "approval.granted":
            found.approvals.append(
                Approval(
                    data["by"], data.get("comment", ""), data.get("plan_hash"), data.get("seal"), data.get("passkey")
                )
            )
        elif event.kind == "approval.carried":
            found.carried.append(
                CarriedApproval(
                    data["by"], data["comment"], data["from_run"], data["from_plan_hash"], data.get("from_seal")
                )
            )
        elif event.kind == "approval.rejected":
            found.rejection = Rejection(data["by"], data["reason"], data.get("seal"))
        elif event.kind == "proposal.withdrawn":
            found.withdrawal = Withdrawal(data["by"], data["reason"])
        elif event.kind == "run.finished" and data.get("status") == "replaced":
            found.replaced_by = data.get("replaced_by")
        elif event.kind == "effect.resolved":
            found.resolutions.append(
                Resolution(data["node"], data["applied"], data["by"], data.get("output"), data.get("note", ""))
            )
    return found


def replay_run(store: JournalStore, run_id: str, registry: Registry) -> ReplayReport:
    """Replay `run_id` from `store` under `registry`; raise NonDeterminismError at the first differing event."""
    started = time.perf_counter()
    recorded = read_run(store, run_id)
    first = recorded[0]
    plan = Plan.model_validate(first.data["plan"])
    workspace = Path(first.data["workspace"])
    environment = RunEnvironment(
        workspace_root=workspace.parent,
        data_root=Path(first.data["data_root"]),
        resources=DEFAULT_RESOURCES,
        max_parallel=int(first.data.get("max_parallel", 4)),
    )
    target = VerifyingStore(recorded)
    executor = Executor(
        target,
        registry,
        environment,
        clock=ReplayClock(target),
        dispatcher_factory=lambda _executor, _state: ReplayDispatcher(target),
        controls=ReplayControls(recorded),
        gate=ReplayGate(recorded),
        whole_registry_fingerprint="contracts" not in first.data,
        looks_at_links=False,  # the links a run's sources followed are in its recorded terms, not in today's files
        # Every event appended as soon as it is emitted: the recording's position (what the clock and the dispatcher
        # read next) is the count of events regenerated so far. Commit boundaries are not part of what replay checks.
        durability="step",
    )
    sessions = 1
    opening = _session_inputs(recorded, 0)
    terms = RunTerms.from_created(first.data)
    with contextlib.suppress(_SessionEnded):
        executor.start(
            plan,
            approvals=opening.approvals,
            run_id=run_id,
            terms=terms,
            carried=opening.carried,
            drive=not first.data.get("queued", False),
        )
    while target.position < len(recorded):
        position = target.position
        event = recorded[position]
        if event.kind != "run.resumed":
            raise NonDeterminismError(run_id, event.seq, event.line, "(nothing: replay ended its session here)")
        sessions += 1
        found = _session_inputs(recorded, position)
        with contextlib.suppress(_SessionEnded):
            executor.resume(
                run_id,
                approvals=found.approvals,
                resolutions=found.resolutions,
                rejection=found.rejection,
                replaced_by=found.replaced_by,
                withdrawal=found.withdrawal,
                drive=not event.data.get("queued", False),
            )
    # Every recorded event was regenerated and matched byte for byte: the recording is the replay's journal.
    state: RunState = fold(recorded, run_id)
    return ReplayReport(run_id, len(recorded), sessions, state.status, time.perf_counter() - started)
