"""The in-memory journal store: a verified fake (it passes the same contract suite as the durable stores)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from alicorn.journal.events import Event, parse_line
from alicorn.journal.store import Head, JournalStore, Segment, StreamInfo
from alicorn.journal.summaries import RunSummary, newest_first


@dataclass
class _Staged:
    """Writes of one transaction, applied together at commit."""

    events: list[Event] = field(default_factory=list)
    archived: list[Segment] = field(default_factory=list)
    summaries: dict[str, RunSummary] = field(default_factory=dict)
    savepoint: int = 0  # how many events were staged at the last savepoint
    summaries_at_savepoint: dict[str, RunSummary] = field(default_factory=dict)


class InMemoryStore(JournalStore):
    """Streams kept in process memory; for tests, replay and ephemeral runs. `group_commit` is off: with no fsync
    there is nothing to share (it can be turned on, to test the grouping logic against the verified fake)."""

    def __init__(self, *, group_commit: bool = False) -> None:
        super().__init__()
        self.group_commit = group_commit
        self._lock = threading.RLock()
        self._streams: dict[str, list[Event]] = {}
        self._segments: dict[str, Segment] = {}
        self._summaries: dict[str, RunSummary] = {}

    @contextmanager
    def _write_transaction(self) -> Iterator[_Staged]:
        with self._lock:
            staged = _Staged()
            yield staged
            # Commit: only reached when the block did not raise, so a failed batch leaves nothing behind.
            for event in staged.events:
                self._streams.setdefault(event.stream, []).append(event)
            for segment in staged.archived:
                self._segments[segment.stream] = segment
                self._streams.pop(segment.stream, None)
            self._summaries.update(staged.summaries)

    @contextmanager
    def _read_transaction(self) -> Iterator[None]:
        with self._lock:
            yield None

    def _savepoint_txn(self, tx: _Staged) -> None:
        tx.savepoint = len(tx.events)
        tx.summaries_at_savepoint = dict(tx.summaries)

    def _release_savepoint_txn(self, tx: _Staged) -> None:
        pass  # nothing to let go of: the staged events stay

    def _rollback_to_savepoint_txn(self, tx: _Staged) -> None:
        del tx.events[tx.savepoint :]
        tx.summaries = tx.summaries_at_savepoint

    def _head_txn(self, tx: object, stream: str) -> Head | None:
        events = self._streams.get(stream)
        return Head(events[-1].seq, events[-1].hash) if events else None

    def _insert_txn(self, tx: _Staged, events: list[Event]) -> None:
        # Keep private copies decoded from the stored form: later changes to the caller's dicts cannot reach the
        # journal, and values come back as JSON gives them (lists, string keys), exactly like a durable store.
        tx.events.extend(parse_line(e.line) for e in events)

    def _read_txn(self, tx: object, stream: str, after: int) -> list[Event]:
        events = self._streams.get(stream, [])
        return [parse_line(e.line) for e in events[max(after, 0) :]]

    def _streams_txn(self, tx: object) -> list[StreamInfo]:
        infos = [
            StreamInfo(
                name,
                len(events),
                sum(len(e.line.encode("utf-8")) for e in events),
                events[0].at,
                events[-1].at,
                Head(events[-1].seq, events[-1].hash),
                False,
            )
            for name, events in self._streams.items()
            if events
        ]
        infos.extend(
            StreamInfo(s.stream, s.events, s.raw_bytes, s.first_at, s.last_at, s.head, True, len(s.data))
            for s in self._segments.values()
        )
        return infos

    def _archive_record_txn(self, tx: object, stream: str) -> tuple[str, Head] | None:
        segment = self._segments.get(stream)
        return (segment.digest, segment.head) if segment else None

    def _save_segment(self, segment: Segment) -> None:
        pass  # kept with the archive record in `_archive_txn`

    def _load_segment(self, stream: str) -> bytes:
        return self._segments[stream].data

    def _load_segment_txn(self, tx: object, stream: str) -> bytes:
        return self._segments[stream].data

    def _summary_txn(self, tx: _Staged | None, stream: str) -> RunSummary | None:
        staged = tx.summaries.get(stream) if isinstance(tx, _Staged) else None
        return staged if staged is not None else self._summaries.get(stream)

    def _put_summary_txn(self, tx: _Staged, summary: RunSummary, previous: RunSummary | None = None) -> None:
        tx.summaries[summary.stream] = summary

    def _summaries_txn(self, tx: object, limit: int | None, status: str | None) -> list[RunSummary]:
        return newest_first(self._summaries.values(), limit=limit, status=status)

    def _summary_count_txn(self, tx: object, status: str | None) -> int:
        return len(newest_first(self._summaries.values(), limit=None, status=status))

    def _archive_txn(self, tx: _Staged, segment: Segment) -> None:
        tx.archived.append(segment)
