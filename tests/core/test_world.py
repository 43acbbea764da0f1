"""The world model: predictions before, observations after, calibration that feeds the router and reputation."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.core.intake import IntentEnvelope
from alicorn.core.world import STREAM, fold_world, observe, read_world
from alicorn.journal.memory import InMemoryStore
from alicorn.models.errors import RoutingError
from alicorn.models.router import Host, requirements_for, route
from tests.core.support import PROFILE, SEED_ALARMS, core, make_app


def _observe(store, p: float, outcome: bool, run: str) -> None:
    prediction = {"nodes": [{"node": "a", "operation": "util.noop", "p": p}], "plan": {"predictor": "m", "p": p}}
    observe(store, prediction, {"a": "succeeded" if outcome else "failed"}, outcome, conversation="c", run=run,
            at="2026-11-30T08:00:00.000000Z")  # fmt: skip


def test_brier_score_per_predictor() -> None:
    store = InMemoryStore()
    _observe(store, 0.9, True, "r1")
    _observe(store, 0.9, False, "r2")
    view = read_world(store)
    assert view.calibration["m"].predictions == 2
    assert view.calibration["m"].brier == pytest.approx((0.1**2 + 0.9**2) / 2)
    assert view.operations["util.noop"] == (1, 1)
    assert view.brier("m") is None  # fewer than five predictions: not yet trusted
    assert view.p_operation("util.noop") == pytest.approx((1 + 9) / 12)


def test_a_poorly_calibrated_profile_is_refused_by_the_router() -> None:
    need = requirements_for("classifier")
    host = Host(ram_gb=16, providers=("scripted",))
    assert route(need, [PROFILE], host=host, calibration={PROFILE.id: 0.1}).pick == PROFILE.id
    with pytest.raises(RoutingError) as caught:
        route(need, [PROFILE], host=host, calibration={PROFILE.id: 0.6})
    assert "poorly calibrated" in str(caught.value)


def test_a_run_is_predicted_then_observed_and_moves_the_planners_reputation(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    turn = core(app).receive(IntentEnvelope(utterance=SEED_ALARMS, author="human:ann"))
    events = app.store.read(turn.conversation)
    predicted = next(e for e in events if e.kind == "world.predicted").data
    assert predicted["picked"].startswith("template:")
    assert {n["node"] for n in predicted["candidates"][0]["nodes"]} >= {"load", "triage"}
    observed = app.store.read(STREAM)
    assert len(observed) == 1 and all(n["observed"] for n in observed[0].data["nodes"])
    view = fold_world(observed)
    assert view.operations["data.read_csv"] == (1, 0)
    brier = observed[0].data["brier"]
    record = app.anvil.agents.record("agent:planner")
    calibrations = [h for h in record.history if "(calibration)" in h.summary]
    assert len(calibrations) == (1 if brier <= 0.05 or brier >= 0.5 else 0)
    moved = app.anvil.agents.calibrate("agent:planner", "run-x", 0.9)  # a confident miss costs reputation, once
    assert len(moved) == 1 and moved[0].data["delta"] == -1
    assert app.anvil.agents.calibrate("agent:planner", "run-x", 0.9) == []


def test_the_models_stated_confidence_is_its_prediction_and_its_calibration(tmp_path: Path) -> None:
    import json

    from tests.core.support import label, scripted

    app = make_app(tmp_path)
    choice = json.dumps({"workflow": "alarms", "confidence": 0.7})
    models, _ = scripted([label("task"), choice, "{}"])
    turn = core(app, models=models).receive(IntentEnvelope(utterance=SEED_ALARMS, author="human:ann"))
    predicted = next(e for e in app.store.read(turn.conversation) if e.kind == "world.predicted").data
    plan = predicted["candidates"][0]["plan"]
    assert plan["predictor"] == PROFILE.id and plan["p"] <= 0.7
    view = read_world(app.store)
    assert view.calibration[PROFILE.id].predictions == 1
    assert view.calibration[PROFILE.id].brier == pytest.approx((1 - plan["p"]) ** 2, abs=1e-4)
