"""Consultants and the arbiter in Core: a free plan or a hard question is asked of several profiles where the home's
models allow; the plan or answer the evidence supports is used, and a disagreement nothing settles goes to the human
(alicorn.core.consulting)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from alicorn.app import App
from alicorn.clock import PinnedClock
from alicorn.core import consulting
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.core.render import model_lines
from alicorn.core.routing import ModelAccess
from alicorn.models.errors import ProfileError
from alicorn.models.messages import ChatRequest
from alicorn.models.profiles import parse_profiles
from alicorn.models.providers.scripted import ScriptedProvider
from alicorn.models.router import Host
from alicorn.packs.alarms import WORKFLOW as ALARMS
from alicorn.runtime.state import fold
from tests.core.support import AS_OF, PROFILE, core, label, make_app, memory_home, registry

PLANNER = PROFILE.model_copy(update={"reasoning": 2, "context_length": 16384})
WRITE_A = {"node_id": "write", "operation": "workspace.write_file",
           "inputs": {"path": {"value": "a.txt"}, "content": {"value": "hi"}}}  # fmt: skip
WRITE_B = {"node_id": "write", "operation": "workspace.write_file",
           "inputs": {"path": {"value": "b.txt"}, "content": {"value": "hi"}}}  # fmt: skip
# The same effect as WRITE_A behind a no-op: a different plan, the same position (what it does outside the run).
WRITE_A_AFTER_NOOP = [{"node_id": "first", "operation": "util.noop", "inputs": {}},
                      {**WRITE_A, "node_id": "then", "depends_on": ["first"]}]  # fmt: skip


def _planner(nodes: list[dict[str, Any]] | None) -> Callable[[ChatRequest], str]:
    """A planner-grade model: a task for the classifier, no template, then `nodes` as its plan (None: garbage)."""

    def respond(request: ChatRequest) -> str:
        if "nodes" in json.dumps(request.json_schema or {}):
            return json.dumps({"nodes": nodes}) if nodes is not None else "no plan today"
        if request.schema_name == "IntentFlags":
            return label("task")
        return json.dumps({"workflow": None, "confidence": 0.1})

    return respond


def _access(scripts: dict[str, Callable[[ChatRequest], str]], *, consultants: int = 3, **fields: Any) -> ModelAccess:
    """One scripted provider per profile id (each answers with its own script), planner-grade, consulted on."""
    providers = {pid: ScriptedProvider([script] * 60, constrained=True) for pid, script in scripts.items()}
    profiles = tuple(PLANNER.model_copy(update={"id": pid}) for pid in scripts)
    host = Host(ram_gb=16, providers=("scripted",))
    return ModelAccess(profiles, lambda p: providers[p.id], host, source="scripted", consultants=consultants, **fields)


def _norbi(app: App, models: ModelAccess) -> Norbi:
    return Norbi(app, [ALARMS], models=models, clock=PinnedClock(AS_OF))


def _ask(norbi: Norbi, text: str = "Write the word hi into a text file") -> Any:
    return norbi.receive(IntentEnvelope(utterance=text, author="human:alice"))


def _events(app: App, conversation: str, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in app.store.read(conversation) if e.kind == kind]


def _written(app: App, norbi: Norbi, conversation: str) -> list[str]:
    run = norbi.state(conversation).run
    if run is None:
        return []
    state = fold(app.store.read(run), run)
    return sorted(p.name for p in (app.workspaces / run).glob("*.txt")) if state.status == "succeeded" else []


# ---- plans ----------------------------------------------------------------------------------------------------


def test_consultants_whose_plans_do_the_same_settle_and_the_plan_runs(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner([WRITE_A]), "planner-b": _planner(WRITE_A_AFTER_NOOP)}))
    turn = _ask(norbi)
    consulted = _events(app, turn.conversation, "model.consulted")
    assert [[c["profile"] for c in e["consultants"]] for e in consulted] == [["planner-a", "planner-b"]]
    assert all(c["reason"] for c in consulted[0]["consultants"])
    (plans,) = _events(app, turn.conversation, "plans.consulted")
    assert [c["profile"] for c in plans["consultants"]] == ["planner-a", "planner-b"]
    assert plans["verdict"]["settled"] is True and len(plans["verdict"]["positions"]) == 1
    assert plans["verdict"]["positions"][0]["supporters"] == ["planner-a", "planner-b"]
    # the world model picks among the settled position's plans (fewer nodes on a tie), and it runs
    (proposed,) = _events(app, turn.conversation, "plan.proposed")
    assert proposed["source"] == "model:planner-a"
    assert _written(app, norbi, turn.conversation) == ["a.txt"]
    assert not _events(app, turn.conversation, "clarification.asked")
    # what `alicorn ask` prints of it
    lines = model_lines(app.store.read(turn.conversation))
    assert any(line.startswith("planner: a hard task, asked of planner-a, planner-b") for line in lines)
    assert any(line.startswith("plans: ") and "settled by passing test(s)" in line for line in lines)


def test_plans_that_differ_in_their_effects_go_to_the_human_who_picks_one(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner([WRITE_A]), "planner-b": _planner([WRITE_B])}))
    turn = _ask(norbi)
    assert turn.phase == "asking" and turn.question is not None
    assert "planner-a" in turn.question and "a.txt" in turn.question and "b.txt" in turn.question
    assert "3) none of these" in turn.question
    (plans,) = _events(app, turn.conversation, "plans.consulted")
    assert plans["verdict"]["settled"] is False
    assert not _events(app, turn.conversation, "plan.proposed")  # nothing proposed before the human chose
    after = norbi.reply(turn.conversation, "2", by="human:alice")
    (proposed,) = _events(app, turn.conversation, "plan.proposed")
    assert proposed["source"] == "model:planner-b" and "chosen by the human" in proposed["problems"][0]
    assert after.phase == "reported" and _written(app, norbi, turn.conversation) == ["b.txt"]
    # a free plan has no validator of its own: each of its steps is a check, so "complete" says what was checked
    (validation,) = _events(app, turn.conversation, "validation.done")
    assert [(c["name"], c["passed"]) for c in validation["checks"]] == [("write", True)]
    assert validation["status"] == "complete" and validation["summary"].endswith("1 of 1 checks passed")
    # the plans were not written again after the choice
    assert len(_events(app, turn.conversation, "plans.consulted")) == 1


def test_a_consultant_named_in_the_answer_is_the_choice_too(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner([WRITE_A]), "planner-b": _planner([WRITE_B])}))
    turn = _ask(norbi)
    norbi.reply(turn.conversation, "the one from planner-a please", by="human:alice")
    assert _written(app, norbi, turn.conversation) == ["a.txt"]


def test_none_of_these_runs_nothing_and_says_why(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner([WRITE_A]), "planner-b": _planner([WRITE_B])}))
    turn = _ask(norbi)
    after = norbi.reply(turn.conversation, "none of these", by="human:alice")
    assert after.phase == "reported" and norbi.state(turn.conversation).run is None
    (report,) = _events(app, turn.conversation, "report.written")
    assert any("none of the consultants' plans was chosen" in m for m in report["missing"])


def test_an_answer_naming_no_plan_is_asked_again_once_then_nothing_runs(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner([WRITE_A]), "planner-b": _planner([WRITE_B])}))
    turn = _ask(norbi)
    again = norbi.reply(turn.conversation, "hmm, whichever", by="human:alice")
    assert again.phase == "asking" and again.question == turn.question
    last = norbi.reply(turn.conversation, "still not sure", by="human:alice")
    assert last.phase == "reported" and norbi.state(turn.conversation).run is None


def test_a_consultant_with_no_valid_plan_is_named_and_the_other_plan_settles(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner(None), "planner-b": _planner([WRITE_B])}))
    turn = _ask(norbi)
    (plans,) = _events(app, turn.conversation, "plans.consulted")
    assert plans["verdict"]["settled"] is True and plans["verdict"]["failed_consultants"] == ["planner-a"]
    assert plans["consultants"][0]["plan_hash"] is None and plans["consultants"][0]["problems"]
    assert _written(app, norbi, turn.conversation) == ["b.txt"]


@pytest.mark.parametrize("setting", [{"consultants": 1}, {"pins": {"planner": "planner-b"}}, {"forced": "planner-b"}])
def test_one_model_is_asked_when_consulting_is_off_or_the_operator_chose_the_planner(
    tmp_path: Path, setting: dict[str, Any]
) -> None:
    app = make_app(tmp_path / "home")
    norbi = _norbi(app, _access({"planner-a": _planner([WRITE_A]), "planner-b": _planner([WRITE_B])}, **setting))
    turn = _ask(norbi)
    assert not _events(app, turn.conversation, "model.consulted")
    assert not _events(app, turn.conversation, "plans.consulted")
    assert len(_events(app, turn.conversation, "plan.proposed")) == 1


def test_the_plans_effects_decide_positions_not_their_wording() -> None:
    built = registry()
    from alicorn.plan.dsl import Node, Plan

    def plan(*nodes: dict[str, Any]) -> Plan:
        return Plan(goal="g", goal_hash="0" * 64, nodes=[Node.model_validate(n) for n in nodes])

    read_a = {"node_id": "r", "operation": "data.read_json", "inputs": {"path": {"value": "a.json"}}}
    read_b = {**read_a, "inputs": {"path": {"value": "b.json"}}}
    # Reads of different files are one position (nothing outside the run differs); writes to different files are not.
    assert consulting.effects_key(plan(read_a), built) == consulting.effects_key(plan(read_b), built)
    assert consulting.effects_key(plan(WRITE_A), built) != consulting.effects_key(plan(WRITE_B), built)
    assert "local_write by write" in consulting.plan_summary(plan(WRITE_A), built)


def test_chosen_plan_reads_numbers_names_and_none() -> None:
    question = {"plans": [{"profiles": ["qwen-7b"]}, {"profiles": ["llama-8b", "mistral"]}]}
    assert consulting.chosen_plan(question, " 2. ") == question["plans"][1]
    assert consulting.chosen_plan(question, "Mistral's one") == question["plans"][1]
    assert consulting.chosen_plan(question, "3") == consulting.NONE_CHOSEN
    assert consulting.chosen_plan(question, "żadne") == consulting.NONE_CHOSEN
    assert consulting.chosen_plan(question, "7") is None
    assert consulting.chosen_plan(question, "qwen-7b or llama-8b") is None  # two named: not a choice


# ---- answers --------------------------------------------------------------------------------------------------

SUPERVISORS = {
    "marta": "The night shift supervisor at the Gdynia warehouse is Marta Kowalska.",
    "piotr": "The night shift supervisor at the Gdynia warehouse is Piotr Nowak.",
}


def _memory_home(tmp_path: Path) -> tuple[App, dict[str, str]]:
    return memory_home(tmp_path, SUPERVISORS)


def _answerer(answer: str, record: str) -> Callable[[ChatRequest], str]:
    def respond(request: ChatRequest) -> str:
        if request.schema_name == "IntentFlags":
            return label("question")
        return json.dumps({"answer": answer, "citations": [record]})

    return respond


QUESTION = "Who is the night shift supervisor at the Gdynia warehouse?"


def test_a_hard_question_whose_answers_rest_on_different_records_shows_both(tmp_path: Path) -> None:
    app, ids = _memory_home(tmp_path)
    models = _access({"model-a": _answerer("Marta Kowalska.", ids["marta"]),
                      "model-b": _answerer("Piotr Nowak.", ids["piotr"])})  # fmt: skip
    turn = core(app, models=models).receive(IntentEnvelope(utterance=QUESTION, author="human:ann"))
    given = _events(app, turn.conversation, "answer.given")[0]
    assert consulting.hard_question([h for h in given["retrieved"] if h["similarity"] >= given["threshold"]])
    assert given["by"] == "consultants" and given["consultation"]["verdict"]["settled"] is False
    assert "disagree" in given["text"] and "Marta Kowalska." in given["text"] and "Piotr Nowak." in given["text"]
    assert f"[{ids['marta']}]" in given["text"] and f"[{ids['piotr']}]" in given["text"]
    assert sorted(given["citations"]) == sorted(ids.values())


def test_a_hard_question_whose_answers_rest_on_the_same_record_is_settled(tmp_path: Path) -> None:
    app, ids = _memory_home(tmp_path)
    models = _access({"model-a": _answerer("Marta Kowalska.", ids["marta"]),
                      "model-b": _answerer("It is Marta Kowalska", ids["marta"])})  # fmt: skip
    turn = core(app, models=models).receive(IntentEnvelope(utterance=QUESTION, author="human:ann"))
    given = _events(app, turn.conversation, "answer.given")[0]
    assert given["consultation"]["verdict"]["settled"] is True and given["citations"] == [ids["marta"]]
    assert given["text"].startswith("Marta Kowalska.") and "model-a, model-b" in given["text"]


def test_an_easy_question_asks_one_model(tmp_path: Path) -> None:
    app, ids = _memory_home(tmp_path)
    models = _access({"model-a": _answerer("Marta Kowalska.", ids["marta"]),
                      "model-b": _answerer("Piotr Nowak.", ids["piotr"])})  # fmt: skip
    turn = core(app, models=models).receive(IntentEnvelope(utterance="Who is Marta Kowalska?", author="human:ann"))
    given = _events(app, turn.conversation, "answer.given")[0]
    assert "consultation" not in given
    assert not _events(app, turn.conversation, "model.consulted")


# ---- the setting ----------------------------------------------------------------------------------------------


def test_models_toml_sets_how_many_consultants_and_refuses_nonsense() -> None:
    one = {**PROFILE.model_dump(mode="json"), "provider": "openai_compatible", "endpoint": "http://127.0.0.1:1/v1"}
    assert parse_profiles({"profiles": [one]}).consultants.count == 3
    assert parse_profiles({"profiles": [one], "consultants": {"count": 1}}).consultants.count == 1
    for bad in ({"count": 0}, {"count": 9}, {"many": 2}):
        with pytest.raises(ProfileError, match="consultants"):
            parse_profiles({"profiles": [one], "consultants": bad})
