"""The schedule part's errors.

AlicornError
└── ScheduleError            a schedule cannot be added or changed as asked (names the field and the fix);
    │                        nothing was journaled
    └── UnknownScheduleError no schedule with that id in the journal
"""

from __future__ import annotations

from alicorn.errors import AlicornError


class ScheduleError(AlicornError):
    """A schedule cannot be added or changed as asked; the message names the field and the fix."""


class UnknownScheduleError(ScheduleError):
    """No schedule with this id in the journal."""

    def __init__(self, schedule_id: str) -> None:
        super().__init__(
            f"no schedule {schedule_id!r} in this journal; `alicorn schedule list` shows the schedules there are"
        )
        self.schedule_id = schedule_id
