"""Criteria: every operator, nested all/any/not, dotted paths; comparisons across kinds are False, never errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from alicorn.plan.criteria import describe, evaluate, lookup, paths
from alicorn.plan.dsl import AllOf, AnyOf, Check, Criterion, Not

CRITERION: TypeAdapter[Criterion] = TypeAdapter(Criterion)

SUBJECT: dict[str, Any] = {
    "count": 3,
    "ratio": 0.5,
    "name": "alarm-7",
    "ok": True,
    "off": False,
    "none": None,
    "tags": ["cam", "night", 7],
    "empty": [],
    "records": [{"id": 1, "zone": "north", "meta": {"level": 2}}, {"id": 2, "zone": "south"}],
    "nested": {"a": {"b": {"c": "deep"}}, "0": "zero-key"},
    "matrix": [[1, 2], [3, 4]],
}


def c(path: str, op: str, value: Any = None) -> Check:
    return Check(path=path, op=op, value=value)  # type: ignore[arg-type]


CASES: list[tuple[str, str, Any, bool]] = [
    # eq / ne
    ("count", "eq", 3, True),
    ("count", "eq", 3.0, True),
    ("count", "eq", 4, False),
    ("name", "eq", "alarm-7", True),
    ("name", "eq", "ALARM-7", False),
    ("none", "eq", None, True),
    ("tags", "eq", ["cam", "night", 7], True),
    ("records.0.meta", "eq", {"level": 2}, True),
    ("count", "ne", 4, True),
    ("count", "ne", 3, False),
    ("count", "ne", "3", True),
    # gt / gte / lt / lte
    ("count", "gt", 2, True),
    ("count", "gt", 3, False),
    ("count", "gte", 3, True),
    ("count", "gte", 3.5, False),
    ("count", "lt", 3.5, True),
    ("count", "lt", 3, False),
    ("count", "lte", 3, True),
    ("count", "lte", 2, False),
    ("ratio", "lt", 1, True),
    ("name", "gt", "alarm-1", True),
    ("name", "lt", "alarm-1", False),
    ("records.1.zone", "gte", "south", True),
    # in / not_in
    ("name", "in", ["x", "alarm-7"], True),
    ("name", "in", ["x"], False),
    ("count", "in", [1, 2, 3], True),
    ("count", "in", [3.0], True),
    ("count", "not_in", [1, 2], True),
    ("count", "not_in", [3], False),
    ("records.0.zone", "in", ["north", "east"], True),
    # contains
    ("name", "contains", "arm", True),
    ("name", "contains", "xyz", False),
    ("tags", "contains", "night", True),
    ("tags", "contains", 7, True),
    ("tags", "contains", "7", False),
    ("empty", "contains", "x", False),
    # exists
    ("count", "exists", None, True),
    ("count", "exists", True, True),
    ("count", "exists", False, False),
    ("missing", "exists", None, False),
    ("missing", "exists", False, True),
    ("none", "exists", None, False),
    ("none", "exists", False, True),
    ("records.0.meta.level", "exists", None, True),
    ("records.5.id", "exists", None, False),
    # lengths
    ("tags", "len_eq", 3, True),
    ("tags", "len_eq", 2, False),
    ("tags", "len_gte", 3, True),
    ("tags", "len_gte", 4, False),
    ("tags", "len_lte", 3, True),
    ("tags", "len_lte", 2, False),
    ("empty", "len_eq", 0, True),
    ("name", "len_eq", 7, True),
    ("records.0", "len_eq", 3, True),
    ("records", "len_gte", 2, True),
]


@pytest.mark.parametrize(("path", "op", "value", "expected"), CASES)
def test_every_operator(path: str, op: str, value: Any, expected: bool) -> None:
    assert evaluate(c(path, op, value), SUBJECT) is expected


def test_every_operator_is_covered() -> None:
    from typing import get_args

    from alicorn.plan.dsl import CheckOp

    assert {op for _, op, _, _ in CASES} == set(get_args(CheckOp))


MISMATCHES: list[tuple[str, str, Any]] = [
    # a string compared with a number (either way) is false for every ordering, never an error
    ("name", "gt", 1),
    ("name", "lt", 1),
    ("count", "gt", "1"),
    ("count", "lte", "100"),
    ("count", "eq", "3"),
    ("name", "eq", 7),
    # True is not 1 and False is not 0
    ("ok", "eq", 1),
    ("off", "eq", 0),
    ("count", "eq", True),
    ("ok", "gt", 0),
    ("ok", "gt", 0.5),
    ("count", "in", [True, "3"]),
    ("ok", "in", [1]),
    ("tags", "contains", True),
    # orderings between containers, None or mixed kinds
    ("tags", "gt", ["a"]),
    ("none", "lt", 1),
    ("records", "gte", 0),
    ("nested", "lt", {"a": 1}),
    # membership against something that is not a list
    ("name", "in", "alarm-7 and more"),
    ("name", "in", None),
    ("count", "not_in", 5),
    # contains on values that hold nothing
    ("count", "contains", 3),
    ("nested", "contains", "a"),
    ("name", "contains", 7),
    # lengths of values without one, or with a length that is not an integer
    ("count", "len_eq", 1),
    ("none", "len_eq", 0),
    ("tags", "len_eq", 3.0),
    ("tags", "len_eq", "3"),
    ("tags", "len_gte", True),
    ("tags", "len_lte", None),
]


@pytest.mark.parametrize(("path", "op", "value"), MISMATCHES)
def test_comparisons_across_kinds_are_false_not_errors(path: str, op: str, value: Any) -> None:
    assert evaluate(c(path, op, value), SUBJECT) is False


@pytest.mark.parametrize("op", ["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "contains", "len_eq"])
@pytest.mark.parametrize("path", ["missing", "records.9", "records.0.nope", "name.first", "count.0", "tags.x"])
def test_missing_paths_are_false_for_every_operator_but_exists(path: str, op: str) -> None:
    assert evaluate(c(path, op, 1), SUBJECT) is False


@pytest.mark.parametrize(
    ("path", "found"),
    [
        ("records.0.id", 1),
        ("records.1.zone", "south"),
        ("records.0.meta.level", 2),
        ("matrix.1.0", 3),
        ("nested.a.b.c", "deep"),
        ("nested.0", "zero-key"),
        ("tags.2", 7),
        ("none", None),
    ],
)
def test_dotted_paths_reach_into_objects_and_lists(path: str, found: Any) -> None:
    assert lookup(SUBJECT, path) == found
    assert evaluate(c(path, "eq", found), SUBJECT)


@pytest.mark.parametrize("path", ["records.2", "records.0.id.x", "tags.cam", "missing.0", "matrix.0.5"])
def test_lookup_of_an_absent_path_is_not_none(path: str) -> None:
    assert lookup(SUBJECT, path) is not None


@pytest.mark.parametrize("subject", [None, 3, "text", [], [1, 2], {}, True])
def test_subjects_that_are_not_objects(subject: Any) -> None:
    assert evaluate(c("count", "eq", 3), subject) is False
    assert evaluate(c("count", "exists"), subject) is False
    assert evaluate(c("0", "eq", 1), [1, 2]) is True


def test_nested_all_any_not() -> None:
    criterion = AllOf(
        of=[
            c("count", "gte", 1),
            AnyOf(of=[c("name", "eq", "nope"), c("tags", "contains", "cam")]),
            Not(of=c("records.0.zone", "eq", "south")),
            Not(of=Not(of=c("ok", "eq", True))),
        ]
    )
    assert evaluate(criterion, SUBJECT) is True
    assert evaluate(AllOf(of=[*criterion.of, c("missing", "exists")]), SUBJECT) is False
    assert evaluate(AnyOf(of=[c("missing", "exists"), c("count", "eq", 0)]), SUBJECT) is False
    assert evaluate(Not(of=AnyOf(of=[c("missing", "exists")])), SUBJECT) is True
    assert evaluate(Not(of=c("missing", "eq", 1)), SUBJECT) is True  # not(false on a missing path)


def test_criteria_parse_from_json_with_the_kind_tag() -> None:
    parsed = CRITERION.validate_python(
        {
            "kind": "any",
            "of": [
                {"kind": "check", "path": "count", "op": "eq", "value": 3},
                {"kind": "not", "of": {"kind": "all", "of": [{"kind": "check", "path": "ok", "op": "exists"}]}},
            ],
        }
    )
    assert isinstance(parsed, AnyOf)
    assert evaluate(parsed, SUBJECT) is True
    assert evaluate(parsed, {**SUBJECT, "count": 4}) is False


def test_evaluate_refuses_something_that_is_not_a_criterion() -> None:
    with pytest.raises(TypeError):
        evaluate({"kind": "check"}, SUBJECT)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("criterion", "text"),
    [
        (c("count", "gte", 1), "count gte 1"),
        (c("name", "eq", "x"), "name eq 'x'"),
        (c("records.0.id", "exists"), "records.0.id exists"),
        (c("tags", "in", ["a", 1]), "tags in ['a', 1]"),
        (Not(of=c("ok", "eq", True)), "not (ok eq True)"),
        (AllOf(of=[c("a", "eq", 1), c("b", "lt", 2)]), "(a eq 1 and b lt 2)"),
        (AnyOf(of=[c("a", "eq", 1), Not(of=c("b", "exists"))]), "(a eq 1 or not (b exists))"),
        (AllOf(of=[AnyOf(of=[c("a", "eq", 1)]), c("c", "ne", None)]), "((a eq 1) and c ne None)"),
    ],
)
def test_describe(criterion: Criterion, text: str) -> None:
    assert describe(criterion) == text


def test_paths_lists_every_leaf_in_order() -> None:
    criterion = AllOf(of=[c("a", "eq", 1), Not(of=AnyOf(of=[c("b.0", "exists"), c("c.d", "lt", 2)])), c("a", "ne", 2)])
    assert paths(criterion) == ["a", "b.0", "c.d", "a"]


@pytest.mark.parametrize(("found", "want"), [([True], [1]), ({"a": True}, {"a": 1}), ([[0]], [[False]])])
def test_true_is_not_one_inside_lists_and_objects(found: Any, want: Any) -> None:
    assert evaluate(c("v", "eq", want), {"v": found}) is False


# ---------------------------------------------------------------------------------------------------- properties

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "0", "id"]), inner, max_size=3)
    ),
    max_leaves=12,
)
PATHS = st.lists(st.sampled_from(["a", "b", "0", "1", "id", "x"]), min_size=1, max_size=4).map(".".join)
OPS = st.sampled_from(
    ["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "contains", "exists", "len_eq", "len_gte", "len_lte"]
)
CHECKS = st.builds(Check, path=PATHS, op=OPS, value=JSON)
CRITERIA = st.recursive(
    CHECKS,
    lambda inner: (
        st.builds(AllOf, of=st.lists(inner, min_size=1, max_size=3))
        | st.builds(AnyOf, of=st.lists(inner, min_size=1, max_size=3))
        | st.builds(Not, of=inner)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(criterion=CRITERIA, subject=JSON)
def test_any_criterion_on_any_json_is_a_bool_and_never_raises(criterion: Criterion, subject: Any) -> None:
    result = evaluate(criterion, subject)
    assert isinstance(result, bool)
    assert evaluate(Not(of=criterion), subject) is (not result)
    assert isinstance(describe(criterion), str) and describe(criterion)
    assert all(p for p in paths(criterion))


@settings(max_examples=100, deadline=None)
@given(value=JSON.filter(lambda v: not isinstance(v, (list, dict))))
def test_a_scalar_equals_itself_and_ne_is_its_negation(value: Any) -> None:
    subject = {"v": value}
    assert evaluate(c("v", "eq", value), subject) is True
    assert evaluate(c("v", "ne", value), subject) is False
