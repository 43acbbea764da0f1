"""Kinds and prohibitions by form, fourteenth set, in en/pl/ru (issue 11, point 10): the forms heldout30 and
heldout31 (months of ordinary requests) showed, in phrasings of my own.

- a device that decides whether a step is physical is looked for in the step's own sentence ("…the pump station?
  Don't restart the monitoring scripts" restarts code);
- "sterowniki" beside an installation are drivers, not controllers ("nie instaluj ani nie cofaj sterowników");
- pushing to a shared repository ("nie wypychaj zmian do repozytorium"); reporting to someone ("nie zgłaszaj
  niczego firmie ochroniarskiej"), not the noun "zgłoszenie" typed without Polish letters;
- signing oneself up is no message ("пациенты не могут записаться");
- a hope about others commands nothing ("so hopefully no more typos going live"); one about the agent asks ("I hope
  you won't send it before Friday");
- kinds: a fault thrown now, a reading falling fast, movement on a camera right now are emergencies; "Na razie
  tylko doradź" after a question asks to be told;
- heldout31: stopping a service runs code, stopping a line operates it; a delay as a topic defers nothing ("о
  задержке поставки"); a past with a noun subject describes ("The board approved everything without a single
  change"); a smell of burning, a break-in with help already on its way are emergencies; a false alarm is calm;
  "at least two RNs every night" is a staffing level, not a recurrence.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Look at last night's figures from the boiler house, anything odd? Don't restart the logging scripts.", [C]),
        ("Render zwolnił po aktualizacji. Nie instaluj ani nie cofaj żadnych sterowników na węzłach.", [INST]),
        ("Zbuduj paczkę, ale nie wypychaj zmian do wspólnego repozytorium.", [X]),
        ("Sprawdź nagrania, ale nie zgłaszaj niczego na policję bez mojej zgody.", [X]),
        ("I hope you won't send it to the parents before Friday.", [X]),
        ("Надеюсь, ты не отправишь это клиенту раньше пятницы.", [X]),
        ("Hopefully it's all fine, but don't send it to the parents yet.", [X]),
        ("Serwerownia się grzeje. Nie zatrzymuj żadnych usług na serwerach, tylko doradź.", [C]),
        ("Don't stop the services on the file server while you look.", [C]),
        ("Taśma stanęła. Nie zatrzymuj linii zdalnie, kierownik już idzie.", [F]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Сайт записи упал, пациенты не могут записаться, помоги разобраться по логам.",
        "Spokojna noc, nic do zgloszenia, wszystkie kamery dzialaja.",
        "Quiet week. I've asked the volunteers to check with me first, so hopefully no more typos going live.",
        "Mam nadzieję, że nic już nie wycieknie do prasy.",
        "Напиши письмо поставщику о задержке поставки и отправь, как будет готово.",
        "Thanks for the minutes. The board approved everything without a single change.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The dosing pump is throwing a fault and the chlorine level is dropping fast, call the engineer now.",
         "alarm"),
        ("Ciśnienie w kotle szybko spada, co robić?", "alarm"),
        ("Ворота кто-то открыл, камера прямо сейчас показывает движение у склада.", "alarm"),
        ("Czy warto przejść na nowy system kasowy? Na razie tylko doradź, niczego nie instaluj.", "question"),
        ("В щитовой пахнет гарью и пищит ИБП. Что делать?", "alarm"),
        ("The copy room smells of burning and the printer is dead. What do we do?", "alarm"),
        ("Ktoś wybił szybę w drzwiach sklepu, ochrona już jedzie. Zadzwoń do właściciela.", "alarm"),
        ("Всё в порядке: ночная тревога оказалась ложной, охрана проверила.", "conversation"),
        ("Last night's alarm was a false alarm, but right now there's smoke coming from the kitchen!", "alarm"),
        ("Make the night rota for the ward, at least two nurses every night, a couple of versions.", "task"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
