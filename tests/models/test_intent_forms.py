"""Prohibitions by form, in en/pl/ru: each case fails if the rule for its form is removed (issue 11, point 10).

The forms: verb families of removal and moving (both aspects in pl/ru), placing on a venue, steering a device
named before its verb, delegation to oneself (also with a noun and a first-person verb), someone else's domain, a
refusal predicate, kept in-house, a negative passive, an approval condition with "za"/"only with", a named thing
kept in its state, and the e5 fallback for a negated command whose verb no class claims.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.fallback import MARGIN, embedded_readings, nearest_class
from alicorn.models.intent.forbidden import forbidden_effects, read_actions
from alicorn.models.intent.lexicon import words_of
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # removal and moving, imperfective and perfective
        ("Wypisz stare faktury i niczego nie przenoś.", [L]),
        ("Wypisz stare faktury, ale żadnej nie skasuj.", [L]),
        ("Перечисли старые счета и ничего не перемещай.", [L]),
        ("Перечисли старые счета, только ничего не сотри.", [L]),
        ("List the old invoices but don't remove or rename any of them.", [L]),
        # placing on a venue said a few words before the verb
        ("Przygotuj plakat, ale na tablicę przy wejściu go jeszcze nie przypinaj.", [P]),
        ("Сделай объявление, на стенд у входа его пока не вешай.", [P]),
        # steering a device named before its verb
        ("Pompami nie steruj, potrzebuję tylko odczytów.", [F]),
        ("Шлагбаум не поднимай, мне нужны только данные.", [F]),
        ("Just read the logs and don't operate the pumps.", [F]),
    ],
)
def test_verb_families_and_word_order(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Opisz kroki instalacji; samą instalację zostawiam sobie.", [INST]),
        ("Опиши шаги установки; саму установку оставляю за собой.", [INST]),
        ("Describe the deploy steps; the deploy I'm keeping for myself.", [INST]),
        ("Знайди ошибки в таблице. Исправления сделаю сам.", [L]),
        ("Znajdź błędy w arkuszu. Poprawki wprowadzę sama.", [L]),
        ("Zbuduj kandydata i odpal testy. Na serwer wgram go sam.", [INST]),
    ],
)
def test_delegation_to_oneself(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Write the release notes. Publishing them is off the table for now.", [P]),
        ("Compare the exports. Emailing the auditors is out of the question.", [X]),
        ("Porównaj eksporty. Wysyłka do audytora odpada.", [X]),
        ("Porównaj eksporty. Publikacja nie wchodzi w grę.", [P]),
        ("Сравни выгрузки. Отправка аудитору исключена.", [X]),
        ("Сравни выгрузки. О публикации и речи нет.", [P]),
    ],
)
def test_a_refusal_predicate_refuses_its_action(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Prepare the notes on the new tills. The installation is Anna's job.", [INST]),
        ("Przygotuj opis nowych kas. Instalacja to jej działka.", [INST]),
        ("Подготовь описание новых касс. Установка — это её зона.", [INST]),
        ("Read the boiler log. The boilers stay under the caretaker's control.", [F]),
        ("Odczytaj log kotłowni. Kotły zostają w rękach konserwatora.", [F]),
        ("Прочитай журнал котельной. Котлы остаются в ведении завхоза.", [F]),
    ],
)
def test_someone_elses_domain(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Zrób raport godzin. Raport zostaje u nas.", [X]),
        ("Сделай отчёт по часам. Отчёт остаётся в компании.", [X]),
        ("Make the hours report. The report stays in-house.", [X]),
        ("Draft the migration plan: nothing gets deployed or run on the servers.", [C, INST]),
        ("Publikacja tylko za moją zgodą, przygotuj warianty.", [P]),
        ("Publish only with my approval, prepare the variants first.", [P]),
        ("Count the failed logins. The firewall rules stay as they are.", [L]),
        ("Build the candidate. Leave the installed version alone.", [INST]),
        ("Summarise the readings. The cooling units stay as they are.", [F]),
    ],
)
def test_kept_inside_passive_approval_and_kept_state(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "You don't have to wait for me before you email the supplier.",  # a negated stop-before
        "Отчёт так и не пришёл от подрядчика, что мне ему написать?",  # a past tense after "не" describes
        "It's this morning's call that matters: write the notes.",  # a possessive with no copula owns nothing
        "Keep sending the reports to me every day.",  # keeping is a delegation only "for myself"
        "Leave the thermostat settings as they are and report the readings.",  # a device's settings: physical only
        "Is publishing it off the table?",  # a question states nothing
        "The patch notes stay with the release, and nothing was removed.",  # a description, not a command
    ],
)
def test_what_only_looks_like_the_new_forms(text: str) -> None:
    assert forbidden_effects(text) == (["physical"] if "thermostat" in text else [])


@pytest.mark.parametrize(
    ("phrase", "effect"),
    [("don't kick off the build script", C), ("не гоняй скрипт", C), ("don't overthink it", "none")],
)
def test_the_nearest_prototype_class_of_a_phrase(phrase: str, effect: str) -> None:
    near = nearest_class(phrase)
    assert near.effect == effect
    if effect != "none":
        assert near.similarity - near.runner_up >= MARGIN


@pytest.mark.parametrize(
    ("text", "effect"),
    [("Explain the migration script. Don't spin up the script.", C), ("Объясни скрипт. Не гоняй скрипт.", C)],
)
def test_the_embedder_reads_a_verb_the_lexicon_does_not_know(text: str, effect: str) -> None:
    with_it = {r.effect for r in read_actions(text) if r.forbids}
    without = {r.effect for r in read_actions(text, embedder=False) if r.forbids}
    assert effect in with_it and effect not in without
    assert embedded_readings(words_of(text), "en" if text.isascii() else "ru", set())


@pytest.mark.parametrize(
    "text",
    ["Write the summary and don't rush it.", "Не растягивай отчёт, сделай сводку.", "Nie przesadzaj z długością."],
)
def test_the_embedder_leaves_a_harmless_negation_alone(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # emergencies without an alarm word, by family: fire, gas, injury, being trapped, a birth
        ("The bins behind the shop are in flames and it's spreading to the fence.", "alarm"),
        ("I can smell gas in the stairwell, really strong.", "alarm"),
        ("W piwnicy czuć gaz, bardzo mocno.", "alarm"),
        ("В подвале сильно пахнет газом.", "alarm"),
        ("A worker is pinned under a fallen shelf and can't move his arm.", "alarm"),
        ("Pracownika przygniotła paleta, krzyczy z bólu.", "alarm"),
        ("Рабочего придавило стеллажом, он не может вытащить руку.", "alarm"),
        ("Pacjentka w rejestracji zaczęła rodzić, potrzebna pomoc.", "alarm"),
        ("У посетительницы отошли воды, она рожает прямо в холле.", "alarm"),
        # an all-is-well report and a word that only contains a danger stem
        ("The fire drill went well: everyone was out in four minutes and nobody was hurt.", "conversation"),
        ("Mam notatkę z rozmowy z rodzicami ucznia, przygotuj listę ustaleń.", "task"),
        # a phrasal verb first, and a command after a harmless negated clause
        ("Work out three rota options for the weekend shifts.", "task"),
        ("Draw up a payment plan for the new printer lease.", "task"),
        ("Don't worry about the layout, just list the overdue invoices.", "task"),
        ("Never reboot the router yourself; read me its log instead.", "task"),
    ],
)
def test_kind_forms(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # "afterwards" orders a step after the others; "later" still puts it off
        ("Draft the release notes, and remember to email them to the testers afterwards.", []),
        ("Check the invoices and don't forget to send the summary to Kasia afterwards.", []),
        ("Draft the release notes and email them to the testers later.", [X]),
        # a negated stop or hold word stops nothing: "don't hold it back" means go ahead
        ("Write the minutes and mail them to the board today. Don't hold them back for my review.", []),
        ("Prepare the price list and publish it today; don't hold it back for my approval.", []),
        ("Przygotuj cennik i od razu go opublikuj, nie czekaj na mnie.", []),
        ("Подготовь прайс-лист и сразу опубликуй, не жди меня.", []),
        # while a hold that is not negated still holds
        ("Prepare the price list but hold off on publishing it until Monday.", [P]),
    ],
)
def test_ordering_and_negated_holds_forbid_nothing(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects
