"""Prohibitions by form, twenty-sixth set, in en/pl/ru: the forms heldout45 (a ski resort) missed or misread, in
phrasings of my own.

- calling someone with the verbs that are also nouns: "don't ring the supplier", "please don't phone the landlord"
  (a bell rung and a phone ringing call no one);
- a verb of placing with places joined by "or": "put it in the brochure or on the homepage" reaches the second;
- rearranging a record in place, the negation said once before joined verbs: "don't tidy or reorder the sheet";
- buying, read as the labelled splits read it (physical);
- a negated infinitive whose leaving undone is judged, or whose reason is denied: "it would be a shame not to
  share them", "не вижу причин не отправлять" ask for the action, they forbid nothing;
- a Polish motion verb followed by the pronoun "to" (not the English preposition): the place fronted before it
  decides ("Na tablicę pójdzie to dopiero po…" is a publication);
- "not a word" with the venues fronted before it: "На сайте и в соцсетях об этом ни слова";
- a verbless refusal of a group's chat: "В родительский чат — ни в каком виде";
- a list of verbs under one negation sharing an object said after it ("don't start, stop or re-point any of them"),
  snow guns and cable cars as devices, and a device's settings ("Piec zostaw włączony i ustawień nie zmieniaj").

Each positive case fails on the code before its rule; the guards hold on both.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # calling someone
        ("Please don't phone the landlord about the leak.", [X]),
        ("Don't ring the supplier until I've checked the invoice.", [X]),
        # places joined by "or" after a verb of placing
        ("Don't put the new prices in the brochure or on the homepage yet.", [P]),
        # rearranging a record, the negation before the first of the joined verbs
        ("Don't tidy or reorder the stock sheet, the auditor needs it as it is.", [L]),
        ("Please don't reformat or re-sort the returns register, the auditor wants it raw.", [L]),
        ("Nie porządkuj ani nie sortuj tego arkusza, audytor chce go w oryginale.", [L]),
        ("Таблицу остатков не сортируй и не упорядочивай.", [L]),
        # buying
        ("Don't buy any new helmets until the season starts.", [F]),
        ("Na razie nie kupujcie nowych kasków.", [F]),
        ("Новые шлемы пока не покупай, денег нет.", [F]),
        # a Polish "to" after the motion verb, the venue fronted
        ("Na tablicę ogłoszeń pójdzie to wyłącznie po mojej akceptacji.", [P]),
        # "not a word" with the venues fronted
        ("На сайте и в соцсетях об этом ни слова до пятницы.", [P]),
        ("On the website, not a word about it yet.", [P]),
        # a verbless refusal of a group's chat
        ("В родительский чат — ни в каком виде, там все родители.", [P]),
        ("Do czatu rodziców — w żadnej formie.", [P]),
        ("Into the parents' group chat? Out of the question.", [P]),
        # a list of verbs under one negation, its object a pronoun for the devices named before
        ("The blowers on the roof are set for winter, so don't start, stop or re-point any of them.", [F]),
        # snow guns and cable cars are devices
        ("Leave the snow guns on the nursery slope alone.", [F]),
        ("Кресельную канатку пока не трогай.", [F]),
        # a device's settings, the device named before them in the clause
        ("Piec zostaw włączony i ustawień nie zmieniaj.", [F]),
        ("The boiler stays on as it is and don't change the settings.", [F]),
        ("Котёл не выключай и параметры не меняй.", [F]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    "text",
    [
        # leaving it undone judged, or its reason denied: the speaker wants it done
        "It would be a real shame not to share the race photos with the parents, send them tonight.",
        "Głupio byłoby tego nie wrzucić na stronę, wrzuć to dziś.",
        "Не вижу причин не отправлять отчёт клиенту, отправляй.",
        "I see no reason not to publish the results.",
        "I can't think of any reason not to email the results to the team today.",
        "Nie widzę żadnego powodu, żeby tego nie wysłać klientowi.",
        # a bell, a ringing phone, a buyer, a plain command
        "Don't ring the bell before nine.",
        "The phones kept ringing all morning.",
        "No need to ring round for prices, I'll use last year's list.",
        "The buyer bought two helmets last week.",
        "Kup nowe kaski i wyślij mi rachunek.",
        "Sort the guest table by arrival date and send it to me.",
        "Put the apples in the basket and the pears on the website.",
        # stopping as an operator over an action, or a new clause after it
        "The blowers on the roof are set for winter, so please re-point them.",
        "Don't stop, the pumps are fine.",
        "Не останавливайся, отправь всё клиенту.",
        # an idiom of haste, not a device
        "Draft the announcement, but don't jump the gun and rush it.",
    ],
)
def test_guards_stay_unforbidden(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a reason given for the prohibition, or the prohibition judged: still forbidden
        ("There's no reason to send it, so don't send it.", [X]),
        ("Don't send it, that would be a mistake.", [X]),
        ("Nie wysyłaj tego, to byłby błąd.", [X]),
        # a person fronted before the motion verb, a person after "not a word": sent, not published
        ("Do klienta to pójdzie dopiero po mojej zgodzie.", [X]),
        ("It must not go to the client before Friday.", [X]),
        ("Клиенту об этом ни слова.", [X]),
        # settings with no device named are a document's
        ("Don't change the settings in the spreadsheet.", [L]),
        ("Nie zmieniaj ustawień w arkuszu.", [L]),
    ],
)
def test_kept_as_they_were(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects
