"""Prohibitions and kinds by form, twenty-seventh set, in en/pl/ru: the forms heldout46 (a brewery and its taproom)
and then heldout47 (an airfield, measured blind first) missed or misread, in phrasings of my own.

- telling, letting know and giving feedback to a third person are messages ("don't tell the landlord yet", "let
  the supplier know only once I sign", "give him feedback only after I approve"); "tell me", "tell whether" and a
  message's own content are not;
- a receiver gated with "feedback": "the applicant gets feedback only once I say so";
- "read-only" said as the way to work ("Read-only please, it's the only copy"), unless a colon says what it means;
- "between us" closing a clause about a thing, even under a tag question ("…между нами, ладно?"); not dividing
  something between people, not "между нами говоря";
- "for me, not for the firm": what is the speaker's is not to reach the other;
- software parts left alone are installations kept ("leave the plugins be"); a device left be is physical;
- keying values into a device, a verb of installing with setpoints as object, a shared calendar as a venue;
- code run on a computer a device word only names ("the controller PC"), programs refused outright ("no scripts",
  "żadnych skryptów"), a refusal's own topic ("nie ma mowy o puszczaniu tego na bazie"), fixes that go live, and
  the noun after "no" as the subject of the verb after it ("no changes go out": sending, not changing);
- a check asked first: "Before you install anything: does it support…?", "Zanim wyślesz, sprawdź…";
- a manner clause opening a question binds the agent: "Without touching the books, how much…?";
- a negated get-passive with its own subject ("so it doesn't get run"), the speaker's own means ("I'll send it from
  my own account"), a negated necessity with how long after it ("ставить её не надо до конца сезона"), wanting to
  see it first with a pronoun ("chcę ją zobaczyć"), out into the world ("pójdzie w świat"), switching lights
  ("świateł nie przełączaj"), nobody as the recipient ("send it to nobody", not "to Ola and nobody else");
- kinds: a request closed by a tag is no question; a fault said to last until now, or marked urgent, is an alarm
  ("od pół godziny nie drukuje", "прямо сейчас виснет"); "od jutra" with a one-off command starts no process; a
  staffing level after "every day" is a constraint; "fire off", "fire the intern" are no fire.

Each positive case fails on the code before its rule; the guards hold on both.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # telling, letting know, giving feedback
        ("Don't tell the landlord about the damp yet.", [X]),
        ("Let the supplier know only once I've signed the order.", [X]),
        ("Hold off on telling the volunteers, the date may still move.", [X]),
        ("Give him feedback on the essay only after I've read it.", [X]),
        ("Tell the drivers about the new route only when the manager approves it.", [X]),
        # a receiver gated, with feedback as what is received
        ("The applicant gets feedback only once I say so.", [X]),
        # read-only as the way to work
        ("Read-only please, that spreadsheet is the only copy we have.", [L]),
        ("Tylko do odczytu, proszę, to jedyny egzemplarz.", [L]),
        ("Только на чтение, это единственный экземпляр.", [L]),
        # between us, closing a clause about a thing
        ("The figures stay between us, ok?", [X, P]),
        ("Эти цифры пока между нами, хорошо?", [X, P]),
        ("Te liczby na razie tylko między nami.", [X, P]),
        # for me, not for another
        ("The summary is for me, not for the agency.", [X]),
        ("To zestawienie jest dla mnie, a nie dla zarządu.", [X]),
        ("Эта сводка для меня, а не для подрядчика.", [X]),
        # software parts and devices left alone
        ("Leave the browser extensions be, the last update broke the till.", [INST]),
        ("Wtyczek w sklepie nie ruszaj.", [INST]),
        ("Let the fermenter be until Monday.", [F]),
        # keying values into a device; setpoints put in; a shared calendar
        ("В контроллер пока ничего не вбивай, просто подготовь табличку.", [F]),
        ("Nic nie wprowadzaj do kontrolera, tylko przygotuj tabelkę.", [F]),
        ("Не ставь в контроллер новые уставки, пока мастер не посмотрит.", [F]),
        ("Do wspólnego kalendarza dyżurów jeszcze tego nie wpisuj.", [P]),
        # code on a computer, programs refused, a refusal's own topic, fixes going live
        ("Don't run anything on the controller PC.", [C]),
        ("Don't restart the camera server, it records the yard.", [C]),
        ("No scripts on the production box, please.", [C]),
        ("Żadnych skryptów na serwerze kasowym.", [C]),
        ("Никаких скриптов на кассовом сервере.", [C]),
        ("Przed końcem miesiąca nie ma mowy o puszczaniu tego na produkcji.", [C]),
        ("No hotfix goes live on the shop before I've reviewed it.", [INST]),
        # the noun after "no" as the subject of the verb after it: the verb's reading alone
        ("No changes go out to the suppliers without my OK.", [X]),
        ("Look into it, but no fixes go live on the shop till I've seen them.", [INST]),
        # a check asked first
        ("Before you install anything: does the new version still print receipts?", [INST]),
        ("Zanim cokolwiek zainstalujesz, sprawdź, czy drukarki są obsługiwane.", [INST]),
        # a manner clause opening a question
        ("Without touching the books, how much did we pay for malt in March?", [L]),
        ("Не трогая таблицу, скажи, почему там дубли?", [L]),
        # a machine's cycle started
        ("Don't fire off another cleaning cycle, the line is full.", [F]),
        # heldout47's forms: a negated get-passive, the speaker's own means, how long after a negated necessity,
        # wanting to see it first, out into the world, switching lights
        ("The old import job wrecked the ledger last time, so it doesn't get run again.", [C]),
        ("The old rota doesn't get published, it has the wrong names.", [P]),
        ("Draft the answer to the landlord; I'll send it from my own account.", [X]),
        ("Обновление на кассы ставить не надо до конца месяца.", [INST]),
        ("Przygotuj ofertę dla klubu. Zanim pójdzie w świat, chcę ją zobaczyć.", [X]),
        ("Świateł na płycie postojowej nie przełączaj.", [F]),
        # nobody as the recipient
        ("Publish the timetable, but send it to nobody.", [X]),
        ("Share the accident report with no one outside the crew.", [X]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert sorted(forbidden_effects(text)) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        # telling the speaker, telling apart, a message's own content
        "Tell me straight how the code holds up.",
        "Can you tell whether the chiller is keeping up?",
        "Please tell the team about the new rota.",
        "Send Ola a message telling her she's not allowed to merge until the review is done.",
        # read-only asked about
        "Is the price list read-only?",
        # between us as dividing, or as a discourse marker
        "Split the tips between us and the kitchen.",
        "Раздели смены между нами.",
        "Между нами говоря, отчёт слабый, перепиши его.",
        # for me or for the team: a question
        "Is this copy for me or for the team?",
        # let / leave as plain verbs
        "Let me be clear: send it today.",
        # no script as what exists, or what happened
        "There's no script for it yet, write one.",
        "No scripts were run last night.",
        # firing someone
        "Don't fire the intern, just talk to her.",
        # the speaker's own lot, the agent asked to use the speaker's account, a call put through
        "I don't get paid for the weekend shifts.",
        "Send it from my own account, please.",
        "Send it to Ola and to nobody else.",
        "Świat się kręci, przełącz mnie na Olę.",
    ],
)
def test_guards_stay_unforbidden(text: str) -> None:
    assert forbidden_effects(text) == []


def test_a_subject_after_no_keeps_its_reading_when_its_verb_has_none() -> None:
    assert forbidden_effects("No posts go up on the website before Monday.") == [P]


@pytest.mark.parametrize(
    "text",
    [
        "Read-only please: don't execute any scripts, just read the logs.",
        "Read-only job though: no restarting services.",
    ],
)
def test_read_only_explained_after_a_colon_keeps_its_explanation(text: str) -> None:
    assert forbidden_effects(text) == [C]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a request closed by a tag
        ("Work out how many kegs are out with customers. Only between us for now, ok?", "task"),
        # a fault lasting until now, or said to be now, or marked urgent
        ("The card reader at the bar hasn't been taking payments for the last 20 min and there's a queue.", "alarm"),
        ("Drukarka paragonów od kwadransa nie drukuje, klienci czekają.", "alarm"),
        ("Терминал прямо сейчас виснет на каждой оплате, очередь до двери.", "alarm"),
        ("Срочно! Конвейер встал, банки мнутся.", "alarm"),
        ("The web shop has been throwing errors since about 3pm, orders are failing.", "alarm"),
        ("Датчик газа в котельной показывает 0,8% и пищит.", "alarm"),
        # one change starting tomorrow, a staffing level after "every day"
        ("Kierownik chce od jutra zmienić godziny otwarcia. Rozpisz mi nowy grafik.", "task"),
        ("Нужен график на праздники: каждый день минимум трое, 31-го — пятеро.", "task"),
        # a habit starting tomorrow is a process
        ("Od jutra sprawdzaj rano temperatury w chłodni.", "process"),
        # the verb "fire" is no fire
        ("Don't fire the intern, just talk to her.", "task"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    "text",
    [
        # a person's day off, or what something depends on, marked urgent: no fault going on
        "Urgent: I'm not working on Friday, change the rota.",
        "Срочно: я не работаю в пятницу, поменяй график.",
        "Срочно! Цена зависит от курса, пересчитай смету.",
    ],
)
def test_urgent_words_without_a_fault_are_no_alarm(text: str) -> None:
    assert IntentClassifier().classify(text).kind != "alarm"
