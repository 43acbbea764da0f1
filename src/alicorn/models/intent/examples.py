"""Labelled examples for the nearest-neighbour signal (English, Polish, Russian; all five kinds).

These are NOT the benchmark's utterances (bench/data/utterances.jsonl) nor its requests (bench/data/requests_*.jsonl):
the benchmark measures on phrasings the classifier has not seen. Besides the plain kinds, they cover what the words'
structure decides: recurring schedules (process), emergencies that name no alarm and calm reports (alarm /
conversation), prohibitions by deferral, reminders and negated prohibitions (task), descriptions of what was not done
(conversation) and questions whether it was (question). Add a project's own confirmed classifications here (or pass
them to the classifier) to teach it a domain.
"""

from __future__ import annotations

from alicorn.models.intent.embed import Example

_RAW: dict[str, dict[str, tuple[str, ...]]] = {
    "conversation": {
        "en": (
            "Hi there, how is your day going?",
            "Thanks a lot, that was helpful.",
            "Good evening!",
            "I just wanted to say the report looked great.",
            "Haha, that's funny.",
            "See you tomorrow.",
            "All quiet on the night shift, nothing to report.",
            "The invoices were not sent last week.",
        ),
        "pl": (
            "Cześć, co słychać?",
            "Dziękuję bardzo, to mi pomogło.",
            "Dobry wieczór!",
            "Chciałem tylko powiedzieć, że raport był świetny.",
            "Do zobaczenia jutro.",
            "Noc minęła spokojnie, bez zdarzeń.",
            "Faktury nie zostały wysłane w zeszłym tygodniu.",
        ),
        "ru": (
            "Привет, как дела?",
            "Большое спасибо, это помогло.",
            "Добрый вечер!",
            "Хотел просто сказать, что отчёт был отличный.",
            "До завтра.",
            "Всё спокойно, происшествий нет.",
            "Счета не были отправлены на прошлой неделе.",
        ),
    },
    "question": {
        "en": (
            "What is the deadline for the quarterly report?",
            "How many people are on the night shift?",
            "Why is the build slower than last week?",
            "Which camera recorded the most events?",
            "Is the backup finished?",
            "Have we not sent the invoices yet?",
        ),
        "pl": (
            "Jaki jest termin raportu kwartalnego?",
            "Ile osób jest na nocnej zmianie?",
            "Dlaczego kompilacja jest wolniejsza niż w zeszłym tygodniu?",
            "Czy kopia zapasowa się skończyła?",
            "Czy nie wysłaliśmy już faktur?",
        ),
        "ru": (
            "Какой срок сдачи квартального отчёта?",
            "Сколько человек в ночной смене?",
            "Почему сборка медленнее, чем на прошлой неделе?",
            "Резервное копирование закончилось?",
            "Разве мы не отправили счета?",
        ),
    },
    "task": {
        "en": (
            "Draft a summary of the meeting notes.",
            "Compare the two offers and list the differences.",
            "Create a checklist for onboarding a new employee.",
            "Fix the failing unit test in the parser.",
            "Make a table of last month's expenses.",
            "Draft the announcement but hold off on posting it.",
            "Don't forget to email the minutes to the board.",
            "No need to wait, publish the roster.",
            "Review last week's door alarms and list the false ones.",
        ),
        "pl": (
            "Napisz podsumowanie notatek ze spotkania.",
            "Porównaj dwie oferty i wypisz różnice.",
            "Stwórz listę kontrolną dla nowego pracownika.",
            "Zrób tabelę wydatków z zeszłego miesiąca.",
            "Przygotuj ogłoszenie, ale wstrzymaj się z publikacją.",
            "Nie zapomnij opublikować grafiku.",
            "Nie czekaj z wysyłką, wyślij od razu.",
            "Przejrzyj alarmy drzwi z zeszłego tygodnia i wypisz fałszywe.",
        ),
        "ru": (
            "Составь резюме заметок со встречи.",
            "Сравни два предложения и перечисли различия.",
            "Создай чек-лист для нового сотрудника.",
            "Сделай таблицу расходов за прошлый месяц.",
            "Подготовь объявление, но отложи публикацию.",
            "Не забудь разослать протокол.",
            "Не надо ждать, опубликуй график.",
            "Просмотри тревоги дверей за прошлую неделю и выпиши ложные.",
        ),
    },
    "process": {
        "en": (
            "Every Friday, compile the weekly sales figures.",
            "From now on, archive old tickets each night.",
            "Check the server logs daily and summarise the errors.",
            "Whenever a new invoice arrives, file it.",
            "Every Tuesday at 9 send me the open tickets.",
            "Each night at 23:00 back up the project folder.",
            "Every 30 minutes check the queue length.",
        ),
        "pl": (
            "W każdy piątek zbierz tygodniowe dane sprzedaży.",
            "Od teraz archiwizuj stare zgłoszenia co noc.",
            "Codziennie sprawdzaj logi serwera i podsumuj błędy.",
            "Za każdym razem, gdy przyjdzie faktura, zapisz ją.",
            "We wtorki o 9 przysyłaj mi otwarte zgłoszenia.",
            "Co noc o 23 rób kopię folderu projektu.",
            "Co 30 minut sprawdzaj długość kolejki.",
        ),
        "ru": (
            "Каждую пятницу собирай недельные продажи.",
            "С этого момента архивируй старые заявки каждую ночь.",
            "Ежедневно проверяй логи сервера и своди ошибки.",
            "Всякий раз, когда приходит счёт, сохраняй его.",
            "По вторникам в 9 присылай открытые заявки.",
            "Каждую ночь в 23:00 делай копию папки проекта.",
            "Каждые 30 минут проверяй длину очереди.",
        ),
    },
    "alarm": {
        "en": (
            "Smoke detected in the server room!",
            "The main database is down right now!",
            "Water leak on the second floor, urgent!",
            "Intruder alert at the back entrance!",
            "Someone is climbing over the fence at the back!",
            "Water is pouring out of the ceiling in the archive.",
        ),
        "pl": (
            "Wykryto dym w serwerowni!",
            "Główna baza danych właśnie padła!",
            "Wyciek wody na drugim piętrze, pilne!",
            "Alarm: włamanie przy tylnym wejściu!",
            "Ktoś wspina się na ogrodzenie za magazynem!",
            "Z sufitu w archiwum leje się woda.",
        ),
        "ru": (
            "В серверной обнаружен дым!",
            "Основная база данных упала прямо сейчас!",
            "Протечка воды на втором этаже, срочно!",
            "Тревога: проникновение у заднего входа!",
            "Кто-то лезет через забор за складом!",
            "Из потолка в архиве хлещет вода.",
        ),
    },
}

EXAMPLES: tuple[Example, ...] = tuple(
    Example(text, kind, language)
    for kind, by_language in _RAW.items()
    for language, texts in by_language.items()
    for text in texts
)
