"""Kinds and prohibitions by form, nineteenth set, in en/pl/ru (issue 11, point 10): the forms heldout36 (public
offices and institutions; prohibitions said as office rules, reasons, passives and nouns) showed, in phrasings of my
own.

- prohibitions: circulating, submitting, disclosing and carrying a thing to someone hand it on; a verb after "or"
  shares the negation of the one before it ("don't file or send anything"); printed in a bulletin is published;
  officialese "not subject to" ("разглашению не подлежат", "nie podlega publikacji"); data that does not leave a
  machine or a ward; confirming something to someone; a venue refused without a verb ("ani do gabloty, ani na
  stronę"); loading into someone else's cloud; cutting water, gas or power works a valve or a switch; a head of the
  office who gets it only after a meeting;
- not prohibitions: a machine left running, the gas bill, confirming that totals are right, a moment named by an
  action noun ("До открытия"), a Polish past typed without Polish letters ("nie naniosl");
- kinds: a danger word in a certificate's or a count's name; a staffing level before "every day"; "Подскажите, …?"
  and a question after which only a prohibition and "just answer" follow are questions; "no action needed" asks
  for nothing.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import F, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Hold off circulating the agenda to the trustees.", [X]),
        ("Don't submit the grant form yet.", [X]),
        ("Nie ujawniaj nazwisk darczyńców.", [X]),
        ("Директору отчёт я отнесу сам.", [X]),
        ("Zaniosę to wójtowi sama.", [X]),
        # "or" shares the negation
        ("Just curious — don't file or email anything.", [X]),
        ("Don't check or send anything yet.", [X]),
        ("Don't use or forward the old draft.", [X]),
        ("Nie drukuj ani nie wysyłaj tego.", [X]),
        ("Nie wysylaj tego klientowi, prosze.", [X]),
        # a bulletin is read by all who get it
        ("The winners' names are not to be printed in the club newsletter.", [P]),
        # not subject to an action
        ("Dokument nie podlega publikacji w BIP.", [P]),
        ("Эти сведения разглашению не подлежат.", [X]),
        ("The list is not subject to disclosure.", [X]),
        ("До открытия выставки пресс-релиз размещению на сайте не подлежит.", [P]),
        # kept on the machine or in the unit
        ("Case files don't leave this laptop.", [X]),
        ("За пределы отдела документы не выносить.", [X]),
        # confirming to someone
        ("Rodzicom jeszcze nic nie potwierdzaj.", [X]),
        ("Don't confirm anything to the caterer yet.", [X]),
        # venues refused without a verb
        ("Neither on the website nor on the noticeboard for now.", [P]),
        ("Na razie ani do gablotki, ani na fanpage.", [P]),
        # someone else's cloud
        ("Nie wrzucaj skanów do chmury.", [X]),
        ("Не загружай сканы в облако.", [X]),
        ("Don't sync the folder to Dropbox.", [X]),
        # supplies
        ("Don't shut off the water to the kitchen.", [F]),
        ("Nie zakręcaj gazu w kotłowni.", [F]),
        # the head of the office gets it later
        ("The director gets it only after the board meeting.", [X]),
        ("Prezes ma to dostać dopiero po zebraniu.", [X]),
        ("Директор получит отчёт только после совещания.", [X]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Don't cut the gas bill section from the report.",
        "Don't confirm the totals, just list them.",
        "Don't worry or panic, send it to the council.",
        "Don't leave the laptop on overnight.",
        # a Polish past typed without Polish letters describes (naniósł)
        "Dzieki, naczelnik nie naniosl ani jednej poprawki.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("We need the smoke alarm inspection certificate for the insurer, find it in the shared drive.", "task"),
        ("Proszę przygotować zestawienie akcji za maj w podziale na pożary, wypadki i fałszywe alarmy.", "task"),
        ("Составь график дежурств на июль: минимум двое должны быть в отделе каждый день.", "task"),
        ("Подскажите, сколько хранится журнал учёта посетителей? Мне для справки, ничего не меняйте.", "question"),
        ("Срок сдачи отчёта ведь 15 мая, или перенесли? Ничего пока не отправляй, просто ответь.", "question"),
        ("Wszystko u was w porządku? U nas w bibliotece dziś wyjątkowo spokojnie.", "conversation"),
        # a remark that says it asks for nothing
        ("The new rota is a mess again, Ola has four nights in a row. FYI only, no action needed.", "conversation"),
        ("График опять кривой вышел, ничего делать не надо, просто жалуюсь.", "conversation"),
        ("Сколько хранится творог при +4? Просто спрашиваю, заказывать ничего не нужно.", "question"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
