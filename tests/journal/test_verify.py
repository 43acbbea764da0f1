"""The hash chain on plain lists of events (`verify_stream`), and saved heads (`save_head` / `load_head`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alicorn import canonical
from alicorn.errors import JournalError
from alicorn.journal.events import Draft, Event, chain, genesis_hash, parse_line, seal, verify_stream
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import Head
from alicorn.journal.verify import load_head, save_head

from .harness import JOURNAL_SETTINGS, draft_strategy, drafts, relined, stream_names, tamper_value

streams_of_events = st.tuples(stream_names, st.lists(draft_strategy, min_size=1, max_size=8)).map(
    lambda t: chain(t[0], 0, None, t[1])
)


def _first_bad(events: list[Event]) -> int | None:
    problem = verify_stream(events[0].stream if events else "s", events)
    return None if problem is None else problem.seq


def _edited(event: Event, **changes: Any) -> Event:
    """`event` with fields changed, stored as a line that says so (as parse_line of an edited row gives)."""
    return parse_line(relined(event, **changes)) if "hash" not in changes else dataclasses.replace(event, **changes)


@JOURNAL_SETTINGS
@given(events=streams_of_events)
def test_untouched_chain_verifies(events: list[Event]) -> None:
    assert verify_stream(events[0].stream, events) is None
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].prev == genesis_hash(events[0].stream)
    assert [parse_line(e.line) for e in events] == [
        dataclasses.replace(e, data=json.loads(e.line)["data"]) for e in events
    ]


@JOURNAL_SETTINGS
@given(events=streams_of_events, data=st.data())
def test_edit_of_any_field_is_found_at_that_event(events: list[Event], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(events) - 1), label="index")
    field = data.draw(st.sampled_from(["data", "kind", "at", "seq", "prev", "stream", "hash", "line-only"]))
    victim = events[i]
    changes: dict[str, Any] = {
        "data": {"data": tamper_value(victim.data)},
        "kind": {"kind": victim.kind + "x"},
        "at": {"at": victim.at[:-1] + "Q"},
        "seq": {"seq": victim.seq + 7},
        "prev": {"prev": "f" * 64 if victim.prev != "f" * 64 else "e" * 64},
        "stream": {"stream": victim.stream + "x"},
        "hash": {"hash": "0" * 64},
        "line-only": {},
    }[field]
    forged = _edited(victim, **changes) if changes else dataclasses.replace(victim, line=victim.line + " ")
    tampered = [*events[:i], forged, *events[i + 1 :]]
    problem = verify_stream(victim.stream, tampered)
    assert problem is not None and (problem.stream, problem.seq) == (victim.stream, i + 1)


@JOURNAL_SETTINGS
@given(events=streams_of_events, data=st.data())
def test_deletion_is_found_unless_it_is_the_tail(events: list[Event], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(events) - 1), label="index")
    expected = None if i == len(events) - 1 else i + 1  # losing the tail needs a saved head (see the contract)
    assert _first_bad([*events[:i], *events[i + 1 :]]) == expected


@JOURNAL_SETTINGS
@given(events=streams_of_events, data=st.data(), draft=draft_strategy)
def test_insertion_is_found(events: list[Event], data: st.DataObject, draft: Draft) -> None:
    i = data.draw(st.integers(0, len(events) - 1), label="index")
    name = events[0].stream
    prev = events[i - 1].hash if i else genesis_hash(name)
    how = data.draw(st.sampled_from(["linked", "unlinked", "copy", "other-stream"]))
    forged = {
        "linked": seal(name, i + 1, prev, draft),  # perfect in place: its successor shows the break
        "unlinked": seal(name, i + 1, "0" * 64, draft),
        "copy": events[i],
        "other-stream": chain(name + "x", i, prev, [draft])[0],
    }[how]
    expected = i + 2 if how in ("linked", "copy") else i + 1
    assert _first_bad([*events[:i], forged, *events[i:]]) == expected


@JOURNAL_SETTINGS
@given(events=streams_of_events.filter(lambda e: len(e) >= 2), data=st.data())
def test_reordering_is_found_at_the_first_moved_event(events: list[Event], data: st.DataObject) -> None:
    i, j = sorted(data.draw(st.lists(st.integers(0, len(events) - 1), min_size=2, max_size=2, unique=True)))
    swapped = list(events)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    assert _first_bad(swapped) == i + 1


def test_empty_stream_verifies() -> None:
    assert verify_stream("run-1", []) is None


def test_problem_names_stream_seq_and_reason() -> None:
    events = chain("run-1", 0, None, drafts(3))
    problem = verify_stream("run-1", [events[0], _edited(events[1], kind="forged"), events[2]])
    assert problem is not None
    assert (problem.stream, problem.seq, problem.reason) == ("run-1", 2, "its content does not match its hash (edited)")
    assert str(problem) == "stream 'run-1', event #2: its content does not match its hash (edited)"


# ---- saved heads ------------------------------------------------------------------------------------------------


def _saved() -> tuple[InMemoryStore, dict[str, Any]]:
    store = InMemoryStore()
    store.append("run-a", drafts(3), expect=0)
    store.append("run-b", drafts(1), expect=0)
    return store, save_head(store)


def test_saved_head_round_trips() -> None:
    store, doc = _saved()
    streams = {n: {"seq": h.seq, "hash": h.hash} for n, h in store.heads().items()}
    assert doc == {"format": "alicorn-head", "version": 1, "streams": streams, "digest": canonical.digest(streams)}
    assert (
        load_head(json.dumps(doc))
        == store.heads()
        == {
            "run-a": Head(3, store.read("run-a")[-1].hash),
            "run-b": Head(1, store.read("run-b")[-1].hash),
        }
    )


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _reseal(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Edit, then recompute the digest: the document is self-consistent but its content is not a head."""
    _set(path, value)(doc)
    doc["digest"] = canonical.digest(doc["streams"])


