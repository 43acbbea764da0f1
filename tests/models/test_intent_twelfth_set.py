"""Kinds, recurrences and prohibitions by form, twelfth set, in en/pl/ru (issue 11, points 9 and 10): the forms
heldout28 showed (messages typed as in a work chat), in phrasings of my own.

- "for my eyes only", "tylko dla mnie", "только для меня": neither sent nor published (a letter or a reply kept so
  is only not sent); "only prepare it", "tylko przygotuj", "только подготовь": the work stops before anything leaves;
- a house rule in the Polish impersonal ("U nas protokołów nie wysyła się nikomu, zanim…") or the Russian first
  person plural ("заявку не шлём");
- a negated objection gives leave ("I don't mind if you rerun it"); a negation told to someone else binds them,
  whatever reads it ("I told the interns not to post anything until…");
- an order named before, then its pronoun ("hold off on actually placing it"); a program's version or plugin named
  before "don't update it"; changing a device's setpoint operates it; a spreadsheet named by its program;
- "it's" is no owner ("now it's almost 2h. Job log is in the shared folder");
- kinds: a request to be told in a later sentence asks; a question after a lead-in ("Quick q: …, is X better?");
  a sensor set off just now, someone trying a lock, falling pressure, a hiss, a reading out of range, a server down
  for twenty minutes are emergencies; "Кстати" opens no command; "А ты пока набросай" commands;
- a period after a quantity of work is a rate, not a recurrence ("max 48h tygodniowo").

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.models.intent.recurrence import find_recurrence
from tests.models.support import INST, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # the speaker alone; only preparing
        ("Summarise the staff survey. It's for my eyes only until the board has met.", [P, X]),
        ("Zestawienie reklamacji tylko dla mnie.", [P, X]),
        ("Сводка продаж — только для меня, пожалуйста.", [P, X]),
        ("Draft the reply to the tenants; it's for my eyes only for now.", [X]),
        ("Make two versions of the menu. Only prepare them, the owner decides.", [P, X]),
        ("Zrób dwa warianty grafiku. Tylko przygotuj, szef musi to zatwierdzić.", [P, X]),
        ("Составь два варианта графика. Только подготовь, сначала покажу директору.", [P, X]),
        ("Just prepare it, I'll email it to them myself.", [X]),
        # a house rule
        ("U nas cenników nie wysyła się klientom, zanim szef ich nie zatwierdzi.", [X]),
        ("Nigdy nie publikuje się u nas zdjęć dzieci bez zgody rodziców.", [P]),
        ("Счёт поставщику пока не шлём, ждём скидку.", [X]),
        # an order named before its pronoun; software named before "update it"; a device's setpoint; Excel
        ("Draft the order for the paper supplier, but don't place it yet.", [X]),
        ("Przygotuj zamówienie do hurtowni, ale go jeszcze nie składaj.", [X]),
        ("Подготовь заказ поставщику, но пока его не оформляй.", [X]),
        ("Zoom keeps asking for a new version. Check the release notes, but don't update it.", [INST]),
        ("Don't change the setpoint remotely, the engineer comes at 3.", [F]),
        ("Nastaw nie zmieniaj, technik przyjedzie o 15.", [F]),
        ("Уставку не меняй без меня.", [F]),
        ("Stary harmonogram w excelu zostaw tak, jak jest.", [L]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        # leave given, someone else told
        "I don't mind if you rerun the test job on node 3, it's idle.",
        "I don't care if you send it to the client today.",
        "Nie mam nic przeciwko, żebyś wysłał to klientowi.",
        "I told the interns not to post anything on the page until the launch. Write three captions anyway.",
        "Powiedziałam recepcji, żeby niczego nie publikowała do piątku. Ty napisz tekst ogłoszenia.",
        # describing, not ruling; a reply to the speaker; "it's" is no owner
        "Mail nie wysyła się od rana, co robić?",
        "Raport nie wysłał się wczoraj, u nas to częste.",
        "Он не шлёт отчёты уже неделю, напомни ему.",
        "The render used to take 40 min, now it's almost 2h. Job log is in the shared folder, find the day it changed.",
        "Only prepare two variants of the rota.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The totals in column D are off by one. Can you tell me what's wrong with the formula? Don't touch the file.",
         "question"),
        ("Quick q: for a choir of 30, is Doodle or a shared sheet better for rehearsal dates? Just your opinion, don't "
         "book anything.", "question"),
        ("How long must we keep invoices? We haven't deleted any since 2019 (don't delete anything, just tell me).",
         "question"),
        ("The motion sensor at the back gate just went off.", "alarm"),
        ("The camera at the pharmacy shows someone trying the lock of the back door.", "alarm"),
        ("The boiler pressure is dropping and there's a hissing near the valve.", "alarm"),
        ("W kotlowni szkoly czuc gaz, dzieci sa na lekcjach, co robic??", "alarm"),
        ("Chłodnia pokazuje +8°C zamiast +3, a w środku jest mięso. Co robimy?", "alarm"),
        ("Сайт магазина лежит уже полчаса, заказы не проходят. Помоги, но ничего не перезапускай — в прошлый раз "
         "слетела база.", "alarm"),
        ("В котельной падает давление и слышно шипение. Скажи, что проверить.", "alarm"),
        ("Кстати, аудит склада сегодня прошёл отлично, замечаний нет.", "conversation"),
        ("Я попросила кассиров ничего не выкладывать до открытия. А ты пока набросай текст объявления.", "task"),
        ("Potrzebuję grafiku kierowców na listopad: 14 osób, każdy max 48h tygodniowo.", "task"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "Potrzebuję grafiku kierowców na listopad: 14 osób, każdy max 48h tygodniowo.",
        "Make the rota so nobody works more than 40 hours a week.",
        "Составь график, не больше 40 часов в неделю на человека.",
    ],
)
def test_a_period_after_a_quantity_of_work_is_a_rate(text: str) -> None:
    assert find_recurrence(text) is None
    cue = kind_cue(text)
    assert cue is None or cue.kind != "process", cue
