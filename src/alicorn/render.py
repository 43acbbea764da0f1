"""Terminal rendering for the CLI (rich): progress, run summaries, a run's nodes and its DAG, events."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from alicorn.runtime.liveness import Driver, probe
from alicorn.runtime.state import TERMINAL_RUN, RunState, pending_effects

if TYPE_CHECKING:  # rich.progress is imported by Progress (runs and resumes), not by the commands that only read
    from alicorn.journal.events import Event
    from alicorn.journal.store import JournalStore

# Piped output keeps whole lines (rich would wrap at 80 columns).
console = Console(highlight=False, emoji=False, width=None if sys.stdout.isatty() else 200)

_STYLE = {
    "done": "green",
    "compensated": "cyan",
    "intended": "magenta",
    "unknown": "bold magenta",
    "uncertain": "magenta",
    "blocked": "bold magenta",
    "cancelled": "yellow",
    "compensation_failed": "red",
    "succeeded": "green",
    "running": "cyan",
    "pending": "dim",
    "standby": "dim",
    "failed": "red",
    "skipped": "yellow",
    "partial": "yellow",
    "stopped": "yellow",
    "awaiting_approval": "magenta",
    "denied": "red",
    "rejected": "red",
    "replaced": "cyan",
    "allow": "green",
    "needs_approval": "magenta",
    "deny": "red",
    "stop": "yellow",
}


def _styled(status: str) -> str:
    return f"[{_STYLE.get(status, 'white')}]{status}[/]"


class Progress:
    """A progress bar fed by the executor's event listener (nodes finished / total)."""

    def __init__(self, total: int, *, enabled: bool = True) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        self._enabled = enabled and console.is_terminal
        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._bar.add_task("running", total=total)

    def __enter__(self) -> Progress:
        if self._enabled:
            self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._enabled:
            self._bar.stop()

    def update(self, events: Sequence[Event]) -> None:
        done = sum(
            1
            for e in events
            if e.kind in ("node.succeeded", "node.skipped") or (e.kind == "node.failed" and e.data.get("final"))
        )
        if done:
            self._bar.advance(self._task, done)
        last = events[-1]
        self._bar.update(self._task, description=f"{last.kind} {last.data.get('node', '')}".strip())


def _duration(start: str | None, end: str | None) -> str:
    if not start or not end:
        return ""
    seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _driver(store: JournalStore, run_id: str, status: str) -> Driver | None:
    """For a run the journal says is running: whether its driver is alive (a probe of its lock; writes nothing)."""
    return probe(store, run_id) if status == "running" else None


def _status_line(state: RunState, driver: Driver | None) -> str:
    """The run's status, styled; a running one says whether its driver is alive or the run was interrupted."""
    if driver is None:
        return _styled(state.status)
    style = "cyan" if driver.alive else "bold yellow"
    return f"[{style}]{escape(driver.describe(state.run_id))}[/]"


#: Every status a run can have (runtime/state.py): what `alicorn runs --status` accepts.
RUN_STATUSES = ("running", "awaiting_approval", "blocked", *sorted(TERMINAL_RUN))


def run_summaries(store: JournalStore, *, limit: int | None = None, status: str | None = None) -> list[dict[str, Any]]:
    """One summary per run, newest created first (at most `limit`; only those with `status`): status, goal, node
    counts, events and sizes, from the journal's run-summary rows (journal/summaries.py), folding nothing; for a
    running run, whether its driver is alive (a probe of its lock)."""
    out = []
    for summary in store.run_summaries(limit=limit, status=status):
        run = summary.stream
        driver = _driver(store, run, summary.status)
        out.append(
            {
                "run": run,
                "status": summary.status,
                **({"driver": driver.to_json(), "status_line": driver.describe(run)} if driver else {}),
                "goal": summary.goal,
                "nodes": summary.nodes,
                "succeeded": summary.succeeded,
                "events": summary.events,
                "bytes": summary.bytes,
                "archived_bytes": summary.archived_bytes,
                "created": summary.created,
                "finished": summary.finished,
            }
        )
    return out


def print_runs(summaries: list[dict[str, Any]], *, status: str | None = None) -> None:
    if not summaries:
        if status is not None:
            console.print(f"no run is {status}", markup=False)
        else:
            console.print("no runs yet; `alicorn run PLAN.json` or `alicorn demo` starts one")
        return
    header = ("run", "status", "nodes ok", "events", "size", "created", "goal")
    rows = []
    for s in summaries:
        size = f"{s['bytes']:,} B" + (f" ({s['archived_bytes']:,} B archived)" if s["archived_bytes"] else "")
        driver = s.get("driver")
        status_cell = (s["status"], _STYLE.get(s["status"], "white"))
        if driver is not None:
            status_cell = (s["status_line"], "cyan" if driver["alive"] else "bold yellow")
        rows.append(
            [
                (s["run"], ""),
                status_cell,
                (f"{s['succeeded']}/{s['nodes']}", ""),
                (str(s["events"]), ""),
                (size, ""),
                (s["created"][:19], ""),
                (s["goal"][:60], ""),  # the user's words: never read as markup
            ]
        )
    print_table(header, rows)


