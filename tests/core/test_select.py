"""Workflow selection and slot filling: deterministic signals check the model; the model never adds an effect."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from alicorn.core.contract import OutcomeContract
from alicorn.core.planner import plan_from_template
from alicorn.core.select import WorkflowSelector, fill_slots
from alicorn.models.recorder import ModelClient
from alicorn.packs.alarms import WORKFLOW as ALARMS
from tests.core.support import GREET, PROFILE, registry, scripted

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


STRONG = PROFILE.model_copy(update={"id": "scripted-strong", "reasoning": 2})


def _client(*answers: str, profile=PROFILE) -> ModelClient:
    _, provider = scripted(list(answers))
    return ModelClient(profile, provider)


def test_examples_decide_a_clear_request_and_keep_the_models_disagreement() -> None:
    selector = WorkflowSelector([ALARMS, GREET])
    picked = selector.select("Analyse yesterday's camera alarms and drop duplicates", _client(
        json.dumps({"workflow": "greet_team", "confidence": 0.9})))  # fmt: skip
    assert picked.workflow == "alarms" and picked.decided_by == "words(model disagreed)"
    assert picked.model_choice == "greet_team"


def test_the_model_alone_never_picks_a_template_the_words_do_not_name() -> None:
    selector = WorkflowSelector([ALARMS, GREET])
    picked = selector.select("xq zvbn", _client(json.dumps({"workflow": "alarms", "confidence": 0.7})))
    assert picked.workflow is None and picked.decided_by == "no template fits"
    assert picked.model_choice == "alarms" and picked.model_confidence == 0.7  # recorded, not followed
    choice = json.dumps({"workflow": "alarms", "confidence": 0.9})
    agreed = selector.select("Przejrzyj alarmy z kamer z wczoraj", _client(choice))
    assert agreed.workflow == "alarms" and agreed.decided_by == "words+model"
    nothing = selector.select("xq zvbn", None)
    assert nothing.workflow is None and nothing.decided_by == "no template fits"


@pytest.mark.parametrize(
    "text",
    [
        "Write a poem about the camera in the garden",
        "Book me a dentist appointment next Tuesday",
        "Napisz wiersz o kamerze w ogrodzie",
        "Закажи пиццу в офис",
        "Call the electrician about the flickering lights in the hall",
        "Set my alarm clock to 6:30 tomorrow",
        "Build a bookshelf for the kitchen from the leftover boards",
        "Reserve the big meeting room, we have a call with the bank at noon",
        "Nastaw mi budzik na 6:30",
        "Поставь будильник на семь утра",
        # a call planned and notes of a course are not a conversation's notes
        "Запланируй созвон с бухгалтером на пятницу и скинь ему приглашение",
        "Вот мои заметки с курсов по садоводству, сделай из них памятку.",
    ],
)
def test_a_request_about_something_else_gets_no_template_by_accident(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    picked = WorkflowSelector(bundled_workflows()).select(text, None)
    assert picked.workflow is None, picked


def test_one_stray_word_of_a_subject_asks_instead_of_choosing() -> None:
    from alicorn.packs.catalog import bundled_workflows

    picked = WorkflowSelector(bundled_workflows()).select("Clean up the disk on the build server", None)
    assert picked.workflow is None and picked.ambiguous


def test_an_invalid_model_choice_is_repaired_then_ignored() -> None:
    selector = WorkflowSelector([ALARMS, GREET], max_repairs=1)
    picked = selector.select("Analyse yesterday's camera alarms", _client('{"workflow": "rm -rf"}', "not json"))
    assert picked.workflow == "alarms" and picked.model_error is not None


def test_the_words_win_over_the_model_and_out_of_range_values_are_repaired() -> None:
    # The slot schema the model answers carries the slots' limits: min_confidence 7 is refused and repaired.
    bad = json.dumps({"day": "2020-01-01", "min_confidence": 7, "window_s": 120})
    good = json.dumps({"day": "2020-01-01", "window_s": 120})
    client = _client(bad, good, profile=STRONG)
    slots = fill_slots(ALARMS, ["Analyse yesterday's camera alarms, window 120"], "en", NOW, client)
    assert client.calls == 2 and slots.model_error is None
    assert slots.values["day"] == "2026-11-29" and slots.sources["day"] == "words"
    assert slots.values["window_s"] == 120 and slots.sources["window_s"] == "model"  # the words show 120
    assert slots.values["min_confidence"] == 0.6 and slots.sources["min_confidence"] == "default"


def test_a_weak_model_is_not_asked_when_the_words_gave_every_required_slot() -> None:
    client = _client('{"min_confidence": 1.0}')
    slots = fill_slots(ALARMS, ["Analyse yesterday's camera alarms"], "en", NOW, client)
    assert client.calls == 0 and slots.values["min_confidence"] == 0.6


def test_a_models_guess_the_words_do_not_show_is_dropped() -> None:
    # What SmolLM2 really answered to the seed's alarms request: a threshold nobody asked for.
    client = _client(json.dumps({"day": "2026-11-29", "min_confidence": 1.0, "window_s": 300}), profile=STRONG)
    slots = fill_slots(ALARMS, ["Analyse yesterday's camera alarms, remove duplicates"], "en", NOW, client)
    assert slots.values["min_confidence"] == 0.6 and slots.sources["min_confidence"] == "default"
    assert any("min_confidence" in r and "not in the request" in r for r in slots.reverted)
    assert slots.sources["window_s"] == "model"  # the default value: it changes nothing, so it may stay


def test_a_small_model_sets_only_the_required_slots() -> None:
    # What SmolLM2 really answered to the seed's notes request in Russian was the request's own verb as the file
    # name. The words give every required slot there, so a small model is not even asked now:
    from alicorn.packs.notes import WORKFLOW as NOTES

    text = "По разговору подготовь заметку, задачи и черновик ответа, но ничего не отправляй."
    client = _client(json.dumps({"conversation": "Подготовь заметку"}))
    slots = fill_slots(NOTES, [text], "ru", NOW, client)
    assert client.calls == 0 and slots.values["conversation"] == "latest"
    # When a required slot is missing it is asked, and only that slot is taken from its answer.
    client = _client(json.dumps({"team": "red", "send": True}))
    slots = fill_slots(GREET, ["Prepare a hello for the red group"], "en", NOW, client)
    assert client.calls == 1 and slots.values["team"] == "red" and slots.sources["team"] == "model"
    assert slots.values["send"] is False and any("send" in r and "not used" in r for r in slots.reverted)


def test_a_required_slot_nobody_gave_is_missing() -> None:
    slots = fill_slots(ALARMS, ["Analyse the camera alarms"], "en", NOW, _client('{"day": null}'))
    assert slots.missing == ("day",)


def test_relative_days_resolve_against_the_intake_time_in_three_languages() -> None:
    for text in ("yesterday's alarms", "alarmy z wczoraj", "вчерашние тревоги", "alarms from 29.11.2026"):
        assert ALARMS.extract(text, "en", NOW)["day"] == "2026-11-29", text
    assert ALARMS.extract("przedwczoraj", "pl", NOW)["day"] == "2026-11-28"


def test_a_model_alone_cannot_add_an_effect() -> None:
    slots = fill_slots(
        GREET, ["Prepare a hello for the red group"], "en", NOW, _client('{"team": "red", "send": true}')
    )
    assert slots.values["send"] is False and any("send" in r for r in slots.reverted)
    strong = _client('{"team": "red", "send": true}', profile=STRONG)  # even a strong model: a yes/no is not in words
    assert fill_slots(GREET, ["Prepare a hello for the red group"], "en", NOW, strong).values["send"] is False
    # And should a model-set flag reach the planner anyway, the plan keeps the template's effects.
    values, sources = {"team": "red", "send": True}, {"team": "words", "send": "model"}
    contract = OutcomeContract(goal="hello", result="document", workflow="greet_team", parameters=values)
    proposed = plan_from_template(GREET, values, sources, contract, registry())
    assert [n.operation for n in proposed.plan.nodes] == ["util.noop"]
    assert proposed.reverted and "external_transmission" in proposed.reverted[0]


def test_the_words_may_add_the_effect() -> None:
    slots = fill_slots(GREET, ["Send a hello to the red team"], "en", NOW, None)
    contract = OutcomeContract(goal="hello", result="document", workflow="greet_team", parameters=slots.values)
    proposed = plan_from_template(GREET, slots.values, slots.sources, contract, registry())
    assert [n.operation for n in proposed.plan.nodes] == ["util.noop", "test.notify"]


def test_free_plans_are_repaired_with_the_validation_errors(tmp_path: Path) -> None:
    from alicorn.core.planner import plan_from_model

    bad = {"nodes": [{"node_id": "a", "operation": "test.notifyy", "inputs": {}}]}
    good = {"nodes": [{"node_id": "a", "operation": "util.noop", "inputs": {}}]}
    client = _client(json.dumps(bad), json.dumps(good))
    contract = OutcomeContract(goal="do a thing", result="document", forbidden=("external_transmission",))
    proposed = plan_from_model(client, "do a thing", contract, registry())
    assert proposed.repairs == 1 and proposed.plan.goal_hash == contract.goal_hash
    # The forbidden operation was never offered, and the repair prompt named the problem.
    provider = client.provider
    first = provider.requests[0]  # type: ignore[attr-defined]
    assert "test.notify" not in first.messages[0].content
    # The schema itself offers only the allowed operations (constrained decoding where the provider can).
    offered = json.dumps(first.json_schema)
    assert '"util.noop"' in offered and '"test.notify"' not in offered
    assert '"test.notifyy"' in provider.requests[1].messages[-1].content  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        # the template's subject is only the topic of another product
        "Write an announcement about the new shift schedule for the staff.",
        "Write an email to the staff about the new shift roster.",
        "Napisz ogłoszenie o nowym grafiku zmian dla pracowników.",
        "Напиши объявление о новом графике смен для сотрудников.",
        # a weak subject word that is only the request's verb: "schedule" a meeting is not a shift schedule
        "Schedule a meeting with the landlord for Monday morning and send him the invite.",
        "Schedule a call with Tom from sales on Friday and send him a calendar invite.",
    ],
)
def test_a_subject_named_only_as_a_topic_or_a_verb_chooses_no_template(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    picked = WorkflowSelector(bundled_workflows()).select(text, None)
    assert picked.workflow is None, picked


@pytest.mark.parametrize(
    ("text", "workflow"),
    [
        ("Make notes about yesterday's call with the landlord from the transcript.", "notes"),
        ("Przygotuj notatkę o wczorajszej rozmowie z klientem.", "notes"),
        ("Plan the February roster in two versions.", "schedule"),
        ("Schedule the warehouse shifts for January in two variants.", "schedule"),
    ],
)
def test_the_template_a_request_names_is_still_chosen(text: str, workflow: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow == workflow


@pytest.mark.parametrize(
    "text",
    [
        "The evacuation drill went fine, everyone was out in three minutes. Write a short summary for the safety file.",
        "The boiler restart took 20 minutes this morning. Write a short summary for the maintenance file.",
    ],
)
def test_a_duration_is_not_a_meetings_minutes(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow != "notes"


@pytest.mark.parametrize(
    ("text", "workflow"),
    [
        (
            "Ułóż grafik na grudzień, dwa warianty. Ostatnie, czego nam trzeba, to żeby wylądował na tablicy przed "
            "zebraniem.",
            "schedule",
        ),
        (
            "Нужен график уборки на февраль, два варианта. Директор в отпуске до пятницы, так что ничего никому не "
            "отправляй, пока она не вернётся.",
            "schedule",
        ),
    ],
)
def test_the_sentence_that_names_the_work_is_not_diluted_by_the_others(text: str, workflow: str) -> None:
    # each sentence alone is clearly the template's; the whole request, with its prohibition and its reason, was not
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow == workflow


@pytest.mark.parametrize(
    "text",
    [
        "Подготовь заметки к релизу 3.1 по списку закрытых задач.",
        "Write the release notes for version 2.4 from the closed tickets.",
        "Przygotuj notatki do wydania 2.0 aplikacji na podstawie zamkniętych zgłoszeń.",
    ],
)
def test_release_notes_are_no_meetings_minutes(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow != "notes"


@pytest.mark.parametrize(
    ("text", "workflow"),
    [
        # three words of one template's subject, none strong alone, and none of another template's
        ("Please prepare an RC of the club's booking plugin: sandbox copy, tests, diff, package.", "candidate"),
        # phrases of the template's own: an alarm log, a release candidate, a timing log, a shift plan
        ("Посмотри журнал тревог с камер офиса за ночь и скажи, куда охраннику подойти.", "alarms"),
        ("Собери релиз-кандидат кассовой программы в песочнице и упакуй.", "candidate"),
        ("The weekly invoicing batch used to finish by 7, now it runs until 10. The timing log is attached, find out "
         "why.", "incident"),
        ("Nocny eksport zamówień trwa teraz dwa razy dłużej. Masz log czasów, ustal, co się zmieniło.", "incident"),
        ("zrob plan zmian dla piekarni na przyszly tydzien, Ola ma urlop", "schedule"),
        # sensors are the alarms' words; a test environment is the sandbox by another name
        ("Przejrzyj alarmy z czujników ruchu z nocy i powiedz, które wymagają człowieka.", "alarms"),
        ("Go through the weekend's sensor alerts from the greenhouse and drop the repeats.", "alarms"),
        ("Dostawca przysłał nowy build aplikacji, sprawdź go w środowisku testowym.", "candidate"),
        # named by several of its words against another template named by one word with other senses
        ("A new build of the payroll software came in. Before we decide, run it up in the sandbox and check the "
         "payslips; I'll call the vendor after.", "candidate"),
    ],
)  # fmt: skip
def test_a_template_named_by_its_phrases_or_by_several_of_its_words_is_chosen(text: str, workflow: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow == workflow


@pytest.mark.parametrize(
    "text",
    [
        "Package the release notes and the demo video for the client.",
        "Send the candidate's application to the hiring manager.",
    ],
)
def test_two_words_with_other_senses_still_ask_or_choose_nothing(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow is None


def test_three_words_with_other_senses_name_a_template_unless_another_templates_examples_are_clearly_closer() -> None:
    from alicorn.core.select import CLEAR_MARGIN, _named_enough

    weak = ("~release", "~package", "~sandbox")
    assert _named_enough(weak, 0.4, -CLEAR_MARGIN / 2)
    assert not _named_enough(weak, 0.4, -2 * CLEAR_MARGIN)
    assert not _named_enough(weak[:2], 0.4, -CLEAR_MARGIN / 2)  # two of them need a clear lead


@pytest.mark.parametrize(
    ("text", "workflow"),
    [
        # the product and one more word of the template's, closer to its examples than to any other's
        ("Kamery przy magazynie zgłosiły w nocy sporo alarmów. Wybierz te, którymi musi się zająć człowiek.", "alarms"),
        ("Сделай пару вариантов графика для кассиров на праздники.", "schedule"),
        ("Собери кандидата сайта столовой и прогони тесты.", "candidate"),
    ],
)
def test_a_template_named_by_its_product_and_another_of_its_words_is_chosen(text: str, workflow: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow == workflow


@pytest.mark.parametrize(
    "text",
    [
        # two words of a template's circumstances, none of its product
        "Book the small meeting room for Thursday afternoon, I have a call with a supplier.",
        # the candidate template's words, but not its product: a build server, an app's tests
        "The build server is slow again, the app tests take ages.",
        # a meeting that only dates something else
        "Porównaj CV kandydatów na realizatora. Odpowiedzi wyślemy sami po naradzie z szefem anteny.",
        # the notes of an update are no meeting's minutes
        "Подготовь заметки к обновлению касс для кассиров.",
    ],
)
def test_circumstances_a_moment_or_an_updates_notes_name_no_template(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow is None


@pytest.mark.parametrize(
    "text",
    [
        "Write a short summary of why the Lindqvist deal fell through, using whatever is in the 2025 notes folder.",
        "Zrób podsumowanie reklamacji z maja, wszystko jest w folderze notatki.",
        "Подведи итог по расходам за май, файлы в папке заметки.",
        "Подведи итог по расходам за май, файлы в папке с заметками.",
        "Przygotuj pismo do ubezpieczyciela; protokół szkody jest w załączniku.",
        "Составь претензию перевозчику, протокол повреждений приложен.",
    ],
)
def test_a_folders_name_or_a_damage_protocol_is_no_meetings_minutes(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow != "notes"


@pytest.mark.parametrize(
    "text",
    [
        "The transcript of Monday's meeting is in the shared folder; turn it into minutes.",
        "Z transkrypcji wczorajszej narady zrób protokół, plik jest w folderze Zebrania.",
    ],
)
def test_minutes_asked_beside_a_folder_are_still_the_notes(text: str) -> None:
    from alicorn.packs.catalog import bundled_workflows

    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow == "notes"
