"""Live export in a process of its own, so it costs a run almost nothing.

    appending thread ── committed append ── put_nowait((stream, stored lines)) on a bounded multiprocessing queue,
                                            or count it dropped when full
    exporter process ── parse the lines ── LiveExporter.run on its main thread (projection, batching, OTLP/HTTP,
                                            metrics), reading the journal read-only for streams it meets mid-way

Parsing, projection and OTLP encoding take ~50-85 µs of CPU per durable node in Python; on the run's interpreter they
would hold the GIL just when the run's thread comes back from fsync. In a child process the run pays for one pickle of
the stored lines per append. The child lowers its own scheduling priority (nice +10) at start: on a machine with
few cores it competes with the run for CPU, and the run's thread, waking from fsync, should get the core first;
export only needs the time the run leaves (its queue absorbs bursts, and what overflows is counted, never waited
for). The child ignores Ctrl-C (the parent closes it), and counts what it sent, what the collector refused, what
it dropped and the CPU it used in shared memory, so the parent says it once.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.observe.live import LiveStats
from alicorn.observe.settings import ObserveSettings

_EXPORTED, _FAILED, _DROPPED_EVENTS, _DROPPED_APPENDS, _CPU_US = range(5)
#: How much lower than the run's the exporter process's priority is (`os.nice`; 19 is the lowest).
NICENESS = 10
#: How long the exporter process lets appends gather before it takes them. Woken for every append (one per step),
#: it starts each time from caches the run has since filled, which costs it more CPU than the work; woken every
#: 50 ms it takes dozens at once. Spans are batched for 0.2 s anyway, and the queue holds `queue` appends.
GATHER_S = 0.05


class ProcessExporter:
    """Follows `store` (an SQLite journal at `path`) and exports from a child process; `close` reports."""

    def __init__(self, store: JournalStore, path: Path, settings: ObserveSettings, *, metrics: bool = True) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a process that has threads
        self.store = store
        self.settings = settings
        self._queue: Any = context.Queue(maxsize=settings.queue)
        self._counts: Any = context.Array("q", 5)
        self._ready: Any = context.Event()
        self._process = context.Process(
            target=serve,
            args=(self._queue, self._counts, self._ready, str(path), settings, metrics),
            name="alicorn-trace-export",
            daemon=True,
        )
        self._guard = threading.Lock()
        self._dropped_events = self._dropped_appends = 0
        self._unsubscribe: Any = None
        #: CPU seconds the exporter process spent after start-up (its imports), known once `close` returned.
        self.cpu_s = 0.0

    def start(self) -> ProcessExporter:
        self._process.start()
        self._unsubscribe = self.store.observe(self._on_append)
        return self

    def ready(self, timeout_s: float) -> bool:
        """Whether the child has started (imports done, collector client made) within `timeout_s`. Appends made
        before that wait in the queue; nothing needs to call this (the benchmark does, to time the steady state)."""
        return bool(self._ready.wait(timeout_s))

    def _on_append(self, stream: str, events: Sequence[Event]) -> None:
        try:
            self._queue.put_nowait((stream, [e.line for e in events]))
        except queue.Full:
            with self._guard:
                self._dropped_events += len(events)
                self._dropped_appends += 1

    def close(self, timeout_s: float | None = None) -> LiveStats:
        """Stop following, give the child time to send what is queued (its export timeout twice, plus a second),
        then stop it; say on stderr what was lost."""
        if callable(self._unsubscribe):
            self._unsubscribe()
        wait = timeout_s if timeout_s is not None else 2 * self.settings.timeout_s + 1.0
        deadline = time.monotonic() + wait
        with contextlib.suppress(queue.Full):  # a full queue: the child is stuck, and is stopped below
            self._queue.put(None, timeout=max(deadline - time.monotonic(), 0.01))
        self._process.join(max(deadline - time.monotonic(), 0.0))
        pending = 0
        if self._process.is_alive():
            try:
                pending = int(self._queue.qsize())
            except NotImplementedError:  # pragma: no cover - macOS has no sem_getvalue
                pending = 1
            self._process.terminate()
            self._process.join(1.0)
        self._queue.cancel_join_thread()  # what is left in the pipe is counted, never waited for
        self._queue.close()
        counts = list(self._counts)
        self.cpu_s = counts[_CPU_US] / 1e6
        with self._guard:
            stats = LiveStats(
                counts[_EXPORTED],
                counts[_FAILED],
                self._dropped_events + counts[_DROPPED_EVENTS],
                self._dropped_appends + counts[_DROPPED_APPENDS],
                pending,
            )
        sentence = stats.sentence()
        if sentence is not None:
            print(f"alicorn: warning: {sentence}", file=sys.stderr)
        return stats


def serve(jobs: Any, counts: Any, ready: Any, path: str, settings: ObserveSettings, metrics: bool) -> None:
    """The exporter process: export what arrives, on this process's main thread, until the parent says stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the run; the parent then closes this process
    lower_priority()
    from alicorn.journal.events import parse_line
    from alicorn.journal.sqlite import SQLiteStore
    from alicorn.observe.wiring import live_parts

    store = SQLiteStore(path, read_only=True)
    exporter, provider = live_parts(settings, store, metrics=metrics)
    ready.set()
    started = time.process_time()

    taken: deque[Any] = deque()

    def next_append(timeout: float | None) -> tuple[str, list[Event]] | None:
        if not taken:  # let appends gather, then take all there are: one wake-up for many
            pause = GATHER_S if timeout is None else min(GATHER_S, timeout)
            time.sleep(pause)
            taken.append(jobs.get(True, None if timeout is None else max(timeout - pause, 0.0)))  # queue.Empty: due
            with contextlib.suppress(queue.Empty):
                while True:
                    taken.append(jobs.get(False))
        item = taken.popleft()
        if item is None:
            return None
        stream, lines = item
        return stream, [parse_line(line) for line in lines]

    try:
        exporter.run(next_append)
    finally:
        exporter.sink.close()
        stats = exporter.stats()
        counts[_EXPORTED], counts[_FAILED] = stats.exported_spans, stats.failed_spans
        counts[_DROPPED_EVENTS], counts[_DROPPED_APPENDS] = stats.dropped_events, stats.dropped_appends
        if provider is not None:
            provider.shutdown(timeout_millis=int(settings.timeout_s * 1000))
        counts[_CPU_US] = int((time.process_time() - started) * 1e6)
        store.close()


def lower_priority() -> None:
    """Make this process yield the CPU to the run (see the module's docstring); where it cannot, it stays as is."""
    with contextlib.suppress(AttributeError, OSError):  # no os.nice on Windows; a sandbox may refuse it
        os.nice(NICENESS)
