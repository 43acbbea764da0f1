"""Two small server-rendered SVG drawings: a memory entity graph and an agent's reputation over time.

Like the plan's DAG (alicorn.service.dag) they are drawn on the server, need no script, use light fills with dark
text (contrast over 7:1) and say in words (a `<title>` on every mark, a label on the drawing) what colour shows.

The graph is radial: the node asked about in the middle, the nodes one step away on a ring around it, two steps
on the next ring, each ring's nodes spread evenly in the order the store returned them; each node links to its
record's page. The chart is a step line: one point per event of the agent's stream that changed it, evenly spaced
(events, not clock time: a burst of runs in one minute stays readable), the reputation on the vertical axis, each
point's tooltip the event's reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

GRAPH_W, GRAPH_H = 720, 460
NODE_W, NODE_H = 150, 34
MAX_NODES = 40
#: fill, border by kind of record (entities are the graph's nodes; other records hang off them).
KIND_STYLE = {
    "entity": ("#dbe9ff", "#1c4f9c"),
    "fact": ("#d3f2dc", "#1b6b34"),
    "episode": ("#fff0c2", "#8a5a00"),
    "chunk": ("#f1f3f5", "#495057"),
}


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def graph_places(nodes: Sequence[Mapping[str, Any]], start: str) -> dict[str, tuple[float, float]]:
    """Each node's centre: the start in the middle, depth d on ring d."""
    cx, cy = GRAPH_W / 2, GRAPH_H / 2
    rings: dict[int, list[str]] = {}
    for node in nodes[:MAX_NODES]:
        if node["id"] != start:
            rings.setdefault(max(1, int(node.get("depth", 1))), []).append(str(node["id"]))
    places = {start: (cx, cy)}
    deepest = max(rings, default=1)
    for depth, members in rings.items():
        rx = (GRAPH_W / 2 - NODE_W / 2 - 8) * depth / deepest
        ry = (GRAPH_H / 2 - NODE_H / 2 - 8) * depth / deepest
        turn = 0.5 * (depth - 1)  # rings are offset so their nodes do not line up behind each other
        for i, member in enumerate(members):
            angle = 2 * math.pi * (i + turn) / len(members) - math.pi / 2
            places[member] = (cx + rx * math.cos(angle), cy + ry * math.sin(angle))
    return places


def draw_graph(graph: Mapping[str, Any], project: str, label: str) -> str:
    """The entity graph `graph` (alicorn.service.memory_api.graph_json) as inline SVG."""
    nodes = list(graph["nodes"])[:MAX_NODES]
    start = str(graph["start"])
    places = graph_places(nodes, start)
    # The drawing is cropped to the nodes it holds: a record with one neighbour is not a mostly empty page.
    xs = [x for x, _ in places.values()]
    ys = [y for _, y in places.values()]
    left, top = min(xs) - NODE_W / 2 - 6, min(ys) - NODE_H / 2 - 6
    width, height = max(xs) - min(xs) + NODE_W + 12, max(ys) - min(ys) + NODE_H + 12
    parts = [
        f'<svg class="mgraph" role="img" aria-label="{escape(label)}" '
        f'viewBox="{left:.0f} {top:.0f} {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(label)}</title>",
    ]
    for edge in graph["edges"]:
        a, b = places.get(str(edge["source"])), places.get(str(edge["target"]))
        if a is None or b is None:
            continue
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        parts.append(
            f'<g class="edge"><line x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" '
            'stroke="#495057" stroke-width="1.5"/>'
            f'<text x="{mx:.1f}" y="{my - 3:.1f}" text-anchor="middle" font-size="11" fill="#3d4349">'
            f"{escape(str(edge['type']))}</text></g>"
        )
    for node in nodes:
        x, y = places[str(node["id"])]
        fill, border = KIND_STYLE.get(str(node["kind"]), KIND_STYLE["chunk"])
        name = node.get("name") or node.get("text") or node["id"]
        dash = "" if node.get("valid_now", True) else ' stroke-dasharray="4 3"'
        width = 3 if node["id"] == start else 1.5
        href = f"/memory/records/{quote(str(node['id']))}?project={quote(project)}"
        tip = f"{name} ({node['kind']}, {node['id']})"
        parts.append(
            f'<a href="{escape(href)}"><g class="node kind-{escape(str(node["kind"]))}">'
            f"<title>{escape(tip)}</title>"
            f'<rect x="{x - NODE_W / 2:.1f}" y="{y - NODE_H / 2:.1f}" width="{NODE_W}" height="{NODE_H}" rx="8" '
            f'fill="{fill}" stroke="{border}" stroke-width="{width}"{dash}/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="12" fill="#111">'
            f"{escape(_short(str(name), 22))}</text></g></a>"
        )
    parts.append("</svg>")
    return "".join(parts)


CHART_W, CHART_H, CHART_PAD = 720, 220, 44


def _when(at: object) -> str:
    return str(at)[:16].replace("T", " ")


def draw_reputation(points: Sequence[Mapping[str, Any]], label: str) -> str:
    """An agent's reputation after each event (alicorn.service.agents_api.AgentBook.reputation) as inline SVG."""
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(label)}" viewBox="0 0 {CHART_W} {CHART_H}" '
        f'width="{CHART_W}" height="{CHART_H}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(label)}</title>",
    ]
    if not points:
        parts.append("</svg>")
        return "".join(parts)
    values = [int(p["reputation"]) for p in points]
    low, high = min(0, *values), max(1, *values)
    left, right, top, bottom = CHART_PAD, CHART_W - 16, 14, CHART_H - 30
    step = (right - left) / max(1, len(points) - 1)

    def y_of(value: int) -> float:
        return bottom - (value - low) * (bottom - top) / (high - low)

    xs = [left + i * step for i in range(len(points))]
    parts.append(
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#495057"/>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#495057"/>'
        f'<text x="{left - 6}" y="{y_of(high) + 4:.1f}" text-anchor="end" font-size="11" fill="#111">{high}</text>'
        f'<text x="{left - 6}" y="{y_of(low) + 4:.1f}" text-anchor="end" font-size="11" fill="#111">{low}</text>'
        f'<text x="{left}" y="{CHART_H - 10}" font-size="11" fill="#3d4349">{escape(_when(points[0]["at"]))}</text>'
        f'<text x="{right}" y="{CHART_H - 10}" text-anchor="end" font-size="11" fill="#3d4349">'
        f"{escape(_when(points[-1]['at']))}</text>"
    )
    path = [f"M{xs[0]:.1f},{y_of(values[0]):.1f}"]
    for i in range(1, len(points)):
        path.append(f"H{xs[i]:.1f}V{y_of(values[i]):.1f}")
    parts.append(f'<path d="{"".join(path)}" fill="none" stroke="#1c4f9c" stroke-width="2"/>')
    for x, value, point in zip(xs, values, points, strict=True):
        delta = int(point.get("delta") or 0)
        fill = "#1b6b34" if delta > 0 else "#9b1c1c" if delta < 0 else "#495057"
        shape = "rect" if point["kind"] != "reputation.changed" else "circle"  # rights and tiers are squares
        tip = f"#{point['seq']} {point['at']}: {point['summary']}" + (f" — {point['cause']}" if point["cause"] else "")
        mark = (
            f'<circle cx="{x:.1f}" cy="{y_of(value):.1f}" r="5" fill="{fill}"/>'
            if shape == "circle"
            else f'<rect x="{x - 5:.1f}" y="{y_of(value) - 5:.1f}" width="10" height="10" fill="{fill}"/>'
        )
        parts.append(f'<g class="point kind-{escape(str(point["kind"]))}"><title>{escape(tip)}</title>{mark}</g>')
    parts.append("</svg>")
    return "".join(parts)
