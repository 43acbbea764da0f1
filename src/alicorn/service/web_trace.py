"""A run's (or a conversation's) trace in the web service: the spans `alicorn trace` draws, as a page and as JSON.

    GET /runs/{run}/trace                   the waterfall page (a signed-in person, like the run page)
    GET /chat/{conversation}/trace          a conversation's turns, model calls and the runs it started
    GET /api/v1/runs/{run}/trace            the span records as JSON (a viewer's token, like GET /runs/{run})
    GET /api/v1/conversations/{conv}/trace  the same for a conversation

The spans come from the journal through the projector (alicorn.observe.export.trace, the one `alicorn trace` and
the OTLP export use), so names, ids and attributes are the same everywhere. Content is never asked for: the
projector runs with `content=False`, so no prompt or output (not even a reference to one) reaches this page or its
JSON, whoever looks. The bars are drawn by the server (a tiny SVG per row, placed by `x`/`width` attributes, so no
inline style and no script is needed), nested by parent in the terminal waterfall's order, each with a text label
saying its key attributes; a failed span or a policy denial is marked in words as well as in colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel

from alicorn.i18n import tr
from alicorn.observe import semconv as sc
from alicorn.observe.export import Trace, trace
from alicorn.observe.spans import SpanRecord
from alicorn.observe.waterfall import key_attributes, ordered, span_json
from alicorn.service.auth import needs
from alicorn.service.pages import PageError, Pages, language_of
from alicorn.service.problems import Problem
from alicorn.service.shared import API
from alicorn.service.words import page_words

#: The deepest indentation the page draws (deeper spans stay at this depth; `data-depth` keeps the true one).
MAX_INDENT = 8
#: The drawing's width in SVG units; a span shorter than MIN_WIDTH of them is drawn MIN_WIDTH wide.
SCALE, MIN_WIDTH = 1000, 8
_BADGES = {"ok": "succeeded", "error": "failed", "unset": "unset"}
_DECISION_BADGES = {"deny": "denied", "needs_approval": "awaiting_approval"}

AttributeJson = str | bool | int | float | list[str] | list[bool] | list[int] | list[float]


class SpanEventOut(BaseModel):
    """A point in time inside a span (an effect's intent, an approval)."""

    name: str
    time_ns: int
    attributes: dict[str, AttributeJson]


class SpanLinkOut(BaseModel):
    """A link to a span of another trace (a conversation's run)."""

    trace_id: str
    span_id: str


class SpanOut(BaseModel):
    """One span record, as the OTLP export sends it (ids as hex, times in ns since the epoch)."""

    depth: int
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int
    duration_ms: float
    status: str
    status_message: str
    attributes: dict[str, AttributeJson]
    events: list[SpanEventOut]
    links: list[SpanLinkOut]


class TraceOut(BaseModel):
    """A trace in display order (children after their parent; a conversation's runs under their link)."""

    root: str
    content: bool
    spans: list[SpanOut]


@page_words
def trace_words(lang: str) -> dict[str, str]:
    """The fixed words of the trace page (templates/trace.html), in `lang`."""
    return {
        "trace": tr(lang, "Trace"),
        "open": tr(lang, "Open the trace (a waterfall of its spans)"),
        "back_run": tr(lang, "Back to the run"),
        "back_conversation": tr(lang, "Back to the conversation"),
        "span": tr(lang, "Span"),
        "duration": tr(lang, "Duration"),
        "timeline": tr(lang, "Timeline"),
        "attributes": tr(lang, "Key attributes"),
        "all_attributes": tr(lang, "All attributes"),
        "no_spans": tr(lang, "This trace has no spans yet."),
        "no_content": tr(lang, "Prompts and outputs are never shown here, only names, times and attributes."),
        "ok": tr(lang, "ok"),
        "error": tr(lang, "error"),
        "unset": tr(lang, "no status"),
        "denied": tr(lang, "denied"),
        "awaiting_approval": tr(lang, "needs approval"),
    }


def trace_json(found: Trace) -> dict[str, Any]:
    """`found` as the API answers it (TraceOut): every span record, in display order, content never included."""
    return {
        "root": found.root,
        "content": False,
        "spans": [span_json(d, s, event_attributes=True) for d, s in ordered(found)],
    }


@dataclass(frozen=True)
class Row:
    """One span as the page draws it: where its bar lies (SVG units out of SCALE) and what it says."""

    depth: int
    indent: int
    span: SpanRecord
    x: int
    width: int
    duration: str
    badge: str  # a status class of alicorn.css (s-succeeded, s-failed, s-denied…)
    state: str  # the key of trace_words naming the state
    marked: bool  # failed, or denied by policy
    keys: str
    label: str
    attributes: list[tuple[str, str]]


def rows(found: Trace) -> list[Row]:
    """The page's rows: the terminal waterfall's order, bars placed on the trace's own time line."""
    spans = ordered(found)
    if not spans:
        return []
    start = min(s.start_ns for _, s in spans)
    total = max(s.end_ns for _, s in spans) - start
    out = []
    for depth, span in spans:
        x = round((span.start_ns - start) / total * SCALE) if total else 0
        width = max(round(span.duration_ns / total * SCALE), MIN_WIDTH) if total else MIN_WIDTH
        x = min(x, SCALE - MIN_WIDTH)
        decision = str(span.attributes.get(sc.POLICY_DECISION, ""))
        badge = _DECISION_BADGES.get(decision) or _BADGES[span.status]
        state = badge if badge in ("denied", "awaiting_approval") else span.status
        marked = span.status == "error" or decision == "deny"
        attrs = [(k, _shown(v)) for k, v in sorted(span.attributes.items())]
        out.append(
            Row(depth, min(depth, MAX_INDENT), span, x, min(width, SCALE - x), duration(span.duration_ns), badge,
                state, marked, key_attributes(span), label(span), attrs)
        )  # fmt: skip
    return out


def duration(ns: int) -> str:
    """A span's length as a person reads it: ms with one decimal, seconds from 10 s on."""
    return f"{ns / 1e9:.1f} s" if ns >= 10_000_000_000 else f"{ns / 1e6:.1f} ms"


def label(span: SpanRecord) -> str:
    """What a bar says to a screen reader and in its tooltip: the span, its length and state, and the attributes
    worth knowing (operation, model and tokens, tool, effect and its key, policy decision and rules, error)."""
    a = span.attributes
    parts = [span.name, duration(span.duration_ns), f"status {span.status}"]
    if span.status_message:
        parts.append(span.status_message)
    named = (
        ("operation", sc.OPERATION_NAME), ("provider", sc.PROVIDER_NAME), ("request model", sc.REQUEST_MODEL),
        ("response model", sc.RESPONSE_MODEL), ("input tokens", sc.USAGE_INPUT_TOKENS),
        ("output tokens", sc.USAGE_OUTPUT_TOKENS), ("finish", sc.RESPONSE_FINISH_REASONS), ("tool", sc.TOOL_NAME),
        ("node", sc.NODE), ("attempt", sc.ATTEMPT), ("effect", sc.EFFECT), ("effect key", sc.EFFECT_KEY),
        ("effect state", sc.EFFECT_STATE), ("policy decision", sc.POLICY_DECISION), ("rules", sc.POLICY_RULES),
        ("error", sc.ERROR_TYPE), ("run", sc.RUN),
    )  # fmt: skip
    parts += [f"{word} {_shown(a[key])}" for word, key in named if key in a and a[key] != ""]
    if a.get(sc.OPEN):
        parts.append("still open")
    return "; ".join(parts)


def _shown(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def conversation_exists(service: Any, conversation: str) -> bool:
    """Whether `conversation` names a conversation of the journal (a stream opened by `intent.received`)."""
    from alicorn.journal.store import check_stream_name

    try:
        check_stream_name(conversation)
        head = service.app.store.head(conversation)
    except Exception:  # a name the journal refuses is no conversation
        return False
    if not conversation.startswith("conv-") or head is None:
        return False
    first = service.app.store.read(conversation)[:1]
    return bool(first) and first[0].kind == "intent.received"


def install(api: FastAPI, service: Any, signed_in: Any) -> None:
    """Add the trace routes (the API's and, after the pages whose sessions they read, the pages')."""
    api.include_router(_router(service, signed_in))
    pages: Pages = api.state.pages
    pages.env.globals["trace_words"] = trace_words

    def page(request: Request, signed: Any, stream: str, back: str, back_word: str) -> Response:
        found = trace(service.app.store, stream)
        drawn = rows(found)
        lang = language_of(request)
        total = max((r.span.end_ns for r in drawn), default=0) - min((r.span.start_ns for r in drawn), default=0)
        summary = tr(lang, "Spans: {count} · length: {length}", count=len(drawn), length=duration(total))
        return pages.render(
            request, "trace.html", signed=signed, root=stream, rows=drawn, summary=summary, back=back,
            back_word=back_word, total=duration(total), scale=SCALE,
        )  # fmt: skip

    @api.get("/runs/{run_id}/trace", include_in_schema=False, response_class=HTMLResponse)
    def run_trace_page(request: Request, run_id: str) -> Response:
        signed = pages.signed(request)  # signed out: to sign in first, whether the run exists or not
        try:
            service.run_events(run_id)
        except Problem:
            raise PageError(404, f"there is no run {run_id!r}; the Runs page lists the runs") from None
        return page(request, signed, run_id, f"/runs/{run_id}", "back_run")

    @api.get("/chat/{conversation}/trace", include_in_schema=False, response_class=HTMLResponse)
    def conversation_trace_page(request: Request, conversation: str) -> Response:
        signed = pages.signed(request)
        if not conversation_exists(service, conversation):
            raise PageError(404, f"there is no conversation {conversation!r}; the Chat page starts one")
        return page(request, signed, conversation, f"/chat/{conversation}", "back_conversation")


def _router(service: Any, signed_in: Any) -> APIRouter:
    routes = APIRouter(prefix=API)
    reader = Depends(needs(signed_in, "viewer", "read", "read a trace"))

    @routes.get(
        "/runs/{run_id}/trace",
        response_model=TraceOut,
        dependencies=[reader],
        tags=["runs"],
        summary="A run's trace: its OpenTelemetry span records (as exported over OTLP), prompts and outputs never",
    )
    def run_trace(run_id: str) -> dict[str, Any]:
        service.run_events(run_id)  # Problem(404) for an unknown run
        return trace_json(trace(service.app.store, run_id))

    @routes.get(
        "/conversations/{conversation}/trace",
        response_model=TraceOut,
        dependencies=[reader],
        tags=["conversations"],
        summary="A conversation's trace: its turns and model calls, and the runs it started, as span records",
    )
    def conversation_trace(conversation: str) -> dict[str, Any]:
        if not conversation_exists(service, conversation):
            raise Problem(
                404,
                "unknown-conversation",
                f"there is no conversation {conversation!r}; GET {API}/conversations lists them",
            )
        return trace_json(trace(service.app.store, conversation))

    return routes
