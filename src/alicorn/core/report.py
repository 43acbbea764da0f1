"""The final report, and the fallback when Core cannot continue safely.

A report states the outcome (complete, partial, failed, waiting, stopped safely), the evidence (the validator's
checks, the run's nodes and effects), conflicts and metrics of the result, what the models cost, and — always —
what is known, what is missing, which jobs finished, which decisions a human must take, and whether an unfinished
effect may be pending. A partial result is reported as partial: the status comes from the validator, never from the
run alone (a run whose every node succeeded can still miss the contract).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.runtime.state import RunState

Outcome = Literal["answered", "triaged", "complete", "partial", "failed", "waiting", "asking", "stopped_safely"]

#: Effect states after which the effect may have happened without the journal knowing its result.
PENDING_EFFECT_STATES = frozenset({"intended", "uncertain", "checking", "unknown", "compensation_unknown"})


class Report(BaseModel):
    """What Core tells the human at the end (or at a safe stop). Every list may be empty, never absent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    conversation: str
    outcome: Outcome
    headline: str
    goal_hash: str | None = None
    run: str | None = None
    result: list[str] = Field(default_factory=list)
    known: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    jobs_finished: list[str] = Field(default_factory=list)
    decisions_needed: list[str] = Field(default_factory=list)
    pending_effects: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    metrics: dict[str, Any] = Field(default_factory=dict)
    artifacts: list[str] = Field(default_factory=list)

    def text(self) -> str:
        """The report as plain text, one section per list that has something in it."""
        lines = [f"[{self.outcome}] {self.headline}"]
        lines.extend(f"  {line}" for line in self.result)
        if self.goal_hash:
            lines.append(f"goal hash: {self.goal_hash}")
        if self.run:
            lines.append(f"run: {self.run}")
        sections = (
            ("known", self.known),
            ("missing", self.missing),
            ("jobs finished", self.jobs_finished),
            ("decisions needed", self.decisions_needed),
            ("effects that may be pending", self.pending_effects),
            ("evidence", self.evidence),
            ("conflicts", self.conflicts),
            ("artifacts", self.artifacts),
        )
        for title, items in sections:
            if items:
                lines.append(f"{title}:")
                lines.extend(f"  - {item}" for item in items)
        if self.metrics:
            lines.append("metrics: " + ", ".join(f"{k}={v}" for k, v in self.metrics.items()))
        return "\n".join(lines)


def run_facts(state: RunState) -> dict[str, list[str]]:
    """What a run shows a human: finished jobs, pending effects, decisions it waits for."""
    finished = [
        f"{n} ({state.nodes[n].status})" for n in state.order if state.nodes[n].status in ("succeeded", "failed")
    ]
    pending = [
        f"{e.node} ({e.operation}, {e.effect}, key {e.key[:16]}…): {e.status}"
        for e in state.effects_log.values()
        if e.status in PENDING_EFFECT_STATES
    ]
    decisions = []
    if state.status == "awaiting_approval":
        effects = ", ".join((state.awaiting or {}).get("effects", [])) or "its effects"
        decisions.append(
            f"approve or reject run {state.run_id} ({effects}): `alicorn approve {state.run_id} --as NAME`"
        )
    for node in state.blocked():
        decisions.append(
            f"say whether the effect of {node} happened: `alicorn resume {state.run_id} --resolve {node}=applied`"
        )
    return {"finished": finished, "pending": pending, "decisions": decisions}


def fallback(
    conversation: str,
    why: str,
    *,
    known: list[str],
    missing: list[str],
    state: RunState | None = None,
    goal_hash: str | None = None,
    extra_decisions: list[str] | None = None,
) -> Report:
    """The safe stop: nothing new starts; what is known and missing, jobs finished, decisions, pending effects."""
    facts = run_facts(state) if state is not None else {"finished": [], "pending": [], "decisions": []}
    pending = facts["pending"] or ["none: no effect was started and left without a result"]
    return Report(
        conversation=conversation,
        outcome="stopped_safely",
        headline=f"stopped safely: {why}",
        goal_hash=goal_hash,
        run=state.run_id if state is not None else None,
        known=known,
        missing=missing,
        jobs_finished=facts["finished"],
        decisions_needed=[*facts["decisions"], *(extra_decisions or [])],
        pending_effects=pending,
    )
