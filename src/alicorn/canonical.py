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


def dumps(value: Any) -> str:
    """Encode `value` as canonical JSON text. Raises ValueError for NaN/infinity, TypeError for non-JSON."""
    return _encoder.encode(value)


def dumps_str(value: str) -> str:
    """`dumps` of a string: the same text, without the encoder's dispatch on the value's type (a journal event's
    stream, kind, time and previous hash are encoded this way on every append). Anything but a str goes through
    `dumps`, so the answer is always `dumps(value)`'s."""
    if type(value) is str:
        # What JSONEncoder.encode does for a str when ensure_ascii is off.
        return encode_basestring(value)
    return _encoder.encode(value)


def digest(value: Any) -> str:
    """Hex SHA-256 of the canonical JSON of `value`."""
    return hashlib.sha256(_encoder.encode(value).encode("utf-8")).hexdigest()


def sha256_text(text: str) -> str:
    """Hex SHA-256 of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
