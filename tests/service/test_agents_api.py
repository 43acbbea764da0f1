"""Agents and models over real HTTP: the agent list, rights at a time with where they came from, reputation over
time with the reason for each change, the home's model profiles and the router's decision for a role."""

from __future__ import annotations

from collections.abc import Iterator

from alicorn.anvil.agents import PermissionRegistry, fold_agent
from alicorn.anvil.rights import RightsChange
from alicorn.models.defaults import default_profiles
from tests.service.conftest import Served

WRONG_FOLDER = "a note went to the wrong folder"


def _times() -> Iterator[str]:
    for day in range(21, 29):
        yield f"2026-11-{day}T10:00:00.000000Z"


def _scribe(served: Served) -> None:
    """agent:scribe registered on the 21st, credited for corpus-anvil-approved on the 22nd, local_write revoked on
    the 23rd."""
    times = _times()
    registry = PermissionRegistry(served.store, now=lambda: next(times))
    registry.register("agent:scribe", ("executor",), cause="the team's note taker", by="human:ada")
    assert registry.settle("corpus-anvil-approved")
    registry.change(
        "agent:scribe", RightsChange(effects=("local_write",)), grant=False, cause=WRONG_FOLDER, by="human:ada"
    )


def test_agents_rights_at_a_time_and_reputation_over_time(served: Served) -> None:
    _scribe(served)
    with served.client("vic") as http:
        listed = http.get("/api/v1/agents").json()["agents"]
        scribe = next(a for a in listed if a["agent"] == "agent:scribe")
        assert scribe["registered"] and scribe["reputation"] == 3 and "local_write" not in scribe["rights"]

        now = http.get("/api/v1/agents/scribe/rights").json()
        assert now["at"] is None and "local_write" not in now["rights"]["effects"]
        assert [h["cause"] for h in now["history"]][-1] == WRONG_FOLDER
        before = http.get("/api/v1/agents/agent:scribe/rights", params={"at": "2026-11-22T12:00:00Z"}).json()
        assert before["at"] == "2026-11-22T12:00:00.000000Z" and "local_write" in before["rights"]["effects"]
        assert before["origins"]["local_write"]["source"] == "registration"
        assert "registration by human:ada" in before["origins"]["local_write"]["sentence"]
        assert before["reputation"] == 3 and before["report"]["title"].startswith("agent:scribe at")
        # the same fold `alicorn rights --at` makes
        folded = fold_agent("agent:scribe", served.store.read("agent:scribe"), "2026-11-22T12:00:00.000000Z")
        assert before["rights"] == folded.rights.model_dump(mode="json")

        history = http.get("/api/v1/agents/scribe/reputation").json()
        points = history["points"]
        assert [(p["kind"], p["reputation"], p["delta"]) for p in points] == [
            ("agent.registered", 0, 0),
            ("reputation.changed", 2, 2),
            ("reputation.changed", 3, 1),
            ("rights.revoked", 3, 0),
        ]
        assert points[1]["run"] == "corpus-anvil-approved" and "succeeded" in points[1]["cause"]
        assert points[3]["cause"] == WRONG_FOLDER and points[3]["by"] == "human:ada"


def test_agent_refusals(served: Served) -> None:
    with served.client("vic") as http:
        unknown = http.get("/api/v1/agents/nobody/rights")
        assert unknown.status_code == 404 and unknown.json()["type"].endswith("/unknown-agent")
        human = http.get("/api/v1/agents/human:ada/reputation")
        assert human.status_code == 422 and "human" in human.json()["detail"]
        _scribe(served)
        bad_time = http.get("/api/v1/agents/scribe/rights", params={"at": "last tuesday"})
        assert bad_time.status_code == 422 and bad_time.json()["type"].endswith("/invalid-time")
    with served.client(None) as http:
        assert http.get("/api/v1/agents").status_code == 401


def _routed(role: str) -> dict[str, object]:
    """What `alicorn models route ROLE --json` prints for the built-in profiles."""
    from alicorn.core.access import profile_models
    from alicorn.core.routing import decide, routed_record
    from alicorn.models.router import requirements_for

    models = profile_models(default_profiles(), "the built-in profiles (no models.toml in the home)")
    decision, reason = decide(models, requirements_for(role))
    return routed_record(models, decision, reason)


def test_models_and_the_routers_decision(served: Served) -> None:
    with served.client("vic") as http:
        models = http.get("/api/v1/models").json()
        assert models["source"].startswith("the built-in profiles")
        assert [p["id"] for p in models["profiles"]] == [p.id for p in default_profiles().profiles]
        route = http.get("/api/v1/models/routes", params={"role": "classifier"}).json()
        assert route["role"] == "classifier" and "candidates" in route and route["explanation"]
        assert route == {**_routed("classifier"), "explanation": route["explanation"], "source": models["source"]}
        unknown = http.get("/api/v1/models/routes", params={"role": "juggler"})
        assert unknown.status_code == 422 and "unknown role" in unknown.json()["detail"]
