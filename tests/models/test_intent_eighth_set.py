"""Kinds and prohibitions by form, eighth set, in en/pl/ru (issue 11, point 10): the forms heldout24 showed, in
phrasings of my own.

- a question opening the text, a remark after it ("What caused the outage on the 3rd? I forget."), a Russian
  "… ли" question, a verb of reminding that asks ("Напомни, почему…?"); a past failure ("nie działał", "last
  Tuesday's outage") is no emergency; a fault since a time of today, a machine that will not stop, water coming
  through a ceiling, sensors gone off right now are; "going forward" inside a sentence is no recurrence; "Нужен
  отчёт" asks for work, and so does a verb after an adverb of manner ("Кратко перескажи…");
- restarting runs code, or operates the device it restarts; a noun fronted before "nie rób" / "не делай"; a thing
  going into a record is written; a tracker kept as it is; speaking up to someone ("nie odzywaj się") sends; cutting
  the power is physical; "вноси" writes; "zmiany" after their leaders are shifts, not changes; "Z wysyłaniem
  wstrzymaj się" puts off the sending; a necessity in the past ("nie trzeba było") reports, it forbids nothing; a
  message going into a chat everyone reads ("ни сообщений в общий чат") is published.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a question opening the text, then a remark; a Russian "ли" question; reminding asks
        ("What caused the network outage on the 3rd? I only remember the firewall.", "question"),
        ("Czemu właściwie padła poczta dwa tygodnie temu? Nie pamiętam szczegółów.", "question"),
        ("Подписали ли мы уже договор с подрядчиком? Не помню, кто вёл.", "question"),
        ("Напомни, почему в марте стоял конвейер? Кажется, датчик.", "question"),
        ("Przypomnij mi, kiedy była ostatnia awaria klimatyzacji? Chyba w lipcu.", "question"),
        # a past failure is no emergency
        ("W sobotę system kasowy nie działał przez godzinę. Logi w załączniku, przygotuj raport.", "task"),
        ("The logs from last Friday's outage are attached for the review.", "conversation"),
        # a fault since a time of today; a machine that will not stop; water coming through; sensors gone off now
        ("Ops has it, don't touch anything. Payments have been failing since 09:15, what do the logs say?", "alarm"),
        ("the conveyor won't stop and the stop button does nothing, what now", "alarm"),
        ("Prasa nie chce się zatrzymać, odsunęliśmy ludzi!", "alarm"),
        ("there's water coming through the ceiling above the printers", "alarm"),
        ("Прямо сейчас сработали датчики движения на складе, посмотри камеры.", "alarm"),
        # "going forward" inside a sentence; a need; a verb after an adverb of manner
        ("Write up the incident and what we change going forward.", "task"),
        ("Нужен отчёт по сбою: хронология и причина.", "task"),
        ("Кратко перескажи эту статью для коллег.", "task"),
        ("Szybko sprawdź, które alerty są prawdziwe.", "task"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind, cue


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # restarting runs code, or operates the device it restarts
        ("Someone is already on it, so don't restart anything.", [C]),
        ("Nie restartuj serwera, tylko czytaj logi.", [C]),
        ("Don't restart the compressors.", [F]),
        ("Kamer nie ruszaj — żadnego restartowania ani wyłączania.", [F]),
        ("Станки и контроллеры остановлены, ничего не перезапускай.", [F]),
        # a noun fronted before a light verb
        ("Restartów nie rób, admin już jedzie.", [C]),
        ("Перезапусков не делай, инженер уже едет.", [C]),
        # a thing going into a record; a tracker kept as it is
        ("Nothing goes into the payroll system until I sign off.", [L]),
        ("The candidate tracker stays as it is.", [L]),
        # speaking up to someone; cutting the power; entering into a record
        ("Do klienta się nie odzywaj.", [X]),
        ("Щиток не обесточивай, электрик уже идёт.", [F]),
        ("В ведомость пока ничего не вноси.", [L]),
        ("Nie ruszaj sterownika, automatyk już jest w drodze.", [F]),
        # a message going into a chat everyone reads is published; letters and messages as nouns
        ("Ни писем, ни сообщений в общий чат.", [X, P]),
        ("No emails and no messages in the all-staff channel.", [X, P]),
        ("Żadnych maili ani wiadomości na kanale ogólnym.", [X, P]),
        ("Don't message the team channel.", [X]),
        # the sending fronted by "z", shifts named by their leaders
        ("Z wysyłaniem do kierowników zmian wstrzymaj się do piątku.", [X]),
        ("Z publikacją na stronie zmian w cenniku wstrzymaj się do poniedziałku.", [P]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # shifts, not changes
        ("Przygotuj grafik dla kierowników zmian na maj.", []),
        ("Trzy zmiany po osiem godzin, bez nocnej zmiany w weekendy.", []),
        # a necessity in the past reports what was (not) done
        ("Ночь прошла спокойно, ничего перезапускать не пришлось.", []),
        ("Nie trzeba było niczego wysyłać, wszystko poszło dobrze.", []),
        ("All quiet: nothing had to be restarted overnight.", []),
    ],
)
def test_forms_that_do_not(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)