FORGERIES: dict[str, Callable[[dict[str, Any]], None]] = {
    "lower-seq": _set(("streams", "run-a", "seq"), 2),
    "higher-seq": _set(("streams", "run-a", "seq"), 4),
    "other-hash": _set(("streams", "run-a", "hash"), "0" * 64),
    "added-stream": _set(("streams", "run-c"), {"seq": 1, "hash": "0" * 64}),
    "dropped-stream": lambda doc: doc["streams"].pop("run-b"),
    "renamed-stream": lambda doc: doc["streams"].update({"run-z": doc["streams"].pop("run-b")}),
    "other-digest": _set(("digest",), "0" * 64),
    "no-digest": lambda doc: doc.pop("digest"),
    "other-format": _set(("format",), "alicorn-journal"),
    "no-streams": lambda doc: doc.pop("streams"),
    "seq-not-a-number": lambda doc: _reseal(doc, ("streams", "run-a", "seq"), "three"),
}


@pytest.mark.parametrize("forge", list(FORGERIES))
def test_forged_head_is_refused(forge: str) -> None:
    _, doc = _saved()
    FORGERIES[forge](doc)
    with pytest.raises(JournalError, match="not a usable saved head"):
        load_head(json.dumps(doc))


@pytest.mark.parametrize("text", ["", "{", "[]", '"head"', "null", "42", '{"format": "alicorn-head"}', "NaN"])
def test_garbage_head_is_refused(text: str) -> None:
    with pytest.raises(JournalError, match="not a usable saved head"):
        load_head(text)


def test_head_with_recomputed_digest_is_accepted() -> None:
    # The digest catches slips and naive edits, not a forger: keep the head where the journal's writer cannot.
    _, doc = _saved()
    doc["streams"]["run-a"]["seq"] = 2
    doc["digest"] = canonical.digest(doc["streams"])
    assert load_head(json.dumps(doc))["run-a"].seq == 2


@JOURNAL_SETTINGS
@given(
    text=st.text(max_size=80)
    | st.recursive(
        st.none() | st.integers() | st.text(max_size=5), lambda c: st.lists(c) | st.dictionaries(st.text(max_size=5), c)
    ).map(json.dumps)
)
def test_load_head_raises_only_journal_error(text: str) -> None:
    try:
        heads = load_head(text)
    except JournalError:
        return
    assert all(isinstance(h, Head) for h in heads.values())


@JOURNAL_SETTINGS
@given(stream=stream_names, draft=draft_strategy, seq=st.integers(min_value=1, max_value=2**53), data=st.data())
def test_a_sealed_line_is_the_canonical_json_of_its_body(
    stream: str, draft: Draft, seq: int, data: st.DataObject
) -> None:
    """`seal` assembles the body's text around the data's (encoded once, by the redaction that probed it): the
    line must be exactly canonical JSON of the whole event, whether the data's text is given or not."""
    prev = data.draw(st.sampled_from([genesis_hash(stream), "0" * 64]))
    body = {"stream": stream, "seq": seq, "kind": draft.kind, "at": draft.at, "data": draft.data, "prev": prev}
    expected_hash = canonical.digest(body)
    expected_line = canonical.dumps(body)[:-1] + f',"hash":"{expected_hash}"}}'  # the body, then its hash
    for sealed in (seal(stream, seq, prev, draft), seal(stream, seq, prev, draft, canonical.dumps(draft.data))):
        assert (sealed.line, sealed.hash) == (expected_line, expected_hash)
        assert parse_line(sealed.line) == sealed


def test_a_sequence_number_that_is_not_an_integer_does_not_verify() -> None:
    """JSON `true` and `1.0` equal 1 in Python: a forged line numbering an event so still fails its hash."""
    event = chain("s", 0, None, [Draft("k", "2026-01-01T00:00:00Z", {})])[0]
    for forged_seq in (True, 1.0):
        body = {**event.body(), "seq": forged_seq}
        forged = parse_line(canonical.dumps(body)[:-1] + f',"hash":"{canonical.digest(body)}"}}')
        assert _first_bad([forged]) == 1, forged_seq
