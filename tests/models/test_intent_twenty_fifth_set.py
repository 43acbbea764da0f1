"""Prohibitions by form, twenty-fifth set, in en/pl/ru: the forms heldout42-44 (a haulier, a housing office, a
school) still missed, in phrasings of my own.

- one verb of entering with its places, fronted or after it: a venue everyone reads is a publication, a record a
  local write ("Do arkusza ani na tablicę nic nie wpisuj" forbids both; "на стенд не вноси" only the posting);
- a message put on a venue or into a group's chat, to no one in particular: "żadnych wiadomości na stronę", "ни
  слова в родительском чате", "no messages in the group chat";
- a thing bounded by the speaker's own: "it doesn't go beyond my inbox", "nie wychodzi poza moją skrzynkę", "дальше
  моей почты не уходит": no one else has it, neither sent nor published (the team's bounds stay a sending only);
- someone named as the receiver of a writing only after a gate: "Acme gets the quote only after I approve it".

Each positive case fails on the code before these rules; the guards (a reminder, a negated prohibition, a report,
a mention, a message to one person) hold on both.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # one verb of entering, a record and a venue
        ("Don't write the new marks in the logbook or on the noticeboard yet.", [L, P]),
        ("Do arkusza ani na tablicę ogłoszeń nic jeszcze nie wpisuj.", [L, P]),
        ("В табель и на стенд у входа часы пока не вноси.", [L, P]),
        ("Не вноси эти изменения в реестр и на сайт до пятницы.", [L, P]),
        # ... or a venue alone
        ("На стенд у входа расписание пока не вноси.", [P]),
        # a message put on a venue or into a group's chat
        ("Żadnych wiadomości na stronę szkoły, dopóki dyrektor nie zdecyduje.", [P]),
        ("Никаких сообщений на сайт и в родительский чат до понедельника.", [P]),
        ("No messages on the website until the head decides.", [P]),
        ("Don't send anything to the parents' group chat for now.", [P]),
        ("Ani słowa na grupie rodziców, dopóki nie porozmawiam z dyrektorem.", [P]),
        ("Ни слова в групповом чате, пока я не поговорю с директором.", [P]),
        ("Not a word in the tenants' group chat until I've called the insurer.", [P]),
        # bounded by the speaker's own
        ("The figures don't go beyond my inbox.", [X, P]),
        ("Zestawienie nie wychodzi poza moją skrzynkę.", [X, P]),
        ("Список дальше моей почты не уходит.", [X, P]),
        # a receiver named, after a gate
        ("Acme gets the quote only after I approve it.", [X]),
        ("Drukarnia ma dostać wycenę dopiero po mojej akceptacji.", [X]),
        ("Петров получит смету только после моего одобрения.", [X]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    "text",
    [
        # reminders and a negated prohibition
        "Не забудь внести оценки в журнал и на стенд.",
        "Don't forget to write the results in the logbook and on the noticeboard.",
        "Nie musisz czekać, możesz wpisać to do dziennika i na tablicę.",
        # reports that all went well
        "Wszystko poszło dobrze: oceny są już w dzienniku i na tablicy.",
        "Всё прошло хорошо, сообщение в родительском чате все прочитали.",
        "The quote went out fine and Acme got it on Monday.",
        # mentions and plain commands
        "Put the new timetable on the noticeboard and in the logbook.",
        "Отправь сообщение в родительский чат.",
        "Ask the parents' group chat when the trip is.",
        "Klient dostał wycenę dopiero po tygodniu, bo drukarnia się spóźniła.",
    ],
)
def test_guards_stay_unforbidden(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a message to one person is sent, not published, whatever site it goes through
        ("Don't message the parents on Facebook.", [X]),
        ("Не пиши ему на фейсбуке.", [X]),
        # the team's bounds: sent to no one outside it, read inside it
        ("This doesn't leave the team.", [X]),
        # a letter to the board of a firm is written to people
        ("Don't write to the board about it.", [X]),
    ],
)
def test_kept_as_they_were(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects
