"""Shared test helpers: a fake clock, profiles, clients, and the effect classes' short names for intent cases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from alicorn.models.profiles import ModelProfile
from alicorn.runtime.world import format_time

#: The effect classes by short name, for the intent tests' tables of cases.
L, P, X, INST, F, C = (
    "local_write",
    "publication",
    "external_transmission",
    "installation",
    "physical",
    "code_execution",
)


class FakeClock:
    """Each `now()` is 250 ms after the previous one; `sleep` only records."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 1, 1, tzinfo=UTC)
        self.slept: list[float] = []

    def now(self) -> str:
        self.moment += timedelta(milliseconds=250)
        return format_time(self.moment)

    def monotonic(self) -> float:
        return self.moment.timestamp()

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


def profile(**overrides: Any) -> ModelProfile:
    """A valid local profile, with any field overridden."""
    base: dict[str, Any] = {
        "id": "test-local",
        "provider": "scripted",
        "model": "scripted",
        "location": "local",
        "languages": ["en", "pl", "ru"],
        "reasoning": 1,
        "code": 1,
        "structured_output": "json_schema",
        "context_length": 8192,
        "seed": True,
        "privacy": "on_device",
        "licence": "Apache-2.0",
    }
    base.update(overrides)
    if base["location"] == "external" and "privacy" not in overrides:
        base["privacy"] = "third_party"
    return ModelProfile.model_validate(base)
