"""Prohibitions by form, sixth set, in en/pl/ru (issue 11, point 10): an action put off by a predicate of time
("Sending it is a conversation for next week", "Wysyłka to temat na przyszły tydzień", "Публикация — это на
следующей неделе"), a talk about an action put off ("we'll talk about publishing it next week", "об отправке
поговорим завтра"), and getting software onto machines. Each case fails if the rule for its form is removed; the
phrasings are not the labelled splits' own. Also: a release rolled back, code pushed to a repository, writing to
someone, files made in the user's folders, a chat everyone reads, "ani mi się waż", and a negated asking that lifts
a gate ("no need to ask me before sending").
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # the action is the subject, and the predicate is a time to come
        ("Draft the letter. Mailing it to the clients is for next week.", [X]),
        ("Posting the photos on the website is a job for tomorrow.", [P]),
        ("Rolling out the update to the tills is a conversation for another day.", [INST]),
        ("Rozsyłka do klientów to temat na przyszły tydzień, teraz tylko szkic.", [X]),
        ("Publikacja na stronie — dopiero na następny miesiąc.", [P]),
        ("Рассылка клиентам — это уже на следующей неделе.", [X]),
        ("Публикация на сайте будет на следующей неделе, а пока проверь текст.", [P]),
        # a talk about the action, put off
        ("We'll talk about sending it to the board next week.", [X]),
        ("O publikacji na stronie porozmawiamy jutro.", [P]),
        ("Об отправке поставщику поговорим на следующей неделе.", [X]),
        # software got onto machines, a release rolled back, code pushed to a repository
        ("Getting the new version onto the reception PCs is a conversation for next week.", [INST]),
        ("Don't roll back or redeploy anything without me.", [INST]),
        ("Релиз без меня не откатывай.", [INST]),
        ("Don't push the branch to GitHub yet.", [X]),
        ("Na repo nic nie pushuj.", [X]),
        ("В репозиторий пока ничего не пушь.", [X]),
        # writing to someone is a message; writing into a table is a write
        ("Nie pisz jeszcze do klienta.", [X]),
        ("Please don't write to the landlord about it.", [X]),
        ("В таблицу учёта ничего не вписывай.", [L]),
        ("Nie pisz nic do arkusza głównego.", [L]),
        # files made in the user's places
        ("Don't create any files in the shared folder.", [L]),
        ("Nie twórz nowych plików w katalogu projektu.", [L]),
        # a chat everyone reads is a publication; a team's chat is a message
        ("Don't post it in the all-staff channel.", [P]),
        ("Nie wrzucaj tego na kanał ogólnofirmowy.", [P]),
        ("В общий чат это не выкладывай.", [P]),
        ("Nie wrzucaj tego na czat zespołu.", [P]),
        # a message that leaves one's hands; a venue in the Polish locative
        ("None of this may leave your hands.", [X]),
        ("Nie wieszaj tego w intranecie.", [P]),
        # "don't you dare", Polish, with and without diacritics
        ("Ani mi się waż publikować tego na stronie.", [P]),
        ("ani sie waz wysylac tego klientom", [X]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # an imperative with a time: when to do it, not a prohibition
        ("Send it — for next week's meeting.", []),
        ("Wyślij raport — na przyszły tydzień.", []),
        ("Opublikuj to jutro rano.", []),
        ("Publish the post to the site next week.", []),
        # the period a task is for, and a subject that is not an action
        ("Prepare the rota for next month; it is for next month's payroll.", []),
        ("The report is for next week's meeting, so send it to Anna today.", []),
        # a talk about something else, after the action was asked for
        ("Send it to the board, and we'll talk about the results next week.", []),
        ("Get the figures to me by Friday.", []),
        ("The launch is tomorrow, so publish the page tonight.", []),
        # a negated asking lifts the gate: the action after "before" is allowed
        ("No need to ask me before sending it.", []),
        ("Nie musisz mnie pytać przed publikacją.", []),
        ("Не нужно спрашивать меня перед установкой.", []),
        # words near the new ones that are not their forms
        ("Не вписывается в бюджет — пришли варианты.", []),
        ("Nie chcę ani kawy, ani herbaty.", []),
        ("Don't drop the ball on this one.", []),
        ("Write the report to the folder.", []),
    ],
)
def test_forms_that_do_not(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a polite request after a greeting, or opening a later sentence
        ("hi there, could you put together the rota for may from the hr export?", "task"),
        ("Invoices take twice as long since March. Can you work out when it started?", "task"),
        ("Cześć, możesz przygotować grafik na maj?", "task"),
        # a request in a later sentence's later clause, after a colon or a dash
        (
            "Backups got slow. The attached file holds the timings of the last two months: check when it started.",
            "task",
        ),
        ("Импорт стал медленнее. Вот журнал времени за последние два месяца — проверь, когда это началось.", "task"),
        ("Raporty się wydłużyły. Log czasów z ostatnich dwóch miesięcy jest w załączniku: sprawdź, od kiedy.", "task"),
        # a question after an adverb of estimate; a later prohibition asks for no work
        ("Roughly how long does a passport renewal take? Just an estimate, don't book anything.", "question"),
        ("Примерно сколько стоит доставка? Ничего не заказывай.", "question"),
        # water where it must not be, now; and denied
        ("A pipe burst in the server room!", "alarm"),
        ("The water in the hall is knee-deep!", "alarm"),
        ("W kuchni pękła rura!", "alarm"),
        ("Woda w piwnicy jest po kolana!", "alarm"),
        ("В котельной прорвало трубу!", "alarm"),
        ("No pipes burst this winter, all quiet.", "conversation"),
        # a terse request whose question word comes after its nouns stays no question
        ("cold room alarms 11-29 - which ones need a visit? dedupe first", "conversation"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind, cue


def test_a_later_polite_request_to_be_told_is_a_question() -> None:
    cue = kind_cue("The parcel has not come yet, could you tell me where it is?")
    assert cue is not None and cue.kind == "question", cue
