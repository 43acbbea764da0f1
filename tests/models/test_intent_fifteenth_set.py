"""Kinds and prohibitions by form, fifteenth set, in en/pl/ru (issue 11, point 10): the forms heldout32 (requests
from many trades) showed, in phrasings of my own.

- the speaker alone as the reader, said with an intensifier ("strictly for me", "ściśle dla mnie", "Это строго
  для меня"); English "a list of action items" is no letter kept from its addressee (Polish "list" is one);
- moving a device is touching it ("don't move the sensors", "камеры не двигай");
- correcting records writes them ("don't correct the entries"), where "correct" is the verb, not the adjective;
- replying and handing on are sending ("nic nie odpisuj", "Przekażemy to sami", "Передадим сами"); a first
  person plural keeps the action with the speakers ("Wyślemy sami", "Отправим сами");
- pushing as a Polish noun ("żadnego pushowania do repo");
- "only prepare the text" stops at preparing; a letter prepared is only not sent;
- a deferral said of "that" takes the action its own sentence named, not a noun of the sentence before;
- a negation before "if" does not reach the clause it opens ("don't panic if you hear it");
- kinds: an appliance sounding, a line standing still for minutes, tills and a site gone down are emergencies; an
  alarm test is none; a calm report followed by a question asks.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.cues import asks_for_a_fact
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Summarise the volunteers' meeting into a list of decisions. Strictly for me until Friday.", [P, X]),
        ("Zrób podsumowanie zebrania zarządu. Ściśle dla mnie.", [P, X]),
        ("Сделай краткий протокол планёрки. Это исключительно для меня.", [P, X]),
        ("Przygotuj list do najemców. Tylko dla mnie, dopóki go nie przeczytam.", [X]),
        ("Review the overnight sensor log, and please don't move the sensors in the cold store.", [F]),
        ("Разбери журнал с датчиков, сами датчики не двигай.", [F]),
        ("Compare the stock sheet with the delivery notes. Do not correct the entries, only mark them.", [L]),
        ("Przeczytaj maila od wynajmującego i nic mu nie odpisuj.", [X]),
        ("Opisz przyczyny opóźnień. Zarządowi przekażemy to sami po zebraniu.", [X]),
        ("Составь сводку по простоям. Заказчику передадим сами.", [X]),
        ("Napisz ofertę dla hotelu, wyślemy ją sami w poniedziałek.", [X]),
        ("Подготовь объявление для жильцов, опубликуем сами.", [P]),
        ("Zbuduj wersję testową, ale bez pushowania do zdalnego repozytorium.", [X]),
        ("Draft the notice for the tenants. Just prepare the text, nothing more.", [P, X]),
        ("Write to the landlord about the leak. Just prepare the letter, I'll read it first.", [X]),
        ("Run the tests in the sandbox and package the build. No deploying to the kiosks though, that waits until "
         "the weekend.", [INST]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "The sprinkler test is on Tuesday morning, so don't worry if you hear it.",
        "Nothing in this spreadsheet is correct, please check where the totals go wrong.",
        "The totals are not correct. Tell me why.",
        "Передай поставщику, что мы задержимся на день.",
        "Only prepare the schedule for the bakery, and two variants of it.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The chest freezer in the back is beeping and reads -4°C, all the ice cream is in there!", "alarm"),
        ("Zamrażarka w kuchni piszczy od rana, a w środku jest mięso na wesele.", "alarm"),
        ("The UPS in the comms cupboard is beeping non-stop!", "alarm"),
        ("The old fridge is going back to the shop tomorrow, please arrange the pickup.", "task"),
        ("Taśma na magazynie stoi od kwadransa, kierowcy czekają przy rampie.", "alarm"),
        ("Кассы и сайт аптеки легли, люди стоят у окошка. Что проверить первым?", "alarm"),
        ("Heads up, the fire alarm test is at 10 tomorrow, no need to do anything.", "conversation"),
        ("Завтра в 11 учебная тревога по всему зданию, просто для информации.", "conversation"),
        ("The night round was quiet, all doors locked. Do I need to log that anywhere?", "question"),
        ("Учебная тревога прошла, всё штатно. Нужно ли куда-то сообщать о результате?", "question"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("How long does a review of a night's camera alarms usually take?", True),
        ("Ile czasu zajmuje zwykle przejrzenie alarmów z kamer?", True),
        ("Сколько времени обычно занимает разбор ночных тревог с камер?", True),
        ("Какие форматы журналов тревог ты умеешь читать?", True),
        ("Which of last night's camera alarms need a person?", False),
    ],
)
def test_questions_whose_answer_is_a_fact_are_no_template_work(text: str, fact: bool) -> None:
    assert asks_for_a_fact(text) is fact
