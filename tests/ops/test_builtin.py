"""The built-in operations over records and the utilities: declarations, filter, dedupe, sort, render, sleep."""

from __future__ import annotations

import copy
import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from alicorn.errors import OperationError
from alicorn.ops.builtin import builtin_operations, builtin_registry
from alicorn.ops.report import RenderTextInputs
from alicorn.ops.util import SleepInputs

from .helpers import call, context

# ---------------------------------------------------------------------------------------------------- registry


def test_builtin_registry_declares_every_operation_with_its_effect() -> None:
    registry = builtin_registry()
    declared = {op.name: (op.effect, op.idempotency, op.resources) for op in registry.operations()}
    assert declared == {
        "data.read_csv": ("read", "repeatable", ()),
        "data.read_json": ("read", "repeatable", ()),
        "records.filter": ("none", "repeatable", ()),
        "records.dedupe": ("none", "repeatable", ()),
        "records.sort": ("none", "repeatable", ()),
        "report.render_text": ("none", "repeatable", ()),
        "workspace.write_file": ("local_write", "idempotent", ("workspace",)),
        "util.noop": ("none", "repeatable", ()),
        "util.sleep": ("none", "repeatable", ()),
        "http.get_json": ("read", "repeatable", ()),
        "http.post_json": ("external_transmission", "keyed", ()),
    }


def test_each_call_builds_a_new_registry_with_the_same_fingerprint() -> None:
    first, second = builtin_registry(), builtin_registry()
    assert first is not second
    assert first.fingerprint() == second.fingerprint()
    first.register(dataclasses.replace(builtin_operations()[0], name="data.extra"))
    assert "data.extra" not in second
    assert first.fingerprint() != second.fingerprint()


@pytest.mark.parametrize("op", builtin_operations(), ids=lambda op: op.name)
def test_every_operation_is_documented_and_refuses_unknown_inputs(op: Any) -> None:
    assert op.run.__doc__
    assert op.inputs.__name__.endswith("Inputs")
    assert op.outputs.__name__.endswith("Outputs")
    description = op.describe()
    assert description["inputs"]["type"] == "object"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        op.inputs.model_validate({"not_an_input": 1})


def test_noop_takes_and_gives_nothing(tmp_path: Path) -> None:
    assert call("util.noop", context(tmp_path)) == {}


# ---------------------------------------------------------------------------------------------------- filter

ALARMS = [
    {"id": 1, "type": "person", "zone": "restricted", "confidence": 0.9},
    {"id": 2, "type": "person", "zone": "public", "confidence": 0.95},
    {"id": 3, "type": "tamper", "zone": "public", "confidence": 0.4},
    {"id": 4, "type": "vehicle", "zone": "perimeter", "confidence": 0.59},
    {"id": 5, "type": "vehicle", "zone": "perimeter", "confidence": "high"},
    {"id": 6, "type": "animal"},
    {"id": 7, "type": "person", "zone": "perimeter", "confidence": 0.6, "tags": ["night"]},
]

NEEDS_HUMAN = {
    "kind": "any",
    "of": [
        {"kind": "check", "path": "type", "op": "in", "value": ["tamper", "offline"]},
        {
            "kind": "all",
            "of": [
                {"kind": "check", "path": "type", "op": "in", "value": ["person", "vehicle"]},
                {"kind": "check", "path": "confidence", "op": "gte", "value": 0.6},
                {"kind": "not", "of": {"kind": "check", "path": "zone", "op": "eq", "value": "public"}},
            ],
        },
    ],
}


def test_filter_with_nested_criteria(tmp_path: Path) -> None:
    out = call("records.filter", context(tmp_path), records=ALARMS, where=NEEDS_HUMAN)
    assert [r["id"] for r in out["records"]] == [1, 3, 7]
    assert (out["count"], out["dropped"]) == (3, 4)
    assert out["records"][2] == ALARMS[6]


