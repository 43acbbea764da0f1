"""Live export: spans sent while a run goes on, never in its way.

    JournalStore.append ── commit ── observer (appending thread): put (stream, events) on a bounded queue, or count
                                      them dropped when it is full; nothing else, never waits
    exporter thread ── Projector per stream ── finished spans, batched (512 spans or 0.2 s) ── sink.send (OTLP/HTTP,
                      bounded timeout)

The appender only ever pays for one `put_nowait`. A slow or unreachable collector slows the exporter thread, whose
queue then fills and drops, counted: the run is never slowed and never fails because of it. A stream the exporter
first meets mid-way (a resumed run) or lost events of (a drop) is re-read from the store up to the new events, on
the exporter thread, so its later spans still have the right parents. Live export sends finished spans only: a run
waiting for a human sends its run span when it finishes, in whichever process that happens.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.observe.metrics import SpanMetrics
from alicorn.observe.projector import Projector
from alicorn.observe.spans import SpanRecord

#: Streams whose projection is kept between appends (least recently used ones are forgotten, then re-read).
MAX_STREAMS = 256


class SpanSink(Protocol):
    """Where finished spans go (OTLP/HTTP in production; anything with `send` in tests and benchmarks)."""

    def send(self, records: Sequence[SpanRecord]) -> bool: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class LiveStats:
    """What live export did: spans sent and refused by the collector, journal events dropped unprojected."""

    exported_spans: int
    failed_spans: int
    dropped_events: int
    dropped_appends: int
    pending: int
    #: Events the exporter process was told of but could not read from the journal (a damaged row).
    unread_events: int = 0
    #: Metric exports (one every 30 s, and at close) the collector did not take.
    failed_metric_exports: int = 0

    def sentence(self) -> str | None:
        """A sentence for the person when something was lost; None when everything went out."""
        lost = (self.failed_spans, self.dropped_events, self.pending, self.unread_events, self.failed_metric_exports)
        if not any(lost):
            return None
        parts = []
        if self.failed_spans:
            parts.append(f"{self.failed_spans} span(s) the collector did not take")
        if self.dropped_events:
            parts.append(f"{self.dropped_events} journal event(s) dropped because the export queue was full")
        if self.pending:
            parts.append(f"{self.pending} append(s) still queued when Alicorn stopped")
        if self.unread_events:
            parts.append(f"{self.unread_events} journal event(s) the exporter could not read")
        if self.failed_metric_exports:
            parts.append(f"{self.failed_metric_exports} metrics export(s) the collector did not take")
        return (
            f"live trace export lost data ({'; '.join(parts)}); the journal has everything: "
            "`alicorn trace RUN --export` sends a run's spans and metrics again"
        )


class LiveExporter:
    """Follows a store's committed appends and exports the spans they finish; start with `start`, end with `close`."""

    def __init__(
        self,
        store: JournalStore,
        sink: SpanSink,
        *,
        content: bool = False,
        queue_size: int = 1024,
        batch: int = 512,
        flush_s: float = 0.2,
        metrics: SpanMetrics | None = None,
    ) -> None:
        self.store = store
        self.sink = sink
        self.content = content
        self.batch = batch
        self.flush_s = flush_s
        self.metrics = metrics
        self._queue: queue.Queue[tuple[str, Sequence[Event]] | None] = queue.Queue(maxsize=queue_size)
        self._projectors: OrderedDict[str, Projector] = OrderedDict()
        self._lost: set[str] = set()
        self._counts_guard = threading.Lock()
        self._exported = self._failed = self._dropped_events = self._dropped_appends = self._unread = 0
        self._thread = threading.Thread(target=self._work, name="alicorn-trace-export", daemon=True)
        self._unsubscribe: object = None

    # ---- lifecycle --------------------------------------------------------------------------------------------

    def start(self, *, subscribe: bool = True) -> LiveExporter:
        """Start the exporter thread and (unless `subscribe` is False: the caller feeds `offer`) follow the store."""
        self._thread.start()
        if subscribe:
            self._unsubscribe = self.store.observe(self._on_append)
        return self

    def offer(self, stream: str, events: Sequence[Event]) -> None:
        """Hand over one committed append, as the store's observer does (never waits; counted when dropped)."""
        self._on_append(stream, events)

    def close(self, timeout_s: float = 2.0, *, report: bool = True) -> LiveStats:
        """Stop following the store, give the exporter `timeout_s` to send what is queued, and (with `report`) say
        on stderr what was lost."""
        unsubscribe = self._unsubscribe
        if callable(unsubscribe):
            unsubscribe()
        deadline = time.monotonic() + timeout_s
        while self._thread.is_alive():
            try:
                self._queue.put(None, timeout=max(deadline - time.monotonic(), 0.001))
                break
            except queue.Full:
                if time.monotonic() >= deadline:
                    break
        self._thread.join(max(deadline - time.monotonic(), 0.0))
        stats = self.stats()
        if not self._thread.is_alive():
            self.sink.close()
        sentence = stats.sentence()
        if report and sentence is not None:
            print(f"alicorn: warning: {sentence}", file=sys.stderr)
        return stats

    def stats(self) -> LiveStats:
        with self._counts_guard:
            return LiveStats(
                self._exported,
                self._failed,
                self._dropped_events,
                self._dropped_appends,
                self._queue.qsize(),
                self._unread,
            )

    def count_unread(self, events: int) -> None:
        """Count events the exporter process was told of and could not read from the journal."""
        with self._counts_guard:
            self._unread += events

    # ---- the appending thread: one put, never a wait -----------------------------------------------------------

    def _on_append(self, stream: str, events: Sequence[Event]) -> None:
        try:
            self._queue.put_nowait((stream, events))
        except queue.Full:
            with self._counts_guard:
                self._dropped_events += len(events)
                self._dropped_appends += 1
                self._lost.add(stream)

    # ---- the exporter thread ----------------------------------------------------------------------------------

    def _work(self) -> None:
        self.run(lambda timeout: self._queue.get(True, timeout))

    def run(self, get: Callable[[float | None], tuple[str, Sequence[Event]] | None]) -> None:
        """Project and send what `get(timeout)` hands over until it hands None; `get` raises queue.Empty when
        `timeout` passes. The exporter thread runs it on its queue; the exporter process on its own main thread,
        straight from the pipe, so an append is not handed between two threads there."""
        ready: list[SpanRecord] = []
        due = 0.0  # when the oldest span in `ready` must go (monotonic)
        while True:
            try:
                item = get(max(due - time.monotonic(), 0.001) if ready else None)
            except queue.Empty:  # the oldest waiting span is due: send what is ready
                self._send(ready)
                ready = []
                continue
            if item is None:  # close() asks the thread to stop
                break
            stream, events = item
            try:
                if not ready:
                    due = time.monotonic() + self.flush_s
                ready.extend(self._project(stream, events))
            except Exception as exc:  # a projection bug must not kill export for the rest of the run
                print(f"alicorn: warning: trace projection of {stream} failed ({exc}); skipped", file=sys.stderr)
                self._projectors.pop(stream, None)
            if len(ready) >= self.batch:
                self._send(ready)
                ready = []
        if ready:
            self._send(ready)

    def _project(self, stream: str, events: Sequence[Event]) -> list[SpanRecord]:
        if not events:
            return []
        with self._counts_guard:
            lost = stream in self._lost
            self._lost.discard(stream)
        projector = self._projectors.get(stream)
        if projector is None or lost or projector.last_seq < events[0].seq - 1:
            projector = Projector(stream, content=self.content)
            if events[0].seq > 1:  # met mid-way: learn the stream's state from what is already journaled
                projector.feed(e for e in self.store.read(stream) if e.seq < events[0].seq)
            self._projectors[stream] = projector
        self._projectors.move_to_end(stream)
        while len(self._projectors) > MAX_STREAMS:
            self._projectors.popitem(last=False)
        spans = projector.feed(events)
        if projector.kind is None or (projector.kind == "run" and not projector.open_spans):
            self._projectors.pop(stream, None)  # nothing to follow (a finished run, an agent's stream)
        return spans

    def _send(self, spans: list[SpanRecord]) -> None:
        if not spans:
            return
        if self.metrics is not None:
            self.metrics.record(spans)
        ok = self.sink.send(spans)
        with self._counts_guard:
            if ok:
                self._exported += len(spans)
            else:
                self._failed += len(spans)
