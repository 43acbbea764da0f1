"""Prohibitions by form, third set, in en/pl/ru (issue 11, point 10): building and testing software as steps that
run code, skipping a step named before its verb, sensors as devices, and where a negation does not reach (a
negative-concord recipient, the expletive "не" of a Russian or Polish until-clause, a "without" that tells what
happened, a reported past, the place a kept thing is in). Each case fails if the rule for its form is removed; the
phrasings are not the labelled splits' own.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # building, compiling and testing run the project's code
        ("Make the candidate and show the diff, but no builds today.", [C]),
        ("Show me the diff; don't compile anything yet.", [C]),
        ("Pokaż różnice w kodzie, nie kompiluj projektu.", [C]),
        ("Покажи дифф и не собирай его пока.", [C]),
        ("Подготовь кандидата. Без сборки, пожалуйста.", [C]),
        # deferred: the step named before a verb of waiting
        ("Compiling can wait until the review is done.", [C]),
        ("Testowanie może poczekać do piątku.", [C]),
        # skipped: the step named before a verb of letting go or skipping, in its own clause
        ("Przygotuj kandydata. Kompilację na razie odpuść.", [C]),
        ("Przygotuj kandydata, testy pomiń.", [C]),
        ("Подготовь кандидата, тесты пропусти.", [C]),
        ("Przygotuj kandydata i pokaż diff. Testy sobie darujmy.", [C]),
        # a test of a device operates it
        ("Don't test the sirens during opening hours.", [F]),
        # sensors and detectors are devices; resetting or silencing them operates them
        ("Check the smoke detector log and don't reset any detector.", [F]),
        ("Never mute or disable the sensors in the cold store.", [F]),
        ("Don't reset or mute any of the sensors.", [F]),
        ("Przejrzyj log, ale czujek nie resetuj.", [F]),
        ("Посмотри журнал, датчики не отключай.", [F]),
        # a device that is someone else's care or duty
        ("Ворота — забота сторожа, ты только смотри журнал.", [F]),
        ("Szlaban to obowiązek ochrony, ty tylko czytaj log.", [F]),
        # a Polish dative recipient of telling
        ("Klientom na razie nic nie mów o zmianach.", [X]),
        # contacting, in Russian
        ("Сравни предложения и ни с кем не связывайся.", [X]),
        # replacing a file writes it; a diminutive of a table is a table
        ("Przetłumacz regulamin. Oryginału nie podmieniaj.", [L]),
        ("Не подменяй исходный файл, сохрани перевод рядом.", [L]),
        ("Исходную табличку не трогай вообще.", [L]),
        # a state said right after its verb keeps the thing named last, even in a question before it
        ("The old export? Leave as is.", [L]),
        ("Журнал? Оставь как есть.", [L]),
        # a public venue beside a chat in one clause: put up for all, not only sent to a group
        ("Протокол на сайт и в телеграм-канал завода не выкладывать.", [P]),
        # rolling out (ru)
        ("Не раскатывай это на кассы.", [INST]),
        # a condition gates every action named as a noun with the gated one
        ("Publikacja grafiku i jego wysyłka tylko po mojej akceptacji.", [P, X]),
        # a refusal answers the question before it
        ("Publishing it on the website? Out of the question.", [P]),
        ("Рассылка клиентам? Исключено.", [X]),
        # a device kept in its position
        ("The barrier stays down.", [F]),
        ("Шлагбаум остаётся опущенным.", [F]),
        # the topic before a dash is what waits
        ("Ставить новую версию – подожди до моего ОК.", [INST]),
        # "doesn't" with a gate after it lays down a rule, as "does not" does
        ("The package doesn't go on the office laptops until IT has checked it.", [INST]),
        # an until-clause that names the command it waits for holds that command back
        ("Szkic zostaje szkicem, dopóki nie powiem „wysyłaj”.", [X]),
        ("Ждём, пока я не скажу «публикуй».", [P]),
    ],
)
def test_steps_devices_and_recipients(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a build or a test as a thing: the object of another action, an adjective, a house
        ("Upload the build only after I approve it.", [X]),
        ("Publish the test results only after I approve them.", [P]),
        ("Nie ruszaj telefonów testowych.", []),
        ("Nothing leaves the building until Monday.", [X]),
        ("Build the candidate, test it and show me the diff.", []),
        # a negative-concord word after the negated verb is its recipient, not a second negation
        ("Nie wysyłaj nikomu raportu z wdrożenia.", [X]),
        ("Не пересылай никому протокол об установке.", [X]),
        # the "не"/"nie" of an until-clause with its own subject negates nothing
        ("С выкладкой подожди, пока Олег не проверит изменения.", [P]),
        ("Z publikacją poczekaj, dopóki Ola nie przejrzy zmian.", [P]),
        # ... while "пока" as "for now" keeps its negation
        ("Пока ничего не меняй в таблице.", [L]),
        # a "without" after a past tense tells what happened; a reported past after "nobody" too
        ("Last time we shipped it without any tests, so run the full suite now.", []),
        ("Ostatnio wdrożyliśmy bez testów, więc teraz puść całą baterię.", []),
        ("Nobody ran any tests on it last quarter, so just look at the logs.", []),
        # where a kept thing is, is not a second kept thing
        ("Check the timings and leave the config files on the web servers untouched.", [L]),
        # words that begin like "send" and are not it; a present "doesn't" without a gate describes
        ("Napisz życzenia dla szefowej, ale nie przesłodzone.", []),
        ("It doesn't work since Monday, find out why.", []),
        # a reassurance forbids nothing, even where no reader claims its verb
        ("Не переживай насчёт сервера, гоняй тесты сколько нужно.", []),
        ("Don't care about the noticeboard, just write the rota.", []),
        # ... while "the rest" kept names nothing
        ("Popraw plik konfiguracyjny, resztę zostaw jak jest.", []),
        # a device naming a record is the record; a command after a dash is its own; "Marek" is no modal ("ma")
        ("Keep the camera log untouched.", [L]),
        ("Черновик можно не придерживать - отправляй всем.", []),
        ("The machine is off.", []),
        # ... and a condition on the second of two commands is the second's alone
        ("Write the summary and send it only once I approve.", [X]),
        # a permutation test is not "stop" (перестань)
        ("Что такое перестановочный тест?", []),
    ],
)
def test_where_the_negation_does_not_reach(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)
