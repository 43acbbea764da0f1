"""Kinds and prohibitions by form, twenty-third set, in en/pl/ru (issue 11, point 10): the forms heldout40 (offices of
money and rules: procedure, embargoes, "not for circulation") showed, in phrasings of my own.

- prohibitions: an embargo holds back publication (not one lifted or denied); "not for circulation", "не для
  распространения" keep it from everyone; "No need to run it past me" forbids nothing; "otherwise it can't be sent"
  says what would fail; "on call" is a duty, not a phone call; "it's read-only" after the register it stands for;
  updating a site's theme or plugins installs; a launching verb starts the action noun it governs ("Отправку не
  запускай", "nie odpalaj wysyłki"); a day put on someone ("Пете субботу не ставь") is a shift, a patch put on is
  an installation; "klima" is a device; "нигде не светим" and "не постить" publish; waiting "until she has seen it"
  keeps it from no one;
- kinds: a staffing level right after a day ("w piątki muszą być dwie osoby") is no recurrence; a lead with its own
  subject ("Before I answer the client: can we …?") commands nothing, and an auxiliary after its colon asks; an
  urgent plea that closes its sentence is an alarm ("URGENT … what do I do??"), an urgent question about something
  is not; slang praise ("отзывы огонь, спасибо") is no fire; sensors that "орут" sound.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.models.intent.recurrence import find_recurrence
from tests.models.support import INST, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Draft the press note. It is embargoed until Thursday 10:00.", [P]),
        ("Zestaw wyniki naboru. Do sesji rady obowiązuje embargo.", [P]),
        ("Сводку по грантам готовь, но она под эмбарго до заседания.", [P]),
        ("Minutes of the members' meeting — not for circulation until the board approves them.", [X, P]),
        ("Протокол пока не для распространения.", [X, P]),
        ("Nie rozpowszechniaj tej uchwały.", [X]),
        ("The 2022 register is closed — as far as you're concerned it's read-only.", [L]),
        ("Please don't update the theme while you're editing the page.", [INST]),
        ("Рассылку подготовь, отправку пока не запускай.", [X]),
        ("Nie odpalaj wysyłki przed premierą.", [X]),
        ("Don't launch the mailing before Monday.", [X]),
        ("Патч, кстати, ставим не раньше субботы.", [INST]),
        ("Klimy nie przestawiaj, technik już jedzie.", [F]),
        ("Фото со съёмки нигде не светим до релиза.", [P]),
        ("В общий чат не постить, там и так шумно.", [P]),
        ("Tego jeszcze nie postuj.", [P]),
    ],
)  # fmt: skip
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "The embargo is lifted, so post the results now.",
        "Prepare the release; there's no embargo on this one.",
        "Add the new members to the list and email them. No need to run the emails past me.",
        "Обнови программу, иначе декларацию не отправить.",
        "Zaktualizuj program, inaczej nie wyślemy deklaracji.",
        "Zestaw korekty, ale czekaj, dopóki główna księgowa tego nie zobaczy.",
        "Подготовь сверку и подожди, пока бухгалтер это не увидит.",
        "Build the on-call rota: four brokers, nobody on call the week before their own leave.",
        "Register the new tenants in the spreadsheet.",
        "Каждую пятницу составляй график дежурств. Пете субботу не ставь, он учится.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


def test_otherwise_as_a_discourse_marker_keeps_the_command() -> None:
    assert forbidden_effects("Check the totals. Otherwise, don't send anything to the bank.") == [X]


@pytest.mark.parametrize(
    "text", ["Пока никто не должен это увидеть.", "Klient nie może tego zobaczyć, dopóki nie podpiszemy umowy."]
)
def test_seeing_kept_from_someone_still_forbids(text: str) -> None:
    assert forbidden_effects(text) == [X]


def test_a_launching_verb_before_a_verb_of_its_own_keeps_its_own_class() -> None:
    assert forbidden_effects("Zabraniam go uruchamiać i instalować czegokolwiek.") == ["code_execution", INST]


#: A staffing level after the day, in a rota whose clauses the abbreviation "mec." splits.
GRAFIK = "Ułóż grafik na maj: pani Ewa ma urlop, mec. Nowak nie może w środy, a w piątki muszą być dwie osoby do aktów."


@pytest.mark.parametrize(
    ("text", "recurring"),
    [
        (GRAFIK, False),
        ("Составь график: по пятницам нужно минимум трое.", False),
        ("Every Friday we need two reports sent to the board.", True),
    ],
)
def test_staffing_after_a_day(text: str, recurring: bool) -> None:
    assert (find_recurrence(text) is not None) == recurring


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Before I answer the client: can we bill travel time at the full rate? Only asking.", "question"),
        ("After I approve it send it out.", "task"),
        (
            "Quick one before I reply: can we bill travel at the full rate, or only half? I just want the answer — "
            "nothing about it goes into the team chat.",
            "question",
        ),
        (GRAFIK, "task"),
        ("URGENT the stream just cut out for everyone and chat is melting down. what do I do??", "alarm"),
        ("Pilne! Strona z biletami padła dla wszystkich, co robimy?", "alarm"),
        ("Urgent question: what do we do about VAT on the deposit?", "question"),
        ("Всё, выставка открылась, отзывы огонь, спасибо за помощь!", "conversation"),
        ("Датчики влажности в хранилище с утра орут, глянь выгрузку sensors.csv.", "alarm"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
