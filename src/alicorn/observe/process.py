"""Live export in a process of its own, so it costs a run almost nothing.

    appending thread ── committed append ── write "stream first last" (a line of at most ~150 bytes) on a
                                            non-blocking pipe; when the pipe is full, remember where this stream's
                                            unsent events start and say it with the next line that fits
    exporter process ── read the lines ── read those events from the journal (read-only) ── LiveExporter.run on its
                                            main thread (projection, batching, OTLP/HTTP, metrics)

The hand-over is one `os.write` of a line in the appending thread: no pickling of the events, no queue, and no
feeder thread, whose wake-up at every append took the GIL from the run's thread just as it came back from fsync
(measured: +25% wall per durable node with a tuple of nothing handed over through a multiprocessing queue, against
+0% with the exporter process running and nothing handed over). A line of fewer than PIPE_BUF bytes is written
whole or not at all. A line that did not fit is not lost: the stream's next line that fits starts from the first
event not yet said (lines never overlap and never leave a gap), which delays spans and loses none; at close, the
streams whose last lines did not fit are said once more, waiting for room until the deadline (or until the child
is found gone); what still cannot be said is counted dropped.

Parsing, projection and OTLP encoding take ~100 µs of CPU per durable node in Python, in the child. It lowers its
own scheduling priority (nice +10) at start: on a machine with few cores it competes with the run for CPU, and the
run's thread, waking from fsync, should get the core first. The child ignores Ctrl-C (the parent closes it), and
counts what it sent, what the collector refused, what it dropped and the CPU it used in shared memory, so the
parent says it once.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import select
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

_EXPORTED, _FAILED, _DROPPED_EVENTS, _DROPPED_APPENDS, _CPU_US, _UNREAD, _METRICS_FAILED = range(7)
#: How much lower than the run's the exporter process's priority is (`os.nice`; 19 is the lowest).
NICENESS = 10
#: How long the exporter process lets appends gather before it takes them. Woken for every append (one per step),
#: it starts each time from caches the run has since filled, which costs it more CPU than the work; woken every
#: 50 ms it takes dozens at once. Spans are batched for 0.2 s anyway.
GATHER_S = 0.05
#: The longest `close` waits for the exporter process to finish starting before its own deadline begins.
STARTUP_WAIT_S = 10.0
#: Room asked for in the pipe per append the settings' `queue` holds (a line is ~40-150 bytes).
LINE_ROOM = 160
#: F_SETPIPE_SZ (Linux): a pipe's buffer size. Capped at 1 MiB (/proc/sys/fs/pipe-max-size's default), which root
#: could exceed: ~7,000 appends waiting, beyond which lines wait in the run's process (a few bytes per stream).
_SETPIPE_SZ = 1031
_PIPE_MAX = 1 << 20


class ProcessExporter:
    """Follows `store` and exports from a child process that opens the same journal read-only (`journal`: an SQLite
    file's path, or a PostgreSQL journal's (URL, schema)); `close` reports."""

    def __init__(
        self, store: JournalStore, journal: Path | tuple[str, str], settings: ObserveSettings, *, metrics: bool = True
    ) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a process that has threads
        self.store = store
        self.settings = settings
        # The pipe's ends travel to the spawned child as Connection objects; only their descriptors are used.
        self._reading, self._writing = context.Pipe(duplex=False)
        self._fd = self._writing.fileno()
        os.set_blocking(self._fd, False)
        with contextlib.suppress(OSError):  # a smaller pipe only means lines wait for room sooner
            import fcntl

            fcntl.fcntl(self._fd, _SETPIPE_SZ, min(max(settings.queue * LINE_ROOM, 4096), _PIPE_MAX))
        self._counts: Any = context.Array("q", 7)
        self._ready: Any = context.Event()
        self._process = context.Process(
            target=serve,
            args=(self._reading, self._counts, self._ready, journal, settings, metrics),
            name="alicorn-trace-export",
            daemon=True,
        )
        self._guard = threading.Lock()
        #: Per stream whose last lines did not fit: the first and last seq not said, how many events and appends.
        self._unsaid: dict[str, tuple[int, int, int, int]] = {}
        self._unsubscribe: Any = None
        #: CPU seconds the exporter process spent after start-up (its imports), known once `close` returned.
        self.cpu_s = 0.0

    def start(self) -> ProcessExporter:
        self._process.start()
        self._unsubscribe = self.store.observe(self._on_append)
        return self

    def ready(self, timeout_s: float) -> bool:
        """Whether the child has started (imports done, collector client made) within `timeout_s`. Appends made
        before that wait in the pipe; nothing needs to call this (the benchmark does, to time the steady state)."""
        return bool(self._ready.wait(timeout_s))

    def _on_append(self, stream: str, events: Sequence[Event]) -> None:
        if not events:
            return
        with self._guard:  # appends of several threads: each line whole, and one stream's lines in order
            first, last = events[0].seq, events[-1].seq
            unsaid = self._unsaid.get(stream)
            if unsaid is not None:
                first = unsaid[0]
            try:
                os.write(self._fd, f"{stream} {first} {last}\n".encode())
            except OSError:  # full (the child is behind), or the child is gone: said with the next line, or at close
                events_unsaid, appends_unsaid = (unsaid[2], unsaid[3]) if unsaid else (0, 0)
                self._unsaid[stream] = (first, last, events_unsaid + len(events), appends_unsaid + 1)
                return
            self._unsaid.pop(stream, None)

    def _say(self, line: bytes, deadline: float) -> bool:
        """Write one line, waiting for room in the pipe until `deadline`."""
        while True:
            try:
                os.write(self._fd, line)
                return True
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not self._process.is_alive():  # a dead child reads nothing more
                    return False
                select.select([], [self._fd], [], min(left, 0.1))
            except OSError:
                return False

    def close(self, timeout_s: float | None = None) -> LiveStats:
        """Stop following, say once more the streams whose last lines did not fit, give the child time to send what
        it was told (its export timeout twice, plus a second, after its start-up), then stop it; say on stderr what
        was lost."""
        if callable(self._unsubscribe):
            self._unsubscribe()
        # A run shorter than the child's start-up (its imports, ~1 s; longer on a loaded machine) would otherwise
        # leave it no time at all: the deadline counts from when it is ready, waited for up to STARTUP_WAIT_S.
        if self._process.is_alive():
            self._ready.wait(STARTUP_WAIT_S)
        wait = timeout_s if timeout_s is not None else 2 * self.settings.timeout_s + 1.0
        deadline = time.monotonic() + wait
        dropped_events = dropped_appends = 0
        with self._guard:
            for stream, (first, last, events, appends) in list(self._unsaid.items()):
                if self._say(f"{stream} {first} {last}\n".encode(), deadline):
                    del self._unsaid[stream]
                else:
                    dropped_events, dropped_appends = dropped_events + events, dropped_appends + appends
            said_stop = self._say(b"\n", deadline)  # an empty line: the child sends what it has and ends
        if said_stop:
            self._process.join(max(deadline - time.monotonic(), 0.0))
        pending = 0
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(1.0)
            pending = _lines_left(self._reading)
        self._writing.close()
        self._reading.close()
        counts = list(self._counts)
        self.cpu_s = counts[_CPU_US] / 1e6
        stats = LiveStats(
            counts[_EXPORTED],
            counts[_FAILED],
            dropped_events + counts[_DROPPED_EVENTS],
            dropped_appends + counts[_DROPPED_APPENDS],
            pending,
            counts[_UNREAD],
            counts[_METRICS_FAILED],
        )
        sentence = stats.sentence()
        if sentence is not None:
            print(f"alicorn: warning: {sentence}", file=sys.stderr)
        return stats


def _lines_left(reading: Any) -> int:
    """How many appends are still in the pipe (the child was stopped before it read them)."""
    fd = reading.fileno()
    os.set_blocking(fd, False)
    left = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, 1 << 16):
            left += chunk
    return sum(1 for line in left.split(b"\n") if line.strip())


class _Lines:
    """The exporter process's side of the pipe: the lines the run's process wrote, each (stream, first, last);
    None for the parent's end (an empty line, or the pipe closed)."""

    def __init__(self, reading: Any) -> None:
        self._fd = reading.fileno()
        os.set_blocking(self._fd, False)
        self._partial = b""
        self.ended = False

    def take(self, timeout: float | None) -> list[tuple[str, int, int] | None]:
        """Every line there is, once one is there (waiting up to `timeout`; [] when none came)."""
        if not select.select([self._fd], [], [], timeout)[0]:
            return []
        data = self._partial
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self._fd, 1 << 16):
                data += chunk
            else:
                self.ended = True  # EOF: the parent is gone
        *lines, self._partial = data.split(b"\n")
        taken: list[tuple[str, int, int] | None] = []
        for line in lines:
            if not line:
                taken.append(None)
                continue
            stream, first, last = line.decode().split(" ")
            taken.append((stream, int(first), int(last)))
        if self.ended:
            taken.append(None)
        return taken


def serve(
    reading: Any, counts: Any, ready: Any, journal: Path | tuple[str, str], settings: ObserveSettings, metrics: bool
) -> None:
    """The exporter process: export what the run's process says it appended, on this process's main thread, until
    it says stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the run; the parent then closes this process
    lower_priority()
    from alicorn.observe.wiring import live_parts

    store = _read_only(journal)
    exporter, sent = live_parts(settings, store, metrics=metrics)
    lines = _Lines(reading)
    ready.set()
    started = time.process_time()
    taken: deque[tuple[str, list[Event]] | None] = deque()

    def take(timeout: float | None) -> None:
        time.sleep(GATHER_S if timeout is None else min(GATHER_S, timeout))  # let lines gather: one wake-up for many
        said = lines.take(None if timeout is None else max(timeout - GATHER_S, 0.0))
        if not said:
            raise queue.Empty  # LiveExporter.run: the oldest waiting span is due
        wanted: dict[str, tuple[int, int]] = {}  # per stream, the first and last seq to read, in order of lines
        for item in said:
            if item is None:
                break
            stream, first, last = item
            low, high = wanted.get(stream, (first, last))
            wanted[stream] = (min(low, first), max(high, last))
        for stream, (low, high) in wanted.items():
            try:
                events = [e for e in store.read(stream, after=low - 1) if e.seq <= high]
            except Exception as exc:  # a damaged or vanished journal must not end export for the other streams
                print(f"alicorn: warning: trace export could not read {stream} ({exc}); skipped", file=sys.stderr)
                exporter.count_unread(high - low + 1)
                continue
            if events:
                taken.append((stream, events))
        if None in said:
            taken.append(None)

    def next_append(timeout: float | None) -> tuple[str, list[Event]] | None:
        while not taken:
            take(timeout)
        return taken.popleft()

    try:
        exporter.run(next_append)
    finally:
        exporter.sink.close()
        stats = exporter.stats()
        counts[_EXPORTED], counts[_FAILED] = stats.exported_spans, stats.failed_spans
        counts[_DROPPED_EVENTS], counts[_DROPPED_APPENDS] = stats.dropped_events, stats.dropped_appends
        counts[_UNREAD] = stats.unread_events
        if sent is not None:
            counts[_METRICS_FAILED] = sent.close(settings.timeout_s)
        counts[_CPU_US] = int((time.process_time() - started) * 1e6)
        store.close()


def _read_only(journal: Path | tuple[str, str]) -> JournalStore:
    """The journal the run's process appends to, opened read-only in this one."""
    if isinstance(journal, Path):
        from alicorn.journal.sqlite import SQLiteStore

        return SQLiteStore(journal, read_only=True)
    from alicorn.journal.postgres import PostgresJournalStore

    url, schema = journal
    return PostgresJournalStore(url, schema=schema, read_only=True)


def lower_priority() -> None:
    """Make this process yield the CPU to the run (see the module's docstring); where it cannot, it stays as is."""
    with contextlib.suppress(AttributeError, OSError):  # no os.nice on Windows; a sandbox may refuse it
        os.nice(NICENESS)
