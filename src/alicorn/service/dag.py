"""A plan drawn as a DAG in SVG, on the server, each node coloured by its state (no script draws it).

Nodes go in columns by depth (the longest chain of upstream nodes before them: a node's `depends_on` and the nodes
its inputs reference), in plan order within a column; an edge runs from each upstream node to the node that waits
for it. Colours are light fills with dark text (contrast over 7:1), and each state also has its own border dash
and a word in the node's tooltip, so colour is never the only sign.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

W, H, GAP_X, GAP_Y, PAD = 176, 58, 48, 14, 12
#: fill, border, dash for each node state (unknown states are drawn like `pending`).
STYLE: dict[str, tuple[str, str, str]] = {
    "pending": ("#f1f3f5", "#495057", "4 3"),
    "standby": ("#f1f3f5", "#495057", "1 3"),
    "running": ("#dbe9ff", "#1c4f9c", ""),
    "succeeded": ("#d3f2dc", "#1b6b34", ""),
    "failed": ("#fbd9d9", "#9b1c1c", ""),
    "skipped": ("#eceff1", "#546e7a", "2 3"),
    "blocked": ("#fff0c2", "#8a5a00", "6 3"),
    "cancelled": ("#eceff1", "#37474f", "2 3"),
}


def upstream(node: Mapping[str, Any]) -> list[str]:
    found = list(node.get("depends_on") or [])
    for binding in (node.get("inputs") or {}).values():
        ref = binding.get("ref") if isinstance(binding, dict) else None
        if isinstance(ref, dict) and ref.get("node") and ref["node"] not in found:
            found.append(str(ref["node"]))
    return found


def layout(nodes: list[Mapping[str, Any]]) -> dict[str, tuple[int, int]]:
    """Each node's (column, row)."""
    ids = [str(n["node_id"]) for n in nodes]
    ups = {str(n["node_id"]): [u for u in upstream(n) if u in ids] for n in nodes}
    depth: dict[str, int] = {}

    def depth_of(node: str, seen: frozenset[str] = frozenset()) -> int:
        if node not in depth:
            if node in seen:  # a cycle cannot be a valid plan; draw it flat rather than loop
                return 0
            depth[node] = 1 + max((depth_of(u, seen | {node}) for u in ups[node]), default=-1)
        return depth[node]

    rows: dict[int, int] = {}
    places: dict[str, tuple[int, int]] = {}
    for node in ids:
        column = depth_of(node)
        places[node] = (column, rows.get(column, 0))
        rows[column] = rows.get(column, 0) + 1
    return places


def draw(plan: Mapping[str, Any], states: Mapping[str, str], label: str, shown: Mapping[str, str] | None = None) -> str:
    """The SVG of `plan`'s nodes; `states` maps node ids to their state, `label` is the drawing's accessible name,
    `shown` says each state in the page's language (the class keeps the state's own name)."""
    nodes = list(plan.get("nodes") or [])
    if not nodes:
        return ""
    places = layout(nodes)
    columns = max(c for c, _ in places.values()) + 1
    rows = max(r for _, r in places.values()) + 1
    width, height = PAD * 2 + columns * W + (columns - 1) * GAP_X, PAD * 2 + rows * H + (rows - 1) * GAP_Y

    def box(node: str) -> tuple[int, int]:
        column, row = places[node]
        return PAD + column * (W + GAP_X), PAD + row * (H + GAP_Y)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="dag" role="img" viewBox="0 0 {width} {height}" '
        f'width="100%" style="max-width:{width}px" aria-label="{escape(label)}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#495057"/></marker></defs>',
    ]
    for node in nodes:
        x2, y2 = box(str(node["node_id"]))
        for up in upstream(node):
            if up in places:
                x1, y1 = box(up)
                sx, sy, ex, ey = x1 + W, y1 + H // 2, x2, y2 + H // 2
                mid = (sx + ex) // 2
                parts.append(
                    f'<path d="M{sx},{sy} C{mid},{sy} {mid},{ey} {ex},{ey}" fill="none" stroke="#495057" '
                    'stroke-width="1.5" marker-end="url(#arrow)"/>'
                )
    for node in nodes:
        node_id = str(node["node_id"])
        state = states.get(node_id, "pending")
        fill, stroke, dash = STYLE.get(state, STYLE["pending"])
        x, y = box(node_id)
        operation = str(node.get("operation", ""))
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        said = (shown or {}).get(state, state)
        parts.append(
            f'<g class="node state-{escape(state)}"><title>{escape(node_id)}: {escape(operation)} ({escape(said)})'
            f'</title><rect x="{x}" y="{y}" width="{W}" height="{H}" rx="6" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="2"{dashed}/>'
            f'<text x="{x + 8}" y="{y + 18}" font-size="13" font-weight="600" fill="#111">{escape(_cut(node_id))}'
            f'</text><text x="{x + 8}" y="{y + 34}" font-size="11" fill="#222">{escape(_cut(operation, 27))}</text>'
            f'<text x="{x + 8}" y="{y + 50}" font-size="11" font-style="italic" fill="#222">{escape(said)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _cut(text: str, most: int = 20) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
