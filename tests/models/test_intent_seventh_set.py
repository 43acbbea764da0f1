"""Kinds and prohibitions by form, seventh set, in en/pl/ru (issue 11, point 10). The forms heldout23 showed, in
phrasings of my own (not the split's):

- a danger word that only names what a record or a device is about is no emergency ("the outage report", "czujki
  dymu", "отчёт по аварии"), nor one in a condition ("jeśli padły", "if it crashes"); a device sounding now, a
  fault lasting until now ("for the last 10 min", "od kwadransa", "и растёт"), someone in a relative clause trying
  to cut a fence: emergencies;
- a count over shifts and a convenience ("whenever you get to it") are no recurrence; "po każdej odprawie",
  "после каждой планёрки", "every Friday" are;
- a stated need ("Нужны хронология и отчёт") asks for work; a verb after a leading phrase in Polish and Russian
  ("Z nagrania wyciągnij…") commands; an alternative question after a question is no request;
- placing into a file place writes local files; a shared drive is a place, not a sharing; a chat named after a
  motion verb ("go up on the team's shared channel") publishes or sends; commands are code; a past state ("stayed
  within range") keeps nothing in; "удалёнщики" are remote workers, not deleting; writing into a document
  writes a local file ("nie pisz nic do dokumentu"), writing to a person sends; a second place after a disjunction
  takes the same verb ("nie wrzucaj go do folderu ani na stronę").

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import C, L, P, X


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a record or a device named by its danger word; a danger in a condition
        ("The outage report from Tuesday: what was the root cause in the end?", "question"),
        ("Thanks, the flood report came out great, the board was happy.", "conversation"),
        ("Dzięki, raport z pożaru wyszedł świetnie, szef nie miał uwag.", "conversation"),
        ("Oto log czujek dymu z weekendu, sprawdź, które są fałszywe.", "task"),
        ("Вот журнал датчиков протечки за неделю. Разбери, какие срабатывания ложные.", "task"),
        ("Спасибо, отчёт по пожару получился отличный.", "conversation"),
        ("Z nagrania spotkania wyciągnij zadania, z terminami jeśli padły.", "task"),
        # a device sounding now; a fault lasting until now; someone trying to cut a fence
        ("The siren in hall B is wailing and nobody knows why, check the alert feed.", "alarm"),
        ("W magazynie wyje syrena, zobacz w alertach, co się dzieje.", "alarm"),
        ("the login page is throwing 500s for the last 15 minutes, pull the logs and tell me why", "alarm"),
        ("sklep internetowy leży od pół godziny, sprawdź logi z serwera", "alarm"),
        ("Температура в серверной 38 градусов и растёт, посмотри журнал алертов.", "alarm"),
        ("Kamera pokazuje jakiegoś typa, który próbuje przeciąć siatkę przy rampie.", "alarm"),
        ("Some guy is trying to cut through the fence at the back gate.", "alarm"),
        # a fire brigade is no fire
        ("The fire department visit went fine, thanks for setting it up.", "conversation"),
        # a count over shifts, a convenience, recurrences after each meeting
        ("We need the June rota: at least 4 on every shift. Draft two versions.", "task"),
        ("Can you sort these invoices? Whenever you get to it is fine.", "task"),
        ("Whenever a new invoice arrives, check it against the order.", "process"),
        ("Po każdej odprawie zrób notatkę z nagrania.", "process"),
        ("После каждой планёрки готовь протокол и список задач.", "process"),
        ("Каждую последнюю пятницу месяца готовь отчёт по сменам.", "process"),
        ("Опиши каждый шаг этого скрипта.", "task"),
        # a stated need; an alternative question after a question
        ("Вот запись совещания. Нужны протокол и список задач.", "task"),
        ("Potrzebne są trzy warianty grafiku na maj z urlopami.", "task"),
        ("Looking at Friday's incident — what caused it in the end? The disk or the network?", "question"),
        ("Patrząc na wtorkowy raport — co było przyczyną? Zasilacz czy dysk?", "question"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind, cue


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # placing into a file place
        ("Clean the list, but don't upload it to the team drive.", [L]),
        ("Nie wrzucaj raportu do wspólnego folderu działu.", [L]),
        ("Отчёт в общую папку не закидывай.", [L]),
        # a shared drive is a place: the action of its clause is what "not this time" forbids
        ("Usually you'd save it back to the shared drive, but not this time.", [L]),
        # a chat named after a motion verb: everyone's publishes, a group's sends
        ("The draft shouldn't go up on the department's shared channel.", [P]),
        ("The figures must not go up on the project team channel.", [P]),
        # writing into a file writes local files; writing to a person sends
        ("Don't write to the shared doc yet.", [L]),
        ("Nie pisz nic do dokumentu projektu.", [L]),
        ("Ничего не пиши в документ с планом.", [L]),
        ("Не пиши клиенту, пока я не проверю.", [X]),
        # a second place for the same verb, after a disjunction, with no verb of its own
        ("Don't put the file in the shared folder or on the intranet.", [L, P]),
        ("Nie wrzucaj tego na stronę ani do folderu.", [L, P]),
        ("Не закидывай отчёт в общую папку или на сайт.", [L, P]),
        ("Don't send it to Anna or to the board.", [X]),
        # a motion verb coordinated with another shares its subject
        ("Under no circumstances should the notes leave this room or end up on the intranet.", [X, P]),
        ("The figures must not leave the building or go up on the website.", [X, P]),
        # commands are code
        ("Nie puszczaj żadnych komend na serwerze, tylko czytaj logi.", [C]),
        ("Don't fire any commands on the boxes until I say so.", [C]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a past state and a measure's bounds keep nothing in
        ("Good news: the freezer temperatures stayed within range all weekend.", []),
        ("Good: the drafts stayed with us the whole time, as you wanted.", []),
        ("Make sure the readings stay within limits and send me the summary.", []),
        # remote workers and remote access are not deleting
        ("Полтора часа никто из удалёнщиков не мог подключиться, разбери логи.", []),
        ("Удалённо ничего не получилось, разберись с доступом.", []),
        # a shared drive named as where the data is
        ("The export is on the shared drive; build the rota from it.", []),
    ],
)
def test_forms_that_do_not(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)
