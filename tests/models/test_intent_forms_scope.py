"""Prohibitions by form, second set, in en/pl/ru (issue 11, point 10): where the negation's scope reaches a
destination, an elliptic fragment, a fronted object or a verb of starting, and where it does not (a past fact, a
subjunctive's purpose, a lifted idiom, a prepositional "without"). Each case fails if the rule for its form is
removed; the phrasings are not the labelled splits' own.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.forbidden import forbidden_effects
from tests.models.support import INST, C, F, L, P, X


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a thing that must not reach a person or a place (a motion verb with its destination)
        ("The draft must not go to the parents before the head has seen it.", [X]),
        ("These figures should never reach the supplier.", [X]),
        ("The menu must not end up on our website this week.", [P]),
        ("Nothing goes back to the applicant yet.", [X]),
        ("Ten protokół nie może trafić do rodziców.", [X]),
        ("Grafik nie powinien trafić na stronę szkoły przed piątkiem.", [P]),
        ("Этот черновик не должен попасть к поставщику.", [X]),
        ("Протокол ни в коем случае не должен попасть в соцсети.", [P]),
        # fronted destination, postposed "не должно"
        ("В соцсети клуба это попасть не должно.", [P]),
        # purpose clause: the past form is a subjunctive
        ("Главное, чтобы письмо не ушло клиенту раньше пятницы.", [X]),
        ("Главное, чтобы афиша не ушла на сайт раньше времени.", [P]),
        # everyone as the destination: sent to them or put up for them
        ("Nothing goes out to the staff until I approve it.", [X, P]),
        # a venue's noun phrase with modifiers, social media as venues
        ("The poster: not on the school's Instagram page, please.", [P]),
        ("Ogłoszenie — nie na nasz szkolny fanpage.", [P]),
        # an elliptic fragment: a venue or a recipient, then "not yet"
        ("Prepare the price list. On the website - not yet.", [P]),
        ("Przygotuj cennik. Na Instagrama jeszcze nie.", [P]),
        ("Translate the letter. To the board - not yet.", [X]),
        ("Составь сводку. Бухгалтеру пока нет.", [X]),
        ("Napisz list. Do zarządu — jeszcze nie.", [X]),
        # not a word to someone
        ("Not a word to the tenants yet.", [X]),
        ("Kierowcom ani słowa, dopóki nie podpiszę.", [X]),
        ("Родителям пока ни слова.", [X]),
        # "you are not to …", "is not to be …"
        ("You are not to open the loading bay doors from the system.", [F]),
        ("The letter is not to be sent before Friday.", [X]),
        # a verb of starting passes the negation on, also to an object fronted before it
        ("Don't start the upgrade of the tills before Monday.", [INST]),
        ("Nie zaczynaj wysyłki zaproszeń.", [X]),
        ("Rozsyłki jeszcze nie zaczynajcie.", [X]),
        ("Не начинай рассылку до понедельника.", [X]),
        ("Установку на кассы пока не начинать.", [INST]),
        # a short verb doubles its consonant: "putting", "setting"
        ("Hold off on putting the results on the intranet.", [P]),
        # placing anywhere is publishing; "wystaw" is placing
        ("Nigdzie tego ogłoszenia nie wystawiaj.", [P]),
        ("Don't post it anywhere.", [P]),
        ("Никуда это не выкладывай.", [P]),
        # a prepositional "without" does not cancel the command after it
        ("Без моего ведома никому это не пересылай.", [X]),
        ("Bez mojej zgody niczego nie publikuj.", [P]),
        # a stop before a coordinated pair, and asking to be shown first
        ("Before you delete anything or run the cleanup script, wait for me.", [C, L]),
        ("Run it past me before it goes anywhere.", [X]),
        ("Pokaż mi projekt, zanim go wyślesz.", [X]),
        # too early for the clause's action
        ("Publikować na stronie jest jeszcze za wcześnie.", [P]),
        ("Рассылать клиентам пока рано.", [X]),
        ("It's too early to email the parents.", [X]),
        # taking the effect upon oneself
        ("Publikację biorę na siebie.", [P]),
        ("Рассылку беру на себя.", [X]),
        ("I'll handle the sending myself.", [X]),
        # confined to the speaker, kept inside, not your job
        ("Wyniki — tylko do mnie.", [X]),
        ("Итоги — только мне.", [X]),
        ("Keep the salary figures in-house.", [X]),
        ("Zestawienie zostaje wewnątrz firmy.", [X]),
        ("Installing it on the tills is not your job.", [INST]),
        # devices not handled, named before "bez"
        ("Zawory i pompy — bez ruszania.", [F]),
        # English names what is touched after the verb, not before
        ("check the print server timing log and dont touch the config files", [L]),
        # verbs of sending and editing without their diacritics or in slang
        ("Ссылку тестировщикам пока не кидай.", [X]),
        ("И ничего в этой таблице не правь.", [L]),
        ("Don't shred the signed originals.", [L]),
        ("Don't tack the notice to the corkboard yet.", [P]),
        ("Don't flash the new firmware onto the router.", [INST]),
        ("Nothing gets rolled out to the office laptops this week.", [INST]),
        ("Warianty proszę przesłać do mnie, do kierowników jeszcze nie.", [X]),
        # the eleventh split's forms, in other words
        ("It does not go out to the suppliers until I've signed it.", [X]),
        ("zero posts on the company blog until the launch", [P]),
        ("Nobody restarts the dryer to test it.", [F]),
        ("The office laptops are off limits this week.", [INST]),
        ("The gate motor: hands off.", [F]),
        ("The tenants must never lay eyes on these figures.", [X]),
        ("Not a single parent hears about this before the meeting.", [X]),
        ("Rodzice nie mogą się o tym dowiedzieć.", [X]),
        ("Никто из клиентов не должен об этом узнать.", [X]),
        ("Between you and me: the landlord must not get this.", [X]),
        ("These notes are for my inbox and nobody else's.", [X, P]),
        ("Raport ma trafić tylko do mnie, nikomu innemu.", [X, P]),
        ("I know you'd like to post it on our Instagram, but that pleasure is all mine.", [P]),
        ("Ogłoszenie niech poleży w szkicach.", [X]),
        ("The reply stays in my drafts for now.", [X]),
        ("Скрипты пусть подождут до понедельника.", [C]),
        ("Приглашения разошлём не раньше, чем директор подтвердит.", [X]),
        ("Wyniki opublikujemy nie wcześniej niż w piątek.", [P]),
        ("Send the rota not before Friday.", [X]),
        ("На сайт его выкладывать рано.", [P]),
        ("Na stronę pójdzie dopiero po recenzji.", [P]),
        ("Это пойдёт на стенд, но не раньше, чем юрист вычитает.", [P]),
        ("Przed premierą ani słowa w sieci.", [P]),
        ("Keep the ledger exactly as you found it.", [L]),
        ("The only copy of the log, so it stays byte for byte as it is.", [L]),
        ("Tabelę zostaw w tym samym stanie.", [L]),
        ("Surowy log ma przetrwać nietknięty.", [L]),
        ("Старые протоколы оставь в том виде, как есть, и никаких правок.", [L]),
        ("Stare protokoły zostają w spokoju, żadnych poprawek wstecz.", [L]),
        ("Arkusz jest święty: patrzymy, nie dotykamy.", [L]),
        ("Домофоны отсюда не дёргай.", [F]),
        # the twelfth split's forms, in other words: a place or people named in a gated or negated clause
        ("Na stronie nic się nie pojawia, dopóki szef tego nie zatwierdzi.", [P]),
        ("The intranet gets the rota only after I've signed it.", [P]),
        ("Our website will have to wait for the owner's blessing.", [P]),
        ("Ни один вариант не должен появиться на портале, пока директор не подпишет.", [P]),
        ("The drivers don't get a copy before I approve it.", [X]),
        ("Te raporty dostaję tylko ja.", [X]),
        ("Наружу отчёт пока не выпускай.", [X]),
        ("Клиенту и поставщику пока ничего не говорим.", [X]),
        ("The supplier doesn't hear from us until Friday.", [X]),
        ("Ответ пусть полежит под сукном до понедельника.", [X]),
        ("The board by the entrance is where notices go; this time it stays bare until Friday.", [P]),
        ("Treat the ledger as read-only and work on a copy.", [L]),
        ("Folder z umowami ma zostać w obecnym stanie.", [L]),
        ("Выгрузку оставь как есть.", [L]),
        ("С рассылкой ни-ни до пятницы.", [X]),
        ("Публикует графики только отдел кадров, не ты.", [P]),
        ("Strona i Allegro.pl muszą poczekać, aż wspólnik da zielone światło.", [P]),
        ("The social pages are mine to update.", [P]),
        # the thirteenth split's forms, in other words
        ("The noticeboard gets it when I say so, not before.", [P]),
        ("The order reaches the wholesaler on Friday at the earliest.", [X]),
        ("Just the text, please; the client gets it from me.", [X]),
        ("It goes up on the website eventually, but hold your horses on that one.", [P]),
        ("Installing it on the office laptop is for next week, not for today.", [INST]),
        ("Instalacja? Nie w tym tygodniu.", [INST]),
        ("The boiler stays shut - no opening it remotely.", [F]),
        ("Saving anything over the live file is a no-go.", [L]),
        ("The heating settings are not yours to play with.", [F]),
        ("Raport zostaje w dziale technicznym.", [X]),
        ("Zarząd dostanie go ode mnie.", [X]),
        ("Załoga dowie się ode mnie.", [X]),
        ("Tylko bez wrzucania tego na fejsa.", [P]),
        ("Na OLX wrzucę je sam.", [P]),
        ("Do klientów nic ode mnie nie idzie.", [X]),
        ("Plakat nie może zawisnąć w gablocie przed piątkiem.", [P]),
        ("Stanów magazynowych nie ruszaj.", [L]),
        ("Журнал для нас святое – никаких правок в нём.", [L]),
        # the fourteenth split's forms, in other words
        # someone else's domain: a thing that is run, an owner in the genitive, a choice, the noun of the domain itself
        ("The regression suite is Anna's territory; just build the candidate.", [C]),
        ("Zbuduj paczkę. Testy to działka Tomka.", [C]),
        ("Собери пакет. Скрипты — зона Олега.", [C]),
        ("Opisz błąd. Restart pieca to zadanie serwisanta.", [F]),
        ("Опиши сбой. Насосы — епархия механика.", [F]),
        ("Whatever the head chooses goes on the noticeboard - her choice.", [P]),
        ("Resetting the gate from the panel is the caretaker's call, not yours.", [F]),
        # a negative determiner
        ("Neither version may reach the landlord before Friday.", [X]),
        # leaking in Polish, entering a machine, landing on one
        ("Nic z tego nie może przeciec do prasy.", [X]),
        ("Na kasy w sklepie wejdzie najwcześniej w czerwcu.", [INST]),
        ("If anything lands on the office laptops before Monday, heads will roll.", [INST]),
        # a destination fronted a long way before its verb
        ("Na stronie naszej parafii też nic nie może się pojawić przed niedzielą.", [P]),
        # a feared consequence
        ("Pushing the update to the tills this week would be asking for trouble.", [INST]),
        ("Jeśli to trafi do prasy, głowa mi poleci.", [X]),
        ("Если это попадёт на сайт, мне конец.", [P]),
        # only to look
        ("Котлы — зона механика, так что только смотреть.", [F]),
        ("Pompy zostaw serwisowi, tylko patrzeć.", [F]),
        # read-only, said of a named document
        ("The ledger is read-only: the auditors rely on it.", [L]),
        ("Обе выгрузки — только на чтение.", [L]),
        ("Arkusz jest tylko do odczytu.", [L]),
        # not a sound
        ("Klientom ani mru-mru przed premierą.", [X]),
        ("Соседям — ни звука до собрания.", [X]),
        ("Not a peep to the tenants yet.", [X]),
        # too early for someone to know; an infinitive with its pronoun before "рано"
        ("Арендаторам об этом знать пока рано.", [X]),
        ("Рассылать его рано.", [X]),
        # draft nouns
        ("Набросай приглашение. Это только набросок, никому его не шли.", [X]),
        # letting a thing rest defers it, its subject dropped too
        ("Скрипты пусть пока спят.", [C]),
        ("Napisz makro. Niech na razie śpi.", [C]),
        ("Write the test plan. Let the tests sleep until Monday.", [C]),
        ("Напиши макрос. Пусть пока полежит.", [C]),
        # learning idioms, and a "must not" after the verb of seeing
        ("Our landlord mustn't get wind of the new lease before Friday.", [X]),
        ("The tenants must not find out about the rent rise yet.", [X]),
        ("Арендаторы эти расчёты видеть не должны.", [X]),
        ("Klienci nie mogą widzieć tych liczb.", [X]),
        # sending, imperfective
        ("Сводку напрямую бухгалтеру не шли.", [X]),
        # through the speaker
        ("Итоги в правление пойдут через меня.", [X]),
        ("Wyniki do zarządu pójdą przeze mnie.", [X]),
        ("The results go to the board through me.", [X]),
        # hung up anywhere is put up; social media as venues
        ("Grafik zawiśnie w pokoju socjalnym dopiero po akceptacji.", [P]),
        ("Во «ВКонтакте» из этого ничего не попадает.", [P]),
        # a state kept: "so", intact, "leave it be", a subject before a dash
        ("Kocioł pracuje na swoich ustawieniach i niech tak zostanie.", [F]),
        ("Насосы работают по своей программе, пусть так и остаётся.", [F]),
        ("The pumps run on their own schedule; keep them that way.", [F]),
        ("Arkusz z cenami, z którego korzysta księgowa – ma zostać nienaruszony.", [L]),
        ("The boiler - leave it be.", [F]),
        # meddling with a device
        ("К самому компрессору не лезь.", [F]),
        ("Don't meddle with the pumps.", [F]),
        # kept off a venue
        ("Keep the minutes off the club's Facebook page.", [P]),
        ("Trzymaj te zdjęcia z dala od strony szkoły.", [P]),
        ("Держи эти цифры подальше от сайта.", [P]),
        # our part is one thing: what else the sentence names is someone else's
        ("The IT firm handles the upgrade on the tills - our job is the checklist.", [INST]),
        ("Aktualizację na kasach robi serwis, nasza działka to instrukcja.", [INST]),
        ("Обновление на кассах ставит подрядчик, наше дело — инструкция.", [INST]),
        # a thing taken to a venue, then a deferral
        ("С плакатом на доску у входа погоди.", [P]),
    ],
)
def test_a_prohibition_in_scope_is_read(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        # a past fact under a negative subject
        "Last year nobody sent the rota to the harbour master, so email it to him this time.",
        "No one published the minutes last month.",
        "We never posted the timetable online before.",
        # a person moving, not a thing reaching anyone
        "Don't go to the office tomorrow; prepare the rota from home.",
        "Ни одно событие не должно попасть в отчёт дважды.",
        "Письмо так и не ушло клиенту.",
        # a lifted idiom of privacy
        "There's no reason to keep it under wraps, put it on the staff portal.",
        "Nie musisz trzymać tego w tajemnicy.",
        # a negated restraint or deferral
        "Сдерживаться с публикацией незачем — выложи лучший вариант на портал.",
        "nie musisz czekac z wyslaniem, wyslij od razu",
        # adverbs that begin like actions: "exclusively", "inclusive"
        "Przygotuj grafik do piątku włącznie.",
        "Составь график по пятницу включительно.",
        # a shared drive is a place, not a transmission
        "The old price list on the shared drive stays as it is; paste the new one here.",
        # a time of day, "your job" said affirmatively, "start worrying"
        "Отправь отчёт рано утром.",
        "Publishing the rota is your job.",
        "Don't start worrying about the rollout.",
        # a "not" that describes a place
        "Я это не на сайте видел.",
        # asking to see something with no action gated
        "Show me the results before lunch.",
        # existential and descriptive negations, things nobody sees, what is the speaker's
        "Разошли итоги всем участникам, секретов тут нет.",
        "Nobody will see a difference in the totals.",
        "The printer does not work since Monday.",
        "This idea is mine, send it to the board.",
        "Zero complaints this month, so send the rota to the staff as usual.",
        # the board that decides is not a noticeboard; a place talked about; running something past someone
        "The board gave its nod, so send the minutes to the residents.",
        "Don't worry about the website, just send the list to the team.",
        "The website is not working since Monday; find out why.",
        "No need to run it past me first, just send it.",
        "The locker room rota stays as it is.",
        # a report of how it went; an adjective "public"; a door that will not open is a fault
        "Quiet night: all doors stayed shut and the cameras were calm.",
        "Don't bother with public holidays, we're open anyway.",
        "Smoke in the laundry and the fire door on that corridor won't open - help!",
        # the fourteenth split's forms, and what they do not reach: a task for tomorrow, a past "neither", a person
        # entering a room, a trouble with no action in its condition, looking as a step, a report of silence,
        # letting someone rest
        "To zadanie na jutro: wyślij grafik do kierowników.",
        "Это задача на завтра — отправь график бригадирам.",
        "Neither of us sent the rota last week, so send it now.",
        "Kolega wejdzie do biura jutro, przygotuj mu grafik.",
        "If the printer jams again it'll be a nightmare, so send the rota by email.",
        "Look only at last week's totals and send them to the accountant.",
        "Read-only please: summarise the ledger.",
        "Not a peep from the alarms all night, thanks.",
        "Рано утром пришли мне сводку.",
        "Набросай приглашение и отправь его гостям.",
        "Let the kids sleep, then send the rota to the parents.",
        "Пусть он поспит, а ты отправь отчёт клиенту.",
        # a "mid-" compound, the speaker finding out, a past "шли", a past "through me", keeping off the grass, our job
        # that is an action, a fronted "with" that waits for nothing, a "niech tak zostanie" with nothing named
        "We're mid-run on the night shift till sunday, so send the rota tomorrow.",
        "I'll find out the prices myself; email the list to the supplier.",
        "Я видел эти расчёты, отправь их бухгалтеру.",
        "Они шли домой, когда сработала сигнализация.",
        "The results went through me last time, so send them to the board directly.",
        "Keep off the grass in the photos and post them on the website.",
        "Our job is to send the rota to the staff.",
        "Наше дело — отправить отчёт клиенту.",
        "С плакатом на доску всё в порядке.",
        "Niech tak zostanie, wyślij grafik do zespołu.",
    ],
)
def test_a_negation_out_of_scope_forbids_nothing(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Thanks a lot, the rota worked perfectly this month - not one complaint from the team 🙂",
        "Dzięki, grafik sprawdził się w tym miesiącu znakomicie, nikt się nie skarżył, wszyscy zadowoleni",
        "Спасибо, график отработал отлично, ни одной жалобы за весь месяц, все довольны",
    ],
)
def test_long_thanks_without_a_request_is_conversation(text: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and (cue.kind, cue.strong) == ("conversation", True)


@pytest.mark.parametrize(
    "text",
    [
        "Just wanted to say the rota you made worked a treat, not a single complaint this week. Cheers!",
        "The schedule worked perfectly this month, thanks a lot",
        "Спасибо, всё прошло отлично",
    ],
)
def test_a_remark_or_thanks_for_what_went_well_is_conversation(text: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and (cue.kind, cue.strong) == ("conversation", True)


def test_thanks_followed_by_a_request_is_a_task() -> None:
    cue = kind_cue("Thanks for the rota. Now prepare the April one in two versions and don't publish it.")
    assert cue is not None and cue.kind == "task"


@pytest.mark.parametrize(
    "text",
    [
        "The fire inspector checked the bakery today and signed it all off. Great news!",
        "Dziś ewakuacja próbna w szkole poszła świetnie, wszyscy wyszli w trzy minuty.",
        "Провели учебную эвакуацию в школе, всё прошло спокойно. Просто хотела поделиться!",
    ],
)
def test_an_inspection_or_a_training_evacuation_is_no_emergency(text: str) -> None:
    cue = kind_cue(text)
    assert cue is None or cue.kind != "alarm"


@pytest.mark.parametrize(
    "text",
    [
        "Fire in the bakery, flames in the oven room!",
        "Ogłoszono ewakuację, dym na korytarzu!",
        "Эвакуация, дым в коридоре!",
    ],
)
def test_a_real_fire_or_evacuation_still_is(text: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == "alarm"
