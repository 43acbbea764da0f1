"""Run summaries: the one row per run that `alicorn runs` lists, kept by the journal as a projection.

Listing runs by folding every run stream costs minutes at 100,000 runs. Instead each store applies `advance` to the
events of every append inside the append's own write transaction (store.py, `JournalStore._append_txn`) and writes
the row back, so a row is exactly as current as the events it summarizes: both commit, or neither.

`advance` mirrors `alicorn.runtime.state.fold` for the fields a summary holds (status, goal, nodes, succeeded,
created, finished); it cannot import the runtime (the journal is the layer below it), so the mirror is pinned by
tests/journal/test_run_summaries.py, which compares every field with fold's for real runs of every outcome.
Only a stream whose first event is `run.created` is a run; other streams (conversations, proposals...) get no row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from alicorn.journal.events import Event

#: The first event of every run stream.
RUN_CREATED = "run.created"


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What the run listing shows of one run, without folding it.

    `bytes` is the UTF-8 size of its stored event lines (as `StreamInfo.bytes`); `archived_bytes` the size of its
    archive segment once archived (None while it is live); `last_seq` the last event the row has seen.
    """

    stream: str
    status: str
    goal: str
    nodes: int
    succeeded: int
    events: int
    bytes: int
    created: str
    finished: str | None
    last_seq: int
    archived_bytes: int | None = None


def advance(previous: RunSummary | None, events: Sequence[Event]) -> RunSummary | None:
    """The summary after `events` (the next events of one stream, in order) given the row before them (None: the
    stream had no row). None when the stream is not a run: its first event is not `run.created`."""
    if not events:
        return previous
    summary = previous
    if summary is None:
        first = events[0]
        if first.seq != 1 or first.kind != RUN_CREATED:
            return None
        summary = _created(first)
        events = events[1:]
    status, succeeded, finished = summary.status, summary.succeeded, summary.finished
    size = 0
    for event in events:
        kind = event.kind
        if kind == "node.succeeded":
            succeeded += 1
        elif kind == "run.awaiting_approval":
            status = "awaiting_approval"
        elif kind == "approval.granted":
            status = "running" if status == "awaiting_approval" else status
        elif kind == "run.resumed":
            status = "running" if status == "blocked" else status
        elif kind == "run.blocked":
            status = "blocked"
        elif kind == "run.finished":
            status, finished = str(event.data.get("status", status)), event.at
        size += _size(event)
    # Built directly, not with dataclasses.replace (which inspects the fields on every call): once per append.
    return RunSummary(
        summary.stream,
        status,
        summary.goal,
        summary.nodes,
        succeeded,
        summary.events + len(events),
        summary.bytes + size,
        summary.created,
        finished,
        events[-1].seq if events else summary.last_seq,
        summary.archived_bytes,
    )


def newest_first(rows: Iterable[RunSummary], *, limit: int | None, status: str | None) -> list[RunSummary]:
    """`rows` as a listing gives them: only those with `status` (when given), newest created first (ties: the
    greater stream name first), at most `limit` (None: all). The engines' queries order the same way."""
    chosen = sorted(
        (r for r in rows if status is None or r.status == status), key=lambda r: (r.created, r.stream), reverse=True
    )
    return chosen if limit is None else chosen[:limit]


def summarize(events: Iterable[Event]) -> RunSummary | None:
    """The summary of a whole stream (None when it is not a run): what a journal without the projection computes."""
    return advance(None, list(events))


def _created(event: Event) -> RunSummary:
    # The journal stores whatever a caller appends: a projection must never refuse an append, so a run.created
    # without a whole plan (a test's, a later format's) summarizes as what it holds rather than failing.
    plan = event.data.get("plan")
    plan = plan if isinstance(plan, dict) else {}
    nodes = plan.get("nodes")
    node_ids = {n.get("node_id") for n in nodes if isinstance(n, dict)} if isinstance(nodes, list) else set()
    goal = plan.get("goal", "")
    return RunSummary(
        stream=event.stream,
        status="running",
        goal=goal if isinstance(goal, str) else str(goal),
        nodes=len(node_ids),  # fold keys its nodes by id
        succeeded=0,
        events=1,
        bytes=_size(event),
        created=event.at,
        finished=None,
        last_seq=event.seq,
    )


def _size(event: Event) -> int:
    return len(event.line.encode("utf-8"))
