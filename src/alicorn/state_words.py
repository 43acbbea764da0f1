"""The states of runs, nodes and effects in words: one table for every place that shows them to a person (Core's
report and the service's pages). The state's own name stays what the journal and every API say."""

from __future__ import annotations

from alicorn.i18n import N_, tr_marked

STATE_WORDS: dict[str, str] = {
    # runs and nodes
    "running": N_("running"),
    "awaiting_approval": N_("awaiting_approval"),
    "blocked": N_("blocked"),
    "cancelled": N_("cancelled"),
    "denied": N_("denied"),
    "failed": N_("failed"),
    "partial": N_("partial"),
    "rejected": N_("rejected"),
    "replaced": N_("replaced"),
    "stopped": N_("stopped"),
    "succeeded": N_("succeeded"),
    "withdrawn": N_("withdrawn"),
    "interrupted": N_("interrupted"),
    "pending": N_("pending"),
    "standby": N_("standby"),
    "skipped": N_("skipped"),
    # an effect's states (the effects ledger: intended -> done, ...)
    "intended": N_("intended"),
    "done": N_("done"),
    "uncertain": N_("uncertain"),
    "checking": N_("checking"),
    "unknown": N_("unknown"),
    "compensating": N_("compensating"),
    "compensated": N_("compensated"),
    "compensation_failed": N_("compensation failed"),
    "compensation_unknown": N_("compensation unknown"),
}


def state_said(language: str, state: str) -> str:
    """`state` in `language`; a state no table names is shown as it is."""
    message = STATE_WORDS.get(state)
    return tr_marked(language, message) if message is not None else state


def state_words(language: str) -> dict[str, str]:
    """Every known state in `language` (templates: `st.get(state, state)`)."""
    return {state: tr_marked(language, message) for state, message in STATE_WORDS.items()}
