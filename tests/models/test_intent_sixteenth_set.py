"""Kinds and prohibitions by form, sixteenth set, in en/pl/ru (issue 11, point 10): the forms heldout33 (longer
requests with context around them) showed, in phrasings of my own.

- kinds: a question asked after sentences of context is a question, also when a remark or a prohibition follows it
  ("…What typically causes it? I'm only asking, so leave the log as it is"), and so is "can you explain" or
  "explain what X is" after context; choosing among the given data ("Which of these need a person?") is work;
  a frequency in a relative clause describes its noun ("Skrypt, który co noc generuje…" is no process); a need
  denied is no request ("Na razie nic nowego nie potrzebuję"), while "не нужно откладывать" still asks; praise of
  work done is a remark; an electric shock is an emergency;
- prohibitions: "only for my information" ("wyłącznie do mojej wiadomości", "только для моего сведения"); a job or
  a script left alone or not stopped; a spreadsheet's column left as it is; a negated necessity lifts a wait
  ("nie musisz czekać, aż…", "ждать моего ответа не нужно"); hanging a schedule up is publishing it.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import C, L, P, X


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("A tenant asked why her service charge went up this year. How is the charge usually split between flats of "
         "different sizes? I only need to understand it before the meeting.", "question"),
        ("Our sourdough rose half as much this week and Marta blames the flour. What usually slows a starter down? "
         "Just curious, so please leave the bake log as it is.", "question"),
        ("Nowy technik pyta o tryby pracy centrali. Możesz wyjaśnić, czym się różnią? Niczego nie przełączaj.",
         "question"),
        ("Звукорежиссёр всё время говорит про компрессию. Объясни, пожалуйста, что такое компрессор в звуке.",
         "question"),
        ("Here's the overnight log from the gate sensors. Which of these need a person to look at? Don't reset "
         "anything.", "task"),
        ("Wklejam listę zdarzeń z czujek z nocy. Które z nich wymagają sprawdzenia przez ochronę? Niczego nie kasuj.",
         "task"),
        ("Raport, który co tydzień wysyłamy do gminy, ma błędy w sumach. Sprawdź, skąd się biorą.", "task"),
        ("Dzień dobry, tu Ola z biblioteki. Lista lektur bardzo się przydała. Na razie nic nowego nie potrzebuję.",
         "conversation"),
        ("Не нужно откладывать рассылку протокола.", "task"),
        ("Render times doubled last week and nobody knows why. What changed? Test three hypotheses on the log.",
         "task"),
        ("Elektryka przy rozdzielni poraził prąd, jest przytomny. Co robimy?", "alarm"),
        ("One of the cooks got an electric shock from the dishwasher and her hand is numb. What now?", "alarm"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "Quick note: the board really liked the summary you wrote for Tuesday's meeting.",
        "Dzień dobry! Szefowej bardzo podobała się notatka, którą zrobiłeś po zebraniu.",
        "Кстати, протокол вчерашней планёрки всем понравился.",
    ],
)
def test_praise_of_work_done_is_a_remark_by_a_rule_not_by_default(text: str) -> None:
    # a weak "statement without a request" would let a template the words name turn it into work (core/choosing)
    found = IntentClassifier().classify(text)
    assert found.kind == "conversation" and found.decided_by["kind"] == "rules"


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Spisz ustalenia z rozmowy z najemcą. To wyłącznie do mojej wiadomości.", [P, X]),
        ("Составь сводку по жалобам жильцов, только для моего сведения.", [P, X]),
        ("The export job got slow; find out why, but leave the job itself alone.", [C]),
        ("Skrypt do kopii zapasowych muli. Skryptu nie zatrzymuj, tylko przejrzyj log.", [C]),
        ("Przetłumacz opisy produktów. Kolumny z cenami nie ruszaj.", [L]),
        ("Gotowy grafik nikomu nie wysyłaj, sama go wydrukuję i powieszę.", [X]),
        ("Готовый график никому не рассылай, я сама его повешу в ординаторской.", [P, X]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Jak skończysz zestawienie, prześlij je księgowej — nie musisz czekać, aż je sprawdzę.",
        "Потом разошли его всем участникам — ждать моего ответа не нужно, я весь день в эфире.",
        "Send the minutes to everyone, no need to wait until I've read them.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []
