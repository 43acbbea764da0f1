"""Kinds and prohibitions by form, thirteenth set, in en/pl/ru (issue 11, point 10): the forms heldout29 showed
(dictated text, formal letters, terse commands, prohibitions said by a noun, an adjective or a verb of forbidding),
in phrasings of my own.

- forbidding, by the speaker or as a rule: "I forbid…", "zabraniam…", "запрещаю…", "… is not allowed", "…
  zabroniony", "не смей …" (a stopped device named before its pronoun); not when negated ("я не запрещаю тебе…":
  leave), not when borne by someone else ("he's not allowed to…", "ей запрещено…", "подрядчику запрещено…"), not a
  gate that belongs to a message's content ("tell him he's not allowed to push until the review");
- read-only, said without a verb ("oryginalny plik tylko do odczytu", "исходники только для чтения") or as access
  ("read-only access to the HR database");
- noun prohibitions of technical steps: "bez redeployu i bez restartu podów", "никаких push" after a repository was
  named, "merge в main и deploy без меня не делать", "Distribution … is not permitted";
- "if you want to change X, ask me first": the action of the condition waits; "upload the file to the portal"
  sends the file (a file is a destination only after a preposition); "без меня" is "without me", no edit;
- "no running anything on my machine" runs code on a computer; "vents and heaters untouched" (verbless) and "the
  siren stays silent" keep devices as they are; "проверяй, не упал ли сайт" is an indirect question;
- kinds: a polite request after lead words ("ok so can you…"); a bare request with a prohibition is a task ("Grafik
  na maj, żadnego wywieszania"); a system down ("prod leży"), a machine grinding or overheating, people stuck in a
  lift, a fault over the last hour are emergencies.

Each case fails if the rule for its form is removed.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # forbidding
        ("Summarise the audit findings. I forbid sending them to anyone outside the board.", [X]),
        ("Sprawdź skrypt migracji, zabraniam go uruchamiać na produkcji.", [C]),
        ("Проверь настройки, запрещаю что-либо устанавливать на кассы.", [INST]),
        ("Rebooting the payment terminals is not allowed during opening hours.", [C]),
        ("Uploading the file to the customer portal is prohibited until legal signs off.", [X]),
        ("Wysyłka faktur zabroniona do poniedziałku.", [X]),
        ("Публикация на сайте запрещена до решения директора.", [P]),
        ("Котёл гудит и трясётся, выключать его сам не смей, жди техника.", [F]),
        ("Конвейер скрежещет, останавливать его сам не смей.", [F]),
        # read-only
        ("Merge the two guest lists, the original file read-only.", [L]),
        ("Сравни две таблицы, исходники только для чтения.", [L]),
        ("Policz nadgodziny, arkusz kadrowy tylko do odczytu.", [L]),
        ("You get read-only access to the stock database for this.", [L]),
        # technical steps by noun; distribution
        ("Sprawdź logi, ale bez redeployu i bez restartu kontenerów.", [C, INST]),
        ("The key leaked in our GitHub repo. Help me rotate it, but no push.", [X]),
        ("Собери changelog, merge в master и выкатку без меня не делать.", [INST, X]),
        ("Distribution of the minutes is not permitted before the chair has read them.", [X]),
        # a computer, not a device; devices kept as they are
        ("Just explain the error, no running anything on my machine.", [C]),
        ("Read the sensor log, pumps and valves untouched.", [F]),
        ("Someone is at the back door; the alarm siren stays silent, police want to catch him.", [F]),
        # asking first; a file sent to a portal; "без меня" is "without me"
        ("If you want to change anything in the price list, ask me first.", [L]),
        ("Jeśli zechcesz coś poprawić w bazie klientów, najpierw zapytaj mnie.", [L]),
        ("Если захочется что-то поправить в таблице — сначала спроси меня.", [L]),
        ("Don't upload the file to the customer portal yet.", [X]),
        ("Don't upload the file to their FTP yet.", [X]),
        ("Собери changelog, merge в master без меня не делать.", [X]),
    ],
)
def test_forms_that_forbid(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        # leave given; someone else bears it; a message's content
        "я не запрещаю тебе перезапускать сервис, если он опять зависнет",
        "Nie zabraniam ci wysłać tego klientowi.",
        "I don't forbid you to restart it if it hangs again.",
        "Text Tom that he's not allowed to publish the photos until the client approves.",
        "Message Jake on Slack telling him he's not allowed to merge anything until the review is done.",
        "Напиши Ане, что ей запрещено выкладывать фото со склада.",
        "В договоре написано, что подрядчику запрещено ставить своё ПО на наши машины, это нормально?",
        "I've told the team nobody publishes the survey before Monday. Have a good weekend!",
        # an indirect question; a description; only the verb's object
        "каждое утро проверяй, не упал ли сайт, и пиши мне в Телеграм",
        "The files were untouched when I checked this morning.",
        "I only have read-only access to the database, can you help?",
        "If anything is unclear, ask me first.",
    ],
)
def test_forms_that_do_not(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Напиши поздравление коллеге. В общий канал не выкладывай и ей не отправляй.", [P, X]),
        ("Draft a reply to them - dont send it yet.", [X]),
    ],
)
def test_a_recipient_before_a_command_is_no_bearer(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("ok so can you put together the cleaning rota for june and uh dont post it anywhere", "task"),
        ("ok so can you put together the cleaning rota for june", "task"),
        ("Grafik na czerwiec, żadnego wywieszania.", "task"),
        ("Call recording to minutes, zero emails out.", "task"),
        ("Протокол по записи планёрки, никаких рассылок.", "task"),
        ("prod leży od deployu, 502 na wszystkim, przejrzyj logi", "alarm"),
        ("Сервер магазина лежит, заказы не проходят, помоги разобраться.", "alarm"),
        ("The mixer is making a grinding noise and the motor is overheating, what do I do?", "alarm"),
        ("Dwaj kurierzy utknęli w windzie między piętrami, co robić?", "alarm"),
        ("Pani w poczekalni słabnie, co robić?", "alarm"),
        ("Насос скрежещет, помоги понять, в чём дело.", "alarm"),
        ("Сайт грузится в десять раз дольше за последний час, клиенты жалуются, что делать?", "alarm"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind
