"""Usage: a fold of journal events (what a run, or a project, has used), apart from the budgets' pydantic models so
that folding a run (`alicorn show`, `runs`) imports no pydantic model. alicorn.anvil.budget checks it against the
limits and re-exports these names."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

BudgetName = Literal["steps", "effects", "tokens", "money", "wall_s"]
#: Budgets in the order they are checked and shown.
BUDGETS: tuple[BudgetName, ...] = ("steps", "effects", "tokens", "money", "wall_s")


def _seconds(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


@dataclass(frozen=True)
class Usage:
    """What a run (or a project) has used."""

    steps: int = 0
    effects: int = 0
    tokens: int = 0
    money: float = 0.0
    wall_s: float = 0.0

    def plus(self, other: Usage) -> Usage:
        return Usage(
            self.steps + other.steps,
            self.effects + other.effects,
            self.tokens + other.tokens,
            round(self.money + other.money, 9),
            round(self.wall_s + other.wall_s, 6),
        )

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in BUDGETS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Usage:
        return cls(**{name: data[name] for name in BUDGETS if name in data})


@dataclass
class UsageTally:
    """The usage fold: feed it a run's events in order (the run state embeds one)."""

    steps: int = 0
    effects: int = 0
    tokens: int = 0
    money: float = 0.0
    started: str | None = None
    last_at: str | None = None
    waited_s: float = 0.0
    waiting_since: str | None = None

    def apply(self, kind: str, at: str, data: dict[str, Any]) -> None:
        if self.started is None:
            self.started = at
        if self.waiting_since is not None and kind not in ("run.awaiting_approval", "run.blocked"):
            self.waited_s += _seconds(self.waiting_since, at)
            self.waiting_since = None
        if kind == "tool.call":
            self.steps += 1
        elif kind == "effect.intended":
            self.effects += 1
        elif kind == "llm.response":
            usage = data.get("usage") or {}
            self.tokens += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
            self.money = round(self.money + float(data.get("cost") or 0.0), 9)
        elif kind in ("run.awaiting_approval", "run.blocked") and self.waiting_since is None:
            self.waiting_since = at
        self.last_at = at

    def usage(self, now: str | None = None) -> Usage:
        """The usage at `now` (default: the last event's time)."""
        end = now or self.last_at
        wall = 0.0
        if self.started is not None and end is not None:
            wall = _seconds(self.started, end) - self.waited_s
            if self.waiting_since is not None:
                wall -= max(0.0, _seconds(self.waiting_since, end))
        return Usage(self.steps, self.effects, self.tokens, self.money, round(max(wall, 0.0), 6))


def usage_of(events: Any) -> Usage:
    """The usage recorded by a run's events."""
    tally = UsageTally()
    for event in events:
        tally.apply(event.kind, event.at, event.data)
    return tally.usage()
