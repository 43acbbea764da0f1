"""Whole-journal verification, and saved heads that catch truncation.

What the hash chain promises: any edit, deletion, insertion or reordering of stored events is detected, and the
first bad event is named. What it cannot promise on its own: someone who rewrites a stream's whole tail (or the
whole file) with freshly computed hashes produces a valid chain. Truncation and whole rewrites are caught only
against a head saved elsewhere (`alicorn journal head > head.json`), which pins each stream's last seq and hash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from alicorn import canonical
from alicorn.errors import AlicornError, JournalError
from alicorn.journal.events import ChainProblem, Event, verify_stream
from alicorn.journal.store import Head, JournalStore

HEAD_FORMAT = "alicorn-head"


@dataclass
class VerifyReport:
    """The outcome of verifying a journal: counts, and every stream's first problem."""

    streams: int = 0
    events: int = 0
    problems: list[ChainProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def save_head(store: JournalStore) -> dict[str, Any]:
    """A document pinning every stream's head; keep it somewhere the journal's writer cannot change."""
    streams = {name: {"seq": h.seq, "hash": h.hash} for name, h in sorted(store.heads().items())}
    return {"format": HEAD_FORMAT, "version": 1, "streams": streams, "digest": canonical.digest(streams)}


def load_head(text: str) -> dict[str, Head]:
    """Parse a saved head, checking its own digest."""
    try:
        doc = json.loads(text)
        if doc.get("format") != HEAD_FORMAT:
            raise ValueError(f"format is {doc.get('format')!r}, not {HEAD_FORMAT!r}")
        streams = doc["streams"]
        if canonical.digest(streams) != doc.get("digest"):
            raise ValueError("its digest does not match its content (the head file was edited)")
        return {name: Head(int(v["seq"]), str(v["hash"])) for name, v in streams.items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise JournalError(f"not a usable saved head ({exc}); save one with `alicorn journal head`") from exc


def verify_journal(
    store: JournalStore, *, head: dict[str, Head] | None = None, streams: list[str] | None = None
) -> VerifyReport:
    """Verify every stream (or those named), and against `head` if one was saved."""
    report = VerifyReport()
    names = streams if streams is not None else [info.stream for info in store.streams()]
    for name in names:
        try:
            events = store.read(name)
        except AlicornError as exc:
            report.problems.append(ChainProblem(name, getattr(exc, "seq", None) or 0, str(exc)))
            continue
        report.streams += 1
        report.events += len(events)
        problem = verify_stream(name, events)
        stored_head = store.head(name)
        if problem is None and events and stored_head is not None and stored_head.hash != events[-1].hash:
            # The head is what the next append links to: a forged head would make an honest append look bad.
            problem = ChainProblem(name, events[-1].seq, "the stored hash of the last event differs from its content")
        if problem is None and head is not None and name in head and events:
            problem = _against_head(name, events, head[name])
        if problem is not None:
            report.problems.append(problem)
    if head is not None:
        present = {info.stream for info in store.streams()}
        wanted = set(head) if streams is None else set(head) & set(streams)
        for name in sorted(wanted - present):
            report.problems.append(
                ChainProblem(name, head[name].seq, "the stream is missing (deleted) but the saved head has it")
            )
    return report


def _against_head(stream: str, events: list[Event], saved: Head) -> ChainProblem | None:
    count = len(events)
    if count < saved.seq:
        return ChainProblem(
            stream, count + 1, f"truncated: the saved head ends at #{saved.seq}, the journal at #{count}"
        )
    if saved.seq > 0 and events[saved.seq - 1].hash != saved.hash:
        return ChainProblem(
            stream,
            saved.seq,
            "rewritten: the event's hash differs from the saved head (the chain was recomputed)",
        )
    return None
