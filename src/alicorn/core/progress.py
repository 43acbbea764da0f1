"""What `alicorn ask` shows while Core works: each step as it happens, read from the journal as it is committed.

Core and the runtime already journal every step (`intent.classified`, `workflow.selected`, … `report.written` in the
conversation; `run.created`, `anvil.check`, `tool.call`, `node.succeeded`, … in the run), so the view observes the
store (`JournalStore.observe`) instead of being called from Core: it cannot change what Core does, and it shows only
what is durable. It draws a rich live display:

    ✓ understood: task, language en, forbids publication           0.0s
    ✓ workflow: schedule (chosen by examples)                       0.0s
    …
      ✓ load           schedule.load_inputs         read            0.0s
      ⠹ candidates     schedule.generate_variants   none            4.2s   ← ticks while the node runs

Finished lines stay (printed above the live region); the spinner lines are transient and gone once it stops. The
labels are in the request's language (`intent.classified`'s `language`, English before it is known). Elapsed times
come from the monotonic clock given to the constructor. Disabled (`--quiet`, or stdout is not a terminal), it
subscribes to nothing and writes nothing. Only `around(core)` shows anything: the display runs while a Core call
works and is stopped before the call returns, so prompts and the printed turn never meet it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from alicorn.anvil.words import effects_said
from alicorn.core.decided import choice_said, kind_said, severity_said
from alicorn.i18n import tr, tr_marked, trn
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore

Mark = Literal["done", "partial", "failed", "retry", "skipped", "waiting", "info"]
MARKS: dict[str, tuple[str, str]] = {
    "done": ("✓", "green"),
    "partial": ("!", "yellow"),
    "failed": ("✗", "red"),
    "retry": ("↻", "yellow"),
    "skipped": ("–", "dim"),
    "waiting": ("?", "yellow"),
    "info": ("·", "cyan"),
}
#: The spinner's frames and seconds per frame (rich's "dots"), drawn from the injected clock.
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAME_S = 0.08
#: Norbi's calls that work (and so are shown while they run).
WORKING = frozenset({"receive", "reply", "advance", "approve", "reject", "close", "replan"})


@dataclass(frozen=True, slots=True)
class Step:
    """One finished line: what completed and how, how long it took (None for an instant), and the node if any."""

    mark: Mark
    text: str
    seconds: float | None = None
    node: str | None = None


@dataclass(slots=True)
class _Running:
    operation: str
    effect: str
    attempt: int
    since: float


def node_columns(node: str, operation: str, effect: str) -> str:
    """A node's id, operation and effect class in the columns `print_turn` uses for plans."""
    return f"{node:<14} {operation:<28} {effect:<21}"


#: Step texts are padded to this width so their times line up with the nodes' (indent + mark + columns).
STEP_WIDTH = 2 + len(node_columns("", "", ""))


