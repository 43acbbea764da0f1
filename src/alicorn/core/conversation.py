"""A conversation's state as a pure fold of its journal stream (`conv-…`): Core keeps nothing anywhere else.

Events, in the order a request meets them:

    intent.received        the IntentEnvelope
    model.routed / llm.*   every routing decision and model call (alicorn.models journals them here)
    intent.classified      kind, language, forbidden effects, and which signal decided each
    intent.reclassified    a weakly decided kind yields to a workflow the words clearly match
    answer.given           a conversation or question answered, with no effect
    triage.done            an alarm's severity and who must look at it (with "then": "work", the alarm also
                           asks for a workflow's work on its data, and the conversation goes on to it)
    workflow.selected      the template, who chose it (model / examples / both) and the runner-up
    slots.filled           the template's parameters, the source of each, and what is missing
    data.found             the user's files for the workflow's inputs (path, digest, rows, span), and where they
                           were staged (the run's data root)
    data.checked           the request's period against the data's span
    clarification.asked    a question for the human (the conversation waits)
    clarification.answered the human's answer (the conversation resumes from it: planning again when the question
                           offered the consultants' plans, else understanding)
    model.consulted        the profiles a hard task is asked of (alicorn.core.consulting), and why each
    plans.consulted        every consultant's free plan (or why none) and the arbiter's verdict
    contract.fixed         the outcome contract and its goal hash
    plan.proposed          the validated plan, how it was made (template or model), repairs, nodes left out
    world.predicted        the world model's one-step predictions for each node, and the candidate picked
    run.linked             the run that executes the plan (its own stream)
    world.observed         prediction vs outcome per node, with the Brier score of the predicting profile
    validation.done        the validator's report on the run's artifact
    replan.proposed        a new plan for the same goal hash, and whether the change is material
    report.written         the final report (or, with `fallback`, the safe stop)
    message.received       a message after the report: the conversation goes on (alicorn.core.followup)
    followup.declined      what Core answered when it could not act on that message

Phases: received → classified → (answered | triaged | asking → …) → contracted → planned → running → reported.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from alicorn.journal.events import Event
from alicorn.runtime.world import CONVERSATION_PREFIX, run_id_for

#: Conversation ids and the runs' names they give are the runtime's (alicorn.runtime.world).
PREFIX = CONVERSATION_PREFIX
__all__ = ["PREFIX", "ConversationState", "apply", "fold", "new_conversation_id", "run_id_for"]


def new_conversation_id(at: str) -> str:
    """`conv-YYYYMMDD-<12 hex>`: sortable by day, random within it."""
    return f"{PREFIX}{at[:10].replace('-', '')}-{secrets.token_hex(6)}"


@dataclass
class ConversationState:
    """Everything known about one conversation, derived only from its events."""

    id: str = ""
    phase: str = "new"
    received_at: str = ""
    envelope: dict[str, Any] = field(default_factory=dict)
    classification: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    triage: dict[str, Any] | None = None
    workflow: dict[str, Any] | None = None
    slots: dict[str, Any] | None = None
    data: dict[str, Any] | None = None
    workdir: str | None = None
    questions: list[dict[str, Any]] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    contract: dict[str, Any] | None = None
    goal_hash: str | None = None
    plans: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[dict[str, Any]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    #: Each run's plan's source ("template", "model", "replan", "follow-up:RUN"): the plan proposed before it.
    run_sources: dict[str, str] = field(default_factory=dict)
    observations: list[dict[str, Any]] = field(default_factory=list)
    validations: list[dict[str, Any]] = field(default_factory=list)
    replans: list[dict[str, Any]] = field(default_factory=list)
    report: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    model_calls: int = 0
    tokens: int = 0
    last_seq: int = 0

    @property
    def waiting_for_answer(self) -> bool:
        return self.phase == "asking"

    @property
    def finished(self) -> bool:
        return self.phase in ("answered", "triaged", "reported")

    @property
    def plan(self) -> dict[str, Any] | None:
        return self.plans[-1]["plan"] if self.plans else None

    @property
    def run(self) -> str | None:
        return self.runs[-1] if self.runs else None


def _phase(state: ConversationState, phase: str) -> None:
    state.phase = phase


def apply(state: ConversationState, event: Event) -> ConversationState:
    """Apply one event (events of unknown kinds are kept in the journal and ignored here)."""
    data = event.data
    kind = event.kind
    state.last_seq = event.seq
    if kind == "intent.received":
        state.id = event.stream
        state.received_at = event.at
        state.envelope = data["envelope"]
        state.workdir = data.get("workdir")
        _phase(state, "received")
    elif kind == "intent.classified":
        state.classification = data
        _phase(state, "classified")
    elif kind == "intent.reclassified":
        state.classification = {**(state.classification or {}), "kind": data["kind"], "reclassified": data["why"]}
    elif kind == "answer.given":
        state.answer = data
        _phase(state, "answered")
    elif kind == "triage.done":
        state.triage = data
        if data.get("then") != "work":  # an alarm that asks for a workflow's work goes on to it (reclassified)
            _phase(state, "triaged")
    elif kind == "workflow.selected":
        state.workflow = data
    elif kind == "slots.filled":
        state.slots = data
    elif kind == "data.found":
        state.data = data
    elif kind == "data.checked":
        state.data = {**(state.data or {}), "coverage": data["coverage"]}
    elif kind == "clarification.asked":
        state.questions.append(data)
        _phase(state, "asking")
    elif kind == "clarification.answered":
        state.answers.append(data)
        # An answer choosing among the consultants' plans goes back to planning; any other, to understanding.
        _phase(state, "contracted" if state.questions and state.questions[-1].get("plans") else "classified")
    elif kind == "contract.fixed":
        state.contract = data["contract"]
        state.goal_hash = data["goal_hash"]
        _phase(state, "contracted")
    elif kind in ("plan.proposed", "replan.proposed"):
        state.plans.append(data)
        if kind == "replan.proposed":
            state.replans.append(data)
        _phase(state, "planned")
    elif kind == "world.predicted":
        state.predictions.append(data)
    elif kind == "run.linked":
        state.runs.append(data["run"])
        state.run_sources[data["run"]] = str(state.plans[-1].get("source", "")) if state.plans else ""
        _phase(state, "running")
    elif kind == "world.observed":
        state.observations.append(data)
    elif kind == "validation.done":
        state.validations.append(data)
    elif kind == "report.written":
        state.report = data
        _phase(state, "reported")
    elif kind == "message.received":
        state.messages.append(data)
        _phase(state, "following")
    elif kind == "followup.declined":
        _phase(state, "reported")
    elif kind == "llm.response":
        state.model_calls += 1
        usage = data.get("usage", {})
        state.tokens += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    elif kind == "llm.error":
        state.model_calls += 1
    return state


def fold(events: Iterable[Event]) -> ConversationState:
    """The state after `events` (a conversation stream, in order)."""
    state = ConversationState()
    for event in events:
        apply(state, event)
    return state
