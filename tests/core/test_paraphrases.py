"""Other phrasings of the seed's five commands (not the examples the templates carry), in three languages, with no
model: Core must reach the right template, treat the request as work, and forbid what the words forbid. Each
conversation stops right after the plan is proposed (the job broker is made unavailable), so no run is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.clock import PinnedClock
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.demo import AS_OF
from alicorn.packs.catalog import bundled_workflows
from alicorn.plan.dsl import Plan

P, T, I = "publication", "external_transmission", "installation"  # noqa: E741
CASES = [
    ("schedule", P, "Draft two alternative rosters for January, mind the booked holidays, keep them unpublished."),
    ("schedule", P, "We need shift plans for December in 3 versions; don't post anything yet."),
    ("schedule", P, "Could you work out the staff rota for next month? Consider leave, but don't publish it."),
    ("schedule", P, "Ułóż dwa warianty harmonogramu zmian na styczeń z uwzględnieniem urlopów, bez publikowania."),
    ("schedule", P, "Potrzebuję grafiku dyżurów na grudzień w trzech wersjach, niczego nie ogłaszaj."),
    ("schedule", P, "Составь расписание смен на январь в двух вариантах, учти отпуска, не публикуй."),
    ("schedule", P, "Сделай три версии графика дежурств на следующий месяц, ничего не выкладывай."),
    ("incident", None, "Why did our renders get slower? Test a few explanations and report what you find."),
    ("incident", None, "Rendering takes longer since mid-October, investigate two possible causes."),
    ("incident", None, "Dlaczego rendering trwa dłużej? Zbadaj możliwe przyczyny i pokaż wyniki."),
    ("incident", None, "Czas renderowania wzrósł, przetestuj cztery hipotezy."),
    ("incident", None, "Почему рендер стал медленнее? Проверь пару гипотез и покажи результаты."),
    ("incident", None, "Время рендеринга выросло — найди причину."),
    ("notes", T, "Summarise the meeting into notes and action items and write a reply draft; don't email anyone."),
    ("notes", T, "Take the call transcript and give me minutes plus a to-do list, no sending."),
    ("notes", T, "Zrób notatkę ze spotkania, wypisz zadania i przygotuj szkic maila, ale go nie wysyłaj."),
    ("notes", None, "Z nagrania rozmowy przygotuj protokół i listę zadań."),
    ("notes", T, "Сделай протокол встречи, список задач и черновик письма, ничего не отправляй."),
    ("notes", None, "Из записи созвона выпиши задачи и подготовь черновик ответа."),
    ("candidate", I, "Make a demo build of the app in a sandbox, don't install it."),
    ("candidate", I, "Prepare an isolated demo candidate of the application and halt before deploying."),
    ("candidate", I, "Przygotuj wersję demonstracyjną aplikacji w osobnym środowisku, nie instaluj jej."),
    ("candidate", I, "Zbuduj demo aplikacji w izolacji i zatrzymaj się przed wdrożeniem."),
    ("candidate", I, "Подготовь демо-сборку приложения в изолированной среде, не устанавливай."),
    ("alarms", None, "Go over last night's camera alerts, merge repeats and list the ones someone must check."),
    ("alarms", None, "Filter yesterday's CCTV events down to those that need a person."),
    ("alarms", None, "Przejrzyj wczorajsze zdarzenia z monitoringu, scal powtórzenia i pokaż te do sprawdzenia."),
    ("alarms", None, "Które wczorajsze alarmy z kamer wymagają człowieka? Bez duplikatów."),
    ("alarms", None, "Просмотри вчерашние срабатывания камер, объедини повторы и оставь важные."),
    ("alarms", None, "Какие вчерашние тревоги видеонаблюдения требуют оператора?"),
]  # fmt: skip
#: Known gaps, kept visible (none now: colloquial Russian "не ставь её" is read as forbidding installation, see
#: tests/models/test_intent.py).
GAPS: list[tuple[str, str | None, str]] = []


def _proposed(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch):
    app = open_app(tmp_path / "home")

    def broker_down(*args, **kwargs):
        raise OSError("broker unavailable (the test stops after the plan)")

    monkeypatch.setattr(app, "executor", broker_down)
    turn = Norbi(app, bundled_workflows(), clock=PinnedClock(AS_OF), samples=True).receive(
        IntentEnvelope(utterance=text, author="human:a")
    )
    return app, turn, fold(app.store.read(turn.conversation))


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workflow: str, forbidden: str | None, text: str) -> None:
    app, turn, state = _proposed(tmp_path, text, monkeypatch)
    assert state.classification is not None and state.classification["kind"] == "task", state.classification
    assert state.workflow is not None and state.workflow["workflow"] == workflow, state.workflow
    if turn.phase == "asking":  # a slot the words do not give is asked for, never guessed
        assert turn.question
        return
    assert turn.phase == "stalled" and state.plan is not None, turn
    assert state.contract is not None
    if forbidden is not None:
        assert forbidden in state.contract["forbidden"]
        plan = Plan.model_validate(state.plan)
        assert all(app.registry.get(n.operation).effect != forbidden for n in plan.nodes)


@pytest.mark.parametrize(("workflow", "forbidden", "text"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_paraphrase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workflow: str, forbidden: str | None, text: str):
    _check(tmp_path, monkeypatch, workflow, forbidden, text)


@pytest.mark.xfail(strict=True, reason="a known gap of the forbidden-action lexicon; remove from GAPS when fixed")
@pytest.mark.parametrize(("workflow", "forbidden", "text"), GAPS)
def test_known_gap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workflow: str, forbidden: str | None, text: str):
    _check(tmp_path, monkeypatch, workflow, forbidden, text)
