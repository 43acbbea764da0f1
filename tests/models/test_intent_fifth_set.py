"""Prohibitions by form, fifth set, in en/pl/ru (issue 11, point 10): a verdict set apart after a dash ("ни в коем
случае", "w żadnym wypadku"), a message's motion in the present progressive with a gate ("isn't going out until"),
an object's participle after a wish ("I don't want it pinned up"), a rule said to the reader in the present ("pomp
nie ruszasz"), an imperfective "leave alone", jobs named by what they do ("the export", "сервис") and the plant of
cold stores and treatment works. Each case fails if the rule for its form is removed; the phrasings are not the
labelled splits' own.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a verdict after a dash, or after the action with no dash
        ("Перезапускать импорт — ни в коем случае.", [C]),
        ("Odpalać backup jeszcze raz — w żadnym wypadku.", [C]),
        ("Restarting the sync job is out of the question.", [C]),
        ("Kicking off the backup again is out of the question.", [C]),
        # an emphasis of a negation already said is still one negation
        ("Nie uruchamiaj tego skryptu pod żadnym pozorem.", [C]),
        ("Не запускай этот скрипт ни в коем случае.", [C]),
        # a message's motion in the present progressive, with a gate or with "from you"
        ("The newsletter isn't going out until the editor has read it.", [X]),
        ("The offer is not leaving the office till Marek signs it.", [X]),
        ("I'll take it to the bank myself; it's not going out from you.", [X]),
        # an object's participle after a wish
        ("I don't want the rota pinned up in the canteen.", [P]),
        ("We don't want to see these figures posted on the intranet.", [P]),
        # a rule said to the reader in the present, and an imperfective leave-alone
        ("Wentylatorów i agregatów nie dotykasz.", [F]),
        ("Dmuchaw nie ruszacie, to robi dyżurny.", [F]),
        ("Насосы оставляй в покое.", [F]),
        ("Агрегаты не трогаешь, только смотришь журнал.", [F]),
        # jobs named by what they do, and the services that run them
        ("Don't kick the backup off again.", [C]),
        ("Please don't start the import before the audit.", [C]),
        ("Ничего не перезапускай на сервере.", [C]),
        ("Не перезапускай службу печати.", [C]),
        ("Don't restart the print daemon.", [C]),
        ("Eksportu nie puszczaj ponownie.", [C]),
        # altering a stored thing, said in the passive
        ("The price list is not to be altered.", [L]),
        ("Don't amend the signed contract.", [L]),
        # the version is not installed, the device left as it is: two classes in one sentence
        ("Nie aktualizuj oprogramowania i nie dotykaj zasuw.", [INST, F]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a dash before words that are not a verdict
        ("Отправь отчёт — нельзя терять время.", []),
        ("Send it today — under no circumstances wait for Monday.", []),
        # a progressive that describes, with no gate
        ("The newsletter isn't going out this week because the printer broke.", []),
        ("Why isn't the email going out?", []),
        # a wish for the participle, and a past placing
        ("I want it pinned up on the noticeboard by Monday.", []),
        ("We pinned it up on the noticeboard last week.", []),
        # a placing with its particle, timed by readiness, not gated by anyone
        ("Put them up on the staff intranet page once they're ready, no need to wait for me.", []),
        # a start of something that is not a job, a restart that happened
        ("Please start the backup after 6 pm.", []),
        ("The service was restarted last night.", []),
        ("We altered the schedule last week.", []),
    ],
)
def test_forms_that_do_not(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)
