"""Which effects may be pending: every effect whose outcome is not known, as the fold of the journal says.

An attempt whose outcome was not known (an uncertain failure, an interruption, an unknown outcome) may have applied
the effect; a later attempt that certainly failed says nothing about it. Only the target (a lookup by the key every
attempt shares) or a human can say it was not applied.
"""

from __future__ import annotations

from typing import Any

import pytest

from alicorn.core.report import run_facts
from alicorn.runtime.state import RunState, apply, pending_effects

AT = "2026-11-30T08:00:00.000000Z"
PLAN = {
    "goal": "g",
    "goal_hash": "0" * 64,
    "nodes": [{"node_id": "send", "operation": "http.post_json"}, {"node_id": "other", "operation": "util.noop"}],
}


def _state(*events: tuple[str, dict[str, Any]]) -> RunState:
    state = RunState(run_id="run-p")
    apply(state, "run.created", AT, {"plan": PLAN, "plan_hash": "1" * 64})
    for kind, data in events:
        apply(state, kind, AT, {"node": "send", **data})
    return state


def _attempt(n: int) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("tool.call", {"attempt": n, "key": "k" * 64, "op": "http.post_json", "effect": "external_transmission"}),
        ("effect.intended", {"attempt": n, "key": "k" * 64, "op": "http.post_json", "effect": "external_transmission"}),
    ]


def _failed(n: int, certain: bool) -> tuple[str, dict[str, Any]]:
    return ("effect.failed", {"attempt": n, "key": "k" * 64, "certain": certain, "reason": f"attempt {n}"})


@pytest.mark.parametrize(
    ("events", "pending"),
    [
        ([*_attempt(1)], True),  # intended, never resolved
        ([*_attempt(1), _failed(1, False)], True),
        ([*_attempt(1), _failed(1, True)], False),  # certainly not applied
        ([*_attempt(1), _failed(1, False), *_attempt(2), _failed(2, True)], True),  # the first may have applied it
        ([*_attempt(1), _failed(1, True), *_attempt(2), _failed(2, True)], False),
        ([*_attempt(1), _failed(1, False), *_attempt(2), ("effect.done", {"attempt": 2, "key": "k" * 64})], False),
        (
            [
                *_attempt(1),
                ("effect.check", {"attempt": 1, "key": "k" * 64, "reason": "timeout"}),
                ("effect.checked", {"attempt": 1, "key": "k" * 64, "ok": True, "applied": False}),
                _failed(1, True),
                *_attempt(2),
                _failed(2, True),
            ],
            False,  # the target, asked by key, said no attempt applied it
        ),
        (
            [
                *_attempt(1),
                ("effect.unknown", {"attempt": 1, "key": "k" * 64, "reason": "timeout"}),
                ("effect.resolved", {"attempt": 1, "key": "k" * 64, "applied": False, "by": "human:alice"}),
                *_attempt(2),
                _failed(2, True),
            ],
            False,  # a human checked the target
        ),
        ([*_attempt(1), ("effect.unknown", {"attempt": 1, "key": "k" * 64, "reason": "timeout"})], True),
    ],
)
def test_an_effect_is_pending_while_its_outcome_is_not_known(
    events: list[tuple[str, dict[str, Any]]], pending: bool
) -> None:
    state = _state(*events)
    assert pending_effects(state) == (["send"] if pending else [])
    assert bool(run_facts(state)["pending"]) is pending  # Core's report lists the same effects


def test_the_report_says_an_earlier_attempt_left_it_uncertain() -> None:
    state = _state(*_attempt(1), _failed(1, False), *_attempt(2), _failed(2, True))
    [line] = run_facts(state)["pending"]
    assert line.startswith("send (http.post_json, sending outside, key kkkk") and line.endswith("uncertain")
