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
