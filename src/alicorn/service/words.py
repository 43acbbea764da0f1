"""What the web UI's pages say, in the person's language (en, pl, ru), through `alicorn.i18n.tr`.

The templates never hold an English sentence of their own: they show `w.NAME`, from `words(language)`, so every
word a page shows is a literal msgid here, where tests/test_i18n.py finds it and checks that the Polish and Russian
catalogs (i18n/catalogs/service.*.po) translate it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import MappingProxyType

from alicorn.i18n import tr
from alicorn.state_words import state_words as _state_words

LANGUAGES = ("en", "pl", "ru")
LANGUAGE_NAMES = {"en": "English", "pl": "Polski", "ru": "Русский"}

Words = MappingProxyType[str, str]


def page_words(build: Callable[[str], dict[str, str]]) -> Callable[[str], Words]:
    """`build` (a language's words, each a literal `tr(lang, "…")` the i18n test extracts) made read-only and
    cached per language: the catalogs do not change while serving. Each part of the UI keeps its words with it."""

    @cache
    def frozen(language: str) -> Words:
        return MappingProxyType(build(language))

    frozen.__doc__ = build.__doc__
    return frozen


@page_words
def words(lang: str) -> dict[str, str]:
    """Every fixed word of the pages in `lang`; the templates see them as `w.NAME`."""
    return {
        "skip": tr(lang, "Skip to the content"),
        "runs": tr(lang, "Runs"),
        "inbox": tr(lang, "Inbox"),
        "chat": tr(lang, "Chat"),
        "passkeys": tr(lang, "Passkeys"),
        "sign_in": tr(lang, "Sign in"),
        "sign_out": tr(lang, "Sign out"),
        "signed_in_as": tr(lang, "Signed in as"),
        "language": tr(lang, "Language"),
        "name": tr(lang, "Name"),
        "password": tr(lang, "Password"),
        "signin_title": tr(lang, "Sign in to Alicorn"),
        "signin_hint": tr(lang, "Use your name in this home and the password set with `alicorn people password`."),
        "status": tr(lang, "Status"),
        "project": tr(lang, "Project"),
        "workflow": tr(lang, "Workflow"),
        "any": tr(lang, "any"),
        "show": tr(lang, "Show"),
        "run": tr(lang, "Run"),
        "goal": tr(lang, "Goal"),
        "created": tr(lang, "Created"),
        "nodes": tr(lang, "Nodes"),
        "no_runs": tr(lang, "No run matches these filters."),
        "next_page": tr(lang, "Next page"),
        "first_page": tr(lang, "First page"),
        "plan": tr(lang, "Plan"),
        "plan_drawing": tr(lang, "The plan as a graph: each node coloured by its state"),
        "goal_hash": tr(lang, "Goal hash"),
        "plan_hash": tr(lang, "Plan hash"),
        "proposed_by": tr(lang, "Proposed by"),
        "journal": tr(lang, "Journal"),
        "kind": tr(lang, "Kind"),
        "all_kinds": tr(lang, "all kinds"),
        "time": tr(lang, "Time"),
        "data": tr(lang, "Data"),
        "later_events": tr(lang, "Later events"),
        "effects": tr(lang, "Effects ledger"),
        "node": tr(lang, "Node"),
        "operation": tr(lang, "Operation"),
        "effect": tr(lang, "Effect"),
        "key": tr(lang, "Idempotency key"),
        "state": tr(lang, "State"),
        "intended_done": tr(lang, "intended → done"),
        "unknown_outcome": tr(lang, "outcome unknown: a person must resolve it"),
        "no_effects": tr(lang, "No effect was recorded."),
        "decisions": tr(lang, "Policy decisions"),
        "no_decisions": tr(lang, "No policy decision was journaled."),
        "decision": tr(lang, "Decision"),
        "why": tr(lang, "Why"),
        "live": tr(lang, "This part refreshes by itself while the run goes on."),
        "inbox_title": tr(lang, "Waiting for a person"),
        "inbox_empty": tr(lang, "Nothing waits for a decision."),
        "destinations": tr(lang, "Destinations"),
        "reasons": tr(lang, "Why approval is needed"),
        "comment": tr(lang, "Comment (journaled)"),
        "approve": tr(lang, "Approve"),
        "waits_for_approver": tr(
            lang, "The plan waits for a decision: an approver or an admin of this home decides in the Inbox."
        ),
        "reject": tr(lang, "Reject"),
        "reject_reason": tr(lang, "Reason for rejecting (journaled)"),
        "chat_title": tr(lang, "Ask Alicorn"),
        "request": tr(lang, "Your request"),
        "send": tr(lang, "Send"),
        "conversation": tr(lang, "Conversation"),
        "understood": tr(lang, "What Core understood"),
        "contract": tr(lang, "Outcome contract"),
        "question": tr(lang, "Question"),
        "answer": tr(lang, "Your answer"),
        "report": tr(lang, "Report"),
        "outcome": tr(lang, "Outcome"),
        "working": tr(lang, "Working… this page refreshes by itself."),
        "queued": tr(lang, "A worker drives this run (alicorn worker); this page refreshes by itself. Its job:"),
        "refused": tr(lang, "Refused"),
        "not_found": tr(lang, "Not found"),
        "back_to_runs": tr(lang, "Back to the runs"),
        "recent": tr(lang, "Recent conversations"),
        "phase": tr(lang, "Phase"),
        "known": tr(lang, "What is known"),
        "evidence": tr(lang, "Evidence"),
        "missing": tr(lang, "Missing"),
        "conflicts": tr(lang, "Conflicts"),
        "jobs_finished": tr(lang, "Jobs finished"),
        "decisions_needed": tr(lang, "Decisions needed"),
        "pending_effects": tr(lang, "Effects that may be pending"),
        "artifacts": tr(lang, "Artifacts"),
        "approver": tr(lang, "Approver"),
        "approved_by": tr(lang, "Approved by"),
        "result": tr(lang, "The result"),
        "files": tr(lang, "Files the run wrote"),
        "files_hint": tr(lang, "Each is a download, with its SHA-256; nothing here is opened in the browser."),
        "no_files": tr(lang, "The run wrote no files."),
        "resolve_title": tr(lang, "Effects waiting for a person"),
        "resolve_hint": tr(
            lang,
            "Nobody knows whether these effects happened. Check the target system, then say what you found: the run "
            "goes on from your answer, and it is journaled with your name.",
        ),
        "applied": tr(lang, "It happened (applied)"),
        "not_applied": tr(lang, "It did not happen (not applied)"),
        "resolve_output": tr(lang, "Its output, as JSON (when it happened)"),
        "resolve_note": tr(lang, "How you know (journaled)"),
        "resolve": tr(lang, "Resolve"),
        "attach_title": tr(lang, "Send the file"),
        "attach_file": tr(lang, "File with the data"),
        "attach_note": tr(lang, "A few words with it (optional)"),
        "attach_send": tr(lang, "Upload and go on"),
        "attach_request": tr(lang, "Files for the request (optional)"),
        "attach_sent": tr(lang, "Files sent"),
    }


@page_words
def state_words(lang: str) -> dict[str, str]:
    """The states of runs and of their nodes as the pages show them in `lang` (templates: `st.get(state, state)`);
    the state's own name stays in every attribute (`class="badge s-running"`, `data-*`) and in JSON."""
    return _state_words(lang)
