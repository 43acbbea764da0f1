"""The HR shift-schedule pack (the seed's first command): N schedule variants for a month, checked and compared.

"Prepare three variants of next month's work schedule, take vacations into account, and do not publish changes."
The plan loads and validates the HR data (`load`), generates candidate schedules with CP-SAT (`solve`), checks them
against labour law, simulates coverage and compares costs (`checks`), renders the comparison (`present`) and saves
it; `publish` exists for a request that asks for it. `extract` reads the slots from en/pl/ru text; `workflow` builds
the plan, the artifact and the summary. OR-Tools is imported only when a schedule is generated.
"""

from __future__ import annotations

from pathlib import Path

from alicorn.packs.schedule.extract import extract
from alicorn.packs.schedule.workflow import (
    OPERATIONS,
    ScheduleParameters,
    artifact_of,
    build,
    criteria,
    summarize,
)
from alicorn.packs.workflow import Workflow
from alicorn.validate.schedule import validate_schedule

DATA_DIR = Path(__file__).parent / "data"

WORKFLOW = Workflow(
    id="schedule",
    title="Work schedule variants",
    summary="Prepare variants of a month's shift schedule from the HR data (rules, contracts, competences, "
    "vacations, demand), check them against labour law, and compare their coverage, cost and conflicts.",
    artifact="schedule",
    parameters=ScheduleParameters,
    operations=OPERATIONS,
    examples={
        "en": (
            "Prepare three variants of next month's work schedule, take vacations into account, and do not publish "
            "changes.",
            "Draft two options for the January 2027 shift roster and ignore vacations.",
            "I need a work schedule for December in 4 versions; don't publish anything.",
            "Plan next month's shifts for the warehouse team, respecting everyone's leave.",
            "Make the 2027-01 shift plan and publish variant 1 to the staff.",
        ),
        "pl": (
            "Przygotuj trzy warianty grafiku pracy na przyszły miesiąc, uwzględnij urlopy i nie publikuj zmian.",
            "Ułóż grafik zmian na styczeń w dwóch wariantach, bez uwzględniania urlopów.",
            "Potrzebuję harmonogramu pracy na grudzień, cztery wersje, niczego nie publikuj.",
            "Zaplanuj dyżury magazynu w przyszłym miesiącu z uwzględnieniem urlopów.",
            "Przygotuj grafik na 2027-01 i opublikuj pierwszy wariant pracownikom.",
        ),
        "ru": (
            "Подготовь три варианта графика работы на следующий месяц, учти отпуска и не публикуй изменения.",
            "Составь график смен на январь в двух вариантах без учёта отпусков.",
            "Нужно расписание смен на декабрь, четыре варианта, ничего не публикуй.",
            "Спланируй смены склада в следующем месяце с учётом отпусков сотрудников.",
            "Составь график на 2027-01 и опубликуй первый вариант для сотрудников.",
        ),
    },
    data_dir=DATA_DIR,
    extract=extract,
    questions={
        "month": {
            "en": "Which month should the schedule cover (for example 2027-01)?",
            "pl": "Na który miesiąc przygotować grafik (np. 2027-01)?",
            "ru": "На какой месяц составить график (например, 2027-01)?",
        },
    },
    build=build,
    artifact_of=artifact_of,
    criteria=criteria,
    validator=validate_schedule,
    summarize=summarize,
)

__all__ = ["DATA_DIR", "WORKFLOW", "ScheduleParameters"]
