"""Moving runs between journals as JSON lines, keeping every hash (used for the replay corpus in the tests)."""

from __future__ import annotations

from collections.abc import Iterable

from alicorn.errors import JournalError, JournalIntegrityError
from alicorn.journal.events import Draft, Event, parse_line, verify_stream
from alicorn.journal.store import JournalStore


def read_export(lines: Iterable[str]) -> tuple[str, list[Event]]:
    """The stream and events of exported lines, which must form one complete, verifying stream (checked before any
    journal is opened or written)."""
    events = [parse_line(line) for line in lines if line.strip()]
    if not events:
        raise JournalError("nothing to import: the file has no events")
    stream = events[0].stream
    problem = verify_stream(stream, events)
    if problem is not None:
        raise JournalIntegrityError(f"refusing to import: {problem}", stream=stream, seq=problem.seq)
    return stream, events


def import_events(store: JournalStore, stream: str, events: list[Event]) -> int:
    """Append `events` (from `read_export`) to `store` as a new stream with identical events; return the count."""
    if store.head(stream) is not None:
        raise JournalError(f"stream {stream!r} already exists in this journal; nothing was imported")
    drafts = [Draft(e.kind, e.at, e.data) for e in events]
    held = [e.seq for e, d in zip(events, store.redacted(drafts), strict=True) if d.data != e.data]
    if held:  # stored, they would be redacted and no longer reproduce the export's hashes
        raise JournalIntegrityError(
            f"refusing to import {stream!r}: event #{held[0]} holds a secret (a known value or one that looks like a "
            "key); redact the export at its source; nothing was imported",
            stream=stream,
            seq=held[0],
        )
    stored = store.append(stream, drafts, expect=0)
    if stored[-1].hash != events[-1].hash:  # cannot happen for a verified stream; guards the encoding itself
        raise JournalIntegrityError(f"imported {stream!r} does not reproduce its hashes", stream=stream)
    return len(stored)


def import_lines(store: JournalStore, lines: Iterable[str]) -> tuple[str, int]:
    """Append an exported stream to `store` as a new stream with identical events; return (stream, count).

    The lines must form one complete, verifying stream; otherwise nothing is written.
    """
    stream, events = read_export(lines)
    return stream, import_events(store, stream, events)
