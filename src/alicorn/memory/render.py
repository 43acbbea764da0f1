"""Rich rendering of memory for `alicorn memory ...`."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from alicorn.memory.models import Graph, HistoryEntry, Path, Record, SearchResult


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _validity(record: Record) -> str:
    if record.invalidated_at is not None and record.invalid_from is not None:
        return f"invalid from {record.invalid_from:%Y-%m-%d %H:%M}"
    span = [
        f"from {record.valid_from:%Y-%m-%d}" if record.valid_from else "",
        f"to {record.valid_to:%Y-%m-%d}" if record.valid_to else "",
    ]
    return " ".join(s for s in span if s) or "valid"


def print_hits(result: SearchResult, console: Console | None = None) -> None:
    """Hits as a table (rank, id, kind, trust, score, text), then graph-related records."""
    out = console or Console()
    if not result.hits:
        out.print(f"nothing found for {result.query!r}", highlight=False)
        return
    table = Table(title=f"memory: {result.query}", title_justify="left", expand=True)
    table.add_column("#", no_wrap=True)
    table.add_column("id", no_wrap=True)
    table.add_column("kind / trust", no_wrap=True)
    table.add_column("text", ratio=1)
    table.add_column("validity")
    for rank, hit in enumerate(result.hits, start=1):
        record = hit.record
        flag = " [bold yellow](contradicted)[/]" if record.contradicts else ""
        table.add_row(
            str(rank),
            record.id,
            f"{record.kind} / {record.trust}",
            escape(_short(record.text, 200)) + flag,
            _validity(record),
        )
    out.print(table)
    for related in result.related:
        out.print(
            f"  related ({related.depth} step(s) from {related.via}): {related.record.id} "
            f"{_short(related.record.text, 70)}",
            highlight=False,
        )


def print_record(record: Record, graph: Graph, history: list[HistoryEntry], console: Console | None = None) -> None:
    """One record in full."""
    out = console or Console()
    out.print(f"[bold]{record.id}[/] {record.kind} in project {record.project}", highlight=False)
    out.print(record.text, highlight=False, markup=False)
    for label, value in (
        ("name", record.name),
        ("key", record.key),
        ("trust", record.trust),
        ("classification", record.classification),
        ("tags", ", ".join(record.tags) or None),
        ("validity", _validity(record)),
        ("recorded", record.recorded_at.isoformat()),
        (
            "invalidated",
            f"{record.invalidated_at.isoformat()}: {record.invalidation_reason}" if record.invalidated_at else None,
        ),
        ("contradicts", ", ".join(record.contradicts) or None),
    ):
        if value:
            out.print(f"  {label}: {value}", highlight=False, markup=False)
    for source in record.sources:
        out.print(f"  source: {source.origin} {source.ref} {source.note}".rstrip(), highlight=False, markup=False)
    names = {node.id: node.name or node.id for node in graph.nodes}
    for edge in graph.edges:
        out.print(
            f"  relation: {names.get(edge.source, edge.source)} -{edge.type}-> {names.get(edge.target, edge.target)}",
            highlight=False,
            markup=False,
        )
    for entry in history:
        out.print(f"  history #{entry.seq} {entry.at:%Y-%m-%d %H:%M:%S} {entry.kind}", highlight=False)


def print_graph(graph: Graph, console: Console | None = None) -> None:
    """A neighbourhood: nodes by distance, then edges."""
    out = console or Console()
    names = {node.id: node.name or _short(node.text, 40) for node in graph.nodes}
    for node in graph.nodes:
        out.print(
            f"{'  ' * graph.depths[node.id]}{names[node.id]} ({node.id}, {node.kind}, {_validity(node)})",
            highlight=False,
            markup=False,
        )
    for edge in graph.edges:
        out.print(
            f"  {names.get(edge.source, edge.source)} -{edge.type}-> {names.get(edge.target, edge.target)}",
            highlight=False,
            markup=False,
        )


def print_path(found: Path, console: Console | None = None) -> None:
    """A path as `a -type-> b <-type- c`."""
    out = console or Console()
    parts = [found.nodes[0].name or found.nodes[0].id]
    for edge, node in zip(found.edges, found.nodes[1:], strict=True):
        label = node.name or node.id
        parts.append(f"-{edge.type}-> {label}" if edge.target == node.id else f"<-{edge.type}- {label}")
    out.print(" ".join(parts), highlight=False, markup=False)
