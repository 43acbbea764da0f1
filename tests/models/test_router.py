"""The router: requirements decide, local first, external only with policy and a justification, all explained."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alicorn.context.tap import JournalTap
from alicorn.journal.memory import InMemoryStore
from alicorn.models.defaults import default_profiles
from alicorn.models.errors import RoutingError
from alicorn.models.profiles import ModelProfile
from alicorn.models.router import (
    ROLES,
    Host,
    RoleRequirements,
    RoutingPolicy,
    consultants_for,
    requirements_for,
    route,
)
from tests.models.support import FakeClock, profile

HOST = Host(ram_gb=16, providers=("openai_compatible", "scripted", "llama_cpp"))
SMALL = profile(id="small", reasoning=0, code=0, context_length=2048, languages=["en"])
MID = profile(id="mid", reasoning=2, code=2, context_length=32768)
BIG = profile(id="big", location="external", reasoning=3, code=3, context_length=128000, cost_input_per_1k=0.01)


def test_best_local_fit_wins_and_externals_are_not_considered() -> None:
    decision = route(requirements_for("planner"), [SMALL, MID, BIG], host=HOST)
    assert decision.pick == "mid" and not decision.external
    outcomes = {c.profile: c.outcome for c in decision.candidates}
    assert outcomes == {"big": "held_back", "mid": "picked", "small": "rejected"}
    small = next(c for c in decision.candidates if c.profile == "small")
    assert any("reasoning 0 < 2" in r for r in small.reasons) and any("context 2048" in r for r in small.reasons)


def test_names_do_not_matter_only_abilities() -> None:
    renamed = [p.model_copy(update={"id": f"zz-{p.id}"}) for p in (SMALL, MID, BIG)]
    assert route(requirements_for("planner"), renamed, host=HOST).pick == "zz-mid"


def test_external_needs_policy_and_justification() -> None:
    need = requirements_for("researcher").model_copy(update={"reasoning": 3})
    with pytest.raises(RoutingError) as info:
        route(need, [SMALL, MID, BIG], host=HOST)
    held = next(c for c in info.value.decision.candidates if c.profile == "big")
    assert held.outcome == "held_back" and "not allowed by this project's policy" in held.reasons[0]
    with pytest.raises(RoutingError, match="quality justification"):
        route(need, [SMALL, MID, BIG], host=HOST, policy=RoutingPolicy(allow_external=True))
    why = "local models fail the 3-hop reasoning evaluation (12% vs 81%)"
    decision = route(need, [SMALL, MID, BIG], host=HOST, policy=RoutingPolicy(allow_external=True, justification=why))
    assert decision.pick == "big" and decision.external and decision.justification == why


def test_host_limits_and_missing_extras_reject() -> None:
    heavy = profile(id="heavy", min_ram_gb=64, reasoning=3)
    gpu = profile(id="gpu", gpu=True, reasoning=3)
    llama = profile(id="llama", provider="llama_cpp", model="bundled:smollm2", reasoning=3)
    host = Host(ram_gb=8, providers=("openai_compatible", "scripted"))
    decision = route(requirements_for("classifier"), [heavy, gpu, llama, SMALL], host=host)
    reasons = {c.profile: " ".join(c.reasons) for c in decision.candidates}
    assert decision.pick == "small"
    assert "64 GB RAM" in reasons["heavy"] and "GPU" in reasons["gpu"] and "alicorn[local]" in reasons["llama"]


def test_decision_is_journaled() -> None:
    store = InMemoryStore()
    route(requirements_for("planner"), [SMALL, MID], host=HOST, tap=JournalTap(store, "routing", FakeClock()))
    (event,) = store.read("routing")
    assert event.kind == "model.routed" and event.data["pick"] == "mid" and len(event.data["candidates"]) == 2


def test_unknown_role() -> None:
    with pytest.raises(RoutingError, match="known roles: assistant, classifier"):
        requirements_for("astrologer")


def test_consultants_are_distinct_fits() -> None:
    other = profile(id="other", reasoning=2, code=1, context_length=16384)
    picks = consultants_for(requirements_for("planner"), [SMALL, MID, other, BIG], 3, host=HOST)
    assert [d.pick for d in picks] == ["mid", "other"]


def test_builtin_roles_route_over_builtin_profiles() -> None:
    for role in ROLES:
        try:
            decision = route(requirements_for(role), default_profiles().profiles, host=HOST)
        except RoutingError as exc:
            decision = exc.decision
        assert decision.explained()


_profiles = st.builds(
    lambda i, loc, reasoning, code, ctx, seed, langs, structured, ram: ModelProfile.model_validate(
        {
            "id": f"p{i}",
            "provider": "openai_compatible",
            "model": "m",
            "endpoint": "http://127.0.0.1:1/v1",
            "location": loc,
            "languages": langs,
            "reasoning": reasoning,
            "code": code,
            "context_length": ctx,
            "seed": seed,
            "structured_output": structured,
            "min_ram_gb": ram,
            "licence": "x",
            "privacy": "third_party" if loc == "external" else "on_device",
        }
    ),
    st.integers(0, 50),
    st.sampled_from(["local", "external"]),
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from([1024, 4096, 32768]),
    st.booleans(),
    st.sampled_from([["en"], ["en", "pl"], ["pl", "ru"]]),
    st.sampled_from(["json_schema", "none"]),
    st.sampled_from([0, 8, 64]),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_profiles, max_size=8, unique_by=lambda p: p.id),
    st.sampled_from(sorted(ROLES)),
    st.booleans(),
    st.sampled_from([None, "measured: local fails the eval"]),
)
def test_every_decision_is_fully_explained(
    profiles: list[ModelProfile], role: str, allow: bool, justification: str | None
) -> None:
    need: RoleRequirements = requirements_for(role)
    policy = RoutingPolicy(allow_external=allow, justification=justification)
    try:
        decision = route(need, profiles, host=HOST, policy=policy)
    except RoutingError as exc:
        decision = exc.decision
        assert decision.pick is None
    assert decision.explained()
    assert len(decision.candidates) == len(profiles)
    picked = [c for c in decision.candidates if c.outcome == "picked"]
    assert len(picked) == (1 if decision.pick else 0)
    if decision.external:
        assert (
            allow
            and justification
            and not any(c.outcome in ("picked", "outranked") and c.location == "local" for c in decision.candidates)
        )
