"""The final report, and the fallback when Core cannot continue safely.

A report states the outcome (complete, partial, failed, waiting, stopped safely), the evidence (the validator's
checks, the run's nodes and effects), conflicts and metrics of the result, what the models cost, and — always —
what is known, what is missing, which jobs finished, which decisions a human must take, and whether an unfinished
effect may be pending. A partial result is reported as partial: the status comes from the validator, never from the
run alone (a run whose every node succeeded can still miss the contract).

Everything the report itself says (its section titles, the outcome, the fixed sentences of a safe stop and of a
run's facts) is in the report's `language` (alicorn.i18n); the lines a pack or the validator wrote come translated.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.anvil.words import effect_said, effects_said
from alicorn.i18n import N_, tr, tr_marked
from alicorn.runtime.state import UNSETTLED_EFFECTS, RunState
from alicorn.state_words import state_said

Outcome = Literal[
    "answered", "triaged", "complete", "partial", "failed", "missing_data", "waiting", "asking", "stopped_safely"
]

#: Effect states after which the effect may have happened without the journal knowing its result. The report's
#: pending list names every effect whose outcome is not known (`EffectState.outcome_unknown`): these, and a failed
#: effect an earlier attempt of which may have applied it.
PENDING_EFFECT_STATES = UNSETTLED_EFFECTS

#: How each outcome reads in a report (the English is the outcome's own name).
OUTCOME_LABELS: dict[str, str] = {
    "answered": N_("answered"),
    "triaged": N_("triaged"),
    "complete": N_("complete"),
    "partial": N_("partial"),
    "failed": N_("failed"),
    "waiting": N_("waiting"),
    "asking": N_("asking"),
    "stopped_safely": N_("stopped_safely"),
}


#: Keys of a metrics record that hold a display label (English prose, shown translated in the result lines): the
#: metrics line, in the report's language, leaves them out and keeps the record's identifiers.
PROSE_METRIC_KEYS = frozenset({"label"})


def _label(labels: dict[str, str], key: str, language: str) -> str:
    return tr_marked(language, labels[key]) if key in labels else key


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
    language: str = "en"  # what the report's own words are in (the request's language)

    def text(self) -> str:
        """The report as plain text in its language, one section per list that has something in it."""
        lang = self.language
        lines = [f"[{_label(OUTCOME_LABELS, self.outcome, lang)}] {self.headline}"]
        lines.extend(f"  {line}" for line in self.result)
        if self.goal_hash:
            lines.append(tr(lang, "goal hash: {hash}", hash=self.goal_hash))
        if self.run:
            lines.append(tr(lang, "run: {run}", run=self.run))
        sections = (
            (tr(lang, "known:"), self.known),
            (tr(lang, "missing:"), self.missing),
            (tr(lang, "jobs finished:"), self.jobs_finished),
            (tr(lang, "decisions needed:"), self.decisions_needed),
            (tr(lang, "effects that may be pending:"), self.pending_effects),
            (tr(lang, "evidence:"), self.evidence),
            (tr(lang, "conflicts:"), self.conflicts),
            (tr(lang, "artifacts:"), self.artifacts),
        )
        for title, items in sections:
            if items:
                lines.append(title)
                lines.extend(f"  - {item}" for item in items)
        if self.metrics:
            lines.extend(_metric_lines(self.metrics, lang))
        return "\n".join(lines)


def _figures(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items() if k not in PROSE_METRIC_KEYS)


def _metric_lines(metrics: dict[str, Any], language: str) -> list[str]:
    """The metrics as `key=value`; a list of records (a schedule's variants) as a count on the metrics line and one
    indented line per record, so the text never shows a Python structure."""
    flat: dict[str, Any] = {}
    records: list[str] = []
    for key, value in metrics.items():
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            flat[key] = len(value)
            records.extend(f"  - {key} {n}: {_figures(item)}" for n, item in enumerate(value, 1))
        else:
            flat[key] = value
    return [tr(language, "metrics: {figures}", figures=_figures(flat)), *records]


def run_facts(state: RunState, language: str = "en") -> dict[str, list[str]]:
    """What a run shows a human, in `language`: finished jobs, pending effects, decisions it waits for."""
    lang = language
    finished = [
        tr(lang, "{node} ({status})", node=n, status=state_said(lang, state.nodes[n].status))
        for n in state.order
        if state.nodes[n].status in ("succeeded", "failed")
    ]
    pending = [
        tr(
            lang,
            "{node} ({operation}, {effect}, key {key}…): {status}",
            node=e.node,
            operation=e.operation,
            effect=effect_said(e.effect, lang),
            key=e.key[:16],
            status=state_said(lang, "uncertain" if e.status == "failed" else e.status),
        )
        for e in state.effects_log.values()
        if e.outcome_unknown
    ]
    decisions = []
    if state.status == "awaiting_approval":
        effects = effects_said((state.awaiting or {}).get("effects", []), lang) or tr(lang, "its effects")
        decisions.append(
            tr(
                lang,
                "approve or reject run {run} ({effects}): `alicorn approve {run}`",
                run=state.run_id,
                effects=effects,
            )
        )
    for node in state.blocked():
        decisions.append(
            tr(
                lang,
                "say whether the effect of {node} happened: `alicorn resume {run} --resolve {node}=applied`",
                node=node,
                run=state.run_id,
            )
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
    language: str = "en",
) -> Report:
    """The safe stop: nothing new starts; what is known and missing, jobs finished, decisions, pending effects.
    The report's own sentences are in `language`; `why`, `known`, `missing` and `extra_decisions` are the caller's."""
    facts = run_facts(state, language) if state is not None else {"finished": [], "pending": [], "decisions": []}
    pending = facts["pending"] or [tr(language, "none: no effect was started and left without a result")]
    return Report(
        conversation=conversation,
        outcome="stopped_safely",
        headline=tr(language, "stopped safely: {why}", why=why),
        language=language,
        goal_hash=goal_hash,
        run=state.run_id if state is not None else None,
        known=known,
        missing=missing,
        jobs_finished=facts["finished"],
        decisions_needed=[*facts["decisions"], *(extra_decisions or [])],
        pending_effects=pending,
    )
