"""Kinds and prohibitions by form, seventeenth set, in en/pl/ru (issue 11, point 10): the forms heldout34 (a third
month of everyday use, twelve more trades) showed, in phrasings of my own.

- prohibitions: wanting to see it first is a stop before the action ("Zanim cokolwiek zawiśnie na tablicy, chcę to
  zobaczyć", "Before you send it, show it to me"); "don't put it up" posts it for all to read; "nothing" switched
  among the devices the sentence names ("Прожекторы не трогай, ничего не переключай"); a lighting console is a
  device; opening or closing a device by the system ("Ворота из системы не открывай"); placing it on a page ("nie
  zamieszczać na stronie"); deploying onto a server ("на стенд не разворачивай"); placing something with a
  wholesaler orders it; nothing leaving the newsroom;
- kinds: "Do you know…?" is a question, not a command opened by "do"; a fault a panel shows, a chemical smell,
  tills gone dead, a server gone down said verb first ("лёг сервер"), a head injury with first aid given now are
  emergencies; a driver stuck at customs is a delay, a lift stuck between floors is not.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, F, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Разбери ночные тревоги с камер склада. Прожекторы и камеры не трогай, ничего не переключай.", [F]),
        ("Przejrzyj nagrania z kamer przy rampie, kamer nie ruszaj i niczego nie przełączaj.", [F]),
        ("Составь план презентации. На пульте в зале сам ничего не переключай, этим займётся техник.", [F]),
        ("Шлагбаум на этом въезде из системы не открывай и не закрывай, охрана решает на месте.", [F]),
        ("Protokół jest tylko dla dyrekcji: nie rozsyłać go pracownikom i nie zamieszczać na stronie szkoły.",
         [P, X]),
        ("Собери архив сборки, но на тестовый стенд пока не разворачивай.", [INST]),
        ("Draw up the reorder list for the paints, but do not place anything with the supplier yet.", [X]),
        ("Summarise the editorial meeting. Nothing from it leaves the newsroom until Friday.", [X]),
        # the speaker wants to see it first: a stop before the action
        ("Zanim cokolwiek zawiśnie na tablicy przy recepcji, chcę to zobaczyć.", [P]),
        ("Before you send it to the landlord, show it to me.", [X]),
        ("Прежде чем рассылать протокол, хочу посмотреть.", [X]),
        ("Before it goes out, I'd like to read it.", [X]),
        # put up for all to read
        ("Write the caption for the new class; I'll post it myself, so don't put it up yourself.", [P]),
        ("Don't put the rota up yet.", [P]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Don't open the attachment from that sender, just tell me whether it looks like phishing.",
        "Place the folding chairs along the back wall before the meeting.",
        "I want to see the figures before the meeting, so pull them together this morning.",
        "I can't put up with this printer any more, find me a new one.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Do you know when the new waste rules start? I want to plan the bins before then.", "question"),
        ("The forklift display shows a hydraulic fault and it won't lower the pallet!", "alarm"),
        ("Strong ammonia smell by the cold store and one of the loaders feels dizzy.", "alarm"),
        ("Both card terminals at the front desk went dead ten minutes ago, guests are queuing.", "alarm"),
        ("В аптеке лёг сервер, кассы не пробивают чеки.", "alarm"),
        ("Ребёнок поскользнулся у бассейна и разбил голову, тренер оказывает первую помощь.", "alarm"),
        ("Водитель застрял на таможне, набросай письмо клиенту о задержке.", "task"),
        ("Лифт застрял между этажами, внутри двое людей!", "alarm"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
