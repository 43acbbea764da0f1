"""Printing a Core turn for a person: what was understood, the question, the plan and its effects, the report."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from alicorn.core.turn import Turn
from alicorn.ops.registry import Registry

console = Console(highlight=False, soft_wrap=True, emoji=False)


def print_turn(turn: Turn, registry: Registry, *, source: str | None) -> None:
    """One turn: the understanding (first time), then whatever the conversation now waits for or ended with."""
    if source is not None:
        console.print(f"[dim]conversation {turn.conversation} · models: {escape(source)}[/]")
        for line in turn.understood:
            console.print(f"  {escape(line)}")
    if turn.phase == "asking" and turn.question:
        console.print(f"[bold yellow]question:[/] {escape(turn.question)}")
        console.print(f'  answer with: alicorn ask --conversation {turn.conversation} "…"')
    if turn.phase == "waiting" and turn.plan is not None:
        console.print(f"[bold]plan[/] ({len(turn.plan.nodes)} nodes, hash {turn.plan.plan_hash()[:16]}…):")
        for node in turn.plan.nodes:
            effect = registry.get(node.operation).effect if node.operation in registry else "?"
            after = f" ← {', '.join(sorted(node.upstream()))}" if node.upstream() else ""
            console.print(f"  {node.node_id:<14} {node.operation:<28} {effect}{after}")
        console.print("[bold]effects:[/] " + (escape("; ".join(turn.effects)) or "none"))
        if turn.proposal is not None:
            for reason in distinct_causes(turn.proposal.reasons):
                console.print(f"[bold yellow]needs approval:[/] {escape(reason)}")
            console.print(
                f"  decide later with: alicorn approve {turn.proposal.run} --as NAME (or reject), then "
                f"alicorn ask --conversation {turn.conversation}"
            )
    if turn.answer:
        console.print(f"[bold]answer:[/] {escape(turn.answer)}")
    if turn.report is not None:
        colour = {"complete": "green", "answered": "green", "triaged": "yellow", "partial": "yellow"}.get(
            turn.report.outcome, "red"
        )
        console.print(f"[bold {colour}]report[/]")
        console.print(escape(turn.report.text()))


def distinct_causes(reasons: list[str]) -> list[str]:
    """Anvil gives one reason per checked operation; most share one cause. Each cause once, with its count."""
    seen: dict[str, int] = {}
    first: dict[str, str] = {}
    for reason in reasons:
        cause = reason.split(" because ", 1)[-1]
        seen[cause] = seen.get(cause, 0) + 1
        first.setdefault(cause, reason)
    return [first[c] + (f" ({n} operations, same cause)" if n > 1 else "") for c, n in seen.items()]
