"""Kinds and prohibitions by form, twenty-second set, in en/pl/ru (issue 11, point 10): the forms heldout39
(education and care: wishes, hedges, conditions, duties) showed, in phrasings of my own.

- prohibitions: a group's chat after a negation with no verb ("не в общий чат"; a group alone may be people); what
  a writing is to say ("mention that photos won't be posted", "указать, что …") is no command, unless it tells the
  agent ("mention that you can't send it") or the command has its own clause; "someone's job" is a duty, not a
  program; a possessive before "call" in a path is no say; "so hands off" refers back to the devices named before
  it; "it doesn't go beyond the practice", not a habit ("he doesn't leave the office"); someone who must sign it
  first stops what comes before; "zostaje wyłącznie u mnie" keeps it from everyone; "pod kluczem"; a past passive
  in a wish ("żeby nic nie było uruchamiane"); an action noun opening a clause of "nie ruszaj"; a thing landing in a
  staff chat is only published;
- kinds: a question word after a colon ("Before I decide: how would you …?") asks.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, F, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Составь список на месяц. Только мне лично, не в общий чат.", [X, P]),
        ("Zrób listę obecności. Nie do wspólnego czatu.", [P]),
        ("Write to the parents, but mention that you can't send it before Friday.", [X]),
        ("Объясни, что делает скрипт, но не запускай его.", ["code_execution"]),
        ("The thermostat is the caretaker's job, so leave it alone.", [F]),
        ("Door and radiator settings: I do those myself, so hands off, please.", [F]),
        ("The scores are pupil data, so the sheet doesn't go beyond the school.", [X]),
        ("The file doesn't leave this office.", [X]),
        ("Zanim plan zawiśnie na tablicy, musi go podpisać dyrektor.", [P]),
        ("Перед тем как график повесят на доску, его должна подписать заведующая.", [P]),
        ("Notatka zostaje wyłącznie u mnie.", [X, P]),
        ("Протокол остаётся только у меня.", [X, P]),
        ("Oceny na razie pod kluczem.", [X, P]),
        ("Wolałbym, żeby na serwerze nic nie było instalowane.", [INST]),
        ("Aktualizacji systemu w pracowni na razie nie ruszaj.", [INST]),
        ("It must not land in the staff WhatsApp group before Monday.", [P]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Wyślij to do grupy B, nie do grupy A.",
        "Draft the newsletter and remember to mention that photos from the fair won't be posted online.",
        "Przygotuj list i wspomnij, że zdjęcia nie będą publikowane.",
        "Укажи в объявлении, что фото в соцсетях публиковать не будут.",
        "The transcript of our review call with Mr Lee's son is in calls/lee_0401.docx. Summarise it.",
        "The pump doesn't go out of sync anymore, check why.",
        "He doesn't leave the office before six, so plan the calls after that.",
        "Ten plik jest tylko u mnie na dysku, przeanalizuj go.",
        "Nic nie było wysyłane w tym tygodniu, sprawdź dlaczego.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Before I commit to anything: how would you move the timetable to the new system? Only options.", "question"),
        ("Zanim coś postanowię: jak byś przeniósł dziennik do nowego systemu?", "question"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