class ProgressView:
    """Turns committed journal events into lines of a live display (see the module docstring).

    `steps` records every finished line in order (what the display showed, in plain text), for tests and callers.
    Thread-safe: appends (so `on_events`) may come from any thread, and rich's refresh thread draws meanwhile.
    """

    def __init__(
        self,
        console: Console | None = None,
        *,
        enabled: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
        refresh_per_second: float = 12.5,
    ) -> None:
        self.enabled = enabled
        self.console = console if console is not None else Console()
        self.language = "en"
        self.steps: list[Step] = []
        self._clock = monotonic
        self._refresh = refresh_per_second
        self._lock = threading.Lock()  # guards the state below; never held while printing or drawing
        self._live: Live | None = None
        self._label: str | None = None
        self._since = 0.0
        self._started = 0.0
        self._model: str | None = None
        self._running: dict[str, _Running] = {}
        self._checks: dict[str, int] = {}
        self._anvil_since = 0.0
        self._run_since: dict[str, float] = {}
        self._chance: float | None = None
        self._slots: str | None = None

    # ---- wiring ---------------------------------------------------------------------------------------------

    def observe(self, store: JournalStore) -> Callable[[], None]:
        """Follow `store`'s committed appends; returns the unsubscribe. Disabled: subscribes to nothing."""
        if not self.enabled:
            return lambda: None
        return store.observe(self.on_events)

    def around(self, core: Any) -> Any:
        """`core` whose working calls (receive, reply, approve…) are shown live while they run; `core` itself when
        disabled. The display is stopped when each call returns or raises."""
        return _Shown(core, self) if self.enabled else core

    @contextmanager
    def shown(self) -> Iterator[None]:
        """The live display for the duration of the block (nothing when disabled)."""
        self.start()
        try:
            yield
        finally:
            self.stop()

    def start(self) -> None:
        if not self.enabled or self._live is not None:
            return
        with self._lock:
            if self._label is None:
                self._label, self._since = tr(self.language, "working"), self._clock()
        live = Live(
            get_renderable=self._render,
            console=self.console,
            transient=True,
            refresh_per_second=self._refresh,
            redirect_stdout=True,
            redirect_stderr=True,
        )
        self._started = self._clock()
        live.start(refresh=True)
        self._live = live

    def stop(self) -> None:
        """Stop drawing: the spinner lines go, the finished lines stay. Safe to call when not started."""
        live, self._live = self._live, None
        if live is not None:
            live.stop()
        with self._lock:
            self._label, self._model = None, None

    def __enter__(self) -> ProgressView:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- events ---------------------------------------------------------------------------------------------

    def on_events(self, stream: str, events: Sequence[Event]) -> None:
        """A committed append (the store's observer): record what finished, say what is running now."""
        with self._lock:
            before = len(self.steps)
            for event in events:
                if event.kind not in ("anvil.check", "anvil.inputs", "run.created"):
                    self._anvil_decided()
                self._event(stream, event)
            self._anvil_decided()
            finished = self.steps[before:]
        live = self._live
        if live is not None:
            for step in finished:
                live.console.print(self._line(step), soft_wrap=False, crop=True, overflow="ellipsis", no_wrap=True)

    def _event(self, stream: str, event: Event) -> None:
        kind, data, lang = event.kind, event.data, self.language
        if kind == "intent.received":
            self._begin(tr(lang, "understanding the request"))
        elif kind == "intent.classified":
            self.language = lang = str(data.get("language") or "en")
            forbidden = effects_said(data.get("forbidden") or (), lang)
            kind = kind_said(str(data.get("kind")), lang)
            text = tr(lang, "understood: {kind}, language {language}", kind=kind, language=lang)
            if forbidden:
                text += tr(lang, ", forbids {effects}", effects=forbidden)
            self._finish("done", text)
            if data.get("kind") == "alarm":
                self._begin(tr(lang, "triaging the alarm"))
            elif data.get("kind") in ("question", "conversation"):
                self._begin(tr(lang, "answering"))
            else:
                self._begin(tr(lang, "choosing the workflow"))
        elif kind == "intent.reclassified":
            if data.get("was") == "alarm" and data.get("workflow"):
                said = tr(
                    lang, "the alarm asks for the work of workflow {workflow}: doing it now", workflow=data["workflow"]
                )
            else:
                said = tr(lang, "taken as work: {why}", why=data.get("why", ""))
            self._finish("done", said)
            self._begin(tr(lang, "choosing the workflow"))
        elif kind == "workflow.selected":
            if data.get("workflow"):
                how = choice_said(data.get("decided_by"), lang)
                self._finish(
                    "done", tr(lang, "workflow: {workflow} (chosen by {how})", workflow=data["workflow"], how=how)
                )
                self._begin(tr(lang, "filling the workflow's slots"))
            else:
                self._finish("waiting", tr(lang, "no workflow template fits the request"))
                self._begin(tr(lang, "working"))
        elif kind == "slots.filled":
            missing = list(data.get("missing") or ())
            if missing:
                self._finish("waiting", tr(lang, "slots missing: {names}", names=", ".join(missing)))
                self._begin(tr(lang, "working"))
            else:
                values = ", ".join(f"{k}={v}" for k, v in sorted((data.get("parameters") or {}).items()))
                text = tr(lang, "slots filled: {values}", values=values)
                if self._slots != text:  # filled again after the data was found: said once
                    self._slots = text
                    self._finish("done", text)
                self._begin(tr(lang, "preparing the outcome contract"))
        elif kind == "data.found":
            names = ", ".join(str(i.get("input")) for i in data.get("inputs") or ())
            self._finish("done", tr(lang, "data found: {inputs}", inputs=names))
            self._begin(tr(lang, "fixing the outcome contract"))
        elif kind == "clarification.asked":
            self._finish("waiting", tr(lang, "a question for you"))
            self._label = None
        elif kind == "clarification.answered":
            self._finish("info", tr(lang, "answer received"), instant=True)
            self._begin(tr(lang, "working"))
        elif kind == "contract.fixed":
            goal = str(data.get("goal_hash", ""))[:12]
            self._finish("done", tr(lang, "contract fixed, goal hash {hash}…", hash=goal))
            self._begin(tr(lang, "planning"))
        elif kind == "world.predicted":
            picked: dict[str, Any] = next(
                (c for c in data.get("candidates", ()) if c.get("candidate") == data.get("picked")), {}
            )
            chance = (picked.get("plan") or {}).get("p")
            self._chance = float(chance) if isinstance(chance, int | float) else None
        elif kind in ("plan.proposed", "replan.proposed"):
            nodes = len((data.get("plan") or {}).get("nodes") or ())
            source = str(data.get("source", ""))
            if kind == "replan.proposed":
                text = trn(
                    lang, "a new plan for the same goal: {n} node", "a new plan for the same goal: {n} nodes", nodes
                )
            else:
                text = trn(lang, "plan: {n} node ({source})", "plan: {n} nodes ({source})", nodes, source=source)
            if self._chance is not None and kind == "plan.proposed":
                text += tr(lang, ", predicted chance {chance}", chance=f"{self._chance:.0%}")
            self._finish("done", text)
            self._begin(tr(lang, "Anvil is checking the plan"))
            self._anvil_since = self._clock()
        elif kind == "run.created":
            self._run_since[stream] = self._clock()
        elif kind == "anvil.check":
            decision = str(data.get("decision", "allow"))
            self._checks[decision] = self._checks.get(decision, 0) + 1
        elif kind == "budget.exceeded":
            self._finish("failed", tr(lang, "budget exceeded at {node}", node=data.get("node", "?")), instant=True)
        elif kind == "run.awaiting_approval":
            self._finish("waiting", tr(lang, "the plan waits for a human's approval"), instant=True)
            self._label = None
        elif kind == "approval.granted":
            self._finish("done", tr(lang, "approved by {who}", who=data.get("by", "?")), instant=True)
            self._begin(tr(lang, "running the plan"))
        elif kind == "approval.rejected":
            self._finish("failed", tr(lang, "rejected by {who}", who=data.get("by", "?")), instant=True)
            self._begin(tr(lang, "working"))
        elif kind == "run.resumed":
            self._run_since[stream] = self._clock()  # the run's time counts from here, not from before a wait
            if data.get("interrupted"):
                self._finish("info", tr(lang, "the run resumes after an interruption"), instant=True)
        elif kind == "tool.call":
            node = str(data.get("node", "?"))
            attempt = int(data.get("attempt") or 1)
            self._running[node] = _Running(
                str(data.get("op", "?")), str(data.get("effect", "?")), attempt, self._clock()
            )
        elif kind in ("node.succeeded", "node.failed", "node.skipped"):
            self._node_ended(kind, data)
        elif kind == "node.activated":
            text = tr(lang, "{node} takes over from {failed}", node=data.get("node"), failed=data.get("instead_of"))
            self._finish("info", text, instant=True)
        elif kind == "run.stopped":
            self._finish("failed", tr(lang, "the run stops: {why}", why=data.get("reason", "")), instant=True)
        elif kind == "run.finished":
            self._running.clear()
            since = self._run_since.pop(stream, self._since)
            mark: Mark = "done" if data.get("status") == "succeeded" else "failed"
            status = tr_marked(lang, str(data.get("status", "?")))
            text = tr(lang, "run {run} finished: {status}", run=stream, status=status)
            self.steps.append(Step(mark, text, self._clock() - since))
            self._begin(tr(lang, "validating the result"))
        elif kind == "validation.done":
            checks = data.get("checks") or ()
            passed = sum(1 for c in checks if c.get("passed"))
            status = tr_marked(lang, str(data.get("status", "?")))
            text = tr(lang, "validated: {status}, {passed} of {total} checks passed", status=status, passed=passed,
                      total=len(checks))  # fmt: skip
            self._finish(_mark_of(str(data.get("status"))), text)
            self._begin(tr(lang, "writing the report"))
        elif kind == "answer.given":
            self._finish("done", tr(lang, "answer given"))
            self._begin(tr(lang, "writing the report"))
        elif kind == "triage.done":
            severity = severity_said(str(data.get("severity", "?")), lang)
            self._finish("done", tr(lang, "triaged: {severity}", severity=severity))
            self._begin(tr(lang, "writing the report"))
        elif kind == "report.written":
            outcome = str(data.get("outcome", "?"))
            self._finish(_mark_of(outcome), tr(lang, "report written: {outcome}", outcome=tr_marked(lang, outcome)))
            self._label = None
        elif kind == "llm.request":
            self._model = str((data.get("profile") or {}).get("id") or "?")
        elif kind in ("llm.response", "llm.error"):
            self._model = None

    def _node_ended(self, kind: str, data: dict[str, Any]) -> None:
        lang = self.language
        node = str(data.get("node", "?"))
        running = self._running.pop(node, None)
        seconds = self._clock() - running.since if running is not None else None
        columns = node_columns(node, running.operation, running.effect) if running is not None else f"{node:<14}"
        reason = data.get("reason", "")
        if kind == "node.succeeded":
            self.steps.append(Step("done", columns, seconds, node))
        elif kind == "node.skipped":
            self.steps.append(Step("skipped", columns + " " + tr(lang, "skipped: {reason}", reason=reason), None, node))
        elif data.get("final", True):
            self.steps.append(
                Step("failed", columns + " " + tr(lang, "failed: {reason}", reason=reason), seconds, node)
            )
        else:
            wait = tr(lang, "retry in {seconds} s: {reason}", seconds=data.get("retry_in_s", 0), reason=reason)
            self.steps.append(Step("retry", columns + " " + wait, seconds, node))

    def _anvil_decided(self) -> None:
        """One line for a batch of Anvil's checks (one per operation), once the batch is over."""
        if not self._checks:
            return
        checks, self._checks = self._checks, {}
        lang, total, now = self.language, sum(checks.values()), self._clock()
        seconds = now - self._anvil_since if self._anvil_since else None
        self._anvil_since = 0.0
        if checks.get("deny"):
            text = trn(lang, "Anvil denies {n} operation", "Anvil denies {n} operations", checks["deny"])
            self.steps.append(Step("failed", text, seconds))
        elif checks.get("needs_approval"):
            n = checks["needs_approval"]
            text = trn(lang, "Anvil: {n} operation needs a human's approval",
                       "Anvil: {n} operations need a human's approval", n)  # fmt: skip
            self.steps.append(Step("waiting", text, seconds))
        else:
            text = trn(lang, "Anvil allows the plan ({n} operation checked)",
                       "Anvil allows the plan ({n} operations checked)", total)  # fmt: skip
            self.steps.append(Step("done", text, seconds))
            self._label, self._since = tr(lang, "running the plan"), now

    def _begin(self, label: str) -> None:
        self._label, self._since = label, self._clock()

    def _finish(self, mark: Mark, text: str, *, instant: bool = False) -> None:
        self.steps.append(Step(mark, text, None if instant else self._clock() - self._since))

    # ---- drawing ----------------------------------------------------------------------------------------------

    def _line(self, step: Step) -> Text:
        symbol, style = MARKS[step.mark]
        line = Text("  " if step.node is not None else "", no_wrap=True, overflow="ellipsis")
        line.append(f"{symbol} ", style=style)
        line.append(step.text.ljust(STEP_WIDTH) if step.node is None and step.seconds is not None else step.text)
        if step.seconds is not None:
            line.append(f"  {step.seconds:.1f}s", style="dim")
        return line

    def __rich__(self) -> RenderableType:
        """The live region as it is now (what the display draws at each refresh)."""
        return self._render()

    def _render(self) -> RenderableType:
        """What the live region shows now: a spinner line per running node, else one for the current step."""
        with self._lock:
            now = self._clock()
            label, since, model = self._label, self._since, self._model
            running = sorted(self._running.items(), key=lambda item: item[1].since)
            lang = self.language
        frame = FRAMES[int((now - self._started) / FRAME_S) % len(FRAMES)]
        lines: list[RenderableType] = []
        for node, r in running:
            line = Text(f"  {frame} ", style="cyan", no_wrap=True, overflow="ellipsis")
            line.append(node_columns(node, r.operation, r.effect), style="")
            if r.attempt > 1:
                line.append(" " + tr(lang, "attempt {n}", n=r.attempt), style="yellow")
            line.append(f"  {now - r.since:.1f}s", style="dim")
            lines.append(line)
        if not running and label is not None:
            line = Text(f"{frame} ", style="cyan", no_wrap=True, overflow="ellipsis")
            shown = f"{label}…"
            if model is not None:
                shown += " · " + tr(lang, "asking the model {model}", model=model)
            line.append(shown.ljust(STEP_WIDTH), style="bold")
            line.append(f"  {now - since:.1f}s", style="dim")
            lines.append(line)
        return Group(*lines)


def _mark_of(outcome: str) -> Mark:
    """A validation's or a report's outcome as a mark: partial is not a failure."""
    if outcome in ("complete", "answered", "triaged"):
        return "done"
    return "partial" if outcome == "partial" else "failed"


class _Shown:
    """Norbi with each working call shown live while it runs (see `ProgressView.around`)."""

    def __init__(self, core: Any, view: ProgressView) -> None:
        self._core = core
        self._view = view

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._core, name)
        if name not in WORKING or not callable(attribute):
            return attribute

        def shown(*args: Any, **kwargs: Any) -> Any:
            with self._view.shown():
                return attribute(*args, **kwargs)

        return shown
