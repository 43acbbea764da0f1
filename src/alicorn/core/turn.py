"""What one call to Norbi Core returns: where the conversation stands and what the person should see."""

from __future__ import annotations

from dataclasses import dataclass, field

from alicorn.anvil.proposals import ProposalEnvelope
from alicorn.core.report import Report
from alicorn.plan.dsl import Plan


@dataclass(frozen=True)
class Turn:
    """What one call to Core produced: where the conversation stands, and what the human should see."""

    conversation: str
    phase: str
    question: str | None = None
    answer: str | None = None
    proposal: ProposalEnvelope | None = None
    report: Report | None = None
    plan: Plan | None = None
    effects: tuple[str, ...] = ()
    understood: tuple[str, ...] = field(default=())  # classification, workflow, contract: one line each
    language: str = "en"  # the request's language: what the person is shown and asked in
    run: str | None = None  # a queued run (phase "queued"): a worker drives it
    status: str | None = None  # where that run's job stands, in words