def print_table(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]], *, title: str | None = None) -> None:
    """A table of (text, style) cells, the text printed as written (never read as markup): drawn directly where it
    is one plain line per cell and fits the terminal (`drawn_table`), else laid out by rich's Table."""
    drawn = drawn_table(header, rows, console.width)
    if drawn is not None:
        if title is not None:
            console.print(Text(title, style="italic"), justify="center", width=cell_width(header, rows))
        console.print(drawn, soft_wrap=True)
        return
    table = Table(*header, title=title)
    for row in rows:
        table.add_row(*(Text(text, style=style or "") for text, style in row))
    console.print(table)


def drawn_table(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]], width: int) -> Text | None:
    """`rows` of (text, style) cells drawn as rich's default `Table` draws them (heavy head, one space of padding),
    as one `Text`: rich lays out 50 runs in ~100 ms, this takes ~2 ms. None where rich would lay them out otherwise:
    a cell that is not one printable line, or a table wider than `width` (rich then wraps the widest columns)."""
    from rich.cells import cell_len

    if any(not text.isprintable() for row in rows for text, _ in row):
        return None
    widths = _widths(header, rows)
    if sum(widths) + 3 * len(widths) + 1 > width:
        return None
    drawn = Text()

    def rule(left: str, line: str, joint: str, right: str) -> None:
        drawn.append(left + joint.join(line * (w + 2) for w in widths) + right + "\n")

    def cells(edge: str, row: Sequence[tuple[str, str]]) -> None:
        drawn.append(edge)
        for (text, style), w in zip(row, widths, strict=True):
            drawn.append(" ")
            drawn.append(text, style=style or None)
            drawn.append(" " * (w - cell_len(text) + 1) + edge)
        drawn.append("\n")

    rule("┏", "━", "┳", "┓")
    cells("┃", [(name, "bold") for name in header])
    rule("┡", "━", "╇", "┩")
    for row in rows:
        cells("│", row)
    rule("└", "─", "┴", "┘")
    drawn.rstrip()
    return drawn


def _widths(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]]) -> list[int]:
    from rich.cells import cell_len

    return [max([cell_len(name)] + [cell_len(row[i][0]) for row in rows]) for i, name in enumerate(header)]


def cell_width(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]]) -> int:
    """How many terminal cells wide `drawn_table` draws these rows."""
    widths = _widths(header, rows)
    return sum(widths) + 3 * len(widths) + 1


def _dag(state: RunState) -> Tree:
    """The plan as a tree: each node under its last upstream node (in plan order), other parents named."""
    nodes = state.plan["nodes"]
    order = {n["node_id"]: i for i, n in enumerate(nodes)}
    ups = {
        n["node_id"]: sorted(
            set(n.get("depends_on", [])) | {b["ref"]["node"] for b in n.get("inputs", {}).values() if "ref" in b},
            key=order.__getitem__,
        )
        for n in nodes
    }
    alternatives = {n["alternative"]: n["node_id"] for n in nodes if n.get("alternative")}
    children: dict[str, list[str]] = {n["node_id"]: [] for n in nodes}
    roots: list[str] = []
    for n in nodes:
        node_id = n["node_id"]
        parent = ups[node_id][-1] if ups[node_id] else alternatives.get(node_id)
        (children[parent] if parent else roots).append(node_id)
    tree = Tree(f"[bold]{state.plan.get('goal', '')[:100]}[/]")

    def add(branch: Tree, node: dict[str, Any]) -> None:
        node_id = node["node_id"]
        extra = ""
        if len(ups[node_id]) > 1:
            extra += f" [dim](also after {', '.join(ups[node_id][:-1])})[/]"
        if node_id in alternatives:
            extra += f" [dim](alternative to {alternatives[node_id]})[/]"
        sub = branch.add(f"{node_id} [dim]{node['operation']}[/] {_styled(state.nodes[node_id].status)}{extra}")
        for child in children[node_id]:
            add(sub, nodes[order[child]])

    for root in roots:
        add(tree, nodes[order[root]])
    return tree


