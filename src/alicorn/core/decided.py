"""How Core decided what it understood, said in the request's language.

The journal keeps each decision's source as a short code (`{"kind": "rules", "forbidden": "lexicon"}`, a workflow
`"words+model"`): exact, and what `alicorn why` and the tests read. A person reading `alicorn ask` gets words:
"kind by rules, prohibitions by the lexicon, language by language identification". A code this module does not
know is shown as it is, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping

from alicorn.i18n import N_, tr, tr_marked

#: The kinds of request, as a person says them.
_KINDS = {
    "task": N_("task"),
    "process": N_("recurring process"),
    "alarm": N_("alarm"),
    "question": N_("question"),
    "conversation": N_("conversation"),
}
#: What each classified field is called.
_FIELDS = {
    "kind": N_("kind"),
    "forbidden": N_("prohibitions"),
    "language": N_("language"),
    "recurrence": N_("recurrence"),
}
#: What decided it.
_SOURCES = {
    "rules": N_("rules"),
    "lexicon": N_("the lexicon"),
    "langid": N_("language identification"),
    "model": N_("the model"),
    "nearest_examples": N_("the nearest examples"),
    "recurrence": N_("the recurrence rules"),
    "rules(weak)": N_("rules (weak)"),
    "rules(prohibition)": N_("a prohibition in the request"),
    "nearest_examples(weak)": N_("the nearest examples (weak)"),
    "default": N_("the default"),
}
#: How a workflow was chosen (the code's start), and what may follow it.
_CHOICES = {
    "words": N_("the request's words"),
    "examples": N_("similar examples"),
    "human": N_("your answer"),
}
_AGREEMENT = {
    "+model": N_("the model agreeing"),
    "(model disagreed)": N_("the model disagreeing"),
}


#: An alarm's severity as triage sets it (alicorn.core.understand.triage).
_SEVERITIES = {"critical": N_("critical"), "high": N_("high"), "normal": N_("normal")}


def severity_said(severity: str, language: str) -> str:
    """A triage's severity in `language` (an unknown one as it is)."""
    return tr_marked(language, _SEVERITIES[severity]) if severity in _SEVERITIES else severity


def triage_said(severity: str, action: str, language: str) -> str:
    """ "alarm triaged as critical: a human must look now…" in `language`, from a triage's severity and its marked
    action (an unknown one is shown as it is)."""
    return tr(
        language,
        "alarm triaged as {severity}: {action}",
        severity=severity_said(severity, language),
        action=tr_marked(language, action),
    )


def kind_said(kind: str, language: str) -> str:
    """A request's kind ("task", "alarm"…) in `language`."""
    return tr_marked(language, _KINDS[kind]) if kind in _KINDS else kind


def signals_said(decided_by: Mapping[str, str] | str, language: str) -> str:
    """`{"kind": "rules", …}` as "kind: rules, …" in `language`."""
    if not isinstance(decided_by, Mapping):
        return str(decided_by)
    parts = []
    for field, source in decided_by.items():
        name = tr_marked(language, _FIELDS[field]) if field in _FIELDS else field
        how = tr_marked(language, _SOURCES[source]) if source in _SOURCES else source
        parts.append(f"{name}: {how}")
    return ", ".join(parts)


def choice_said(decided_by: str | None, language: str) -> str:
    """A workflow choice's code ("words+model", "examples", "human") in `language`."""
    code = str(decided_by or "")
    for start, words in _CHOICES.items():
        if code.startswith(start):
            rest = code[len(start) :]
            said = tr_marked(language, words)
            if rest in _AGREEMENT:
                said += ", " + tr_marked(language, _AGREEMENT[rest])
            elif rest:
                said += f" {rest}"
            return said
    return code
