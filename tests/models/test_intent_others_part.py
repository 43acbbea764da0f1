"""Prohibitions by form, fourth set, in en/pl/ru (issue 11, point 10): an approval asked for before an action,
someone else's part, a wish, a step left for after an event, a rule said in the present ("nothing goes out", "we
don't touch"), an action that "will not be", passives and verbless kept states, and the words that name what an
update, a restart, an opening or a clearing acts on. Each case fails if the rule for its form is removed; the
phrasings are not the labelled splits' own.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # an approval the sentence asks for comes before the action a before-clause names
        ("The director has to approve it before anything goes out to the parents.", [X]),
        ("Zanim cokolwiek opublikujesz, prezes musi to zatwierdzić.", [P]),
        ("Прежде чем рассылать, нужно одобрение начальника.", [X]),
        # someone else's part
        ("The pumps are not yours to switch off.", [F]),
        ("It's not your call to email the clients.", [X]),
        # a wish in the past tense
        ("I'd rather nothing ended up on the website before Monday.", [P]),
        # left for after an event
        ("Zostawmy publikację na po świętach.", [P]),
        ("Звонки клиентам оставим на после праздников.", [X]),
        ("Leave the upload for after the audit.", [X]),
        # a rule in the present, the destination fronted
        ("Nic do klientów nie wychodzi bez mojej zgody.", [X]),
        ("Насосы руками не трогаем.", [F]),
        # an action that will not be
        ("Publikacji w tym tygodniu nie będzie.", [P]),
        # passives: the object stands before the verb
        ("The master sheet must not be overwritten.", [L]),
        ("The fire door is not to be opened from the panel.", [F]),
        ("The migration must not be restarted.", [C]),
        # a verbless kept state after a dash
        ("Шлагбаумы — как есть, ничего не меняем.", [F]),
        # what a verb acts on decides its class
        ("No updating the firmware on the cameras.", [INST]),
        ("Which driver version is that? Don't update it.", [INST]),
        ("Don't restart the nightly job.", [C]),
        ("Nie puszczaj skryptu ponownie.", [C]),
        ("Alarmów na panelu nie kasuj.", [F]),
        ("Камеры не перезагружать.", [F]),
        ("Тревогу не сбрасывай, пусть звенит.", [F]),
        ("Nie otwieraj arkusza do edycji.", [L]),
        ("Патч ставим не раньше понедельника.", [INST]),
        ("Don't stick the notice up by the entrance yet.", [P]),
        ("Nie uruchamiaj windy zdalnie.", [F]),
        ("Hanging it up by the lockers is for later.", [P]),
        ("Nothing is to be written to the master sheet.", [L]),
        ("Joba nie puszczaj.", [C]),
        ("Don't operate the crane from the office.", [F]),
        ("I'd rather none of it went up on the intranet.", [P]),
        ("Rozsyłkę do kierowników zmian zostawmy na po zebraniu.", [X]),
        ("Czujników w hali nie zmieniaj i nie wyciszaj.", [F, L]),
        ("Файл на редактирование не открывай.", [L]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # an approval the agent is told to give, or one inside the before-clause, gates nothing
        ("Publish it before the approval meeting on Friday.", []),
        ("Zatwierdź liczby, zanim cokolwiek opublikujesz.", []),
        # what used to be
        ("Last year you always asked for my approval before every post; this time publish it right away.", []),
        ("None of the variants ended up on the noticeboard.", []),
        # leave given to the agent is not the speaker keeping the step
        ("Отчёт можешь сам отправить заказчику.", []),
        # letting a draft go on after reading it is not running a program
        ("Szkicu nikomu nie wysyłaj, sam go przejrzę i puszczę dalej.", [X]),
        # "nie będzie" of a person, an update of a document, a clearing of files, an opening of a door
        ("Jutro nie będzie mnie w biurze, wyślij raport do szefa.", []),
        ("Update the rota with the new names.", []),
        ("Nie kasuj starych plików.", [L]),
        ("Не открывай дверь.", [F]),
        ("Status — as is, nothing new today.", []),
    ],
)
def test_forms_that_do_not(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)
