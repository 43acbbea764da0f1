"""How a run ends for Core: its result validated against the contract, and the final report built from both.

The report's outcome comes from the validator, never from the run alone: a run whose every node succeeded can still
miss the contract (partial), and a run a human rejected or policy denied ended safely with nothing done.
"""

from __future__ import annotations

from alicorn.core.contract import OutcomeContract
from alicorn.core.conversation import ConversationState
from alicorn.core.report import Outcome, Report, run_facts
from alicorn.packs.workflow import Workflow
from alicorn.runtime.state import RunState
from alicorn.validate.base import ArtifactType, ValidationReport

#: Runs that ended without doing the work: there is nothing to validate, and nothing was done.
ENDED_UNDONE = frozenset({"rejected", "denied", "cancelled", "withdrawn", "replaced"})


def validate_run(workflow: Workflow | None, contract: OutcomeContract, run: RunState) -> ValidationReport:
    """The workflow's validator on the run's artifact; a run that did no work fails validation, saying why."""
    kind: ArtifactType = "document"
    if contract.result in ("document", "code", "schedule", "conversation"):
        kind = contract.result
    if run.status in ENDED_UNDONE:
        return ValidationReport.unreadable(kind, f"the run ended {run.status}: {run.stop_reason or 'nothing was done'}")
    if workflow is not None:
        return workflow.validator(workflow.artifact_of(run), contract.acceptance)
    if run.status == "succeeded":
        return ValidationReport.of(kind, [])
    return ValidationReport.unreadable(kind, f"the run ended {run.status}: {run.stop_reason or 'no result'}")


def final_report(
    state: ConversationState,
    run: RunState,
    contract: OutcomeContract,
    workflow: Workflow | None,
    validation: ValidationReport,
) -> Report:
    """The final report: outcome, headline, the result's lines, evidence, conflicts, metrics and run facts."""
    facts = run_facts(run)
    summary = workflow.summarize(workflow.artifact_of(run), validation) if workflow is not None else None
    outcome: Outcome
    if run.status in ENDED_UNDONE:
        outcome = "stopped_safely"
        headline = f"run {run.run_id} ended {run.status}: nothing was done" + (
            f" ({(run.rejection or {}).get('reason', '')})" if run.status == "rejected" else ""
        )
    else:
        outcome = validation.status
        headline = summary.lines[0] if summary and summary.lines else validation.summary
        if outcome != "complete":
            headline = f"{outcome} result: {headline}"
    evidence = [f"{c.name}: {'ok' if c.passed else 'FAILED'} — {c.detail}" for c in validation.checks]
    evidence += [
        f"node {n} failed: {(run.nodes[n].error or {}).get('message') or run.nodes[n].reason or 'no reason recorded'}"
        for n in run.order
        if run.nodes[n].status == "failed"
    ]
    plan_info = state.plans[-1] if state.plans else {}
    known = [*contract.sentences(), f"plan {plan_info.get('source', '?')}: {len(run.order)} nodes"]
    known += [f"left out: {r}" for r in plan_info.get("removed", [])]
    known += [f"slot not taken as given: {r}" for r in (state.slots or {}).get("reverted", [])]
    metrics = dict(summary.metrics) if summary else {}
    metrics.update({"model_calls": state.model_calls, "tokens": state.tokens})
    return Report(
        conversation=state.id,
        outcome=outcome,
        headline=headline,
        goal_hash=contract.goal_hash,
        run=run.run_id,
        result=list(summary.lines[1:]) if summary is not None else [],
        known=known,
        missing=[f"{c.name}: {c.detail}" for c in validation.failures],
        jobs_finished=facts["finished"],
        decisions_needed=facts["decisions"],
        pending_effects=facts["pending"] or ["none"],
        evidence=evidence,
        conflicts=list(summary.conflicts) if summary else [],
        metrics=metrics,
        artifacts=[run.workspace] if run.workspace else [],
    )
