"""`alicorn trace RUN`: a trace drawn as a waterfall in the terminal, or as JSON.

Each row is a span, indented under its parent, with a bar placed on the trace's time line and a few key attributes
(model and tokens for `chat`, the tool and its effect for `execute_tool`, the decision and rules for policy).
A conversation's linked runs are drawn under the `invoke_workflow` span that started them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from alicorn.observe import semconv as sc
from alicorn.observe.export import Trace
from alicorn.observe.spans import SpanRecord

BAR = 24
_STATUS_STYLE = {"ok": "green", "error": "red", "unset": "yellow"}


def ordered(found: Trace) -> list[tuple[int, SpanRecord]]:
    """(depth, span) in display order: children after their parent by start time; linked runs under their link."""
    children: dict[str | None, list[SpanRecord]] = {}
    spans = found.spans
    ids = {s.span_id for s in spans}
    for span in spans:
        parent = span.parent_id if span.parent_id in ids else None
        if parent is None and span.trace_id != spans[0].trace_id:
            parent = _linking(spans, span)
        children.setdefault(parent, []).append(span)
    for group in children.values():
        group.sort(key=lambda s: (s.start_ns, _seq(s)))
    out: list[tuple[int, SpanRecord]] = []

    def walk(parent: str | None, depth: int) -> None:
        for span in children.get(parent, ()):
            out.append((depth, span))
            walk(span.span_id, depth + 1)

    walk(None, 0)
    return out


def _linking(spans: Iterable[SpanRecord], root: SpanRecord) -> str | None:
    for span in spans:
        if any(link.trace_id == root.trace_id and link.span_id == root.span_id for link in span.links):
            return span.span_id
    return None


def _seq(span: SpanRecord) -> int:
    seq = span.attributes.get(sc.EVENT_SEQ, 0)
    return seq if isinstance(seq, int) else 0


def key_attributes(span: SpanRecord) -> str:
    """The few attributes worth a glance, in words."""
    a = span.attributes
    op = span.operation
    parts: list[str] = []
    if op == sc.CHAT:
        parts.append(f"{a.get(sc.PROVIDER_NAME, '')}/{a.get(sc.RESPONSE_MODEL, a.get(sc.REQUEST_MODEL, ''))}")
        parts.append(f"{a.get(sc.USAGE_INPUT_TOKENS, 0)}→{a.get(sc.USAGE_OUTPUT_TOKENS, 0)} tok")
        if a.get(sc.PURPOSE):
            parts.append(str(a[sc.PURPOSE]) + (f" repair {a[sc.REPAIR]}" if a.get(sc.REPAIR) else ""))
    elif op == sc.EXECUTE_TOOL:
        parts.append(f"effect {a.get(sc.EFFECT, 'none')}")
        if a.get(sc.EFFECT_STATE):
            parts.append(str(a[sc.EFFECT_STATE]))
        if isinstance(a.get(sc.ATTEMPT), int) and a[sc.ATTEMPT] != 1:
            parts.append(f"attempt {a[sc.ATTEMPT]}")
    elif sc.POLICY_DECISION in a:
        rules = a.get(sc.POLICY_RULES, [])
        parts.append(f"{a[sc.POLICY_DECISION]}" + (f" [{', '.join(map(str, rules))}]" if rules else ""))  # type: ignore[arg-type]
    elif a.get(sc.STATUS):
        parts.append(str(a[sc.STATUS]))
    if sc.ERROR_TYPE in a:
        parts.append(f"error {a[sc.ERROR_TYPE]}")
    if a.get(sc.OPEN):
        parts.append("still open")
    return ", ".join(p for p in parts if p)


def _bar(span: SpanRecord, start: int, total: int) -> str:
    left = int((span.start_ns - start) / total * BAR) if total else 0
    width = max(1, round(span.duration_ns / total * BAR)) if total else 1
    left = min(left, BAR - 1)
    return " " * left + "█" * min(width, BAR - left)


def print_waterfall(found: Trace, console: Console | None = None) -> None:
    out = console or Console()
    rows = ordered(found)
    if not rows:
        out.print(f"{escape(found.root)} has no spans (only runs and conversations have traces)")
        return
    start = min(s.start_ns for _, s in rows)
    total = max(s.end_ns for _, s in rows) - start
    table = Table(title=f"trace of {escape(found.root)}: {len(rows)} span(s), {total / 1e6:.1f} ms", box=None)
    table.add_column("span", no_wrap=True, overflow="ellipsis", max_width=44)
    table.add_column("ms", justify="right", no_wrap=True, min_width=6)
    table.add_column("timeline", no_wrap=True, min_width=BAR, max_width=BAR)
    table.add_column("attributes", no_wrap=True, overflow="ellipsis", min_width=16)  # one line per span
    for depth, span in rows:
        style = _STATUS_STYLE[span.status]
        table.add_row(
            "  " * depth + escape(span.name),
            f"{span.duration_ns / 1e6:.1f}",
            f"[{style}]{_bar(span, start, total)}[/]",
            escape(key_attributes(span)),
        )
    out.print(table)


def as_json(found: Trace) -> list[dict[str, Any]]:
    """The spans in display order as plain JSON (ids as hex, times in ns since the epoch)."""
    return [span_json(depth, s) for depth, s in ordered(found)]


def span_json(depth: int, s: SpanRecord, *, event_attributes: bool = False) -> dict[str, Any]:
    """One span record at `depth` as plain JSON; `event_attributes` adds each span event's attributes (the web's
    trace API gives them; `alicorn trace --json` does not)."""
    events = []
    for e in s.events:
        event: dict[str, Any] = {"name": e.name, "time_ns": e.time_ns}
        if event_attributes:
            event["attributes"] = _plain(e.attributes)
        events.append(event)
    return {
        "depth": depth,
        "trace_id": s.trace_id,
        "span_id": s.span_id,
        "parent_id": s.parent_id,
        "name": s.name,
        "kind": s.kind,
        "start_ns": s.start_ns,
        "end_ns": s.end_ns,
        "duration_ms": s.duration_ns / 1e6,
        "status": s.status,
        "status_message": s.status_message,
        "attributes": _plain(s.attributes),
        "events": events,
        "links": [{"trace_id": link.trace_id, "span_id": link.span_id} for link in s.links],
    }


def _plain(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, list | tuple) else v for k, v in attributes.items()}
