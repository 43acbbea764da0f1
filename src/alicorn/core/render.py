"""Printing a Core turn for a person: what was understood, the question, the plan and its effects, the report.

Every label is in the turn's language (alicorn.i18n); commands and identifiers stay as they are typed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.markup import escape

from alicorn.anvil.sentences import cause_of
from alicorn.anvil.words import effect_class
from alicorn.core.turn import Turn
from alicorn.i18n import catalog, tr, tr_marked, trn
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Registry

console = Console(highlight=False, soft_wrap=True, emoji=False)


def print_turn(turn: Turn, registry: Registry, *, source: str | None, models: Sequence[str] = ()) -> None:
    """One turn: the understanding (first time), then whatever the conversation now waits for or ended with.

    `models` are the turn's new model lines (`ModelNotes`): which profile each role got and why, failed calls."""
    lang = turn.language
    if source is not None:
        line = tr(lang, "conversation {conversation} · models: {source}", conversation=turn.conversation, source=source)
        console.print(f"[dim]{escape(line)}[/]")
    for line in models:
        console.print(f"  [dim]{escape(line)}[/]")
    if source is not None:
        for line in turn.understood:
            console.print(f"  {escape(line)}")
    if turn.phase == "asking" and turn.question:
        console.print(f"[bold yellow]{escape(tr(lang, 'question:'))}[/] {escape(turn.question)}")
        hint = tr(lang, 'answer with: alicorn ask --conversation {conversation} "…"', conversation=turn.conversation)
        console.print(f"  {escape(hint)}")
    if turn.phase == "waiting" and turn.plan is not None:
        n, digest = len(turn.plan.nodes), turn.plan.plan_hash()[:16]
        shape = trn(lang, "({n} node, hash {hash}…):", "({n} nodes, hash {hash}…):", n, hash=digest)
        console.print(f"[bold]{escape(tr(lang, 'plan'))}[/] {escape(shape)}")
        for node in turn.plan.nodes:
            effect = registry.get(node.operation).effect if node.operation in registry else "?"
            after = f" ← {', '.join(sorted(node.upstream()))}" if node.upstream() else ""
            console.print(f"  {node.node_id:<14} {node.operation:<28} {escape(effect_class(effect, lang))}{after}")
            if effect not in ("none", "read", "local_write", "?") and node.description:
                console.print(f"      {escape(described(node.description, lang))}")  # what it changes, for whom
        effects = "; ".join(turn.effects) or tr(lang, "none")
        console.print(f"[bold]{escape(tr(lang, 'effects:'))}[/] {escape(effects)}")
        if turn.proposal is not None:
            for reason in distinct_causes(turn.proposal.reasons, lang):
                console.print(f"[bold yellow]{escape(tr(lang, 'needs approval:'))}[/] {escape(reason)}")
            later = tr(
                lang,
                "decide later with: alicorn approve {run} (or reject), then alicorn ask --conversation {conversation}",
                run=turn.proposal.run,
                conversation=turn.conversation,
            )
            console.print(f"  {escape(later)}")
    if turn.phase == "queued" and turn.run is not None:
        line = tr(lang, "run {run} is queued: a worker drives it (`alicorn worker`)", run=turn.run)
        console.print(f"[bold]{escape(line)}[/]")
        if turn.status:
            console.print(f"  {escape(tr(lang, 'job:'))} {escape(turn.status)}")
        hint = tr(lang, "its report, once it has finished: alicorn ask --conversation {conversation}",
                  conversation=turn.conversation)  # fmt: skip
        console.print(f"  {escape(hint)}")
    if turn.answer:
        console.print(f"[bold]{escape(tr(lang, 'answer:'))}[/] {escape(turn.answer)}")
    if turn.report is not None:
        colour = {"complete": "green", "answered": "green", "triaged": "yellow", "partial": "yellow"}.get(
            turn.report.outcome, "red"
        )
        console.print(f"[bold {colour}]{escape(tr(lang, 'report'))}[/]")
        console.print(escape(turn.report.text()))


def described(description: str, language: str) -> str:
    """A node's description in `language` where a pack marked it as a message (`N_`) and it has a translation; as
    the plan holds it otherwise (the plan, and so its hash, keeps the words it was built with)."""
    return tr_marked(language, description) if catalog(language).get(description) else description


def distinct_causes(reasons: list[str], language: str = "en") -> list[str]:
    """Anvil gives one reason per checked operation; most share one cause. Each cause once, with its count."""
    seen: dict[str, int] = {}
    first: dict[str, str] = {}
    for reason in reasons:
        cause = cause_of(reason, language)
        seen[cause] = seen.get(cause, 0) + 1
        first.setdefault(cause, reason)
    return [
        first[c]
        + (" " + trn(language, "({n} operation, same cause)", "({n} operations, same cause)", n) if n > 1 else "")
        for c, n in seen.items()
    ]


def model_lines(events: Iterable[Event]) -> list[str]:
    """What a conversation's `model.routed`, `model.consulted`, `plans.consulted` and `llm.error` events say, one
    line each (repeats once): which profile each role got and why ("planner: ollama-qwen2.5-7b chosen because best
    local fit …"), or why none, which profiles a hard task was asked of and what the arbiter found, and each failed
    call with what the provider said (a server down, a recording that misses). English, like the router."""
    lines: list[str] = []
    for event in events:
        data = event.data
        if event.kind == "model.routed":
            role, pick = data.get("role"), data.get("pick")
            reason = data.get("reason") or "; ".join(str(r) for c in data.get("candidates", []) for r in c["reasons"])
            line = f"{role}: {pick} chosen because {reason}" if pick else f"{role}: no model, because {reason}"
        elif event.kind == "model.consulted":
            who = ", ".join(str(c.get("profile")) for c in data.get("consultants", []))
            line = f"{data.get('role')}: a hard task, asked of {who} (consultants; evidence, not votes, decides)"
        elif event.kind == "plans.consulted":
            verdict = data.get("verdict") or {}
            line = "plans: " + "; ".join(str(r) for r in verdict.get("reasons", [])[:3])
        elif event.kind == "llm.error":
            profile = (data.get("profile") or {}).get("id", "?")
            line = f"model {profile} failed ({data.get('error')}): {data.get('message')}"
            if data.get("error") in ("ProviderUnavailableError", "ProviderTimeoutError"):
                line += "; the request goes on without it"
        else:
            continue
        if line not in lines:
            lines.append(line)
    return lines


class ModelNotes:
    """The model lines of each conversation not shown yet, read from the journal (what Core journaled is what
    the person sees)."""

    def __init__(self, store: JournalStore) -> None:
        self.store = store
        self._shown: dict[str, int] = {}

    def skip(self, conversation: str) -> None:
        """Show only what comes after now (a conversation continued in a new process)."""
        self._shown[conversation] = self.store.last_seq(conversation)

    def new(self, conversation: str) -> list[str]:
        """The lines of the events journaled since the last call for `conversation`; none while the journal cannot
        be read (a stalled turn says so itself, and the lines show when the conversation is continued)."""
        from alicorn.errors import EnvironmentFailure

        try:
            events = self.store.read(conversation, after=self._shown.get(conversation, 0))
        except EnvironmentFailure:
            return []
        if events:
            self._shown[conversation] = events[-1].seq
        return model_lines(events)
