"""The DSL models themselves: frozen values, helpers on Node and Plan, retry delays, goal digests."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from alicorn.plan.dsl import (
    EFFECT_ORDER,
    IDEMPOTENCY_ORDER,
    LiteralInput,
    OutputRef,
    RefInput,
    RetryPolicy,
    effect_rank,
    goal_digest,
)
from alicorn.plan.validate import parse_plan

from .helpers import lit, node, plan, ref, source


def test_goal_digest_is_a_stable_sha256_of_the_goal_and_its_terms() -> None:
    first = goal_digest("three variants", deadline="2026-12-01", budget=3)
    assert re.fullmatch(r"[0-9a-f]{64}", first)
    assert first == goal_digest("three variants", budget=3, deadline="2026-12-01")
    assert first != goal_digest("three variants", deadline="2026-12-02", budget=3)
    assert first != goal_digest("three variants")
    assert goal_digest("a") != goal_digest("b")
    assert goal_digest("a") == goal_digest("a")


def test_models_are_frozen() -> None:
    parsed = parse_plan(plan(source()))
    with pytest.raises(ValidationError):
        parsed.goal = "something else"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        parsed.nodes[0].operation = "t.send"  # type: ignore[misc]


def test_bindings_parse_to_ref_or_literal() -> None:
    parsed = parse_plan(plan(source(), node("u", "t.upper", {"text": ref("load", "label")}), node("v", "t.upper")))
    binding = parsed.nodes[1].inputs["text"]
    assert isinstance(binding, RefInput) and binding.ref == OutputRef(node="load", output="label")
    assert isinstance(parsed.nodes[0].inputs["n"], LiteralInput) and parsed.nodes[0].inputs["n"].value == 3


def test_node_refs_and_upstream() -> None:
    parsed = parse_plan(
        plan(
            source(),
            node(
                "j",
                "t.join",
                {"items": ref("load", "items"), "sep": lit(",")},
                depends_on=["boot", "load"],
            ),
        )
    )
    j = parsed.node("j")
    assert j.refs() == [OutputRef(node="load", output="items")]
    assert j.upstream() == {"load", "boot"}
    assert parsed.node("load").upstream() == set()


def test_plan_node_raises_key_error_for_an_unknown_id() -> None:
    parsed = parse_plan(plan(source()))
    with pytest.raises(KeyError):
        parsed.node("ghost")


@pytest.mark.parametrize(
    ("policy", "delays"),
    [
        (RetryPolicy(), [0.0, 0.0, 0.0]),
        (RetryPolicy(max_attempts=4, backoff_s=1.0), [1.0, 2.0, 4.0]),
        (RetryPolicy(max_attempts=5, backoff_s=0.5, multiplier=3.0), [0.5, 1.5, 4.5, 13.5]),
        (RetryPolicy(max_attempts=6, backoff_s=10.0, max_backoff_s=25.0), [10.0, 20.0, 25.0, 25.0, 25.0]),
        (RetryPolicy(backoff_s=7.0, multiplier=1.0), [7.0, 7.0, 7.0]),
    ],
)
def test_retry_delay_grows_geometrically_up_to_the_cap(policy: RetryPolicy, delays: list[float]) -> None:
    assert [policy.delay_after(n) for n in range(1, len(delays) + 1)] == pytest.approx(delays)


@pytest.mark.parametrize(
    "fields",
    [{"max_attempts": 0}, {"max_attempts": 21}, {"backoff_s": -1}, {"multiplier": 0.9}, {"max_backoff_s": 1e6}],
)
def test_retry_policy_bounds(fields: dict) -> None:
    with pytest.raises(ValidationError):
        RetryPolicy(**fields)


def test_effect_and_idempotency_orders() -> None:
    assert EFFECT_ORDER[0] == "none" and EFFECT_ORDER[-1] == "physical"
    assert [effect_rank(e) for e in EFFECT_ORDER] == list(range(len(EFFECT_ORDER)))
    assert effect_rank("external_transmission") > effect_rank("local_write") > effect_rank("read")
    assert IDEMPOTENCY_ORDER == ("repeatable", "idempotent", "keyed", "unsafe")
