"""Prohibitions by form, twenty-fourth set, in en/pl/ru (issue 11, point 10): the forms heldout42 (transport,
couriers and warehouses) showed, in phrasings of my own.

- archiving and cleaning out a record change it ("Логи не чисти и не архивируй", "nie czyść rejestru", "don't
  archive the old manifests");
- "łapy precz od …", "лапы прочь от …" refuse as "hands off" does;
- "чисто для меня" keeps it for the speaker, as "строго для меня" does.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Сверь путевые листы с заправками. Журнал не чисти — его смотрит бухгалтерия.", [L]),
        ("Старые накладные не архивируй, они ещё нужны.", [L]),
        ("Policz przestoje wózków, ale rejestru nie czyść, bo to dowód dla ubezpieczyciela.", [L]),
        ("Zestaw reklamacje z maja i niczego nie archiwizuj.", [L]),
        ("List the late deliveries, but don't archive the old manifests.", [L]),
        ("Zrób podsumowanie tankowań; to plik od szefa, więc łapy precz od oryginału.", [L]),
        ("Посчитай пробег по машинам, а от исходной таблицы лапы прочь.", [L]),
        ("Составь разбор рейса. Это чисто для меня.", [X, P]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Это чисто для справки: отправь расписание Ивану.",
        "Czyść tylko filtr w wózku, resztę zostaw mi.",
        "The archive folder has last year's rota; use it as a template.",
    ],
)
def test_forms_that_forbid_nothing(text: str) -> None:
    assert forbidden_effects(text) == []
