"""The sentences a schedule's data problems are written in, and how they are said again in another language.

The loader (`alicorn.packs.schedule.load`) records each problem it finds in its HR data as one English line, and the
artifact keeps the line as written, so the journal, the validator's `detail` and older runs read the same. Each line
is one of the msgids below with its values filled in; `as_phrase` reads a line back into its msgid and values, so a
report, a check's sentence or a result line says it in the request's language. A line that matches no msgid (an
older loader's) is shown as written.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from alicorn.i18n import N_, tr_marked

EMPLOYEE_ID_UNREADABLE = N_("{file} line {line}: employee id {ident} is empty or not a plain code; the row is ignored")
EMPLOYEE_AGAIN = N_("{file} line {line}: employee {ident} appears again; the first row is kept")
EMPLOYEE_TERMS_INVALID = N_(
    "{file} line {line}: employee {ident} has no valid contract hours or hourly cost; not scheduled"
)
COMPETENCES_UNREADABLE = N_("{file} line {line}: employee {ident} has unreadable competences {bad}; they are ignored")
NO_COMPETENCES = N_("{file} line {line}: employee {ident} has no competences recorded, so cannot be scheduled")
VACATION_OF_STRANGER = N_("{file} line {line}: employee {ident} is not in the contracts; the vacation is ignored")
VACATION_DATES_UNREADABLE = N_("{file} line {line}: vacation of {ident} has dates {first}-{last}, not YYYY-MM-DD")
VACATION_BACKWARDS = N_(
    "{file} line {line}: vacation of {ident} ends ({last}) before it starts ({first}); ignored, fix it"
)
VACATIONS_OVERLAP = N_(
    "{file} line {line}: vacation of {ident} {first}..{last} overlaps the one from line {earlier_line} "
    "({earlier_first}..{earlier_last}); merged"
)
DAY_UNREADABLE = N_("{file} line {line}: day {day} is neither a weekday (mon, mon-fri) nor a date; ignored")
REQUIRED_UNREADABLE = N_("{file} line {line}: required {required} is not a whole number from 0 to 100; ignored")
SHIFT_UNKNOWN = N_("{file} line {line}: shift {shift} or competence {competence} is not known to the rules; ignored")
DEMAND_TWICE = N_("{file} line {line}: demand for {day} {shift} {competence} is given twice; first row kept")
COMPETENCE_UNHELD = N_("{file}: demand for competence {competence}, which no employee has")
MORE_PROBLEMS = N_("... and {count} more data problems")

#: Every sentence a data problem is written in, the most specific first (the order `as_phrase` tries them).
DATA_ISSUES = (
    VACATIONS_OVERLAP,
    EMPLOYEE_ID_UNREADABLE,
    EMPLOYEE_AGAIN,
    EMPLOYEE_TERMS_INVALID,
    COMPETENCES_UNREADABLE,
    NO_COMPETENCES,
    VACATION_OF_STRANGER,
    VACATION_DATES_UNREADABLE,
    VACATION_BACKWARDS,
    DAY_UNREADABLE,
    REQUIRED_UNREADABLE,
    SHIFT_UNKNOWN,
    DEMAND_TWICE,
    COMPETENCE_UNHELD,
    MORE_PROBLEMS,
)


def data_issue(message: str, /, **values: Any) -> str:
    """The English line the loader records: `message` (one of DATA_ISSUES) with `values`."""
    return message.format(**values)


@cache
def _pattern(message: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", message)
    body = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts))
    return re.compile(body + r"\Z", re.DOTALL)


def as_phrase(line: str) -> dict[str, Any] | str:
    """`line` read back into its msgid and values (`alicorn.validate.base.phrase`'s shape), or the line itself."""
    for message in DATA_ISSUES:
        found = _pattern(message).match(line)
        if found:
            return {"message": message, "values": found.groupdict()}
    return line


def data_issue_in(line: str, language: str) -> str:
    """A recorded data problem in `language`."""
    read = as_phrase(line)
    if isinstance(read, str) or language == "en":
        return line
    return tr_marked(language, read["message"], **read["values"])
