"""Whole-journal verification, and saved heads that catch truncation.

What the hash chain promises: any edit, deletion, insertion or reordering of stored events is detected, and the
first bad event is named. What it cannot promise on its own: someone who rewrites a stream's whole tail (or the
whole file) with freshly computed hashes produces a valid chain. Truncation and whole rewrites are caught only
against a head saved elsewhere (`alicorn journal head > head.json`), which pins each stream's last seq and hash.

A journal whose storage is damaged (unreadable pages, undecodable rows) is salvaged: every stream that can still be
found is checked from #1 up to its first unreadable event, and the events after the damage that can still be read
are checked among themselves; the report says where the damage is (`damage`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from alicorn import canonical
from alicorn.errors import AlicornError, DamagedJournalError, EnvironmentFailure, JournalError, UnknownStreamError
from alicorn.journal.events import ChainProblem, Draft, Event, seal, verify_stream
from alicorn.journal.store import Head, JournalStore, SalvagedStream

HEAD_FORMAT = "alicorn-head"


@dataclass
class VerifyReport:
    """The outcome of verifying a journal: counts, every stream's first problem, and (for a journal whose storage
    is damaged) what could not be read: `damage`, one sentence per place, the first unreadable point in each."""

    streams: int = 0
    events: int = 0
    problems: list[ChainProblem] = field(default_factory=list)
    damage: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.damage


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
    """Verify every stream (or those named), and against `head` if one was saved.

    A named stream that is neither in the journal nor in the saved head raises UnknownStreamError. When the
    journal's storage turns out to be damaged, what can be read is salvaged and checked instead (see `damage`)."""
    storage = store.storage_problems() if streams is None else []
    failure: DamagedJournalError | None = None
    if not storage:
        try:
            return _verify(store, head, streams)
        except DamagedJournalError as exc:
            failure = exc
    report = _verify_salvaged(store, head, streams, storage)
    if failure is not None and not report.damage:  # the salvage read everything: say what failed the first time
        report.damage.append(str(failure))
    return report


def _verify(store: JournalStore, head: dict[str, Head] | None, streams: list[str] | None) -> VerifyReport:
    report = VerifyReport()
    names = streams if streams is not None else [info.stream for info in store.streams()]
    for name in dict.fromkeys(names):
        stored_head = store.head(name)
        if stored_head is None:
            if head is not None and name in head:
                continue  # deleted: reported below, against the saved head
            raise UnknownStreamError(name)
        try:
            events = store.read(name)
        except EnvironmentFailure:
            raise
        except AlicornError as exc:
            report.problems.append(ChainProblem(name, getattr(exc, "seq", None) or 0, str(exc)))
            continue
        report.streams += 1
        report.events += len(events)
        problem = verify_stream(name, events)
        if problem is None and events and stored_head.hash != events[-1].hash:
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


def _verify_salvaged(
    store: JournalStore, head: dict[str, Head] | None, streams: list[str] | None, storage: list[str]
) -> VerifyReport:
    salvage = store.salvage()
    report = VerifyReport(damage=[*storage, *salvage.problems])
    found = {s.stream: s for s in salvage.streams}
    names = list(dict.fromkeys(streams)) if streams is not None else sorted(found)
    for name in names:
        if name not in found:
            known = head is not None and name in head
            if streams is not None and not known and not salvage.problems:
                raise UnknownStreamError(name)
            report.damage.append(f"stream {name!r} cannot be found in what could be read of the journal")
            continue
        salvaged = found[name]
        report.streams += 1
        report.events += len(salvaged.events) + len(salvaged.later)
        problem = verify_stream(name, salvaged.events)
        if problem is None and salvaged.unreadable_from is None and head is not None and name in head:
            problem = _against_head(name, salvaged.events, head[name]) if salvaged.events else None
        if problem is not None:
            report.problems.append(problem)
        if salvaged.unreadable_from is not None:
            report.damage.append(_damage_sentence(salvaged))
    if head is not None:
        wanted = set(head) if streams is None else set(head) & set(streams)
        for name in sorted(wanted - set(found) - set(names)):
            report.damage.append(f"stream {name!r} is in the saved head but cannot be found in the damaged journal")
    return report


def _damage_sentence(salvaged: SalvagedStream) -> str:
    first = salvaged.unreadable_from or 1
    readable = f"events #1-#{first - 1} read and checked" if first > 1 else "no event could be read from #1"
    later = salvaged.later
    upto = f"#{later[0].seq - 1}" if later else "its end"
    span = f"#{first}" if later and later[0].seq - 1 == first else f"#{first} to {upto}"
    text = f"stream {salvaged.stream!r}: {readable}; {span} cannot be read ({salvaged.reason})"
    if later:
        problem = verify_fragment(salvaged.stream, later)
        checked = "each one's hash checks" if problem is None else f"but {problem.reason} at #{problem.seq}"
        text += f"; {len(later)} later event(s), #{later[0].seq}-#{later[-1].seq}, could be read: {checked}"
    return text


def verify_fragment(stream: str, events: list[Event]) -> ChainProblem | None:
    """Check events salvaged after a damaged stretch: each one's hash and stored form, and the links between
    neighbours (what is before the first one cannot be read, so its own `prev` cannot be checked)."""
    previous: Event | None = None
    for event in events:
        if event.stream != stream:
            return ChainProblem(stream, event.seq, f"event belongs to stream {event.stream!r}")
        expected = seal(stream, event.seq, event.prev, Draft(event.kind, event.at, event.data))
        if expected.hash != event.hash:
            return ChainProblem(stream, event.seq, "its content does not match its hash (edited)")
        if expected.line != event.line:
            return ChainProblem(stream, event.seq, "its stored form is not canonical (edited)")
        if previous is not None and (event.seq != previous.seq + 1 or event.prev != previous.hash):
            return ChainProblem(stream, event.seq, "it does not follow the event before it (deleted or reordered)")
        previous = event
    return None


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
