"""The dates and times the API takes, checked against the calendar: a well-formed string that names no real moment
(`2026-13-45`, `2026-02-30T25:00`) is refused naming the field, the value and the form expected, and nothing is
stored (a pattern alone would let it through into the journal)."""

from __future__ import annotations

import re
from datetime import datetime

from alicorn.core.intake import DEADLINE_FORM

#: What a request's deadline may look like, in words (the form is Core's envelope's: DEADLINE_FORM).
DEADLINE_FORMS = "YYYY-MM-DD, or YYYY-MM-DDTHH:MM with optional :SS and Z (like 2026-12-31 or 2026-12-31T17:00Z)"
_DEADLINE = re.compile(DEADLINE_FORM)


def checked_deadline(value: str | None) -> str | None:
    """`value` when it is a deadline in one of `DEADLINE_FORMS` that names a real day (and time); ValueError saying
    what is wrong otherwise (pydantic names the field)."""
    if value is None:
        return None
    if not _DEADLINE.fullmatch(value):
        raise ValueError(f"{value!r} is not a date or time in the form {DEADLINE_FORMS}")
    try:
        datetime.fromisoformat(value.removesuffix("Z"))
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a real date or time ({exc}); write it as {DEADLINE_FORMS}") from None
    return value


def out_of_range(text: str) -> str:
    """Why `text`, an ISO 8601 time whose UTC moment falls outside the years 1-9999, is refused."""
    return f"{text!r} lies outside the years 1 to 9999 once taken to UTC; write a time like 2026-11-30T08:00:00Z"