def test_filter_over_paths_into_lists_and_missing_fields(tmp_path: Path) -> None:
    where = {"kind": "check", "path": "tags.0", "op": "eq", "value": "night"}
    assert [r["id"] for r in call("records.filter", context(tmp_path), records=ALARMS, where=where)["records"]] == [7]
    absent = {"kind": "check", "path": "zone", "op": "exists", "value": False}
    assert [r["id"] for r in call("records.filter", context(tmp_path), records=ALARMS, where=absent)["records"]] == [6]


def test_filter_refuses_a_malformed_criterion() -> None:
    op = builtin_registry().get("records.filter")
    with pytest.raises(ValidationError):
        op.inputs.model_validate({"records": [], "where": {"kind": "check", "path": "a", "op": "matches"}})
    with pytest.raises(ValidationError):
        op.inputs.model_validate({"records": [], "where": {"kind": "all", "of": []}})


# ---------------------------------------------------------------------------------------------------- dedupe


def alarm(id_: int, ts: str, camera: str = "cam-gate", kind: str = "motion") -> dict[str, Any]:
    return {"id": id_, "ts": ts, "camera": camera, "type": kind}


def dedupe(tmp_path: Path, records: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    options.setdefault("keys", ["camera", "type"])
    return call("records.dedupe", context(tmp_path), records=records, **options)


def test_dedupe_window_includes_its_edge(tmp_path: Path) -> None:
    records = [
        alarm(1, "2026-11-29T02:00:00"),
        alarm(2, "2026-11-29T02:05:00"),  # exactly 300 s after the kept one: a duplicate
        alarm(3, "2026-11-29T02:05:01"),  # 301 s after the kept one: kept (the window is anchored there)
        alarm(4, "2026-11-29T02:10:01"),  # 300 s after #3
        alarm(5, "2026-11-29T02:10:02"),
    ]
    out = dedupe(tmp_path, records, window={"field": "ts", "seconds": 300})
    assert [(r["id"], r["duplicates"]) for r in out["records"]] == [(1, 1), (3, 1), (5, 0)]
    assert (out["count"], out["removed"]) == (3, 2)


def test_dedupe_window_is_anchored_at_the_kept_record_not_the_last_duplicate(tmp_path: Path) -> None:
    records = [alarm(i, f"2026-11-29T02:0{i}:00") for i in range(6)]  # one a minute
    out = dedupe(tmp_path, records, window={"field": "ts", "seconds": 150})
    assert [(r["id"], r["duplicates"]) for r in out["records"]] == [(0, 2), (3, 2)]


def test_dedupe_orders_by_the_window_field_stably_and_accepts_zones(tmp_path: Path) -> None:
    records = [
        alarm(1, "2026-11-29T03:00:00Z", camera="a"),
        alarm(2, "2026-11-29T04:00:30+01:00", camera="a"),  # 03:00:30 UTC: a duplicate of #1
        alarm(3, "2026-11-29T01:00:00", camera="b"),  # naive: taken as UTC, sorts first
        alarm(4, "2026-11-29T03:00:00Z", camera="c"),  # same time as #1: keeps its place after it
        alarm(5, "2026-11-29 03:02:00+00:00", camera="a"),
    ]
    out = dedupe(tmp_path, records, window={"field": "ts", "seconds": 60})
    assert [(r["id"], r["duplicates"]) for r in out["records"]] == [(3, 0), (1, 1), (4, 0), (5, 0)]


def test_dedupe_without_a_window_merges_every_repeat_in_input_order(tmp_path: Path) -> None:
    records = [
        alarm(1, "2026-11-29T05:00:00"),
        alarm(2, "2026-11-28T01:00:00", kind="tamper"),
        alarm(3, "2026-11-27T00:00:00"),
        {"id": 4, "type": "motion"},  # no camera: its own key
        {"id": 5, "type": "motion", "camera": None},  # camera null differs from camera missing
        {"id": 6, "type": "motion"},
    ]
    out = dedupe(tmp_path, records)
    assert [(r["id"], r["duplicates"]) for r in out["records"]] == [(1, 1), (2, 0), (4, 1), (5, 0)]
    assert out["removed"] == 2


def test_dedupe_can_leave_records_unannotated_and_never_mutates_its_input(tmp_path: Path) -> None:
    records = [alarm(1, "2026-11-29T02:00:00"), alarm(2, "2026-11-29T02:00:10")]
    before = copy.deepcopy(records)
    out = dedupe(tmp_path, records, window={"field": "ts", "seconds": 60}, count_field=None)
    assert out["records"] == [records[0]]
    out = dedupe(tmp_path, records, count_field="merged")
    assert out["records"] == [{**records[0], "merged": 1}]
    assert records == before


@pytest.mark.parametrize("bad", ["yesterday", 1732844045, None])
def test_dedupe_names_a_record_whose_timestamp_does_not_parse(tmp_path: Path, bad: Any) -> None:
    records = [alarm(1, "2026-11-29T02:00:00"), {**alarm(2, "x"), "ts": bad}]
    with pytest.raises(OperationError, match=r"record 1: window field 'ts' is .*not an ISO 8601 timestamp"):
        dedupe(tmp_path, records, window={"field": "ts", "seconds": 60})


@pytest.mark.parametrize("bad", [{"keys": []}, {"window": {"field": "ts", "seconds": -1}}, {"count_field": ""}])
def test_dedupe_inputs_are_bounded(tmp_path: Path, bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        dedupe(tmp_path, [], **bad)


scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, -1.0, 2.0]) | st.sampled_from("xyz")
json_values = scalars | st.lists(scalars, max_size=2) | st.dictionaries(st.sampled_from("pq"), scalars, max_size=2)
records_strategy = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c"]), json_values, max_size=3), max_size=10)


