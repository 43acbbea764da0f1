"""Labelled examples for the nearest-neighbour signal (English, Polish, Russian; all five kinds).

These are NOT the benchmark's utterances (bench/data/utterances.jsonl): the benchmark measures on phrasings the
classifier has not seen. Add a project's own confirmed classifications here (or pass them to the classifier) to
teach it a domain.
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
        ),
        "pl": (
            "Cześć, co słychać?",
            "Dziękuję bardzo, to mi pomogło.",
            "Dobry wieczór!",
            "Chciałem tylko powiedzieć, że raport był świetny.",
            "Do zobaczenia jutro.",
        ),
        "ru": (
            "Привет, как дела?",
            "Большое спасибо, это помогло.",
            "Добрый вечер!",
            "Хотел просто сказать, что отчёт был отличный.",
            "До завтра.",
        ),
    },
    "question": {
        "en": (
            "What is the deadline for the quarterly report?",
            "How many people are on the night shift?",
            "Why is the build slower than last week?",
            "Which camera recorded the most events?",
            "Is the backup finished?",
        ),
        "pl": (
            "Jaki jest termin raportu kwartalnego?",
            "Ile osób jest na nocnej zmianie?",
            "Dlaczego kompilacja jest wolniejsza niż w zeszłym tygodniu?",
            "Czy kopia zapasowa się skończyła?",
        ),
        "ru": (
            "Какой срок сдачи квартального отчёта?",
            "Сколько человек в ночной смене?",
            "Почему сборка медленнее, чем на прошлой неделе?",
            "Резервное копирование закончилось?",
        ),
    },
    "task": {
        "en": (
            "Draft a summary of the meeting notes.",
            "Compare the two offers and list the differences.",
            "Create a checklist for onboarding a new employee.",
            "Fix the failing unit test in the parser.",
            "Make a table of last month's expenses.",
        ),
        "pl": (
            "Napisz podsumowanie notatek ze spotkania.",
            "Porównaj dwie oferty i wypisz różnice.",
            "Stwórz listę kontrolną dla nowego pracownika.",
            "Zrób tabelę wydatków z zeszłego miesiąca.",
        ),
        "ru": (
            "Составь резюме заметок со встречи.",
            "Сравни два предложения и перечисли различия.",
            "Создай чек-лист для нового сотрудника.",
            "Сделай таблицу расходов за прошлый месяц.",
        ),
    },
    "process": {
        "en": (
            "Every Friday, compile the weekly sales figures.",
            "From now on, archive old tickets each night.",
            "Check the server logs daily and summarise the errors.",
            "Whenever a new invoice arrives, file it.",
        ),
        "pl": (
            "W każdy piątek zbierz tygodniowe dane sprzedaży.",
            "Od teraz archiwizuj stare zgłoszenia co noc.",
            "Codziennie sprawdzaj logi serwera i podsumuj błędy.",
            "Za każdym razem, gdy przyjdzie faktura, zapisz ją.",
        ),
        "ru": (
            "Каждую пятницу собирай недельные продажи.",
            "С этого момента архивируй старые заявки каждую ночь.",
            "Ежедневно проверяй логи сервера и своди ошибки.",
            "Всякий раз, когда приходит счёт, сохраняй его.",
        ),
    },
    "alarm": {
        "en": (
            "Smoke detected in the server room!",
            "The main database is down right now!",
            "Water leak on the second floor, urgent!",
            "Intruder alert at the back entrance!",
        ),
        "pl": (
            "Wykryto dym w serwerowni!",
            "Główna baza danych właśnie padła!",
            "Wyciek wody na drugim piętrze, pilne!",
            "Alarm: włamanie przy tylnym wejściu!",
        ),
        "ru": (
            "В серверной обнаружен дым!",
            "Основная база данных упала прямо сейчас!",
            "Протечка воды на втором этаже, срочно!",
            "Тревога: проникновение у заднего входа!",
        ),
    },
}

EXAMPLES: tuple[Example, ...] = tuple(
    Example(text, kind, language)
    for kind, by_language in _RAW.items()
    for language, texts in by_language.items()
    for text in texts
)
