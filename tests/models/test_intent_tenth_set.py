"""Kinds, recurrences and prohibitions by form, tenth set, in en/pl/ru (issue 11, points 9 and 10): the forms
heldout26 showed, in phrasings of my own.

- the worst to happen: "The last thing I need is it turning up on Facebook", "Tylko tego brakuje, żeby wisiał na
  stronie", "Не хватало ещё, чтобы оно оказалось на сайте";
- a person named in the message does the effect: "Kasia will post it", "Na stronę wrzuci je Marek", "Выкладывать
  будет Света", "Publikacją zajmie się Kasia"; not a recipient ("wyślij to Markowi", "Anna will send you the file"),
  not a past ("Anna sent it yesterday");
- "don't even think about…", "nawet nie myśl o…", "…даже не думай";
- a schedule kept as it is ("leave the roster alone"); a wish in the past form ("I'd rather you left it as it is");
- a firm that gets nothing from you; a device named before, then its pronoun ("Nie próbuj go podnosić"); "mailem nie
  puszczaj" sends;
- days in the plural with no "every" are a recurrence only in a clause that commands ("On Mondays, send me the
  list"), not in a constraint of the work ("we need two people on Saturdays");
- a machine stuck now, a service down for a while, a burn are emergencies; a question opening with "What's" asks;
- a product's list of contents after a colon names no template ("newsletter: …, new duty hours, …").

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.core.select import WorkflowSelector
from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.models.intent.recurrence import find_recurrence
from alicorn.packs.catalog import bundled_workflows
from tests.models.support import C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # the worst to happen
        ("Write the menu card. The last thing we need is a typo-ridden version showing up on Instagram.", [P]),
        ("The last thing I want is someone forwarding this to the landlord.", [X]),
        ("Nothing may pop up on the noticeboard before the board has seen it.", [P]),
        ("Napisz ogłoszenie. Jeszcze tego brakuje, żeby wisiało na tablicy przed zebraniem.", [P]),
        ("Составь объявление. Не хватало ещё, чтобы оно оказалось на сайте школы раньше времени.", [P]),
        # someone named does it
        ("Draft the press note; Kasia will post it on the website tomorrow.", [P]),
        ("Write the reply, Marek will email it to the supplier.", [X]),
        ("Przygotuj tekst, na fanpage wrzuci go Ola.", [P]),
        ("Publikacją zajmie się Kasia, ty przygotuj tylko tekst.", [P]),
        ("Ułóż grafik na grudzień. Na tablicę wywiesi go Kasia.", [P]),
        ("Сделай текст поста, выкладывать будет Оля.", [P]),
        ("Рассылкой займётся Света, от тебя нужен только черновик.", [X]),
        # not even thinking about it
        ("Don't even think about restarting the printer queue service.", [C]),
        ("Nawet nie myśl o restartowaniu serwera, admin jest w drodze.", [C]),
        ("Публиковать это сам даже не думай.", [P]),
        # a schedule kept as it is; a wish in the past form
        ("Just a question about overtime rules; leave the rota alone for now.", [L]),
        ("Grafiku na razie nie ruszaj, policz tylko nadgodziny.", [L]),
        ("График пока оставь в покое.", [L]),
        ("I'd rather you left the stock sheet exactly as it is.", [L]),
        # a firm that gets nothing; a device named before its pronoun; by mail
        ("The cleaning company gets nothing from you until I have checked it.", [X]),
        ("Brama garażowa stanęła w połowie. Nie próbuj jej zdalnie opuszczać.", [F]),
        ("Шлагбаум заклинило. Не пытайся его поднять, механик едет.", [F]),
        ("Mailem tego jeszcze nie puszczaj, najpierw przeczytam.", [X]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Wyślij to Markowi jeszcze dziś.",
        "ok Marek wyślij to do klienta jeszcze dziś",
        "Plakat od Ewy wisi na tablicy od wczoraj.",
        "Отчёт Свете отправят из бухгалтерии, тебе ничего делать не надо.",
        "Please don't think twice about sending it to the client.",
        "Turn the heating down a little in the office.",
        "What's the difference between a fire door and a smoke door in the library?",
        "Anna will send you the file tomorrow.",
        "Please ask Marek to send the invoice to the client.",
        "Попроси Свету отправить счёт клиенту.",
        "Anna sent it to the client yesterday.",
        "Tom is going through the logs right now.",
        "Marta can't do early mornings and we need two people on Saturdays.",
        "I didn't even think about sending it that early.",
        "Update the firmware on the gateway.",
        "Show me the list of open orders.",
        "Kasia's leave is covered by agency staff.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "cron"),
    [
        ("On Mondays, send me the list of open orders.", "0 0 * * 1"),
        ("On Mondays and Thursdays at 9:15 check the logs.", "15 9 * * 1,4"),
        ("On Fridays after the last delivery of the week send me the totals.", "0 0 * * 5"),
        ("W soboty rób kopię zapasową bazy.", "0 0 * * 6"),
        ("По понедельникам присылай мне список заказов.", "0 0 * * 1"),
        ("Put together the roster for March; we need two people on Saturdays.", None),
        ("Build the April roster. Marta can't do early mornings and we need two people on Saturdays.", None),
        ("Ułóż grafik na kwiecień. Pani Ewa pracuje tylko popołudniami, a w soboty potrzebujemy jednej osoby.", None),
        ("По субботам у нас работает один кассир, составь график на май.", None),
    ],
)
def test_days_without_every_recur_only_where_their_clause_commands(text: str, cron: str | None) -> None:
    found = find_recurrence(text)
    assert (found.cron if found else None) == cron


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The lift is stuck between the 2nd and 3rd floor with a courier inside, what do we do?", "alarm"),
        ("Our payment page has been down for a quarter of an hour and the phones don't stop.", "alarm"),
        ("Winda utknęła między piętrami, w środku jest pani z wózkiem!", "alarm"),
        ("Конвейер заклинило, на ленте застряла коробка, что делать?", "alarm"),
        ("Kolega poparzył sobie rękę o piekarnik, co robić teraz?", "alarm"),
        ("What's the difference between a smoke detector and a heat detector?", "question"),
        ("What's the rule for a smoke door in a public library?", "question"),
        ("Put together the roster for March; we need two people on Saturdays.", "task"),
        ("Build the cleaning rota for May, we need an extra person on weekends.", "task"),
        ("Составь график на май, по субботам нам нужен ещё один кассир.", "task"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind, cue


def test_a_products_list_of_contents_names_no_template() -> None:
    text = "Przygotuj newsletter dla wolontariuszy na grudzień: zbiórka darów, nowe godziny dyżurów, podziękowania."
    assert WorkflowSelector(bundled_workflows()).select(text, None).workflow is None
