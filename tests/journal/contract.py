"""The contract every JournalStore engine meets, in the eventsourcing style.

Subclass `JournalStoreContract` once per engine (`class TestSQLiteStore(JournalStoreContract)`) and implement the
hooks of `StoreHarness`. The class name does not start with `Test`, so pytest collects only the subclasses.
Archiving and tamper evidence are in `archive_contract.py` and `tamper_contract.py`, mixed in here.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given

from alicorn import canonical
from alicorn.errors import ConcurrentAppendError, JournalError, StreamArchivedError, UnknownStreamError
from alicorn.journal.events import Draft, Event, genesis_hash
from alicorn.journal.store import Head, StreamInfo
from alicorn.journal.verify import verify_journal

from .archive_contract import ArchiveContract
from .harness import JOURNAL_SETTINGS, at, data_objects, draft_strategy, drafts, sha256, stored_form, utf8_len
from .tamper_contract import TamperEvidenceContract

# Values canonical JSON refuses; each is put in the second draft of a batch, which must then write nothing.
NOT_JSON = {
    "set": {1, 2},
    "nan": float("nan"),
    "infinity": float("inf"),
    "minus-infinity": float("-inf"),
    "object": object(),
    "bytes": b"raw",
    "lone-surrogate": "\ud800",
}

INVALID_NAMES = ["", " run", "-run", ".run", "run 1", "run/1", "../etc/passwd", "a" * 129, "zażółć", "run\x00"]
INVALID_NAMES_BUGGY = ["run\n"]  # accepted today: `$` in the name pattern matches before a final newline
VALID_NAMES = ["a", "7", "A" * 128, "run-1", "agent:planner", "alice@host.example", "run_2024.05.01-x"]

UNICODE: dict[str, Any] = {
    "pl": "Zażółć gęślą jaźń — Łódź, Gdańsk",
    "ru": "Съешь же ещё этих мягких французских булок, да выпей чаю",
    "emoji": "🦄👩‍👩‍👧‍👦🇵🇱🏳️‍🌈",
    "controls": "tab\there\nnewline\rcr\x01\x07\x1b\x1f\x7f",
    "quotes": 'a "quoted" \\ backslash',
    "Ключ-ł": ["ключ", "ł", "🦄"],
}


class JournalStoreContract(ArchiveContract, TamperEvidenceContract):
    """Append, read, list and concurrency: what every engine must do identically."""

    # ---- append and the chain ------------------------------------------------------------------------------

    def test_first_append_expects_zero_and_numbers_from_one(self) -> None:
        store = self.make_store()
        batch = drafts(3)
        events = store.append("run-1", batch, expect=0)
        assert [e.seq for e in events] == [1, 2, 3]
        assert {e.stream for e in events} == {"run-1"}
        assert [(e.kind, e.at, e.data) for e in events] == [(d.kind, d.at, d.data) for d in batch]
        assert events[0].prev == genesis_hash("run-1") == sha256("alicorn-genesis:run-1")
        assert [e.prev for e in events[1:]] == [e.hash for e in events[:-1]]
        for e in events:
            assert e.hash == sha256(canonical.dumps(e.body()))
            assert e.line == stored_form(e.body(), e.hash)
            assert json.loads(e.line) == {**e.body(), "hash": e.hash}
        assert store.last_seq("run-1") == 3
        assert store.head("run-1") == store.require("run-1") == Head(3, events[-1].hash)

    def test_stored_form_is_pinned(self) -> None:
        # Journals outlive engines: every engine must store this event byte for byte.
        store = self.make_store()
        draft = Draft("intent.received", "2024-05-01T08:00:00Z", {"utterance": "Zażółć gęślą jaźń", "n": 1})
        (event,) = store.append("run-1", [draft], expect=0)
        assert (
            store.read("run-1")[0].line
            == event.line
            == (
                '{"at":"2024-05-01T08:00:00Z","data":{"n":1,"utterance":"Zażółć gęślą jaźń"},'
                '"kind":"intent.received","prev":"9846b70d76f6d7e4593aab00c780a7f7e3cc4f5b1619bbea0e8ce9d20a6026c4",'
                '"seq":1,"stream":"run-1","hash":"f381f34219fa2e865a88a1ee5d69b757f004be8e13962701726b3744aee21fc1"}'
            )
        )

    def test_batches_continue_the_chain(self) -> None:
        store = self.make_store()
        first = store.append("run-1", drafts(3), expect=0)
        second = store.append("run-1", drafts(2, start=3), expect=3)
        assert [e.seq for e in second] == [4, 5]
        assert second[0].prev == first[-1].hash
        assert store.read("run-1") == first + second
        assert store.head("run-1") == Head(5, second[-1].hash)

    def test_read_after(self) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(5), expect=0)
        for k in range(7):
            assert store.read("run-1", after=k) == events[k:], k
        assert store.read("run-1", after=-1) == events

    @pytest.mark.parametrize("expect", [0, 1, 2, 4, 10])
    def test_wrong_expect_conflicts_and_writes_nothing(self, expect: int) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(3), expect=0)
        with pytest.raises(ConcurrentAppendError) as caught:
            store.append("run-1", drafts(2, start=3), expect=expect)
        assert (caught.value.stream, caught.value.expected, caught.value.actual) == ("run-1", expect, 3)
        assert "'run-1'" in str(caught.value)
        assert store.read("run-1") == events
        assert store.head("run-1") == Head(3, events[-1].hash)
        assert [i.events for i in store.streams()] == [3]

    def test_new_stream_with_nonzero_expect_conflicts(self) -> None:
        store = self.make_store()
        with pytest.raises(ConcurrentAppendError) as caught:
            store.append("run-1", drafts(1), expect=1)
        assert (caught.value.expected, caught.value.actual) == (1, 0)
        assert store.head("run-1") is None
        assert store.streams() == []

    @pytest.mark.parametrize("existing", [0, 2], ids=["new-stream", "existing-stream"])
    @pytest.mark.parametrize("bad", list(NOT_JSON), ids=list(NOT_JSON))
    def test_failed_batch_writes_nothing(self, bad: str, existing: int) -> None:
        store = self.make_store()
        before = store.append("run-1", drafts(existing), expect=0)
        batch = [*drafts(1, start=existing), Draft("test.event", at(99), {"bad": NOT_JSON[bad]}), *drafts(1)]
        with pytest.raises((TypeError, ValueError)):
            store.append("run-1", batch, expect=existing)
        assert store.read("run-1") == before
        assert store.last_seq("run-1") == existing
        assert [i.events for i in store.streams()] == ([existing] if existing else [])
        # Nothing was left half-done: the same append, fixed, goes through from the same expectation.
        after = store.append("run-1", drafts(2, start=existing), expect=existing)
        assert [e.seq for e in after] == [existing + 1, existing + 2]
        assert verify_journal(store).ok

    @pytest.mark.parametrize(
        "name",
        [
            *INVALID_NAMES,
            *(n for n in INVALID_NAMES_BUGGY),
        ],
    )
    def test_invalid_stream_names_are_refused(self, name: str) -> None:
        store = self.make_store()
        with pytest.raises(JournalError, match="invalid stream name"):
            store.append(name, drafts(1), expect=0)
        with pytest.raises(JournalError, match="invalid stream name"):
            store.append(name, [], expect=0)
        assert store.streams() == []

    @pytest.mark.parametrize("name", [None, 7, b"run-1"])
    def test_non_string_stream_names_are_refused(self, name: object) -> None:
        store = self.make_store()
        with pytest.raises(JournalError, match="invalid stream name"):
            store.append(name, drafts(1), expect=0)  # type: ignore[arg-type]
        assert store.streams() == []

    def test_valid_stream_names_are_accepted(self) -> None:
        store = self.make_store()
        for name in VALID_NAMES:
            (event,) = store.append(name, drafts(1), expect=0)
            assert store.read(name) == [event]
        assert sorted(i.stream for i in store.streams()) == sorted(VALID_NAMES)

    def test_empty_batch_writes_nothing(self) -> None:
        store = self.make_store()
        assert store.append("run-1", [], expect=0) == []
        assert store.head("run-1") is None
        assert store.streams() == []
        events = store.append("run-1", drafts(2), expect=0)
        assert store.append("run-1", [], expect=2) == []
        assert store.read("run-1") == events

    def test_unknown_stream(self) -> None:
        store = self.make_store()
        store.append("run-1", drafts(1), expect=0)
        assert store.read("run-2") == []
        assert store.head("run-2") is None
        assert store.last_seq("run-2") == 0
        assert store.is_archived("run-2") is False
        with pytest.raises(UnknownStreamError) as caught:
            store.require("run-2")
        assert caught.value.stream == "run-2"

    # ---- listing ------------------------------------------------------------------------------------------

    def test_stream_info_is_exact(self) -> None:
        store = self.make_store()
        events = store.append("run-1", drafts(2), expect=0)
        events += store.append("run-1", [Draft("k", at(10), {"text": UNICODE["ru"]})], expect=2)
        (info,) = store.streams()
        assert info == StreamInfo("run-1", 3, utf8_len(events), at(0), at(10), Head(3, events[-1].hash), False, 0)
        assert info.bytes > sum(len(e.line) for e in events)  # bytes, not characters
        assert store.heads() == {"run-1": Head(3, events[-1].hash)}

    def test_first_and_last_at_follow_sequence_not_clock(self) -> None:
        # A clock stepped back (NTP) must not change which event counts as the first or last.
        store = self.make_store()
        store.append("run-1", [Draft("k", at(50), {}), Draft("k", at(10), {}), Draft("k", at(30), {})], expect=0)
        (info,) = store.streams()
        assert (info.first_at, info.last_at) == (at(50), at(30))

    def test_many_streams(self) -> None:
        store = self.make_store()
        names = [f"run-{i:03d}" for i in range(150)]
        written: dict[str, list[Event]] = {n: [] for n in names}
        for rnd in range(4):
            for i, name in enumerate(names):
                if rnd <= i % 4:
                    # Later streams start earlier, so listing order (first_at, name) is not name order.
                    batch = [Draft("k", at(1000 - i + rnd), {"stream": name, "round": rnd})]
                    written[name] += store.append(name, batch, expect=rnd)
        for name in names:
            assert store.read(name) == written[name]
            assert written[name][0].prev == genesis_hash(name)
        infos = store.streams()
        assert [i.stream for i in infos] == list(reversed(names))
        assert [i.events for i in infos] == [i % 4 + 1 for i in reversed(range(150))]
        assert store.heads() == {n: Head(len(e), e[-1].hash) for n, e in written.items()}
        report = verify_journal(store)
        assert (report.ok, report.streams, report.events) == (True, 150, sum(i % 4 + 1 for i in range(150)))

    def test_streams_with_equal_first_at_are_ordered_by_name(self) -> None:
        store = self.make_store()
        for name in ["b", "c", "a"]:
            store.append(name, drafts(1), expect=0)
        assert [i.stream for i in store.streams()] == ["a", "b", "c"]

    # ---- payloads -----------------------------------------------------------------------------------------

    def test_unicode_round_trips(self) -> None:
        store = self.make_store()
        batch = [Draft("zdarzenie.łódź", at(0), UNICODE), Draft("событие", "2024-05-01T08:00:00+02:00", {"🦄": 1})]
        events = store.append("run-1", batch, expect=0)
        got = store.read("run-1")
        assert got == events
        assert [(e.kind, e.data) for e in got] == [(d.kind, d.data) for d in batch]
        # Canonical JSON keeps UTF-8 as is and escapes only control characters.
        assert UNICODE["pl"] in got[0].line and UNICODE["emoji"] in got[0].line
        assert "\\u0001\\u0007\\u001b\\u001f\x7f" in got[0].line
        assert store.streams()[0].bytes == utf8_len(events)
        assert verify_journal(store).ok

    def test_large_payload(self) -> None:
        store = self.make_store()
        big = random.Random(7).randbytes(2_500_000).hex()  # 5,000,000 characters that do not compress away
        (event,) = store.append("run-1", [Draft("artifact.stored", at(0), {"blob": big, "n": 1})], expect=0)
        (got,) = store.read("run-1")
        assert got.data["blob"] == big and got.line == event.line
        assert len(got.line) > 5_000_000
        assert store.streams()[0].bytes == len(event.line)
        assert verify_journal(store).ok

    def test_read_data_is_the_decoded_stored_form(self) -> None:
        # Whatever JSON cannot hold (tuples, integer keys) comes back as JSON would give it, from every engine.
        store = self.make_store()
        store.append("run-1", [Draft("k", at(0), {"pair": (1, 2), "by_id": {3: "c"}})], expect=0)
        (event,) = store.read("run-1")
        assert event.data == json.loads(event.line)["data"] == {"by_id": {"3": "c"}, "pair": [1, 2]}

    def test_stored_events_do_not_alias_caller_data(self) -> None:
        store = self.make_store()
        data: dict[str, Any] = {"items": [1, 2], "status": "ok"}
        store.append("run-1", [Draft("k", at(0), data)], expect=0)
        data["status"] = "edited after append"
        data["items"].append(3)
        store.read("run-1")[0].data["status"] = "edited by a reader"
        (event,) = store.read("run-1")
        assert event.data == {"items": [1, 2], "status": "ok"}
        assert verify_journal(store).ok

    @JOURNAL_SETTINGS
    @given(data=data_objects, batch=draft_strategy)
    def test_any_json_data_round_trips(self, data: dict[str, Any], batch: Draft) -> None:
        with self.make_store() as store:
            events = store.append("run-1", [Draft("k", at(0), data), batch], expect=0)
            got = store.read("run-1")
            assert [e.line for e in got] == [e.line for e in events]
            assert got[0].data == data and got[1].data == batch.data
            assert got[1].kind == batch.kind and got[1].at == batch.at
            assert verify_journal(store).ok

    # ---- durability ---------------------------------------------------------------------------------------

    def test_reopen_keeps_everything(self) -> None:
        store = self.make_store()
        a = store.append("run-a", drafts(3, tag="a"), expect=0)
        b = store.append("run-b", [Draft("k", at(5), UNICODE)], expect=0)
        store.archive("run-b")
        streams, heads = store.streams(), store.heads()
        store = self.reopen(store)
        assert store.read("run-a") == a
        assert [e.line for e in store.read("run-b")] == [e.line for e in b]
        assert (store.streams(), store.heads()) == (streams, heads)
        assert store.is_archived("run-b") and not store.is_archived("run-a")
        assert verify_journal(store).ok
        more = store.append("run-a", drafts(1, start=3), expect=3)
        assert more[0].prev == a[-1].hash

    # ---- observers ----------------------------------------------------------------------------------------

    def test_observers_see_each_committed_append_after_its_commit(self) -> None:
        store = self.make_store()
        reader = self.open_another(store)  # another connection where the engine has them: sees only committed rows
        seen: list[tuple[str, list[str], list[str]]] = []

        def observer(stream: str, events: Sequence[Event]) -> None:
            seen.append((stream, [e.line for e in events], [e.line for e in reader.read(stream)]))

        store.observe(observer)
        first = store.append("run-1", drafts(3), expect=0)
        other = store.append("run-2", drafts(1, tag="b"), expect=0)
        second = store.append("run-1", drafts(2, start=3), expect=3)
        lines = [e.line for e in first + second]
        assert (
            seen
            == [
                ("run-1", lines[:3], lines[:3]),  # in the callback the events are already in the journal
                ("run-2", [other[0].line], [other[0].line]),
                ("run-1", lines[3:], lines),
            ]
        )

    def test_observers_see_nothing_of_appends_that_did_not_commit(self, monkeypatch: pytest.MonkeyPatch) -> None:
        store = self.make_store()
        seen: list[int] = []
        store.observe(lambda stream, events: seen.extend(e.seq for e in events))
        store.append("run-1", drafts(2), expect=0)
        with pytest.raises(ConcurrentAppendError):
            store.append("run-1", drafts(1, start=2), expect=1)
        with pytest.raises((TypeError, ValueError)):
            store.append("run-1", [*drafts(1, start=2), Draft("k", at(9), {"bad": float("nan")})], expect=2)
        with pytest.raises(JournalError, match="invalid stream name"):
            store.append("run 1", drafts(1), expect=0)
        assert store.append("run-1", [], expect=2) == []
        store.append("run-9", drafts(1), expect=0)
        store.archive("run-9")
        with pytest.raises(StreamArchivedError):
            store.append("run-9", drafts(1, start=1), expect=0)
        assert seen == [1, 2, 1]  # run-1's first batch and run-9's: archiving is not an append

        # Rows written, then the transaction fails before its commit: rolled back, and nobody is told.
        insert = store._insert_txn

        def insert_then_fail(tx: Any, events: list[Event]) -> None:
            insert(tx, events)
            raise OSError("disk full")

        monkeypatch.setattr(store, "_insert_txn", insert_then_fail)
        with pytest.raises(OSError, match="disk full"):
            store.append("run-1", drafts(1, start=2), expect=2)
        monkeypatch.undo()
        assert store.last_seq("run-1") == 2 and seen == [1, 2, 1]
        store.append("run-1", drafts(1, start=2), expect=2)
        assert seen == [1, 2, 1, 3]

    def test_unsubscribing_stops_only_that_observer(self) -> None:
        store = self.make_store()
        a: list[int] = []
        b: list[int] = []

        def record_a(stream: str, events: Sequence[Event]) -> None:
            a.extend(e.seq for e in events)

        stop_a = store.observe(record_a)
        again = store.observe(record_a)  # the same callback twice is two subscriptions
        store.observe(lambda stream, events: b.extend(e.seq for e in events))
        store.append("run-1", drafts(1), expect=0)
        stop_a()
        stop_a()  # harmless
        store.append("run-1", drafts(1, start=1), expect=1)
        again()
        store.append("run-1", drafts(1, start=2), expect=2)
        assert (a, b) == ([1, 1, 2], [1, 2, 3])

    def test_an_observer_that_raises_breaks_no_append(self, capsys: pytest.CaptureFixture[str]) -> None:
        store = self.make_store()
        before: list[int] = []
        after: list[int] = []
        calls: list[int] = []

        def broken(stream: str, events: Sequence[Event]) -> None:
            calls.append(events[0].seq)
            raise RuntimeError("display gone")

        store.observe(lambda stream, events: before.extend(e.seq for e in events))
        store.observe(broken)
        store.observe(lambda stream, events: after.extend(e.seq for e in events))
        events = store.append("run-1", drafts(2), expect=0)
        assert [e.seq for e in events] == [1, 2]
        assert store.read("run-1") == events  # committed, not rolled back
        more = store.append("run-1", drafts(1, start=2), expect=2)
        assert store.read("run-1") == events + more
        assert (before, calls, after) == ([1, 2, 3], [1], [1, 2, 3])  # dropped after it raised, the others kept
        err = capsys.readouterr().err
        assert err.count("warning: journal observer") == 1
        assert "broken" in err and "RuntimeError: display gone" in err
        assert verify_journal(store).ok

    def test_observers_follow_appends_of_concurrent_threads(self) -> None:
        store = self.make_store()
        seen: list[tuple[str, int]] = []
        guard = threading.Lock()

        def observer(stream: str, events: Sequence[Event]) -> None:
            with guard:
                seen.extend((stream, e.seq) for e in events)

        store.observe(observer)

        def write(w: int) -> None:
            for b in range(10):
                store.append(f"run-{w}", drafts(2, start=2 * b), expect=2 * b)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert sorted(seen) == sorted((f"run-{w}", seq) for w in range(4) for seq in range(1, 21))
        for w in range(4):  # one writer per stream: its batches are reported in its order
            assert [seq for s, seq in seen if s == f"run-{w}"] == list(range(1, 21))

    # ---- concurrency --------------------------------------------------------------------------------------

    def test_concurrent_writers_with_optimistic_retry(self) -> None:
        first = self.make_store()
        writers, batches = 6, 8
        handles = [self.open_another(first) for _ in range(writers)]
        start = threading.Barrier(writers)
        sizes = [[random.Random(w * 100 + b).randint(1, 3) for b in range(batches)] for w in range(writers)]
        errors: list[BaseException] = []

        conflicts = [0] * writers

        def write(w: int) -> None:
            store, think = handles[w], random.Random(w)
            try:
                start.wait()
                for b, size in enumerate(sizes[w]):
                    batch = [Draft("k", at(b), {"writer": w, "batch": b, "i": i}) for i in range(size)]
                    while True:
                        expect = store.last_seq("shared")
                        time.sleep(think.random() / 1000)  # work between reading and appending lets others in
                        try:
                            store.append("shared", batch, expect=expect)
                            break
                        except ConcurrentAppendError:
                            conflicts[w] += 1  # another writer got there first: re-read the head and retry
            except BaseException as exc:  # surfaced below: a thread's exception does not fail the test
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert errors == []
        assert sum(conflicts) > 0, "the writers never raced, so this test proved nothing"
        expected = sum(map(sum, sizes))
        events = first.read("shared")
        assert [e.seq for e in events] == list(range(1, expected + 1))
        assert first.head("shared") == Head(expected, events[-1].hash)
        keys = [(e.data["writer"], e.data["batch"], e.data["i"]) for e in events]
        assert len(set(keys)) == len(keys) == expected
        for w in range(writers):  # each batch landed whole and in order: a batch is one transaction
            mine = [k for k in keys if k[0] == w]
            assert [k[1] for k in mine] == sorted(k[1] for k in mine)
            positions = [n for n, k in enumerate(keys) if k[0] == w]
            for b in range(batches):
                spots = [p for p in positions if keys[p][1] == b]
                assert spots == list(range(spots[0], spots[0] + len(spots)))
        report = verify_journal(first)
        assert (report.ok, report.events) == (True, expected)
