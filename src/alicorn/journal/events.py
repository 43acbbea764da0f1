"""Journal events and the hash chain that links them.

An event is stored as canonical JSON of {stream, seq, kind, at, data, prev, hash}. `hash` is the SHA-256 of the
canonical JSON of every other field, and `prev` is the hash of the stream's previous event (or the stream's genesis
hash for event #1), so changing, removing, inserting or reordering any event breaks the chain from that point on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from alicorn import canonical
from alicorn.errors import JournalIntegrityError
from alicorn.records import quick_init

JsonObject = dict[str, Any]


def genesis_hash(stream: str) -> str:
    """The `prev` of a stream's first event: binds the chain to the stream's name."""
    return hashlib.sha256(f"alicorn-genesis:{stream}".encode()).hexdigest()


@quick_init
@dataclass(frozen=True, slots=True)
class Draft:
    """An event not yet appended: the store gives it a sequence number, the previous hash and its own hash.

    `at` is a reading of the injected clock (ISO 8601 UTC); it is an input like any other, so replay can feed the
    recorded value back.
    """

    kind: str
    at: str
    data: JsonObject


@quick_init
@dataclass(frozen=True, slots=True)
class Event:
    """An appended, hash-chained event. `line` is its exact stored form (canonical JSON)."""

    stream: str
    seq: int
    kind: str
    at: str
    data: JsonObject
    prev: str
    hash: str
    line: str

    def body(self) -> JsonObject:
        """The fields covered by `hash`."""
        return {
            "stream": self.stream,
            "seq": self.seq,
            "kind": self.kind,
            "at": self.at,
            "data": self.data,
            "prev": self.prev,
        }


def seal(stream: str, seq: int, prev: str, draft: Draft, data_text: str | None = None) -> Event:
    """Turn a draft into the event that follows `prev` at position `seq`. `data_text` is `canonical.dumps(draft.data)`
    when the caller has it already (the journal's redaction encodes the data to probe it)."""
    if data_text is None:
        data_text = canonical.dumps(draft.data)
    # The canonical JSON of the body {stream, seq, kind, at, data, prev}, its keys in sorted order, assembled around
    # the data's text so the data is encoded once (a test checks it equals canonical.dumps of the body).
    encode = canonical.dumps_str
    body_text = (
        f'{{"at":{encode(draft.at)},"data":{data_text},"kind":{encode(draft.kind)},"prev":{encode(prev)},'
        f'"seq":{int(seq)},"stream":{encode(stream)}}}'
    )
    digest = hashlib.sha256(body_text.encode("utf-8")).hexdigest()
    # The stored line is the body plus its hash; built by hand so the body is encoded only once.
    line = body_text[:-1] + ',"hash":"' + digest + '"}'
    return Event(stream, seq, draft.kind, draft.at, draft.data, prev, digest, line)


def chain(
    stream: str,
    last_seq: int,
    last_hash: str | None,
    drafts: Iterable[Draft],
    data_texts: Sequence[str] | None = None,
) -> list[Event]:
    """Seal `drafts` in order after the stream's current head (`data_texts`: each draft's data, already encoded)."""
    prev = last_hash if last_hash is not None else genesis_hash(stream)
    out: list[Event] = []
    seq = last_seq
    for position, draft in enumerate(drafts):
        seq += 1
        event = seal(stream, seq, prev, draft, data_texts[position] if data_texts is not None else None)
        out.append(event)
        prev = event.hash
    return out


def parse_line(line: str) -> Event:
    """Parse a stored line without checking its hash (see `verify_stream` for that)."""
    try:
        raw = json.loads(line)
        return Event(raw["stream"], raw["seq"], raw["kind"], raw["at"], raw["data"], raw["prev"], raw["hash"], line)
    except (ValueError, KeyError, TypeError) as exc:
        raise JournalIntegrityError(f"stored event is not a valid Alicorn event ({exc}): {line[:120]!r}") from exc


@dataclass(frozen=True, slots=True)
class ChainProblem:
    """The first place where a stream's stored events stop verifying."""

    stream: str
    seq: int
    reason: str

    def __str__(self) -> str:
        return f"stream {self.stream!r}, event #{self.seq}: {self.reason}"


def verify_stream(stream: str, events: Sequence[Event]) -> ChainProblem | None:
    """Check one stream's events: contiguous numbering from 1, each hash correct, each `prev` linking up.

    Returns the first problem, or None when the stream verifies. The event's stored line is re-parsed and
    re-encoded, so an edit that keeps the JSON valid is caught as a hash mismatch, and a non-canonical edit too.
    """
    prev = genesis_hash(stream)
    for position, event in enumerate(events, start=1):
        if event.stream != stream:
            return ChainProblem(stream, position, f"event belongs to stream {event.stream!r}")
        if event.seq != position:
            return ChainProblem(
                stream, position, f"expected event #{position}, found #{event.seq} (deleted or reordered)"
            )
        if event.prev != prev:
            return ChainProblem(
                stream, position, "its `prev` does not match the previous event's hash (deleted or reordered)"
            )
        expected = seal(stream, event.seq, event.prev, Draft(event.kind, event.at, event.data))
        if expected.hash != event.hash:
            return ChainProblem(stream, position, "its content does not match its hash (edited)")
        if expected.line != event.line:
            return ChainProblem(stream, position, "its stored form is not canonical (edited)")
        prev = event.hash
    return None
