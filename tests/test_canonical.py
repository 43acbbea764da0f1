"""Canonical JSON: the shortcuts taken on the journal's hot path give exactly the general encoder's text."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from alicorn import canonical


@given(st.text())
def test_a_string_encodes_as_the_general_encoder_encodes_it(text: str) -> None:
    assert canonical.dumps_str(text) == canonical.dumps(text)


@given(st.one_of(st.none(), st.booleans(), st.integers(), st.lists(st.text(), max_size=3)))
def test_anything_else_given_as_a_string_still_encodes_as_json(value: Any) -> None:
    assert canonical.dumps_str(value) == canonical.dumps(value)


def test_a_str_subclass_is_encoded_as_its_text() -> None:
    class Named(str):
        pass

    assert canonical.dumps_str(Named('ä\n"')) == canonical.dumps('ä\n"') == '"ä\\n\\""'


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.integers() | st.booleans(), inner, max_size=4)
    ),
    max_leaves=20,
)


def _reference(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"))


@given(_JSON)
def test_the_encoder_built_once_gives_the_standard_librarys_text(value: Any) -> None:
    # keys of other types become strings as the standard library makes them; sorting mixed keys fails the same way
    try:
        expected: str | type[Exception] = _reference(value)
    except TypeError:
        expected = TypeError
    if expected is TypeError:
        try:
            canonical.dumps(value)
        except TypeError:
            return
        raise AssertionError("canonical.dumps accepted what the standard library refuses")
    assert canonical.dumps(value) == expected
    assert canonical.digest(value) == canonical.sha256_text(expected)


@given(_JSON)
def test_without_the_c_accelerator_the_text_is_the_same(value: Any) -> None:
    import pytest

    try:
        expected = canonical.dumps(value)
    except TypeError:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(canonical, "_c_encode", None)
        assert canonical.dumps(value) == expected


def test_nan_infinity_and_non_json_are_refused() -> None:
    import pytest

    for bad in (float("nan"), {"x": float("inf")}, [float("-inf")]):
        with pytest.raises(ValueError):
            canonical.dumps(bad)
    with pytest.raises(TypeError):
        canonical.dumps({"x": object()})
    with pytest.raises(TypeError):
        canonical.dumps({(1, 2): "tuple key"})