@given(records_strategy)
def test_dedupe_accounts_for_every_record(records: list[dict[str, Any]]) -> None:
    out = call("records.dedupe", context(Path(".")), records=records, keys=["a", "b"])
    assert out["count"] + out["removed"] == len(records)
    assert sum(r["duplicates"] for r in out["records"]) == out["removed"]


# ---------------------------------------------------------------------------------------------------- sort


def test_sort_by_several_fields_with_missing_values_last(tmp_path: Path) -> None:
    records = [
        {"id": 1, "zone": "b", "score": 2},
        {"id": 2, "score": 9},
        {"id": 3, "zone": "a", "score": 2},
        {"id": 4, "zone": "a", "score": None},
        {"id": 5, "zone": "a", "score": 1},
    ]
    ascending = call("records.sort", context(tmp_path), records=records, by=["zone", "score"])
    assert [r["id"] for r in ascending["records"]] == [5, 3, 4, 1, 2]
    assert ascending["count"] == 5
    descending = call("records.sort", context(tmp_path), records=records, by=["zone", "score"], descending=True)
    assert [r["id"] for r in descending["records"]] == [1, 3, 5, 4, 2]


def test_sort_orders_mixed_types_by_kind_without_crashing(tmp_path: Path) -> None:
    values: list[Any] = ["b", 2, True, {"k": 1}, 1.5, "a", [1], False, None]
    records = [{"id": i, "v": v} for i, v in enumerate(values)]
    out = call("records.sort", context(tmp_path), records=records, by=["v"])
    assert [r["v"] for r in out["records"]] == [1.5, 2, False, True, "a", "b", [1], {"k": 1}, None]


def test_sort_is_stable(tmp_path: Path) -> None:
    records = [{"id": i, "group": i % 2} for i in range(6)]
    for descending in (False, True):
        out = call("records.sort", context(tmp_path), records=records, by=["group"], descending=descending)
        evens, odds = [0, 2, 4], [1, 3, 5]
        assert [r["id"] for r in out["records"]] == (odds + evens if descending else evens + odds)


@given(records_strategy, st.booleans())
def test_sort_is_a_permutation_for_any_json_records(records: list[dict[str, Any]], descending: bool) -> None:
    out = call("records.sort", context(Path(".")), records=records, by=["a", "c"], descending=descending)
    assert sorted(map(repr, out["records"])) == sorted(map(repr, records))


# ---------------------------------------------------------------------------------------------------- render

