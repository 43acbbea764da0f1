"""What Core itself says (report sections, the outcome, a safe stop, run facts, the printed turn, the prompts) is in
the request's language."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from alicorn.anvil.people import People
from alicorn.core import cli, render
from alicorn.core.contract import Constraint, OutcomeContract
from alicorn.core.decided import choice_said, kind_said, signals_said
from alicorn.core.report import Report, fallback, run_facts
from alicorn.core.turn import Turn
from alicorn.i18n import tr
from alicorn.journal.memory import InMemoryStore
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.state import EffectState, NodeState, RunState
from alicorn.testing.people import act_as, enrol


def _report(language: str) -> Report:
    return Report(
        conversation="conv-1",
        outcome="partial",
        headline="the headline, written by the pack",
        goal_hash="g" * 16,
        run="run-conv-1-1",
        result=["a result line"],
        known=["k"],
        missing=["m"],
        jobs_finished=["j"],
        decisions_needed=["d"],
        pending_effects=["p"],
        evidence=["e"],
        conflicts=["c"],
        metrics={"tokens": 3},
        artifacts=["ws"],
        language=language,
    )


SECTIONS = {
    "en": ["[partial]", "goal hash: ", "run: ", "known:", "missing:", "jobs finished:", "decisions needed:",
           "effects that may be pending:", "evidence:", "conflicts:", "artifacts:", "metrics: tokens=3"],
    "pl": ["[częściowy]", "skrót celu: ", "przebieg: ", "wiadomo:", "brakuje:", "zakończone zadania:",
           "potrzebne decyzje:", "efekty, które mogą być w toku:", "dowody:", "konflikty:", "artefakty:",
           "miary: tokens=3"],
    "ru": ["[частично]", "хеш цели: ", "запуск: ", "известно:", "не хватает:", "завершённые задачи:",
           "нужные решения:", "эффекты, которые могут быть не завершены:", "доказательства:", "конфликты:",
           "артефакты:", "метрики: tokens=3"],
}  # fmt: skip


@pytest.mark.parametrize("language", ["en", "pl", "ru"])
def test_the_report_reads_in_its_language(language: str) -> None:
    text = _report(language).text()
    lines = [line for line in text.splitlines() if not line.startswith("  ")]
    assert [line[: len(title)] for line, title in zip(lines, SECTIONS[language], strict=True)] == SECTIONS[language]
    assert "the headline, written by the pack" in text and "  - k" in text


def test_records_among_the_metrics_read_one_line_each_without_their_english_labels() -> None:
    variants = [
        {"variant": 1, "label": "Lowest cost", "objective": "lowest_cost", "total_cost": 100.5},
        {"variant": 2, "label": "Night shifts shared evenly", "objective": "fair_nights", "total_cost": 120.0},
    ]
    report = _report("pl").model_copy(update={"metrics": {"month": "2027-01", "variants": variants, "tokens": 0}})
    lines = report.text().splitlines()
    at = lines.index("miary: month=2027-01, variants=2, tokens=0")
    assert lines[at + 1 :] == [
        "  - variants 1: variant=1, objective=lowest_cost, total_cost=100.5",
        "  - variants 2: variant=2, objective=fair_nights, total_cost=120.0",
    ]
    assert "{" not in report.text() and "Lowest cost" not in report.text()


@pytest.mark.parametrize(
    ("language", "forbidden", "stated"),
    [
        (
            "en",
            "constraint: no publication (“wstrzymaj się” → publikacją; “nie” → publikuj)",
            "constraint: overtime < 200 h (the request's words)",
        ),
        (
            "pl",
            "warunek: zakaz: publikacja („wstrzymaj się” → publikacją; „nie” → publikuj)",
            "warunek: overtime < 200 h (słowa prośby)",
        ),
        (
            "ru",
            "условие: запрет: публикация («wstrzymaj się» → publikacją; «nie» → publikuj)",
            "условие: overtime < 200 h (слова запроса)",
        ),
    ],
)
def test_a_contracts_constraints_read_in_the_requests_language(language: str, forbidden: str, stated: str) -> None:
    contract = OutcomeContract(
        goal="g",
        result="document",
        constraints=[
            # The lexicon's own notes on a reading ("(put off)") are English and for developers: never shown.
            Constraint(
                kind="forbid_effect",
                value="no publication",
                source="wstrzymaj się (put off) → publikacją; nie → publikuj; nie (condition) → publikuj",
            ),
            Constraint(kind="stated", value="overtime < 200 h", source="words"),
        ],
    )
    lines = contract.sentences(language)
    assert forbidden in lines and stated in lines


def test_a_refusal_names_the_failed_check_in_the_requests_language() -> None:
    from alicorn.core.followup import _said
    from alicorn.validate.base import check

    journaled = check("data", False, "{count} data problem(s) reported: {issues}", "warning", count=1, issues=["x"])
    assert _said(journaled.model_dump(mode="json"), "pl").startswith("zgłoszone problemy z danymi (1)")
    assert _said({"name": "data", "detail": "older"}, "pl") == "older"


def test_a_report_without_a_language_is_english() -> None:
    stored = _report("en").model_dump(mode="json")
    del stored["language"]  # journaled before reports had one
    assert Report.model_validate(stored).text() == _report("en").text()


def _run() -> RunState:
    state = RunState(run_id="run-1", status="awaiting_approval", awaiting={"effects": ["send"]})
    state.order = ["load", "send", "post"]
    state.nodes = {
        "load": NodeState("load", status="succeeded"),
        "send": NodeState("send", status="failed"),
        "post": NodeState("post", status="blocked"),
    }
    state.effects_log = {"k": EffectState(node="post", key="ab" * 32, operation="ledger.post", effect="external")}
    return state


def test_run_facts_and_the_safe_stop_in_polish_and_russian() -> None:
    assert run_facts(_run())["finished"] == ["load (succeeded)", "send (failed)"]
    pl = run_facts(_run(), "pl")
    assert pl["finished"] == ["load (udany)", "send (nieudany)"]
    assert pl["pending"] == [f"post (ledger.post, external, klucz {'ab' * 8}…): zamierzony"]
    assert pl["decisions"][0] == "zatwierdź lub odrzuć przebieg run-1 (send): `alicorn approve run-1`"
    assert pl["decisions"][1].startswith("powiedz, czy efekt post nastąpił: `alicorn resume run-1 --resolve")

    stop = fallback("conv-1", "брокер недоступен", known=["k"], missing=[], language="ru")
    assert stop.language == "ru" and stop.headline == "безопасно остановлено: брокер недоступен"
    assert stop.pending_effects == ["нет: ни один эффект не был начат и оставлен без результата"]
    assert stop.text().startswith("[безопасно остановлено] безопасно остановлено: брокер недоступен")
    ru = fallback("conv-1", "x", known=[], missing=[], state=_run(), language="ru")
    assert ru.decisions_needed[0].startswith("одобрите или отклоните запуск run-1 (send)")
    english = fallback("conv-1", "x", known=[], missing=[])
    assert english.headline == "stopped safely: x" and english.language == "en"


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    out = io.StringIO()
    monkeypatch.setattr(render, "console", Console(file=out, width=200, highlight=False, emoji=False))
    return out


def test_the_printed_turn_is_in_the_turns_language(printed: io.StringIO) -> None:
    registry = builtin_registry()
    render.print_turn(Turn("conv-1", "asking", question="Który zespół?", language="pl"), registry, source="brak")
    render.print_turn(Turn("conv-1", "done", answer="Да.", report=_report("ru"), language="ru"), registry, source=None)
    text = printed.getvalue()
    assert "rozmowa conv-1 · modele: brak" in text and "pytanie: Który zespół?" in text
    assert 'odpowiedz: alicorn ask --conversation conv-1 "…"' in text
    assert "ответ: Да." in text and "отчёт\n[частично]" in text


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["code_execution ← variant", "Run the candidate's tests (pytest when"]),
        ("pl", ["uruchamianie kodu ← variant", "Uruchom testy kandydata (pytest, gdy"]),
        ("ru", ["запуск кода ← variant", "Запустить тесты кандидата (pytest, если"]),
    ],
)
def test_a_waiting_plans_steps_are_said_in_the_turns_language(
    printed: io.StringIO, language: str, words: list[str]
) -> None:
    from alicorn.packs.candidate import plan as candidate
    from alicorn.packs.candidate.slots import CandidateParameters

    registry = builtin_registry()
    for op in candidate.OPERATIONS:
        if op.name not in registry:
            registry.register(op)
    built = candidate.build(CandidateParameters(app="app"), frozenset({"installation"}))
    nodes = [n.model_dump(mode="json") for n in built.nodes]
    plan = Plan.model_validate({"goal": "build", "goal_hash": goal_digest("build"), "nodes": nodes})
    assert any(n.description.startswith("Run the candidate's tests") for n in plan.nodes)  # the plan keeps English
    render.print_turn(Turn("conv-1", "waiting", plan=plan, language=language), registry, source=None)
    text = printed.getvalue()
    assert all(w in text for w in words), text


def test_repeated_causes_are_counted_in_the_right_plural() -> None:
    reasons = ["a needs approval because x"] * 2 + ["b because y"] * 5 + ["c because z"]
    assert render.distinct_causes(reasons) == [
        "a needs approval because x (2 operations, same cause)",
        "b because y (5 operations, same cause)",
        "c because z",
    ]
    assert [r.split(" (", 1)[-1] for r in render.distinct_causes(reasons, "pl")[:2]] == [
        "2 operacje, ta sama przyczyna)",
        "5 operacji, ta sama przyczyna)",
    ]
    assert render.distinct_causes(reasons * 11, "ru")[0].endswith("(22 операции, та же причина)")


class _Core:
    """Just enough of Norbi for `alicorn ask`'s prompts."""

    def __init__(self, keys: Path) -> None:
        people = enrol(People(InMemoryStore(), keys), "ann")
        self.app = type("App", (), {"registry": builtin_registry(), "people": people})()
        self.calls: list[str] = []
        self.origin = "human"

    def provenance(self, conversation: str) -> str:
        return self.origin

    def approve(self, conversation: str, by: str) -> Turn:
        self.calls.append("approve")
        return Turn(conversation, "done", language="pl")

    def reject(self, conversation: str, by: str, reason: str) -> Turn:
        self.calls.append(f"reject: {reason}")
        return Turn(conversation, "done", language="ru")


def test_the_prompts_ask_in_the_requests_language(
    monkeypatch: pytest.MonkeyPatch, printed: io.StringIO, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    asked: list[str] = []
    answers = iter(["tak", "н", "потому что"])

    def prompt(text: str) -> Any:
        asked.append(text)
        return next(answers)

    monkeypatch.setattr(cli, "_prompt", prompt)
    act_as(monkeypatch, "ann")
    core = _Core(tmp_path / "keys")
    waiting = Turn("conv-1", "waiting", language="pl")
    cli._interact(core, waiting, "ann", approve=False, interactive=True)
    cli._interact(core, Turn("conv-1", "waiting", language="ru"), "ann", approve=False, interactive=True)
    assert asked == [
        "zatwierdzić ten plan? [t = zatwierdź / n = odrzuć]",
        "одобрить этот план? [д = одобрить / н = отклонить]",
        "почему (будет записано в журнал)",
    ]
    assert core.calls == ["approve", "reject: потому что"]
    core.origin = "trigger"  # the conversation's provenance, whatever the continuing command says
    cli._interact(core, waiting, "ann", approve=True, interactive=True)
    assert core.calls == ["approve", "reject: потому что"]  # nothing approved
    assert "ta prośba przyszła kanałem trigger, więc nie może zatwierdzić własnego planu" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("language", "understood", "chosen"),
    [
        ("en", "kind: rules, prohibitions: the lexicon", "the request's words, the model agreeing"),
        ("pl", "rodzaj: reguły, zakazy: słownik", "słowa prośby, model się zgadza"),
        ("ru", "тип: правила, запреты: словарь", "слова запроса, модель согласна"),
    ],
)
def test_how_core_decided_is_said_in_words_of_the_requests_language(
    language: str, understood: str, chosen: str
) -> None:
    # Before, a Polish request read "na podstawie: {'forbidden': 'lexicon', …}" and "(wybrany przez: words)".
    assert signals_said({"kind": "rules", "forbidden": "lexicon"}, language) == understood
    assert choice_said("words+model", language) == chosen
    assert kind_said("question", language) == {"en": "question", "pl": "pytanie", "ru": "вопрос"}[language]
    # a code this Alicorn does not know is shown as it is, never dropped
    assert signals_said({"kind": "oracle"}, language).endswith(": oracle")
    assert choice_said("telepathy", language) == "telepathy"


def test_a_polish_ask_prints_no_code_or_english_word_where_it_says_what_it_understood(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from alicorn.app import open_app
    from alicorn.clock import PinnedClock
    from alicorn.core.intake import IntentEnvelope
    from alicorn.core.norbi import Norbi
    from alicorn.packs.catalog import bundled_workflows

    core = Norbi(open_app(tmp_path / "home"), bundled_workflows(), clock=PinnedClock(datetime(2026, 12, 1, tzinfo=UTC)))
    turn = core.receive(IntentEnvelope(utterance="Przeanalizuj wczorajsze alarmy z kamer", author="human:ann"))
    said = "\n".join(turn.understood)
    assert "zrozumiano: zadanie, język pl" in said and "wybrany przez: słowa prośby" in said, said
    assert "{" not in said and "lexicon" not in said and "words" not in said, said


@pytest.mark.parametrize(
    ("language", "request_text", "said"),
    [
        (
            "pl",
            "Przygotuj kandydata aplikacji app w wersji demo i pokaż różnice. Budowanie i testy na razie odpuść.",
            "tests (build.run_tests, uruchamianie kodu): pominięto, prośba tego zabrania",
        ),
        (
            "ru",
            "Подготовь кандидата приложения app в демо-версии и покажи дифф. Сборку и тесты пока отставить.",
            "tests (build.run_tests, запуск кода): пропущено, просьба это запрещает",
        ),
    ],
)
def test_what_the_plan_left_out_is_said_in_the_requests_language(
    tmp_path: Path, language: str, request_text: str, said: str
) -> None:
    import shutil
    from datetime import UTC, datetime

    from alicorn.app import open_app
    from alicorn.clock import PinnedClock
    from alicorn.core.intake import IntentEnvelope
    from alicorn.core.norbi import Norbi
    from alicorn.packs.candidate import WORKFLOW as CANDIDATE
    from alicorn.packs.catalog import bundled_workflows

    app = tmp_path / "mine" / "app"
    shutil.copytree(CANDIDATE.data_dir / "app", app, ignore=shutil.ignore_patterns("__pycache__"))
    clock = PinnedClock(datetime(2026, 12, 1, tzinfo=UTC))
    core = Norbi(open_app(tmp_path / "home"), bundled_workflows(), clock=clock, workdir=tmp_path)
    turn = core.receive(IntentEnvelope(utterance=request_text, author="human:ann", data=(str(app),)))
    assert turn.report is not None and turn.report.language == language, turn.question
    known = "\n".join(turn.report.known)
    assert said in known, known
    assert "left out" not in known and "the request forbids" not in known, known
    # the diff needs nothing the suite gives: it still ran
    assert any(job.startswith("diff") for job in turn.report.jobs_finished), turn.report.jobs_finished
    # the suite did not fail: it was not run, and the evidence says why, in the request's language
    title = tr(language, "tests")
    assert title != "tests"  # the check's name, said in the request's language
    tests = next(line for line in turn.report.evidence if line.startswith(f"{title}:"))
    assert tests == f"{title}: {tr(language, 'NOT RUN')} — {said}", tests
    assert turn.report.outcome == "partial" and turn.report.conflicts == [], turn.report.conflicts
    # the app given with --data is read as a folder, and the evidence says so (not one file of it)
    read = next(line for line in turn.report.evidence if line.startswith(("odczytano app", "прочитано app")))
    assert str(app) in read and {"pl": "folder", "ru": "папка"}[language] in read and "README" not in read, read


def test_an_older_journals_left_out_sentences_are_still_shown() -> None:
    from alicorn.core.outcome import left_out_lines
    from alicorn.packs.workflow import LeftOut

    old = {"removed": ["send (notify, external_transmission): left out, the request forbids external_transmission"]}
    assert left_out_lines(old, "pl") == [
        "pominięto: send (notify, external_transmission): left out, the request forbids external_transmission"
    ]
    new = {**old, "left_out": [LeftOut("send", "notify", effect="external_transmission").to_json()]}
    assert left_out_lines(new, "ru") == ["send (notify, отправка вовне): пропущено, просьба это запрещает"]
    needs = {"left_out": [LeftOut("package", "build.package", needs=("tests",)).to_json()]}
    assert left_out_lines(needs, "en") == ["package (build.package): left out, it needs tests, left out too"]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        (
            "Prepare the notes, hold off on emailing the client, and never post them on the intranet.",
            "en",
            {"external_transmission": "emailing", "publication": "post"},
        ),
        (
            "Przygotuj notatkę, nie wysyłaj jej klientowi i nie publikuj na stronie.",
            "pl",
            {"external_transmission": "wysyłaj", "publication": "publikuj"},
        ),
        (
            "Подготовь заметки, не отправляй их клиенту и не публикуй на сайте.",
            "ru",
            {"external_transmission": "отправляй", "publication": "публикуй"},
        ),
    ],
)
def test_each_forbidden_class_cites_only_its_own_words(text: str, language: str, expected: dict[str, str]) -> None:
    """Two prohibitions in one request: the contract's line for each class quotes the words that forbade that class,
    not the other's, in the request's quotation marks and without the lexicon's English notes."""
    from alicorn.core.contract import make_contract
    from alicorn.core.intake import IntentEnvelope
    from alicorn.models.intent.classifier import IntentClassifier

    classification = IntentClassifier().classify(text)
    assert set(classification.forbidden) == set(expected)
    contract = make_contract(
        IntentEnvelope(utterance=text, author="human:ann"),
        classification.model_dump(mode="json"),
        set(classification.forbidden),
        None,
        {},
    )
    sources = {c.value.removeprefix("no "): c.source for c in contract.constraints if c.kind == "forbid_effect"}
    for effect, word in expected.items():
        others = [w for e, w in expected.items() if e != effect]
        assert word in sources[effect] and not any(w in sources[effect] for w in others), sources
        assert "[" not in sources[effect], sources
    lines = "\n".join(contract.sentences(language))
    assert "(put off)" not in lines and "[publication]" not in lines
    opening = {"en": "“", "pl": "„", "ru": "«"}[language]
    assert opening in lines, lines


@pytest.mark.parametrize("source", ["rules(weak)", "rules(prohibition)", "nearest_examples(weak)", "default"])
@pytest.mark.parametrize("language", ["pl", "ru"])
def test_every_way_the_classifier_decides_a_kind_is_said_in_words(source: str, language: str) -> None:
    # "rodzaj: rules(prohibition)" was printed as the code itself in a Polish ask
    said = signals_said({"kind": source}, language)
    assert source not in said and said.split(": ", 1)[1].strip()


@pytest.mark.parametrize(
    "text",
    [
        "Bitte erstelle drei Varianten des Dienstplans für Dezember, veröffentliche nichts",
        "Підготуй три варіанти графіка роботи на грудень, не публікуй нічого",
    ],
)
def test_a_request_in_a_language_core_does_not_read_is_told_so_and_nothing_is_planned(
    tmp_path: Path, text: str
) -> None:
    # it used to get "Hello. Tell me what you need done", as if nothing had been asked
    from alicorn.core.intake import IntentEnvelope
    from tests.core.support import core, make_app

    app = make_app(tmp_path)
    turn = core(app).receive(IntentEnvelope(utterance=text, author="human:ann"))
    assert turn.report is not None and turn.report.outcome == "answered"
    assert "I understand English, Polish and Russian" in turn.report.headline
    assert "Я понимаю английский, польский и русский" in turn.report.headline
    assert not [s for s in app.store.streams() if s.stream.startswith("run-")]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Pożar w magazynie, dym na hali!", ["alarm oceniony jako krytyczny", "treść alarmu:", "oznaki powagi:"]),
        ("Пожар на складе, дым в цеху!", ["тревога оценена, важность критическая", "текст тревоги:"]),
        ("Fire in the warehouse, smoke on the floor!", ["alarm triaged as critical", "the alarm says:"]),
    ],
)
def test_an_alarms_triage_is_said_in_the_requests_language(tmp_path: Path, text: str, said: list[str]) -> None:
    # the triage report was English whatever the alarm's language ("alarm triaged as critical: a human must look…")
    from alicorn.core.intake import IntentEnvelope
    from tests.core.support import core, make_app

    app = make_app(tmp_path)
    turn = core(app).receive(IntentEnvelope(utterance=text, author="human:ann"))
    assert turn.report is not None and turn.report.outcome == "triaged"
    printed = turn.report.text()
    assert all(words in printed for words in said), printed
    if not text.startswith("Fire"):
        assert "triaged as" not in printed and "a human must look" not in printed and "severity cues" not in printed
    # the journal keeps the triage's own codes, in English, whatever the language
    events = [e for e in app.store.read(turn.conversation) if e.kind == "triage.done"]
    assert events[0].data["severity"] == "critical"
    assert events[0].data["action"].startswith("a human must look now")
