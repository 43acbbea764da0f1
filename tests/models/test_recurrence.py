"""Reading a recurring schedule from the words (models/intent/recurrence.py), in English, Polish and Russian."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from alicorn.models.intent.recurrence import Recurrence, find_recurrence


@pytest.mark.parametrize(
    ("text", "frequency", "interval", "weekdays", "at", "cron"),
    [
        # weekly, with a weekday and a time
        ("Every Monday at 8 prepare the schedule.", "weekly", 1, [0], "08:00", "0 8 * * 1"),
        ("Co poniedziałek o 8 przygotuj grafik.", "weekly", 1, [0], "08:00", "0 8 * * 1"),
        ("Каждый понедельник в 8 утра готовь график.", "weekly", 1, [0], "08:00", "0 8 * * 1"),
        # several weekdays, a plural weekday
        ("On Mondays and Thursdays at 9:15 check the logs.", "weekly", 1, [0, 3], "09:15", "15 9 * * 1,4"),
        ("W każdy wtorek i czwartek o 16 sprawdź logi.", "weekly", 1, [1, 3], "16:00", "0 16 * * 2,4"),
        ("По понедельникам и пятницам в 7 вечера проверяй склад.", "weekly", 1, [0, 4], "19:00", "0 19 * * 1,5"),
        ("We wtorki o 10:00 wysyłaj raport.", "weekly", 1, [1], "10:00", "0 10 * * 2"),
        # every N hours / minutes
        ("Every 2 hours check the backup status.", "hourly", 2, [], None, "0 */2 * * *"),
        ("Co 2 godziny sprawdzaj kopię zapasową.", "hourly", 2, [], None, "0 */2 * * *"),
        ("Каждые 2 часа проверяй резервную копию.", "hourly", 2, [], None, "0 */2 * * *"),
        ("Every 15 minutes ping the gateway.", "minutely", 15, [], None, "*/15 * * * *"),
        ("Co 10 minut sprawdzaj kolejkę.", "minutely", 10, [], None, "*/10 * * * *"),
        ("Каждые 5 минут проверяй очередь.", "minutely", 5, [], None, "*/5 * * * *"),
        ("Every hour refresh the dashboard.", "hourly", 1, [], None, "0 * * * *"),
        ("Twice a day pull the ticket backlog.", "hourly", 12, [], None, "0 */12 * * *"),
        # daily: adverbs, parts of the day, times
        ("Every day at 7:45 send me the summary.", "daily", 1, [], "07:45", "45 7 * * *"),
        ("Codziennie o 6:30 sprawdź temperaturę.", "daily", 1, [], "06:30", "30 6 * * *"),
        ("Ежедневно в 22:00 архивируй логи.", "daily", 1, [], "22:00", "0 22 * * *"),
        ("Each morning summarise the alarms.", "daily", 1, [], None, "0 8 * * *"),
        ("Codziennie rano podsumuj alarmy.", "daily", 1, [], None, "0 8 * * *"),
        ("Каждое утро своди тревоги.", "daily", 1, [], None, "0 8 * * *"),
        ("Check the server logs daily.", "daily", 1, [], None, "0 0 * * *"),
        ("Every other day rotate the keys.", "daily", 2, [], None, "0 0 */2 * *"),
        # weekdays
        ("Every weekday at 9 post the stand-up reminder.", "weekly", 1, [0, 1, 2, 3, 4], "09:00", "0 9 * * 1-5"),
        ("W dni robocze o 7:45 wyślij raport.", "weekly", 1, [0, 1, 2, 3, 4], "07:45", "45 7 * * 1-5"),
        ("По будням в 8:00 проверяй почту.", "weekly", 1, [0, 1, 2, 3, 4], "08:00", "0 8 * * 1-5"),
        # weekly without a day, every N weeks
        ("Weekly, send me the sales figures.", "weekly", 1, [], None, "0 0 * * 1"),
        ("Co tydzień przysyłaj mi dane sprzedaży.", "weekly", 1, [], None, "0 0 * * 1"),
        ("Раз в неделю присылай мне данные продаж.", "weekly", 1, [], None, "0 0 * * 1"),
        ("Every other Friday at 5 pm send the invoice list.", "weekly", 2, [4], "17:00", "0 17 * * 5"),
        ("Co drugi piątek przygotuj zestawienie.", "weekly", 2, [4], None, "0 0 * * 5"),
        # monthly
        ("On the 1st of every month at 06:00 archive the invoices.", "monthly", 1, [], "06:00", "0 6 1 * *"),
        ("Co miesiąc zrób zestawienie kosztów.", "monthly", 1, [], None, "0 0 1 * *"),
        ("Ежемесячно составляй отчёт.", "monthly", 1, [], None, "0 0 1 * *"),
    ],
)
def test_recurrences(text: str, frequency: str, interval: int, weekdays: list[int], at: str | None, cron: str) -> None:
    found = find_recurrence(text)
    assert found is not None
    assert (found.frequency, found.interval, found.weekdays, found.at, found.cron) == (
        frequency,
        interval,
        weekdays,
        at,
        cron,
    )
    assert len(found.cron.split()) == 5
    assert found.words and all(part in text for part in found.words.split(" … "))


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("Every Monday at 8 prepare the schedule.", "every Monday at 08:00"),
        ("Co poniedziałek o 8 przygotuj grafik.", "every Monday at 08:00"),
        ("Каждый понедельник в 8 утра готовь график.", "every Monday at 08:00"),
        ("Every 2 hours check the backup.", "every 2 hours"),
        ("Codziennie rano podsumuj alarmy.", "every day in the morning"),
        ("По понедельникам и четвергам в 9 проверяй склад.", "every Monday and Thursday at 09:00"),
        ("Every weekday at 9 post the reminder.", "every weekday (Monday to Friday) at 09:00"),
        ("Раз в неделю присылай отчёт.", "every week"),
    ],
)
def test_descriptions_are_english(text: str, description: str) -> None:
    found = find_recurrence(text)
    assert found is not None and found.description == description


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Every Monday at 8 prepare the schedule.", "Every Monday … at 8"),
        ("Co 2 godziny sprawdzaj kopię.", "Co 2 godziny"),
        ("Ежедневно утром своди тревоги.", "Ежедневно … утром"),
    ],
)
def test_the_words_that_said_it(text: str, words: str) -> None:
    found = find_recurrence(text)
    assert found is not None and found.words == words


def test_what_the_cron_assumes_is_said() -> None:
    weekly = find_recurrence("Send me the sales figures weekly.")
    assert weekly is not None and weekly.assumed == ["time 00:00 (no time given)", "Monday (no weekday given)"]
    morning = find_recurrence("Each morning summarise the alarms.")
    assert morning is not None and morning.part_of_day == "morning" and morning.at is None
    assert morning.assumed == ["time 08:00 for the morning"]
    fortnight = find_recurrence("Every other Friday at 5 pm send the invoices.")
    assert fortnight is not None and any("cannot skip weeks" in a for a in fortnight.assumed)
    exact = find_recurrence("Every Monday at 8 prepare the schedule.")
    assert exact is not None and exact.assumed == []


@pytest.mark.parametrize(
    "text",
    [
        # a one-off with a date
        "On Friday send the roster to Anna.",
        "W piątek wyślij zestawienie Annie.",
        "В пятницу пришли сводку Анне.",
        "Prepare the schedule for next week.",
        # an adjective, not a frequency
        "Prepare the daily report.",
        "Send a weekly summary to Anna.",
        # each … of something, every time (an event, not a period)
        "Summarise each day's sales from last week.",
        "Every time a ticket arrives, file it.",
        "Каждый раз, когда приходит счёт, сохраняй его.",
        # nothing about time
        "Translate this paragraph into German.",
    ],
)
def test_not_recurring(text: str) -> None:
    assert find_recurrence(text) is None


def test_a_count_next_to_the_period_is_not_a_time() -> None:
    found = find_recurrence("Каждый понедельник составляй график в 2 вариантах.")
    assert found is not None and found.at is None and found.cron == "0 0 * * 1"
    found = find_recurrence("Co poniedziałek przygotuj grafik w 2 wersjach.")
    assert found is not None and found.at is None


def test_recurrence_is_json_friendly_and_validated() -> None:
    found = find_recurrence("Every Monday at 8 prepare the schedule.")
    assert found is not None
    dumped = found.model_dump(mode="json")
    assert json.loads(json.dumps(dumped)) == dumped
    assert Recurrence.model_validate(dumped) == found
    with pytest.raises(ValidationError):
        Recurrence.model_validate({**dumped, "interval": 0})
    with pytest.raises(ValidationError):
        Recurrence.model_validate({**dumped, "frequency": "yearly"})
