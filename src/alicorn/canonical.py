"""Canonical JSON: the one byte encoding used for hashing, storing and comparing events.

Keys sorted, no insignificant whitespace, UTF-8 kept as is (not \\u-escaped), NaN and infinities refused. Python's
float repr is the shortest string that round-trips, so equal values always encode to equal bytes.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import encode_basestring
from typing import Any

_encoder = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"), check_circular=False
)
#: The C encoder `_encoder.encode` builds on every call (json's own fast path: no indent, one shot), built once with
#: the same settings: every journaled event is encoded at least once, and rebuilding it cost a third of each encode.
#: None where the interpreter has no C accelerator; `dumps` then uses `_encoder`.
_c_encode: Any = (
    json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None,  # no circular-reference markers (check_circular=False)
        _encoder.default,
        encode_basestring,  # ensure_ascii=False
        None,  # no indent
        ":",
        ",",
        True,  # sort_keys
        False,  # skipkeys
        False,  # allow_nan
    )
    if json.encoder.c_make_encoder is not None  # type: ignore[attr-defined]
    else None
)


def dumps(value: Any) -> str:
    """Encode `value` as canonical JSON text. Raises ValueError for NaN/infinity, TypeError for non-JSON."""
    if _c_encode is None:
        return _encoder.encode(value)
    return "".join(_c_encode(value, 0))


def dumps_str(value: str) -> str:
    """`dumps` of a string: the same text, without the encoder's dispatch on the value's type (a journal event's
    stream, kind, time and previous hash are encoded this way on every append). Anything but a str goes through
    `dumps`, so the answer is always `dumps(value)`'s."""
    if type(value) is str:
        # What JSONEncoder.encode does for a str when ensure_ascii is off.
        return encode_basestring(value)
    return dumps(value)


def digest(value: Any) -> str:
    """Hex SHA-256 of the canonical JSON of `value`."""
    return hashlib.sha256(dumps(value).encode("utf-8")).hexdigest()


def sha256_text(text: str) -> str:
    """Hex SHA-256 of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
