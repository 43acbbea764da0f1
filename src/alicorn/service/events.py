"""Live progress: a run's journal events as Server-Sent Events, resumable exactly.

Each event goes out as `id: <seq>` and `data: <the stored line>` (canonical JSON, one line, exactly as journaled).
A client that reconnects with `Last-Event-ID: N` (browsers' EventSource sends it by itself) gets the events with
seq > N, in order: the journal's seq makes resuming exact, so nothing is lost and nothing repeated. The stream polls
the journal (`store.read(run, after=last)`, one primary-key range read) every `poll_s` while idle, so appends from
any process are seen, and sends a comment line every `keepalive_s` so proxies keep the connection open.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread
from fastapi.responses import StreamingResponse

from alicorn.journal.store import JournalStore
from alicorn.service.problems import Problem

RETRY_MS = 1000
#: The largest seq a journal holds (SQLite's and PostgreSQL's 64-bit integers): a start point past it is no seq.
MAX_SEQ = 2**63 - 1
#: What every event stream answers with: never cached, never buffered by a proxy.
STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def resume_point(last_event_id: str | None, default: int = 0) -> int:
    """The seq a stream resumes after: the `Last-Event-ID` a reconnecting client sent, else `default`;
    Problem(422) when the header is not a seq."""
    if last_event_id is None or not last_event_id.strip():
        return default
    said = last_event_id.strip()
    if not said.isdigit() or int(said) > MAX_SEQ:
        raise Problem(
            422, "invalid-last-event-id", f"Last-Event-ID {said[:40]!r} is not an event seq (a number up to {MAX_SEQ})"
        )
    return int(said)


async def run_events(
    store: JournalStore,
    run_id: str,
    after: int,
    disconnected: Callable[[], Awaitable[bool]],
    *,
    poll_s: float = 0.05,
    keepalive_s: float = 15.0,
) -> AsyncIterator[bytes]:
    """The SSE body: every event of `run_id` after seq `after`, then new ones as they are appended, until the
    client goes away. `disconnected` is asked before every read: under ASGI 2.4 servers nothing else stops a stream
    whose client left (a send to a closed connection is dropped), and abandoned streams would go on reading."""
    yield f"retry: {RETRY_MS}\n\n".encode()
    last = after
    idle = 0.0
    while not await disconnected():
        events = await anyio.to_thread.run_sync(store.read, run_id, last)
        if events:
            idle = 0.0
            chunk = "".join(f"id: {e.seq}\ndata: {e.line}\n\n" for e in events)
            last = events[-1].seq
            yield chunk.encode("utf-8")
            continue
        await anyio.sleep(poll_s)
        idle += poll_s
        if idle >= keepalive_s:
            idle = 0.0
            yield b": keepalive\n\n"


def event_stream(
    service: Any,
    stream: str,
    after: int,
    disconnected: Callable[[], Awaitable[bool]],
    *,
    poll_s: float = 0.05,
    keepalive_s: float = 15.0,
) -> StreamingResponse:
    """The response of every event-stream route (a run's, a conversation's, a run page's): `run_events` of
    `stream` in `service`'s journal, counted in `service.open_streams` while it is sent."""
    body = run_events(service.app.store, stream, after, disconnected, poll_s=poll_s, keepalive_s=keepalive_s)
    return StreamingResponse(service.counted(body), media_type="text/event-stream", headers=STREAM_HEADERS)