EXPECTED_REPORT = """\
Report
======

total:   2
source:  test
kept:    2

id  name   score
--  -----  -----
 1  alpha    0.5
12  b
"""


def render(tmp_path: Path, **inputs: Any) -> dict[str, Any]:
    return call("report.render_text", context(tmp_path), **inputs)


def test_render_text_exact_layout(tmp_path: Path) -> None:
    out = render(
        tmp_path,
        title="Report",
        records=[{"id": 1, "name": "alpha", "score": 0.5}, {"id": 12, "name": "b", "score": None, "extra": "x"}],
        columns=["id", "name", "score"],
        summary={"total": 2, "source": "test"},
        stat_1_label="kept",
        stat_1=2,
    )
    assert out == {"text": EXPECTED_REPORT, "lines": 11}


def test_render_text_is_deterministic(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [
        {"b": True, "a": {"y": 1, "x": [1, 2]}, "c": "tab\there\nnewline"},
        {"c": "é" * 60},
    ]
    inputs: dict[str, Any] = {"title": "T", "records": records, "columns": ["a", "b", "c"], "summary": {"n": [1, None]}}
    reordered = {**inputs, "records": [dict(reversed(list(r.items()))) for r in records]}
    first = render(tmp_path, **inputs)
    assert render(tmp_path, **inputs) == first
    assert render(tmp_path, **reordered) == first
    assert first["text"].splitlines()[-2:] == [
        '{"x":[1,2],"y":1}  true  tab here newline',
        " " * (17 + 2 + 4 + 2) + "é" * 47 + "…",
    ]
    assert "n:  [1,null]" in first["text"]


def test_render_text_shows_the_empty_message(tmp_path: Path) -> None:
    out = render(tmp_path, title="Alarms", records=[], columns=["id"], empty_message="Nothing needs you.")
    assert out == {"text": "Alarms\n======\n\nNothing needs you.\n", "lines": 4}


def test_render_text_keeps_title_labels_and_message_on_one_line_each(tmp_path: Path) -> None:
    out = render(
        tmp_path,
        title="Two\nlines",
        records=[],
        columns=["id"],
        summary={"a\nb": 1},
        empty_message="none\r\nhere",
    )
    assert out == {"text": "Two lines\n=========\n\na b:  1\n\nnone here\n", "lines": 6}


def test_render_text_wants_a_label_for_every_stat() -> None:
    with pytest.raises(ValidationError, match="stat_3 has a value but no stat_3_label"):
        RenderTextInputs(title="t", records=[], columns=["a"], stat_3=4)
    with pytest.raises(ValidationError):
        RenderTextInputs(title="t", records=[], columns=[])


# ---------------------------------------------------------------------------------------------------- sleep


def test_sleep_returns_what_it_slept(tmp_path: Path) -> None:
    assert call("util.sleep", context(tmp_path), seconds=0) == {"slept": 0.0}
    assert call("util.sleep", context(tmp_path), seconds=0.01) == {"slept": 0.01}


def test_sleep_is_bounded() -> None:
    for seconds in (-1, 3600.5):
        with pytest.raises(ValidationError):
            SleepInputs(seconds=seconds)


def test_sleep_stops_at_once_when_already_cancelled(tmp_path: Path) -> None:
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(OperationError, match="cancelled") as err:
        call("util.sleep", context(tmp_path, cancelled=cancelled), seconds=3600)
    assert err.value.retryable


def test_sleep_stops_early_when_cancelled_while_sleeping(tmp_path: Path) -> None:
    cancelled = threading.Event()
    failures: list[BaseException] = []

    def sleeper() -> None:
        try:
            call("util.sleep", context(tmp_path, cancelled=cancelled), seconds=3600)
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=sleeper, daemon=True)
    thread.start()
    thread.join(0.2)
    assert thread.is_alive()  # still sleeping
    cancelled.set()
    thread.join(30)  # a liveness bound, not a timing assertion: an hour-long sleep must end on cancel
    assert not thread.is_alive()
    assert len(failures) == 1
    assert isinstance(failures[0], OperationError)
    assert failures[0].retryable
