"""Tamper evidence through a real store: edits below the API are found by `verify_journal`, at the right event.

Each test builds a journal from hypothesis-drawn streams, pins its head, tampers with one stream through the
engine's `tamper_*` hooks and expects exactly one problem: that stream, the first bad seq. Other streams must
still verify.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from alicorn.journal.events import Draft, Event, genesis_hash, seal
from alicorn.journal.store import Head, JournalStore
from alicorn.journal.verify import verify_journal

from .harness import JOURNAL_SETTINGS, StoreHarness, build, draft_strategy, journal_specs, pinned_head, relined
from .harness import tamper_value as changed


def _problems(store: JournalStore, head: dict[str, Head]) -> list[tuple[str, int]]:
    return [(p.stream, p.seq) for p in verify_journal(store, head=head).problems]


def _reason(store: JournalStore, head: dict[str, Head]) -> str:
    return " | ".join(p.reason for p in verify_journal(store, head=head).problems)


def _target(data: st.DataObject, written: dict[str, list[Event]]) -> tuple[str, list[Event]]:
    name = data.draw(st.sampled_from(sorted(written)), label="stream")
    return name, written[name]


class TamperEvidenceContract(StoreHarness):
    @JOURNAL_SETTINGS
    @given(spec=journal_specs)
    def test_untampered_journal_verifies(self, spec: dict[str, list[list[Draft]]]) -> None:
        with self.make_store() as store:
            written = build(store, spec)
            report = verify_journal(store, head=pinned_head(store))
            assert report.problems == []
            assert (report.ok, report.streams) == (True, len(spec))
            assert report.events == sum(len(e) for e in written.values())
            assert {n: store.read(n) for n in written} == written

    @JOURNAL_SETTINGS
    @given(spec=journal_specs, data=st.data())
    def test_edit_of_one_event_is_found(self, spec: dict[str, list[list[Draft]]], data: st.DataObject) -> None:
        with self.make_store() as store:
            name, events = _target(data, build(store, spec))
            head = pinned_head(store)
            victim = data.draw(st.sampled_from(events), label="event")
            how = data.draw(st.sampled_from(["data", "kind", "at", "spacing", "rehashed"]), label="edit")
            if how == "spacing":  # same content, not canonical any more
                line = victim.line.replace(',"seq":', ', "seq":')
            elif how == "rehashed":  # a careful forger recomputes the edited event's own hash
                line = seal(name, victim.seq, victim.prev, Draft(victim.kind, victim.at, changed(victim.data))).line
            else:
                field = {"data": changed(victim.data), "kind": victim.kind + "!", "at": victim.at + "0"}[how]
                line = relined(victim, **{how: field})
            self.tamper_set_line(store, name, victim.seq, line)
            # A re-hashed edit breaks the next event's link; on the last event only the saved head shows it.
            first_bad = victim.seq + 1 if how == "rehashed" and victim.seq < len(events) else victim.seq
            assert _problems(store, head) == [(name, first_bad)], _reason(store, head)

    @JOURNAL_SETTINGS
    @given(spec=journal_specs, data=st.data())
    def test_deletion_of_one_event_is_found(self, spec: dict[str, list[list[Draft]]], data: st.DataObject) -> None:
        with self.make_store() as store:
            name, events = _target(data, build(store, spec))
            head = pinned_head(store)
            victim = data.draw(st.sampled_from(events), label="event")
            self.tamper_delete(store, name, victim.seq)
            # Deleting the last event is a truncation (found against the head); deleting all is a lost stream.
            assert _problems(store, head) == [(name, victim.seq)], _reason(store, head)

    @JOURNAL_SETTINGS
    @given(spec=journal_specs, data=st.data(), forged=draft_strategy)
    def test_insertion_of_a_forged_event_is_found(
        self, spec: dict[str, list[list[Draft]]], data: st.DataObject, forged: Draft
    ) -> None:
        with self.make_store() as store:
            name, events = _target(data, build(store, spec))
            head = pinned_head(store)
            seq = data.draw(st.integers(1, len(events)), label="position")
            prev = events[seq - 2].hash if seq > 1 else genesis_hash(name)
            linked = data.draw(st.booleans(), label="linked")
            # A linked forgery is a perfect event at its position; only its successor shows the break.
            event = seal(name, seq, prev if linked else "0" * 64, forged)
            self.tamper_insert(store, name, seq, event.line)
            assert _problems(store, head) == [(name, seq + 1 if linked else seq)], _reason(store, head)

    @JOURNAL_SETTINGS
    @given(spec=journal_specs, data=st.data())
    def test_swap_of_two_bodies_is_found(self, spec: dict[str, list[list[Draft]]], data: st.DataObject) -> None:
        first = sorted(spec)[0]
        spec = {**spec, first: [*spec[first], [Draft("extra", "t", {})]]}  # at least one stream of two events
        with self.make_store() as store:
            written = build(store, spec)
            name = data.draw(st.sampled_from(sorted(n for n, e in written.items() if len(e) >= 2)), label="stream")
            pair = st.lists(st.sampled_from(written[name]), min_size=2, max_size=2, unique_by=lambda e: e.seq)
            i, j = sorted(data.draw(pair, label="events"), key=lambda e: e.seq)
            head = pinned_head(store)
            self.tamper_set_line(store, name, i.seq, j.line)
            self.tamper_set_line(store, name, j.seq, i.line)
            assert _problems(store, head) == [(name, i.seq)], _reason(store, head)

    @JOURNAL_SETTINGS
    @given(spec=journal_specs, data=st.data())
    def test_truncation_is_found_against_saved_head(
        self, spec: dict[str, list[list[Draft]]], data: st.DataObject
    ) -> None:
        with self.make_store() as store:
            name, events = _target(data, build(store, spec))
            head = pinned_head(store)
            keep = data.draw(st.integers(0, len(events) - 1), label="keep")
            for event in reversed(events[keep:]):
                self.tamper_delete(store, name, event.seq)
            # The chain that is left is valid: only the saved head can tell.
            assert verify_journal(store).ok
            expected = (name, keep + 1) if keep else (name, len(events))
            assert _problems(store, head) == [expected], _reason(store, head)
            reason = _reason(store, head)
            assert ("truncated" in reason) if keep else ("missing" in reason)

    @JOURNAL_SETTINGS
    @given(spec=journal_specs, data=st.data())
    def test_rewritten_tail_is_found_against_saved_head(
        self, spec: dict[str, list[list[Draft]]], data: st.DataObject
    ) -> None:
        with self.make_store() as store:
            name, events = _target(data, build(store, spec))
            head = pinned_head(store)
            start = data.draw(st.integers(1, len(events)), label="from")
            prev = events[start - 2].hash if start > 1 else genesis_hash(name)
            for old in events[start - 1 :]:  # a whole new, valid tail
                new = seal(name, old.seq, prev, Draft(old.kind, old.at, changed(old.data)))
                self.tamper_set_line(store, name, old.seq, new.line)
                prev = new.hash
            assert verify_journal(store).ok
            assert _problems(store, head) == [(name, len(events))], _reason(store, head)
            assert "rewritten" in _reason(store, head)

    def test_growth_after_the_saved_head_is_not_a_problem(self) -> None:
        store = self.make_store()
        store.append("run-1", [Draft("k", "t", {"n": 1})], expect=0)
        head = pinned_head(store)
        store.append("run-1", [Draft("k", "t", {"n": 2})], expect=1)
        store.append("run-2", [Draft("k", "t", {"n": 1})], expect=0)
        report = verify_journal(store, head=head)
        assert (report.ok, report.streams, report.events) == (True, 2, 3)

    def test_verify_named_streams_only(self) -> None:
        store = self.make_store()
        a = store.append("run-a", [Draft("k", "t", {"n": 1}), Draft("k", "t", {"n": 2})], expect=0)
        store.append("run-b", [Draft("k", "t", {"n": 1})], expect=0)
        head = pinned_head(store)
        self.tamper_set_line(store, "run-a", 2, relined(a[1], kind="forged"))
        assert verify_journal(store, head=head, streams=["run-b"]).ok
        report = verify_journal(store, head=head, streams=["run-a"])
        assert [(p.stream, p.seq) for p in report.problems] == [("run-a", 2)]
        assert report.streams == 1
