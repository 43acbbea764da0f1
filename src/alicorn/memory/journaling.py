"""Journaling memory changes: the history table is an outbox, copied into the journal as `memory.<kind>` events
on the stream `memory:<project>`, so memory state is auditable and hash-chained like everything else.

A change and its history entry are one transaction in the memory store; the copy into the journal follows it
(two stores cannot share a transaction). Each event carries its history `seq`; before appending, the tail of the
stream says what a previous, interrupted copy already wrote, so a crash between the append and the marking never
journals an entry twice, and a crash before the append only delays it to the next write (or `sync_journal`).
Events carry ids, labels, provenance and a SHA-256 of the text, not the text itself (the journal may travel
further than the memory store; the hash still proves what was stored).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft
from alicorn.memory.engine import iso
from alicorn.memory.errors import MemoryStoreError

if TYPE_CHECKING:
    from alicorn.journal.store import JournalStore
    from alicorn.memory.handle import StoreHandle


def stream_name(project: str) -> str:
    """The journal stream of a project's memory."""
    return f"memory:{project}"


def _journaled_upto(journal: JournalStore, stream: str, head: int) -> int:
    if head == 0:
        return 0
    last = journal.read(stream, after=head - 1)
    return int(last[-1].data.get("history", 0)) if last else 0


def sync_journal(store: StoreHandle, *, attempts: int = 5) -> int:
    """Append the project's history entries not yet journaled; returns how many events were appended."""
    journal = store.journal
    if journal is None:
        return 0
    stream = stream_name(store.project)
    engine = store.engine
    for _ in range(attempts):
        with engine.read() as tx:
            pending = engine.history_rows(tx, store.project, 0, only_unjournaled=True)
        if not pending:
            return 0
        head = journal.last_seq(stream)
        done = _journaled_upto(journal, stream, head)
        todo = [row for row in pending if row[0] > done]
        if todo:
            drafts = [
                Draft(f"memory.{kind}", iso(engine.required_timestamp(at)), {"history": seq, **json.loads(data)})
                for seq, kind, at, _, data in todo
            ]
            try:
                journal.append(stream, drafts, expect=head)
            except ConcurrentAppendError:
                continue  # another process journaled meanwhile: re-read the tail
        with engine.write(store.project) as tx:
            engine.run(
                tx,
                "UPDATE memory_history SET journaled = 1 WHERE project = ? AND seq <= ? AND journaled = 0",
                [store.project, pending[-1][0]],
            )
        return len(todo)
    raise MemoryStoreError(
        f"could not journal the memory changes of project {store.project!r}: other writers kept appending to "
        f"{stream!r}. They are kept in the memory store's history; the next write (or `sync_journal`) retries."
    )
