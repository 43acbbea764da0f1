"""Kinds and prohibitions by form, twenty-first set, in en/pl/ru (issue 11, point 10): the forms heldout38 (owners of
small businesses: worries, preferences, old rules, questions) showed, in phrasings of my own.

- prohibitions: "don't go V-ing" (a light verb before the action); "hang on — nothing gets …" (English "on" is no
  Polish "he"); re-setting a device ("nie przestawiaj", "не переставляй"; "przestań" still stops); adding to and
  rubbing out a record ("nie dopisuj", "не затирай"; "dopisek" is a noun); informing, summoning and involving
  someone; booking a service; a place that goes online or near a venue; "dla moich oczu", "under your hat"; a
  verbless destination before "only after"; people kept "out of it"; a Polish or Russian negative passive ("żeby nic
  nie zostało przestawione"; "nic nie zostało wysłane" only reports); a lift in a garage is a device;
- kinds: a staffing level or a person's availability beside a day is no recurrence; "Don't <any verb>" without a
  question mark commands; a machine stopped mid-work, carbon monoxide, a liquid leaking, an acid smell are
  emergencies; "Pilne!" makes a detector that switched on go off now; "в прошлый раз" dates nothing.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.models.intent.recurrence import find_recurrence
from tests.models.support import F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Look over the fridge log, and don't go fiddling with the thermostat.", [F]),
        ("Draft the apology but don't go emailing the customer.", [X]),
        ("List the new file names. Hold on — nothing gets renamed until the audit is over.", [L]),
        ("Sprawdź odczyty, ale termostatu nie przestawiaj.", [F]),
        ("Не переставляй термостат в холодильной камере.", [F]),
        ("Do arkusza z kosztami nic nie dopisuj.", [L]),
        ("Старую версию прайса не затирай.", [L]),
        ("Klientów jeszcze nie informuj.", [X]),
        ("Пока никого не вызывай, я сам посмотрю.", [X]),
        ("Don't involve the insurer yet.", [X]),
        ("Find me two quotes, but you're not going to book the plumber yourself, right?", [X]),
        ("Nie umawiaj wizyty za mnie.", [X]),
        ("Zanim cokolwiek pójdzie do sieci, chcę to mieć do wglądu.", [P]),
        ("Прежде чем это уйдёт клиенту, хочу проверить.", [X]),
        ("Nic nie wyjdzie do sieci przed premierą.", [P]),
        ("Не бронируй столик на пятницу.", [X]),
        ("Nie rezerwuj sali.", [X]),
        ("Nic nie idzie do internetu bez mojej zgody.", [P]),
        ("Draft the answer; I want to check it before it goes anywhere near the booking page.", [P]),
        ("Цифры по кассе только для моих глаз.", [X, P]),
        ("Sum up the offers and keep it under your hat.", [X]),
        ("На сайт — только после того, как я всё проверю, а старый файл не затирай.", [L, P]),
        ("Na tablicę dopiero po zebraniu.", [P]),
        ("Kierowcom na telefony — dopiero po szkoleniu.", ["installation"]),
        ("Водителям — только после обучения, а потом отчёт подготовь.", [X]),
        ("Tidy up the incident notes. The insurers stay out of it for now.", [X]),
        ("Keep the neighbours out of this.", [X]),
        ("Dopilnuj, żeby nic nie zostało wysłane przed piątkiem.", [X]),
        ("Podnośnika nie opuszczaj zdalnie.", [F]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Przestań się martwić i sprawdź listę.",
        "Nie uwzględniaj odręcznego dopisku, to tylko moja notatka.",
        "Nic nie zostało wysłane, sprawdź dlaczego.",
        "I'll stay out of it, you decide the wording.",
        "Keep the flyers out of the rain and count them.",
        "Read the book and summarise chapter two.",
        "Powiedziałem mu, że on nie może tego wysyłać.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Rota for June: Ana is off the 2nd to 9th and I need two on the counter every Sunday.",
        "Grafik na lipiec: Kuba pracuje tylko w soboty, reszta bez ograniczeń.",
        "Расписание смен на март: Ира работает только по будням.",
    ],
)
def test_staffing_beside_a_day_is_no_recurrence(text: str) -> None:
    assert find_recurrence(text) is None


@pytest.mark.parametrize(
    "text",
    ["Send the sales summary to two people every Monday.", "Post one photo on the site every Friday."],
)
def test_periods_that_still_recur(text: str) -> None:
    assert find_recurrence(text) is not None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Rota for June: Ana is off the 2nd to 9th and I need two on the counter every Sunday.", "task"),
        ("Don't retry the upload anymore.", "task"),
        ("Don't we have a template for this?", "question"),
        ("The dishwasher shut off halfway through the cycle and shows E4. What do I do?", "alarm"),
        ("Piec wyłączył się w trakcie wypieku, na ekranie błąd. Co robić?", "alarm"),
        ("Pilne! Na zapleczu włączył się czujnik czadu. Co robimy?", "alarm"),
        ("Из-под шкафа течёт какая-то жидкость.", "alarm"),
        ("В подсобке сильно пахнет кислотой, девочкам плохо.", "alarm"),
        ("Czad w kotłowni, co robimy?", "alarm"),
        ("В цеху дым от станка, мы его вырубили. Пожарных не вызывай — в прошлый раз был ложный вызов.", "alarm"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
