"""The projector: a stream's journal events in, OpenTelemetry GenAI span records out. Pure and incremental.

    a run's stream (one trace)                          a conversation's stream (another trace)
    invoke_workflow alicorn.plan  (run.created → run.finished)
    ├─ policy OP          (each anvil.check, zero length)       invoke_agent norbi  (one per turn)
    ├─ await_approval     (run.awaiting_approval → granted)     ├─ chat MODEL  (llm.request → llm.response|error)
    ├─ node ID            (first tool.call → node outcome)      └─ invoke_workflow alicorn.plan  (run.linked: a link
    │  └─ execute_tool OP (tool.call → tool.result, + effect.*)       to the run's own trace)
    └─ execute_tool UNDO  (compensation.call → result)

Every time comes from the journaled `at` of the events (never the wall clock) and every id from the stream's name
and the seq of the event that opened the span (alicorn.observe.spans), so a live projection and a later one give
the same spans. Events that open or close nothing become span events (kind only) on the span they belong to.
Prompts, outputs and error messages are never copied: with `content=True` a span carries references into the
journal (`STREAM#SEQ`) where they are kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from alicorn.journal.events import Event
from alicorn.observe import semconv as sc
from alicorn.observe.attributes import (
    TURN_STARTS,
    chat_request_attributes,
    chat_response_attributes,
    find_text,
    stream_kind,
    text,
    tool_attributes,
)
from alicorn.observe.spans import (
    AttributeValue,
    SpanEvent,
    SpanKind,
    SpanLink,
    SpanRecord,
    StatusCode,
    span_id_of,
    time_ns,
    trace_id_of,
)

#: Conversation events that end a turn of Norbi Core (those that start one: attributes.TURN_STARTS).
TURN_ENDS = frozenset({"report.written", "answer.given", "clarification.asked", "followup.declined"})
#: A run's end statuses that are failures (succeeded is ok; partial and blocked are neither).
FAILED_RUNS = frozenset({"failed", "denied", "stopped", "cancelled"})
#: Providers whose calls run inside Alicorn's process (INTERNAL spans); every other provider is a CLIENT call.
IN_PROCESS = frozenset({"llama_cpp", "scripted", "recorded"})
ROOT = "run"


@dataclass
class _Open:
    """A span that has started and not yet ended."""

    span_id: str
    parent_id: str | None
    name: str
    kind: SpanKind
    start_ns: int
    start_seq: int
    attributes: dict[str, AttributeValue]
    events: list[SpanEvent] = field(default_factory=list)
    links: list[SpanLink] = field(default_factory=list)
    #: An effect's tool span waits for its effect.* outcome, appended in the same step as its tool.result.
    result: tuple[int, int, StatusCode, str] | None = None


class Projector:
    """Turns one stream's events, fed in order (in any number of batches), into span records as spans end.

    `feed` returns the spans that ended in that batch; `close` ends what is still open at the last event's time,
    marked `alicorn.open` (a run waiting for a human, an interrupted one), for projections after the fact.
    """

    def __init__(self, stream: str, *, content: bool = False) -> None:
        self.stream = stream
        self.trace_id = trace_id_of(stream)
        self.content = content
        self.kind: str | None = None  # "run" or "conversation", from the stream's first event
        self.last_seq = 0
        self._last_ns = 0
        self._common: dict[str, AttributeValue] = {}  # facts of the whole stream, on every span
        self._open: dict[str, _Open] = {}
        self._calls: dict[str, str] = {}  # llm `call` (STREAM#SEQ) -> open chat key
        self._tools: dict[tuple[str, int, str], str] = {}  # (node, attempt, "tool"|"undo") -> open tool key
        self._turn: str | None = None
        self._role = ""

    # ---- public -----------------------------------------------------------------------------------------------

    @property
    def open_spans(self) -> int:
        """How many spans have started and not ended."""
        return len(self._open)

    def feed(self, events: Iterable[Event]) -> list[SpanRecord]:
        """The spans that end with these events (which must follow the ones fed before, in seq order)."""
        out: list[SpanRecord] = []
        for event in events:
            if event.seq <= self.last_seq:
                continue  # already seen (a live tail that re-read the store)
            self.last_seq = event.seq
            self._last_ns = time_ns(event.at)
            if self.kind is None:
                self.kind = stream_kind(event.kind)
            if self.kind is not None:
                self._step(event, self._last_ns, out)
        return out

    def close(self) -> list[SpanRecord]:
        """End every span still open (innermost first) at the last event's time, marked `alicorn.open`."""
        out = self._flush_results()
        for key in sorted(self._open, key=lambda k: -self._open[k].start_seq):
            span = self._open[key]
            span.attributes[sc.OPEN] = True
            out.append(self._end(key, self._last_ns, self.last_seq))
        return out

    # ---- dispatch ---------------------------------------------------------------------------------------------

    def _step(self, event: Event, at: int, out: list[SpanRecord]) -> None:
        data, kind = event.data, event.kind
        if not kind.startswith("effect."):  # a tool span waiting for its effect's outcome got none: it ends as is
            out.extend(self._flush_results())
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event, data, at, out)
        elif kind in TURN_STARTS:
            self._start_turn(event, data, at, out)
        else:
            self._mark(kind, at, event.seq)
        if kind in TURN_ENDS and self._turn is not None:
            out.append(self._end(self._turn, at, event.seq))
            self._turn = None

    def _mark(self, kind: str, at: int, seq: int, parent: str | None = None) -> None:
        """An event that opens or closes nothing: a span event on its span (the turn, or the run)."""
        key = parent or self._turn or ROOT
        if key in self._open:
            self._open[key].events.append(SpanEvent(kind, at, {sc.EVENT_SEQ: seq}))

    # ---- span bookkeeping -------------------------------------------------------------------------------------

    def _start(
        self,
        key: str,
        parent: str | None,
        name: str,
        at: int,
        seq: int,
        attributes: dict[str, AttributeValue],
        kind: SpanKind = "internal",
    ) -> _Open:
        parent_id = self._open[parent].span_id if parent is not None and parent in self._open else None
        if parent is not None and parent_id is None and parent == ROOT and self.kind == "run":
            parent_id = span_id_of(self.stream, ROOT)  # the run span of an earlier process (a resume, live)
        span = _Open(span_id_of(self.stream, key), parent_id, name, kind, at, seq, {**self._common, **attributes})
        span.attributes[sc.EVENT_SEQ] = seq
        self._open[key] = span
        return span

    def _end(self, key: str, at: int, seq: int, status: StatusCode = "unset", message: str = "") -> SpanRecord:
        span = self._open.pop(key)
        span.attributes[sc.END_SEQ] = seq
        for name, value in self._common.items():  # facts learnt after the span started (project, provenance)
            span.attributes.setdefault(name, value)
        return SpanRecord(
            self.trace_id,
            span.span_id,
            span.parent_id,
            span.name,
            span.kind,
            span.start_ns,
            max(at, span.start_ns),
            span.attributes,  # the open span is gone: its dict becomes the record's, uncopied
            status,
            message,
            tuple(span.events),
            tuple(span.links),
        )

    def _instant(self, key: str, parent: str | None, name: str, at: int, seq: int, attrs: dict[str, Any]) -> SpanRecord:
        self._start(key, parent, name, at, seq, attrs)
        return self._end(key, at, seq)

    def _learn(self, name: str, value: AttributeValue | None) -> None:
        """A fact of the whole stream (project, goal hash, provenance): on every span that ends from now on."""
        if value is None or value == "":
            return
        self._common[name] = value
        for span in self._open.values():
            span.attributes[name] = value

    def _flush_results(self) -> list[SpanRecord]:
        """Tool spans whose result was not followed by their effect's outcome end at their result."""
        out = []
        for ident, key in list(self._tools.items()):
            span = self._open.get(key)
            if span is not None and span.result is not None:
                at, seq, status, message = span.result
                del self._tools[ident]
                out.append(self._end(key, at, seq, status, message))
        return out

    # ---- runs -------------------------------------------------------------------------------------------------

    def _run_created(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        plan = data.get("plan") or {}
        self._learn(sc.PROJECT, text(data.get("project")))
        self._learn(sc.RUN, self.stream)
        attrs: dict[str, AttributeValue] = {
            sc.OPERATION_NAME: sc.INVOKE_WORKFLOW,
            sc.WORKFLOW_NAME: "alicorn.plan",
            sc.PLAN_HASH: text(data.get("plan_hash")),
            sc.GOAL_HASH: text(plan.get("goal_hash")),  # on the run's span only: every span costs per attribute
        }
        if data.get("proposed_by"):
            attrs[sc.AGENT_ID] = str(data["proposed_by"])
        self._start(ROOT, None, "invoke_workflow alicorn.plan", at, event.seq, attrs)

    def _anvil_inputs(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        self._learn(sc.PROVENANCE, find_text(data, "provenance"))
        self._mark(event.kind, at, event.seq)

    def _anvil_check(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        self._learn(sc.PROVENANCE, find_text(data.get("request"), "provenance"))
        rules = sorted({str(r) for r in (*data.get("permitted_by", ()), *data.get("blocked_by", ()))})
        attrs: dict[str, AttributeValue] = {
            sc.POLICY_DECISION: text(data.get("decision")),
            sc.POLICY_RULES: rules,
            sc.POLICY_DIGEST: text(data.get("policy")),
            sc.TOOL_NAME: text(data.get("operation")),
            sc.NODE: [str(n) for n in data.get("nodes", ())],
        }
        out.append(self._instant(f"{event.seq}", ROOT, f"policy {data.get('operation', '')}", at, event.seq, attrs))

    def _tool_call(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        node, attempt, undo = str(data.get("node", "")), int(data.get("attempt", 1)), event.kind == "compensation.call"
        parent = ROOT
        if not undo:
            parent = f"node:{node}"
            if parent not in self._open:
                self._start(parent, ROOT, f"node {node}", at, event.seq, {sc.NODE: node})
        op = str(data.get("op", ""))
        attrs = tool_attributes(op, data, self.stream, event.seq)
        if undo:
            attrs[sc.PURPOSE] = "compensate"
        key = f"{event.seq}"
        self._start(key, parent, f"execute_tool {op}", at, event.seq, attrs)
        self._tools[(node, attempt, "undo" if undo else "tool")] = key

    def _tool_result(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        undo = event.kind == "compensation.result"
        ident = (str(data.get("node", "")), int(data.get("attempt", 1)), "undo" if undo else "tool")
        key = self._tools.get(ident)
        if key is None or key not in self._open:
            self._mark(event.kind, at, event.seq)
            return
        span = self._open[key]
        status: StatusCode = "ok" if data.get("ok") else "error"
        message = ""
        if not data.get("ok"):
            error = data.get("error") or {}
            span.attributes[sc.ERROR_TYPE] = text(error.get("type")) or "error"
            message = span.attributes[sc.ERROR_TYPE]  # type: ignore[assignment]  # the message may quote data
            if self.content:
                span.attributes[sc.CONTENT_RESPONSE] = f"{self.stream}#{event.seq}"
        if self.content and data.get("ok"):
            span.attributes[sc.CONTENT_RESPONSE] = f"{self.stream}#{event.seq}"
        if sc.EFFECT_KEY in span.attributes and span.attributes.get(sc.EFFECT_STATE) == "intended":
            span.result = (at, event.seq, status, message)  # its effect.* outcome follows in the same step
            return
        del self._tools[ident]
        out.append(self._end(key, at, event.seq, status, message))

    def _effect(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        state = event.kind.removeprefix("effect.")
        ident = (str(data.get("node", "")), int(data.get("attempt", 1)), "tool")
        key = self._tools.get(ident)
        span = self._open.get(key) if key is not None else None
        if span is None:
            self._mark(event.kind, at, event.seq)
            return
        span.events.append(SpanEvent(event.kind, at, {sc.EVENT_SEQ: event.seq}))
        if state == "intended":
            span.attributes[sc.EFFECT_STATE] = "intended"
            return
        span.attributes[sc.EFFECT_STATE] = state
        if span.result is not None:
            result_at, seq, status, message = span.result
            del self._tools[ident]
            out.append(self._end(key, max(at, result_at), max(seq, event.seq), status, message))  # type: ignore[arg-type]

    def _node_end(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        if event.kind == "node.failed" and not data.get("final", True):
            self._mark(event.kind, at, event.seq, f"node:{data.get('node', '')}")
            return
        key = f"node:{data.get('node', '')}"
        if key not in self._open:
            self._start(key, ROOT, f"node {data.get('node', '')}", at, event.seq, {sc.NODE: str(data.get("node", ""))})
        status: StatusCode = {"node.succeeded": "ok", "node.failed": "error"}.get(event.kind, "unset")  # type: ignore[assignment]
        self._open[key].attributes[sc.STATUS] = event.kind.removeprefix("node.")
        out.append(self._end(key, at, event.seq, status, "node failed" if status == "error" else ""))

    def _awaiting(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        self._start("approval", ROOT, "await_approval", at, event.seq, {})

    def _approved(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        if "approval" in self._open:
            self._open["approval"].attributes[sc.STATUS] = event.kind.removeprefix("approval.")
            out.append(self._end("approval", at, event.seq))
        else:
            self._mark(event.kind, at, event.seq)

    def _run_finished(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        out.extend(self._flush_results())
        status = str(data.get("status", ""))
        for key in sorted((k for k in self._open if k != ROOT), key=lambda k: -self._open[k].start_seq):
            out.append(self._end(key, at, event.seq))
        if ROOT not in self._open:
            return
        self._open[ROOT].attributes[sc.STATUS] = status
        code: StatusCode = "ok" if status == "succeeded" else "error" if status in FAILED_RUNS else "unset"
        out.append(self._end(ROOT, at, event.seq, code, f"run {status}" if code == "error" else ""))

    # ---- conversations and model calls ------------------------------------------------------------------------

    def _start_turn(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        if self._turn is not None:
            out.append(self._end(self._turn, at, event.seq))
        envelope = data.get("envelope") or {}
        self._learn(sc.PROJECT, text(envelope.get("project")))
        self._learn(sc.PROVENANCE, text(envelope.get("provenance")))
        self._learn(sc.CONVERSATION_ID, self.stream)
        self._turn = f"{event.seq}"
        attrs: dict[str, AttributeValue] = {sc.OPERATION_NAME: sc.INVOKE_AGENT, sc.AGENT_NAME: "norbi"}
        if envelope.get("channel"):
            attrs["alicorn.channel"] = str(envelope["channel"])
        self._start(self._turn, None, "invoke_agent norbi", at, event.seq, attrs)

    def _contract(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        if self._turn is not None and data.get("goal_hash"):
            self._open[self._turn].attributes[sc.GOAL_HASH] = str(data["goal_hash"])
        self._learn(sc.WORKFLOW, text((data.get("contract") or {}).get("workflow")))
        self._mark(event.kind, at, event.seq)

    def _routed(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        self._role = text(data.get("role"))
        self._mark(event.kind, at, event.seq)

    def _llm_request(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        attrs = chat_request_attributes(data)
        provider = str(attrs[sc.PROVIDER_NAME])
        if self._role:
            attrs["alicorn.role"] = self._role
        if self.content:
            attrs[sc.CONTENT_REQUEST] = f"{self.stream}#{event.seq}"
        parent = self._turn or (ROOT if self.kind == "run" else None)
        kind: SpanKind = "internal" if provider in IN_PROCESS else "client"
        key = f"{event.seq}"
        self._start(key, parent, f"chat {attrs[sc.REQUEST_MODEL]}".strip(), at, event.seq, attrs, kind)
        self._calls[f"{self.stream}#{event.seq}"] = key

    def _llm_outcome(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        key = self._calls.pop(text(data.get("call")), None)
        if key is None or key not in self._open:
            self._mark(event.kind, at, event.seq)
            return
        attrs = self._open[key].attributes
        if self.content:
            attrs[sc.CONTENT_RESPONSE] = f"{self.stream}#{event.seq}"
        if event.kind == "llm.error":
            attrs[sc.ERROR_TYPE] = text(data.get("error")) or "ProviderError"
            attrs["alicorn.retryable"] = bool(data.get("retryable"))
            out.append(self._end(key, at, event.seq, "error", str(attrs[sc.ERROR_TYPE])))
            return
        attrs.update(chat_response_attributes(data, str(attrs.get(sc.REQUEST_MODEL, ""))))
        out.append(self._end(key, at, event.seq, "ok"))

    def _run_linked(self, event: Event, data: dict[str, Any], at: int, out: list[SpanRecord]) -> None:
        run = text(data.get("run"))
        attrs: dict[str, AttributeValue] = {sc.OPERATION_NAME: sc.INVOKE_WORKFLOW, sc.WORKFLOW_NAME: "alicorn.plan"}
        attrs[sc.RUN] = run
        attrs[sc.GOAL_HASH] = text(data.get("goal_hash"))
        key = f"{event.seq}"
        self._start(key, self._turn, "invoke_workflow alicorn.plan", at, event.seq, attrs)
        self._open[key].links.append(SpanLink(trace_id_of(run), span_id_of(run, ROOT), {sc.RUN: run}))
        out.append(self._end(key, at, event.seq))


_HANDLERS = {
    "run.created": Projector._run_created,
    "anvil.inputs": Projector._anvil_inputs,
    "anvil.check": Projector._anvil_check,
    "tool.call": Projector._tool_call,
    "compensation.call": Projector._tool_call,
    "tool.result": Projector._tool_result,
    "compensation.result": Projector._tool_result,
    "effect.intended": Projector._effect,
    "effect.done": Projector._effect,
    "effect.failed": Projector._effect,
    "effect.unknown": Projector._effect,
    "node.succeeded": Projector._node_end,
    "node.failed": Projector._node_end,
    "node.skipped": Projector._node_end,
    "run.awaiting_approval": Projector._awaiting,
    "approval.granted": Projector._approved,
    "approval.rejected": Projector._approved,
    "run.finished": Projector._run_finished,
    "contract.fixed": Projector._contract,
    "model.routed": Projector._routed,
    "llm.request": Projector._llm_request,
    "llm.response": Projector._llm_outcome,
    "llm.error": Projector._llm_outcome,
    "run.linked": Projector._run_linked,
}


def project(stream: str, events: Sequence[Event], *, content: bool = False) -> list[SpanRecord]:
    """Every span of a stream after the fact (what is still open ends at the last event, `alicorn.open`)."""
    projector = Projector(stream, content=content)
    return [*projector.feed(events), *projector.close()]
