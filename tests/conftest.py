"""The whole suite never reads the wall clock.

`alicorn.clock.wall_now` (the one wall-clock read in Alicorn) raises in every test, so a test that forgets to inject
a clock fails loudly instead of passing today and failing tomorrow. Code that takes no clock uses
`default_clock()`, which `ALICORN_NOW` pins for the test process and for every CLI subprocess a test starts: the day
is fixed, durations are real.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import alicorn.clock
from tests.pgserver import pg_server, pg_url  # noqa: F401 - the session's PostgreSQL, for every folder

#: The day every test without a clock of its own lives in (the bundled samples' "yesterday" is 2026-11-29).
TEST_NOW = "2026-11-30T08:00:00Z"


class WallClockRead(AssertionError):
    """A test reached the real clock."""


def _refuse() -> object:
    raise WallClockRead(
        "this test read the wall clock; inject a clock (alicorn.clock.PinnedClock, or a fixed one) or rely on "
        f"{alicorn.clock.PIN_VARIABLE}, which tests/conftest.py pins"
    )


@pytest.fixture(autouse=True)
def _no_wall_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(alicorn.clock, "wall_now", _refuse)
    # The same pinned time line in this process and in every subprocess the test starts (see alicorn.clock).
    monkeypatch.setenv(alicorn.clock.PIN_VARIABLE, f"{TEST_NOW}@{time.monotonic()}")
    yield
