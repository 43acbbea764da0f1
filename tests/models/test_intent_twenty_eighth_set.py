"""Prohibitions by form, twenty-eighth set, in en/pl/ru: the forms heldout48 (a water and sewage utility, measured
blind first) missed or misread, in phrasings of my own.

- a launching verb with a particle reaching past a quantifier ("don't kick off any of the scripts");
- a script launched is code run whatever device it drives ("skryptów do sterowania nie odpalaj");
- the thing a refusal names is the head of its noun phrase ("the export job is off limits": the job, run);
- filling in a form or a record is a local write; cycling a device ("задвижки не гоняй") is physical;
- on air and the media are venues, and the media are sent to as well ("Do mediów nic nie idzie");
- a venue with no action before its gate ("nothing on Facebook until we know what's going on"), not a state
  described ("the website is down until…");
- the speaker keeping the decision ("I'll decide whether it goes out", "sam zdecyduję, czy…", "я ещё подумаю,
  отправлять ли");
- "not for" a venue or anyone outside; a writing fronted into a database is a local write, not a message.

Each positive case fails on 404e40e; the guards hold on both.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Don't kick off any of the nightly cleanup scripts on the billing box.", [C]),
        ("Tych skryptów do sterowania pompami nie odpalaj, zrób to ręcznie z panelu.", [C]),
        ("The import job itself is off limits this week, accounting are closing the year.", [C]),
        ("Ничего пока не заполняй в акте, просто объясни, как это делается.", [L]),
        ("Formularza jeszcze nie wypełniaj, tylko powiedz, czego brakuje.", [L]),
        ("Сами задвижки не гоняй, только сними показания.", [F]),
        ("Na antenę to pójdzie dopiero po moim telefonie.", [P]),
        ("Do mediów nic nie idzie, dopóki nie dostaniemy wyników z laboratorium.", [X, P]),
        ("В прессу ни слова, пока не будет повторной пробы.", [X, P]),
        ("Whatever you do, nothing on Instagram until we know what's going on.", [P]),
        ("Just a draft for now, I'll decide whether it goes out at all.", [X, P]),
        ("Napisz projekt pisma, sam zdecyduję, czy w ogóle idzie.", [X, P]),
        ("Набросай ответ, я ещё подумаю, отправлять ли его вообще.", [X, P]),
        ("This summary is not for the team group chat.", [P]),
        ("These figures are not for anyone outside the plant.", [X]),
        ("В нашу рабочую базу ничего не пиши, только читай.", [L]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert sorted(forbidden_effects(text)) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "The website is down until the host fixes it, tell me when it's back.",
        "I'll decide which variant later; for now just list them.",
        "Not for long, just a quick look at the log.",
        "Enter the readings into the sheet and fill in the form.",
        "Прогоняй тесты каждый час.",
        # someone else deciding, someone's job
        "Wypisz mi tylko konflikty, ksiądz proboszcz sam zdecyduje.",
    ],
)
def test_guards_stay_unforbidden(text: str) -> None:
    assert forbidden_effects(text) == []


def test_someones_job_is_a_duty_not_a_program() -> None:
    assert forbidden_effects("The pumps are his job, so hands off those.") == [F]
    assert forbidden_effects("The export job itself is off limits this week.") == [C]


def test_a_device_alone_is_still_operated() -> None:
    assert forbidden_effects("Pompy nie odpalaj, zrób to z panelu.") == [F]
    assert forbidden_effects("Клиенту ничего не пиши.") == [X]
