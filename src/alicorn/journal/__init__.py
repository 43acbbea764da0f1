"""The journal: append-only, hash-chained event streams; the source of truth for every run.

`events` defines events and the chain, `store` the interface every engine implements, `memory`, `sqlite` and
`postgres` the engines, `verify` whole-journal checks and saved heads.
"""

from alicorn.journal.events import Draft, Event
from alicorn.journal.store import Head, JournalStore, StreamInfo

__all__ = ["Draft", "Event", "Head", "JournalStore", "StreamInfo"]
