"""Kinds and prohibitions by form, eleventh set, in en/pl/ru (issue 11, point 10): the forms heldout27 showed, in
phrasings of my own.

- a wish in the past form over a verb of touching ("I'd rather you didn't touch the file");
- a particle after a longer object ("put the final one up on the noticeboard"); a verb of taking on with a place
  between it and the action ("Instalacją na serwerze zajmie się Tomek");
- a pronoun placed where a venue was named before ("napisz posta na fb …, ale nie wrzucaj go jeszcze");
- the last thing wanted ("Ostatnie, czego nam trzeba, to żeby…", "Последнее, что нам нужно, — чтобы…"); landing
  somewhere ("wylądowało na kanale"); a past of going after "żeby";
- a second action past a longer object after "or"/"ani"; the first place after a verb of placing decides between a
  website and a server;
- a chat for customers is theirs to read; switching a server off stops a service (code), its power or rack is
  hardware (physical);
- a negation told to someone else ("I told the guards not to delete…", "kazałem im nie kasować") binds them;
- kinds: "Just tell me…", "śmiało usuń…" command; a prohibition after a question asks for no work; a machine that
  stops every few minutes is an emergency; a "next time" sentence asks for nothing now.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a wish over touching
        ("Explain what the macro does; I'd rather you didn't touch the workbook.", [L]),
        ("I would prefer that you didn't touch the boiler, the engineer is coming.", [F]),
        # a particle after a longer object; taking on with a place between
        ("Make the rota, but don't put the approved version up on the staff board.", [P]),
        ("Ola will stick the final copy up on the noticeboard, not you.", [P]),
        ("Wdrożeniem na produkcji zajmie się Piotr, ty tylko zbuduj paczkę.", [INST]),
        ("Рассылкой клиентам в пятницу займётся Марина.", [X]),
        # a pronoun placed where a venue was named
        ("Napisz post na fanpage o promocji, ale jeszcze go nie wrzucaj.", [P]),
        ("Draft a notice for the parish website. Don't post it before Sunday.", [P]),
        ("Подготовь заметку для сайта, но пока её не выкладывай.", [P]),
        # the last thing wanted; landing; a past of going after "żeby"
        ("Ostatnie, czego chcę, to żeby ta lista wylądowała na stronie szkoły.", [P]),
        ("Ostatnia rzecz, której potrzebujemy, to żeby to poszło do klientów.", [X]),
        ("Последнее, что нам нужно, — чтобы это оказалось на сайте.", [P]),
        ("Nie chcę, żeby to wylądowało na tablicy.", [P]),
        # a second action after "or" past a longer object; the first place decides
        ("Don't update the booking app on the server or put the notice on the website.", [INST, P]),
        ("Nie instaluj łatki na serwerach ani nie wrzucaj komunikatu o wersji na stronę gminy.", [INST, P]),
        # a chat for customers
        ("Don't post it in the customers' channel yet.", [P]),
        ("Nie wrzucaj tego na kanał dla mieszkańców.", [P]),
        ("И в телеграм-канал для клиентов об этом не пиши.", [P]),
        # switching a server off
        ("Don't shut down the file servers, the backup is running.", [C]),
        ("Serwerów nie wyłączaj bez mojej zgody.", [C]),
        ("Серверы не гаси, пока я не скажу.", [C]),
        ("Nie wyłączaj zasilania serwerowni.", [F]),
        ("Don't power off the server rack.", [F]),
        ("Не гаси свет на складе.", [F]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        # told to someone else
        "I told the night shift not to delete the recordings, so they should all be there.",
        "I asked Tom not to send it before Friday.",
        "Powiedziałem Markowi, żeby nie wysyłał raportu klientowi.",
        "Kierowcom kazałem nie wyłączać chłodni na noc.",
        "Я велел охранникам не удалять записи.",
        "Tell the team not to publish the rota yet.",
        # not a prohibition, not a venue, not a stop of a server
        "Draft a notice for the website. Put it in my drafts folder.",
        "Plik wylądował wczoraj na stronie, wszystko działa.",
        "Wrzuć nową wersję strony na serwer testowy.",
        "Ostatnie zmiany w grafiku wyślij kierownikom.",
        "Последнее, что нужно сделать, — отправить отчёт бухгалтеру.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I told you not to send it to the client.",
        "Kazałem ci nie wysyłać tego klientowi.",
        "Prosiłem, żebyś tego nie wysyłał klientowi.",
        "As I told you, don't send it to the client.",
    ],
)
def test_a_negation_told_to_the_agent_still_forbids(text: str) -> None:
    assert forbidden_effects(text) == [X]


def test_a_chat_with_one_client_is_no_publication() -> None:
    assert forbidden_effects("Не пиши в чат клиенту.") == [X]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The totals in column D are off by one row. Just tell me the fixed formula.", "task"),
        ("Kopię zrobiłem rano, więc śmiało usuń z arkusza puste wiersze.", "task"),
        ("Копию я сделал, так что смело удаляй дубли из таблицы.", "task"),
        ("How long does a firmware update on the press controller take? Don't update anything, I'm only asking.",
         "question"),
        ("Ile trwa wymiana sterownika w piecu? Niczego nie ruszaj, pytam tylko o czas.", "question"),
        ("Сколько длится обновление прошивки на станке? Ничего не обновляй, просто скажи.", "question"),
        ("Line 2 keeps stopping and the motor is hot, help!", "alarm"),
        ("Pakowarka staje co kilka minut, a silnik się grzeje. Pomóż ocenić, co robić.", "alarm"),
        ("Конвейер останавливается каждые пять минут, мотор перегревается. Что делать?", "alarm"),
    ],
)  # fmt: skip
def test_kinds(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind, cue


@pytest.mark.parametrize(
    "text",
    [
        "Thanks for the rota last week, the staff loved it. Next time there's no need to wait for me, just put it on "
        "the board straight away.",
        "Dzięki za notatki, zarząd był zadowolony. Następnym razem nie czekaj na mnie, wrzuć je od razu na wiki.",
    ],
)
def test_a_next_time_sentence_asks_for_nothing_now(text: str) -> None:
    assert IntentClassifier().classify(text).kind == "conversation"


@pytest.mark.parametrize(
    "text",
    [
        "Pociąg staje co kilka przystanków, tak jest w rozkładzie.",
        "Станок останавливается каждые два часа по графику обслуживания.",
        "The booking app keeps crashing whenever someone sets a repeat; look into its crash log.",
    ],
)
def test_what_is_no_emergency(text: str) -> None:
    cue = kind_cue(text)
    assert cue is None or cue.kind != "alarm", cue
