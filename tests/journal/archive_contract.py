"""Archiving, as every engine must do it: a finished stream moves into a segment that still reads and verifies."""

from __future__ import annotations

import pytest

from alicorn.errors import (
    ConcurrentAppendError,
    JournalIntegrityError,
    StreamArchivedError,
    UnknownStreamError,
)
from alicorn.journal.events import Draft
from alicorn.journal.store import Head, Segment, StreamInfo
from alicorn.journal.verify import verify_journal

from .harness import StoreHarness, at, drafts, relined, utf8_len


class ArchiveContract(StoreHarness):
    def test_archive_reads_back_identical_events(self) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(40), expect=0)
        events += store.append(
            "run-1", [Draft("k", at(99), {"pl": "Zażółć gęślą jaźń", "ru": "ёж", "e": "🦄"})], expect=40
        )
        store.archive("run-1")
        got = store.read("run-1")
        assert [e.line for e in got] == [e.line for e in events]
        assert got == events
        assert store.read("run-1", after=38) == events[38:]
        assert store.read("run-1", after=41) == []
        assert store.is_archived("run-1")
        assert store.head("run-1") == store.require("run-1") == Head(41, events[-1].hash)
        assert store.last_seq("run-1") == 41
        report = verify_journal(store)
        assert (report.ok, report.streams, report.events) == (True, 1, 41)

    def test_archived_stream_is_listed_with_sizes(self) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(30), expect=0)
        live = store.streams()
        info = store.archive("run-1")
        assert info == StreamInfo(
            "run-1", 30, utf8_len(events), at(0), at(29), Head(30, events[-1].hash), True, info.archived_bytes
        )
        assert 0 < info.archived_bytes < info.bytes  # compressed
        assert store.streams() == [info]
        # Archiving changes where the events live, not what the listing says about them.
        assert [(i.stream, i.events, i.bytes, i.first_at, i.last_at, i.head) for i in live] == [
            (i.stream, i.events, i.bytes, i.first_at, i.last_at, i.head) for i in store.streams()
        ]
        assert store.heads() == {"run-1": Head(30, events[-1].hash)}

    @pytest.mark.parametrize("expect", [0, 3, 4])
    def test_archived_stream_refuses_appends(self, expect: int) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(3), expect=0)
        store.archive("run-1")
        with pytest.raises(StreamArchivedError, match="run-1"):
            store.append("run-1", drafts(1, start=3), expect=expect)
        assert store.read("run-1") == events
        assert store.streams()[0].events == 3

    def test_archive_unknown_stream(self) -> None:
        store = self.make_store()
        store.append("run-1", drafts(1), expect=0)
        with pytest.raises(UnknownStreamError) as caught:
            store.archive("run-2")
        assert caught.value.stream == "run-2"
        assert [(i.stream, i.archived) for i in store.streams()] == [("run-1", False)]

    def test_archive_twice(self) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(2), expect=0)
        first = store.archive("run-1")
        with pytest.raises(StreamArchivedError, match="already archived"):
            store.archive("run-1")
        assert store.streams() == [first]
        assert store.read("run-1") == events

    def test_archive_leaves_other_streams_alone(self) -> None:
        store = self.make_store()
        a = store.append("run-a", drafts(2, tag="a"), expect=0)
        b = store.append("run-b", drafts(2, tag="b"), expect=0)
        store.archive("run-a")
        assert store.read("run-b") == b and not store.is_archived("run-b")
        b += store.append("run-b", drafts(1, start=2, tag="b"), expect=2)
        assert store.read("run-a") == a
        assert [(i.stream, i.archived, i.events) for i in store.streams()] == [
            ("run-a", True, 2),
            ("run-b", False, 3),
        ]
        assert verify_journal(store).ok

    def test_archive_refuses_a_stream_that_does_not_verify(self) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(3), expect=0)
        self.tamper_set_line(store, "run-1", 2, relined(events[1], data={"n": 99}))
        with pytest.raises(JournalIntegrityError, match="event #2"):
            store.archive("run-1")
        assert not store.is_archived("run-1")
        assert [e.seq for e in store.read("run-1")] == [1, 2, 3]

    @pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
    def test_archive_keeps_unicode_line_separators(self, separator: str) -> None:
        store = self.make_store()
        events = store.append("run-1", [Draft("k", at(0), {"text": f"one{separator}two"})], expect=0)
        store.archive("run-1")
        assert [e.line for e in store.read("run-1")] == [e.line for e in events]

    def test_archive_racing_another_archiver_loses_nothing(self) -> None:
        # Between A's read of the stream and A's segment write, B appends and archives the same stream.
        store_a = self.make_store()
        store_a.append("run-1", drafts(2), expect=0)
        store_b = self.open_another(store_a)
        save_segment = store_a._save_segment
        raced = False

        def racing_save(segment: Segment) -> None:
            nonlocal raced
            if not raced:
                raced = True
                store_b.append("run-1", drafts(1, start=2), expect=2)
                store_b.archive("run-1")
            save_segment(segment)

        store_a._save_segment = racing_save  # type: ignore[method-assign]
        with pytest.raises(ConcurrentAppendError):
            store_a.archive("run-1")
        assert [e.seq for e in store_b.read("run-1")] == [1, 2, 3]
        assert verify_journal(store_b).ok
