"""Kinds and prohibitions by form, eighteenth set, in en/pl/ru (issue 11, point 10): the forms heldout35 (requests
typed on a phone or dictated in households, family businesses and volunteer groups) showed, in phrasings of my own.

- prohibitions: a thing dropped or posted into a group's chat is put up where the group reads it (publication);
  "not now tho" and "только не сейчас" put off the action before them; restarting a router or a modem touches a
  device; the one written to may stand before the verb ("zanim do niego napiszesz"); the speaker's own use ("это
  мне для себя", "just for myself") keeps a thing unsent and unpublished; paying sends money out; hurrying with
  an action ("вешать не спеши", "z publikacją się nie spiesz") is starting it early;
- not prohibitions: "no need to show me first" denies a need; a device's own state said with a reflexive verb
  ("drzwiczki się nie otwierają"); paying attention; "don't rush it" asks for care;
- kinds: a request after a calm report is work; household commands ("Zapal światło", "Погаси свет"); asking why a
  fault recurs is a question; someone on a camera after an alarm went off is happening now; "Слушай, …" opens a
  remark as well as a request; tills that are dead are an emergency.

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
        # a group's chat is where the group reads what is put up
        ("Write up the choir's rehearsal notes, but don't drop them in the choir chat.", [P]),
        ("Nie wrzucaj grafiku dyżurów na grupę rodziców.", [P]),
        ("Не закидывай это в чат команды.", [P]),
        ("Keep the minutes to yourself until I say; nothing goes anywhere near the parents' WhatsApp.", [P, X]),
        # an elliptic deferral after the action's sentence
        ("Update the router firmware. not now tho, we're streaming the match.", [INST]),
        ("Разошли приглашения соседям, только не сейчас.", [X]),
        ("Wyślij fakturę klientowi. Tylko nie dziś.", [X]),
        # a router or a modem is a device
        ("Don't reboot the modem, the shop is still taking payments.", [F]),
        ("Роутер не перезагружай.", [F]),
        # the one written to before the verb
        ("Umów serwis kotła, ale zanim do nich napiszesz, daj mi znać.", [X]),
        ("Do hurtowni jeszcze nie pisz.", [X]),
        # the speaker's own use
        ("Сделай выжимку из лекции, это мне для себя.", [P, X]),
        ("Make a one-page crib sheet of the bee diseases, it's just for myself.", [P, X]),
        ("Zrób ściągę z notatek, to na własny użytek.", [P, X]),
        # paying
        ("Check the vet's invoice against the visits, but don't pay it yet.", [X]),
        ("Fakturę od weterynarza jeszcze nie opłacaj.", [X]),
        ("Аренду пока не оплачивай, ждём перевод.", [X]),
        # only a draft of a list of things: neither sent nor published (a draft of a letter is only not sent)
        ("Only a draft of the price list for now.", [P, X]),
        ("Tylko szkic listu do rodziców.", [X]),
        # hurrying with an action
        ("Объявление на доску у подъезда вешать не спеши.", [P]),
        ("С рассылкой приглашений не торопись.", [X]),
        ("Z publikacją wpisu się nie spiesz.", [P]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Draft the reminder to the parents and email it right away, no need to show me first.",
        "Nie musisz mi tego pokazywać, wyślij od razu.",
        "Drzwiczki piekarnika się nie otwierają i w środku się pali.",
        "Ворота гаража не открываются после отключения света.",
        "Don't pay attention to the beeping, just read me the log.",
        "Write up the handover notes and don't rush it, I need them on Friday.",
        "Отправь отчёт бухгалтеру и не торопись, время есть.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Fire alarm test at the nursery went fine, all bells rang. Please log it in the safety book.", "task"),
        ("Zapal światło na tarasie, goście zaraz przyjdą.", "task"),
        ("Погаси свет в теплице, я забыл.", "task"),
        ("Nie wiem, czemu linia rozlewnicza co chwilę staje. Jakie mogą być przyczyny?", "question"),
        ("Сработала сигнализация на складе, на камере кто-то ходит. Что делать?", "alarm"),
        ("Слушай, а ты молодец, с графиком вчера очень помог.", "conversation"),
        ("The card reader and the till are dead and customers are waiting.", "alarm"),
        ("The old till is dead weight, can you list what to replace it with?", "task"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
