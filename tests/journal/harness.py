"""What the journal contract suites share: the engine hooks, draft builders and hypothesis strategies.

`StoreHarness` declares the hooks an engine's test class implements; everything backend-specific lives behind
them, so a new engine (PostgreSQL) gets the whole contract by implementing `make_store`, `open_another`,
`reopen` and the `tamper_*` hooks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from alicorn import canonical
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import Head, JournalStore
from alicorn.journal.verify import load_head, save_head

# Contract tests are inherited by one class per engine, so hypothesis sees one test run by several executors;
# that is the point here, not a mistake. Stores are made inside each example, never shared between examples.
JOURNAL_SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.differing_executors, HealthCheck.too_slow],
)

_T0 = datetime(2024, 5, 1, 8, 0, 0, tzinfo=UTC)


def at(i: int) -> str:
    """A clock reading `i` seconds after a fixed origin, as the runtime's injected clock writes it."""
    return (_T0 + timedelta(seconds=i)).isoformat().replace("+00:00", "Z")


def drafts(n: int, *, start: int = 0, tag: str = "t") -> list[Draft]:
    """`n` distinct, plain drafts numbered from `start`."""
    return [Draft("test.event", at(start + i), {"n": start + i, "tag": tag}) for i in range(n)]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utf8_len(events: Sequence[Event]) -> int:
    return sum(len(e.line.encode("utf-8")) for e in events)


def pinned_head(store: JournalStore) -> dict[str, Head]:
    """Save the journal's head as a document and load it back, as `alicorn journal head` users would."""
    return load_head(json.dumps(save_head(store)))


def relined(event: Event, **changes: Any) -> str:
    """The stored line of `event` with body fields changed but its old hash kept (an edit without re-hashing)."""
    return stored_form({**event.body(), **changes}, event.hash)


def stored_form(body: dict[str, Any], digest: str) -> str:
    """How events are stored: the canonical body, then the hash as the last key."""
    return canonical.dumps(body)[:-1] + ',"hash":"' + digest + '"}'


def tamper_value(data: Any) -> Any:
    """A data object certainly different from `data`: its first value wrapped in a list, or a new key."""
    if isinstance(data, dict) and data:
        key = sorted(data)[0]
        return {**data, key: [data[key]]}
    return {"tampered": True}


# ---- hypothesis strategies -----------------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
data_objects = st.dictionaries(st.text(alphabet="abcdefgh", min_size=1, max_size=4), json_values, max_size=3)
kinds = st.sampled_from(["intent.received", "plan.proposed", "tool.call", "tool.result", "effect.done"]) | st.text(
    min_size=1, max_size=10
)
clock = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)).map(lambda d: d.isoformat() + "Z")
draft_strategy = st.builds(Draft, kinds, clock, data_objects)
stream_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,16}", fullmatch=True)
# A journal: stream name -> batches of drafts, appended in that order.
journal_specs = st.dictionaries(
    stream_names,
    st.lists(st.lists(draft_strategy, min_size=1, max_size=3), min_size=1, max_size=3),
    min_size=1,
    max_size=3,
)


def build(store: JournalStore, spec: dict[str, list[list[Draft]]]) -> dict[str, list[Event]]:
    """Append every batch of `spec`, interleaving streams, and return each stream's events."""
    written: dict[str, list[Event]] = {name: [] for name in spec}
    rounds = max(len(batches) for batches in spec.values())
    for r in range(rounds):
        for name, batches in spec.items():
            if r < len(batches):
                written[name] += store.append(name, batches[r], expect=len(written[name]))
    return written


class StoreHarness:
    """The hooks an engine's test class implements, and the bookkeeping that closes what the tests open."""

    tmp_path: Path

    @pytest.fixture(autouse=True)
    def _journal_harness(self, tmp_path: Path) -> Iterator[None]:
        self.tmp_path = tmp_path
        self._opened: list[JournalStore] = []
        yield
        for store in reversed(self._opened):
            store.close()

    def track(self, store: JournalStore) -> JournalStore:
        """Remember `store` so it is closed after the test, whatever happens."""
        self._opened.append(store)
        return store

    # ---- engine hooks --------------------------------------------------------------------------------------

    def make_store(self) -> JournalStore:
        """A new, empty journal (each call a different one)."""
        raise NotImplementedError

    def open_another(self, store: JournalStore) -> JournalStore:
        """Another handle on the same journal, as a second writer would open it (the same object if the engine
        cannot be opened twice)."""
        raise NotImplementedError

    def reopen(self, store: JournalStore) -> JournalStore:
        """Close `store` and open its journal again; engines without durability skip the calling test."""
        raise NotImplementedError

    # Tamper hooks write below the store's API, as an attacker with access to the storage would.

    def tamper_set_line(self, store: JournalStore, stream: str, seq: int, line: str) -> None:
        """Replace the stored form of event #`seq`."""
        raise NotImplementedError

    def tamper_delete(self, store: JournalStore, stream: str, seq: int) -> None:
        """Remove event #`seq` from storage."""
        raise NotImplementedError

    def tamper_insert(self, store: JournalStore, stream: str, seq: int, line: str) -> None:
        """Store `line` as the event at position `seq`; the events from there on move one place later."""
        raise NotImplementedError
