"""Span records: what the projector makes of journal events, before any OpenTelemetry object exists.

A record is plain data (ids as hex, times as nanoseconds since the epoch, attributes as OTel attribute values), so
the waterfall, the ClickHouse loader and the OTLP exporter all start from the same thing, and tests can compare it.
Ids are derived from the journal alone: the trace id from the stream's name, a span id from the stream and the
seq of the event that opened the span. Projecting the same journal twice, live or after the fact, therefore gives
the same ids, and a collector that receives a span twice sees the same span.
"""

from __future__ import annotations

import calendar
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from alicorn.clock import parse_time

#: An OpenTelemetry attribute value (a scalar or a homogeneous sequence of scalars).
AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int] | Sequence[float] | Sequence[bool]
Attributes = Mapping[str, AttributeValue]
SpanKind = Literal["internal", "client"]
StatusCode = Literal["unset", "ok", "error"]


@dataclass(frozen=True, slots=True)
class SpanLink:
    """A link to a span of another trace (a conversation's run, which is a trace of its own)."""

    trace_id: str
    span_id: str
    attributes: Attributes = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """A point in time inside a span (an effect's intent, an approval), from one journal event."""

    name: str
    time_ns: int
    attributes: Attributes = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One finished (or, after the fact, still open) span derived from journal events."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: SpanKind
    start_ns: int
    end_ns: int
    attributes: Attributes
    status: StatusCode = "unset"
    status_message: str = ""
    events: tuple[SpanEvent, ...] = ()
    links: tuple[SpanLink, ...] = ()

    @property
    def duration_ns(self) -> int:
        return max(self.end_ns - self.start_ns, 0)

    @property
    def operation(self) -> str:
        """`gen_ai.operation.name`, or "" for Alicorn's own spans (nodes, policy decisions)."""
        value = self.attributes.get("gen_ai.operation.name", "")
        return value if isinstance(value, str) else ""


def trace_id_of(stream: str) -> str:
    """The 128-bit trace id of a stream (a run or a conversation): the same for every projection of it."""
    return _hex(f"alicorn-trace:{stream}", 32)


def span_id_of(stream: str, key: str) -> str:
    """The 64-bit span id of the span `key` (the run, `node:ID`, or the seq of the event that opened it)."""
    return _hex(f"alicorn-span:{stream}:{key}", 16)


def _hex(text: str, width: int) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:width]
    # An all-zero id is invalid in OpenTelemetry; SHA-256 gives one with negligible probability, but never emit it.
    return digest if digest.strip("0") else "1".rjust(width, "0")


def time_ns(at: str) -> int:
    """An event's journaled `at` (ISO 8601 UTC, microseconds) as nanoseconds since the epoch; never the wall clock."""
    cached = _TIMES.get(at)
    if cached is not None:
        return cached
    if len(at) == 27 and at.endswith("Z"):  # the journal's own format: the C parser, ten times faster than strptime
        moment = datetime.fromisoformat(at[:-1]).replace(tzinfo=UTC)
    else:
        moment = parse_time(at)
    value = (calendar.timegm(moment.utctimetuple())) * 1_000_000_000 + moment.microsecond * 1000
    if len(_TIMES) > 65536:  # consecutive events share readings (one step, one clock reading): a small cache
        _TIMES.clear()
    _TIMES[at] = value
    return value


_TIMES: dict[str, int] = {}