def print_run(state: RunState, store: JournalStore, *, detailed: bool = False) -> None:
    """A run's headline, its nodes table, effects, and (detailed) its DAG."""
    console.print(
        f"run [bold]{state.run_id}[/]: {_status_line(state, _driver(store, state.run_id, state.status))}"
        + (f" — {state.stop_reason}" if state.stop_reason else "")
    )
    created = store.read(state.run_id)[:1] if detailed else []
    trigger = created[0].data.get("trigger") if created and created[0].kind == "run.created" else None
    if trigger:  # a schedule's firing started this run's request (its record, as the run's terms journaled it)
        console.print(
            f"triggered by schedule {trigger['schedule']}: slot {trigger['slot']}, fired at {trigger['fired_at']} "
            f"(`alicorn schedule show {trigger['schedule']}`)",
            markup=False,
        )
    if state.status == "awaiting_approval" and state.awaiting:
        console.print("[magenta]waiting for approval[/] (proposed by " + f"{state.proposed_by}):")
        for reason in state.awaiting.get("reasons", [state.awaiting.get("reason", "")]):
            console.print(f"  - {reason}", soft_wrap=True, markup=False)
        console.print(
            f"approve with: alicorn approve {state.run_id} --plan-hash {state.plan_hash} (run by an enrolled "
            f"approver other than {state.proposed_by}); or: alicorn reject {state.run_id} --reason WHY"
        )
    if state.status in ("denied", "rejected", "replaced") and state.checks:
        console.print(f"decisions: alicorn why {state.run_id}#{state.checks[-1]} (and the other anvil.check events)")
    if state.budget_exceeded is not None:
        console.print(f"[yellow]budget:[/] {escape(state.budget_exceeded['sentence'])}", soft_wrap=True)
    nodes_by_id = {n["node_id"]: n for n in state.plan.get("nodes", [])}
    rows = []
    for node_id in state.order:
        ns = state.nodes[node_id]
        note = ns.reason or ""
        if ns.substitute:
            note = f"replaced by {ns.substitute}; " + note
        rows.append(
            [
                (node_id, ""),
                (nodes_by_id[node_id]["operation"], ""),
                (ns.status, _STYLE.get(ns.status, "white")),
                (str(ns.attempt), ""),
                (_duration(ns.started_at, ns.finished_at), ""),
                (note[:90], ""),
            ]
        )
    print_table(("node", "operation", "status", "attempts", "time", "note"), rows)
    if state.effects_log:
        print_table(
            ("node", "operation", "effect", "idempotency key", "state", "note"),
            [
                [
                    (e.node, ""),
                    (e.operation, ""),
                    (e.effect, ""),
                    (e.key[:16] + "…", ""),
                    (e.status, _STYLE.get(e.status, "white")),
                    ((e.note or "")[:80], ""),
                ]
                for e in state.effects_log.values()
            ],
            title="effects",
        )
        pending = pending_effects(state)
        if pending:
            console.print(
                f"[bold magenta]an unfinished effect may be pending[/] for: {', '.join(pending)} — check the target"
                + (
                    f"; then `alicorn resume {state.run_id} --resolve NODE=applied|not-applied`"
                    if state.status == "blocked"
                    else ""
                )
            )
    if state.status == "blocked" and state.awaiting:
        console.print(f"[magenta]blocked:[/] {state.awaiting.get('reason', '')} ({', '.join(state.blocked())})")
    if detailed and state.checks:
        console.print(
            f"Anvil: {len(state.checks)} decision(s) (latest: {_styled(state.decision or '-')}), proposed by "
            f"{state.proposed_by}, project {state.project}; explain: `alicorn why {state.run_id}#{state.checks[0]}` or "
            f"`alicorn why {state.run_id} NODE`"
        )
    if detailed:
        console.print(_dag(state))
        console.print(
            f"plan {state.plan_hash[:16]}…  goal {state.goal_hash[:16]}…  sessions {state.sessions}  "
            f"events {state.last_seq}  workspace {state.workspace}"
        )


def print_proposals(proposals: Sequence[Any]) -> None:
    """ProposalEnvelopes: what waits for a human, and why."""
    if not proposals:
        console.print("no run is waiting for an approval")
        return
    for p in proposals:
        console.print(f"[bold]{p.run}[/] proposed by {p.proposed_by} (project {p.project}) since {p.since[:19]}")
        console.print(f"  goal: {escape(p.goal[:100])}")
        console.print(f"  plan hash: {p.plan_hash}")
        effects = "; ".join(f"{c}: {', '.join(n)}" for c, n in p.effects.items())
        console.print(f"  effects: {', '.join(p.classes)} (approval is about {effects})")
        console.print(f"  destinations: {', '.join(p.destinations) or 'none'}")
        for node, action in getattr(p, "actions", {}).items():
            console.print(f"  {node}: {escape(action)}")
        if p.replan_of:
            reasons = "; ".join((p.change or {}).get("reasons", [])) or "no material change"
            console.print(f"  replan of {p.replan_of}: {escape(reasons)}")
        for reason in p.reasons:
            console.print(f"  - {reason}", soft_wrap=True, markup=False)
        console.print(f"  approve: alicorn approve {p.run} --plan-hash {p.plan_hash}")


def print_explanation(explanation: Any) -> None:
    """An `alicorn why` / `alicorn rights` explanation."""
    style = _STYLE.get(explanation.decision, "bold")
    console.print(f"[{style}]{escape(explanation.title)}[/]", markup=True, highlight=False)
    for line in explanation.lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def print_events(events: Sequence[Event]) -> None:
    table = Table("#", "at", "kind", "node", "data")
    for e in events:
        data = {k: v for k, v in e.data.items() if k != "node"}
        text = str(data)
        table.add_row(str(e.seq), e.at[11:23], e.kind, str(e.data.get("node", "")), text[:100])
    console.print(table)
