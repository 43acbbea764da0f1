"""Kinds and prohibitions by form, twentieth set, in en/pl/ru (issue 11, point 10): the forms heldout37 (technical
trades: jargon, exceptions, conditions, pronouns, scope limits) showed, in phrasings of my own.

- prohibitions: writing to a database named after two adjectives; pushing a tag; keeping a thing off Discord;
  backups and templates are data ("The backups — don't touch them", "Шаблоны не трогай"); an inverter is a device;
  a force push said as a Polish noun; creating anything on a database; "Na proda — nie"; a rollback said as a
  noun; not prohibitions: shifts put on people ("никому не ставь"), "zero braków na całej zmianie";
- kinds: a frequency word before the run it names ("nightly backup job: …") is no recurrence; a danger in a
  "when" clause is a condition; "bump", "zmień"; "Just list them" after a question answers it; a question word
  after a preposition; "после каждого …" recurs; data being destroyed now is an emergency.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Whatever the test shows, it must not write to the live customer database.", [L]),
        ("No pushing the release tag, and keep the notes off Discord for now.", [P, X]),
        ("The backups on the NAS — don't touch them.", [L]),
        ("Kopii zapasowych nie ruszaj.", [L]),
        ("Шаблоны отчётов не трогай.", [L]),
        ("Falownika nie restartuj z panelu.", [F]),
        ("Posprzątaj historię repo, ale force pusha nie rób.", [X]),
        ("Na bazie produkcyjnej nic nie zakładaj.", [L]),
        ("Wdróż łatkę na staging. Na proda — jeszcze nie.", [INST]),
        ("Poprawka idzie na staging. Na proda — jeszcze nie.", [INST]),
        ("Rollbacku sam nie rób, czekaj na mnie.", [INST]),
        ("Don't write to the supplier about the database.", [X]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Составь график дежурств: никому не ставь две ночные смены подряд.",
        "Ale dziś linia chodziła jak złoto, zero braków na całej zmianie.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("nightly backup job: 3h last night vs 40 min usually. log attached, find what changed.", "task"),
        ("The backup job fails when the NAS is down, and the log shows nothing. Add a retry to backup.sh.", "task"),
        ("Bump the memory limit in docker-compose.yml to 2 GB.", "task"),
        ("Which printers are still on the old firmware? Just list them, nothing gets updated.", "question"),
        ("Zmień status zamówienia 4411 na wysłane.", "task"),
        ("С какой скоростью резать алюминий фрезой 6 мм? Никак не запомню.", "question"),
        ("После каждой инвентаризации сверяй остатки с таблицей склада.", "process"),
        ("Someone is wiping the shared drive, files keep disappearing.", "alarm"),
        ("Кто-то удаляет письма из общего ящика прямо сейчас!", "alarm"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
