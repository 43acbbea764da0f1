"""The seed's five example commands, in English, Polish and Russian, through Norbi Core with every bundled pack:
each must classify as work, pick the right template, keep the forbidden effect out of the plan, and end in a
validated report — with no model (deterministic signals alone) and with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.clock import PinnedClock
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.demo import AS_OF
from alicorn.models.messages import ChatRequest
from alicorn.packs.catalog import bundled_workflows
from alicorn.plan.dsl import Plan
from alicorn.runtime.state import fold as fold_run
from alicorn.testing.people import enrol
from tests.core.support import label, scripted

COMMANDS = {
    "schedule": ("schedule", "publication", {
        "en": "Prepare three variants of next month's work schedule, take vacations into account, and do not "
              "publish changes.",
        "pl": "Przygotuj trzy warianty grafiku pracy na przyszły miesiąc, uwzględnij urlopy i nie publikuj zmian.",
        "ru": "Подготовь три варианта графика работы на следующий месяц, учти отпуска и не публикуй изменения.",
    }),
    "incident": ("incident", None, {
        "en": "Find the cause of the increase in render time, check three hypotheses and show the test results.",
        "pl": "Znajdź przyczynę wzrostu czasu renderowania, sprawdź trzy hipotezy i pokaż wyniki testów.",
        "ru": "Найди причину роста времени рендеринга, проверь три гипотезы и покажи результаты тестов.",
    }),
    "notes": ("notes", "external_transmission", {
        "en": "From the conversation, prepare a note, tasks and a draft reply, but do not send anything.",
        "pl": "Na podstawie rozmowy przygotuj notatkę, zadania i szkic odpowiedzi, ale niczego nie wysyłaj.",
        "ru": "По разговору подготовь заметку, задачи и черновик ответа, но ничего не отправляй.",
    }),
    "candidate": ("candidate", "installation", {
        "en": "Build a demo version of the application in an isolated candidate and stop before installation.",
        "pl": "Zbuduj wersję demo aplikacji w izolowanym kandydacie i zatrzymaj się przed instalacją.",
        "ru": "Собери демо-версию приложения в изолированном кандидате и остановись перед установкой.",
    }),
    "alarms": ("alarms", None, {
        "en": "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human.",
        "pl": "Przeanalizuj alarmy kamer z wczoraj, odrzuć powtórzenia i zostaw tylko to, co musi zobaczyć człowiek.",
        "ru": "Разбери вчерашние тревоги камер, убери дубли и оставь только то, что требует человека.",
    }),
}  # fmt: skip
CASES = [(name, lang) for name in COMMANDS for lang in ("en", "pl", "ru")]


def _workflow_ids() -> set[str]:
    return {w.id for w in bundled_workflows()}


def test_the_matrix_names_the_bundled_templates() -> None:
    assert {spec[0] for spec in COMMANDS.values()} == _workflow_ids()


def _model_for(expected: str, language: str):
    """A scripted model that answers like a good small model: right kind and template, no slot guesses."""

    def answer(request: ChatRequest) -> str:
        if request.schema_name == "IntentFlags":
            return label("task", language)
        if request.schema_name == "WorkflowChoice":
            return json.dumps({"workflow": expected, "confidence": 0.8})
        return "{}"

    return scripted([answer] * 40)[0]


def _run(tmp_path: Path, text: str, models=None):
    app = open_app(tmp_path / "home")
    enrol(app, "ann")
    core = Norbi(app, bundled_workflows(), models=models, clock=PinnedClock(AS_OF), samples=True)
    turn = core.receive(IntentEnvelope(utterance=text, author="human:ann"))
    if turn.phase == "waiting":
        turn = core.approve(turn.conversation, by="human:ann")
    return app, turn


@pytest.mark.parametrize("with_model", [False, True], ids=["signals", "scripted"])
@pytest.mark.parametrize(("command", "language"), CASES)
def test_seed_command(tmp_path: Path, command: str, language: str, with_model: bool) -> None:
    workflow, forbidden, texts = COMMANDS[command]
    models = _model_for(workflow, language) if with_model else None
    app, turn = _run(tmp_path, texts[language], models)
    state = fold(app.store.read(turn.conversation))
    assert state.classification is not None and state.classification["kind"] == "task"
    assert state.classification["language"] == language
    assert state.workflow is not None and state.workflow["workflow"] == workflow
    assert state.contract is not None
    if forbidden is not None:
        assert forbidden in state.contract["forbidden"]
        plan = Plan.model_validate(state.plan)
        assert all(app.registry.get(n.operation).effect != forbidden for n in plan.nodes)
    assert state.run is not None
    run = fold_run(app.store.read(state.run), state.run)
    assert run.goal_hash == state.goal_hash
    if forbidden is not None:
        assert not run.effects.get(forbidden)
    assert turn.report is not None, turn
    if workflow == "schedule":
        # The bundled HR export holds known data problems (an employee without competences, a reversed vacation):
        # the schedule is made, and the report says it is partial because the data check failed.
        assert turn.report.outcome == "partial", turn.report.text()
        assert any(c["name"] == "data" and not c["passed"] for c in state.validations[-1]["checks"])
    elif workflow == "notes" and language == "ru":
        # "The latest transcript" prefers the request's language: the Russian moving-day conversation, which has a
        # task nobody took, so the validator reports partial.
        assert state.contract["parameters"]["conversation"] == "2026-11-25-pereezd.json"
        assert turn.report.outcome == "partial", turn.report.text()
    else:
        assert turn.report.outcome == "complete", turn.report.text()
    if with_model:
        assert state.model_calls >= 2  # classification and template choice (no slot call: the words gave them)
