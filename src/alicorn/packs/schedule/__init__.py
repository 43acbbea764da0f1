"""The HR shift-schedule pack (the seed's first command): N schedule variants for a month, checked and compared.

"Prepare three variants of next month's work schedule, take vacations into account, and do not publish changes."
The plan loads and validates the HR data (`load`), generates candidate schedules with CP-SAT (`solve`), checks them
against labour law, simulates coverage and compares costs (`checks`), renders the comparison (`present`) and saves
it; `publish` exists for a request that asks for it. `extract` reads the slots from en/pl/ru text; `workflow` builds
the plan, the artifact and the summary. OR-Tools is imported only when a schedule is generated.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from alicorn.i18n import N_
from alicorn.packs.inputs import DataInput
from alicorn.packs.schedule.choose import describe_publication, follow_up, item_of
from alicorn.packs.schedule.extract import extract
from alicorn.packs.schedule.load import MAX_FILE_BYTES
from alicorn.packs.schedule.workflow import (
    OPERATIONS,
    ScheduleParameters,
    artifact_of,
    build,
    criteria,
    summarize,
)
from alicorn.packs.workflow import Workflow
from alicorn.validate.constraints import Measure
from alicorn.validate.schedule import validate_schedule

DATA_DIR = Path(__file__).parent / "data"


def _per_variant(artifact: Mapping[str, Any], key: str) -> list[tuple[str, float]]:
    """One figure of every variant of a schedule artifact, labelled "variant N"."""
    return [
        (f"variant {m['variant']}", float(m[key]))
        for m in artifact.get("metrics", [])
        if isinstance(m.get(key), int | float)
    ]


#: The most anyone works in a week, said after its number ("nobody works more than 40 hours a week", "max 40 h per
#: week", "maksymalnie 40 godzin tygodniowo", "не больше 40 часов в неделю") or before it ("weekly hours under 45").
WEEKLY_HOURS = (
    "hours a week", "hours per week", "hours each week", "hours in a week", "hours weekly", "h a week", "h per week",
    "h/week", "hrs a week", "hrs per week", "weekly hours", "hours in any week",
    "godzin tygodniowo", "godzin w tygodniu", "godzin na tydzień", "godziny tygodniowo", "godziny w tygodniu",
    "h tygodniowo", "h w tygodniu", "h na tydzień", "tygodniowy czas pracy",
    "часов в неделю", "часа в неделю", "час в неделю", "ч в неделю", "ч. в неделю", "часов за неделю",
    "часа за неделю", "ч/нед",
)  # fmt: skip


WORKFLOW = Workflow(
    id="schedule",
    title=N_("Work schedule variants"),
    summary="Prepare variants of a month's shift schedule from the HR data (rules, contracts, competences, "
    "vacations, demand), check them against labour law, and compare their coverage, cost and conflicts.",
    artifact="schedule",
    parameters=ScheduleParameters,
    operations=OPERATIONS,
    vocabulary=tuple(
        (
            "roster rota shift-schedule work-schedule shift-plan grafik-zmian grafik-pracy "
            "harmonogram-zmian график-смен расписание-смен график-работы ~plan-zmian план-смен dyżur dyzur "
            "~grafik ~график "
            "~harmonogram rozpisk ~schedule ~shift ~timetable ~zmian ~zmiano ~смен ~расписан ~дежурств "
            "~wariant ~variant ~вариант ~vacation ~urlop ~отпуск"
        ).split()
    ),
    product_stems=tuple("~grafik ~график ~harmonogram ~schedule ~timetable ~расписан ~дежурств".split()),
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
    follow_up=follow_up,
    item_of=item_of,
    describe_effect=describe_publication,
    measures=(
        Measure(
            "overtime_hours",
            ("overtime", "over-time", "nadgodzin", "nadgodzi", "переработ", "сверхуроч"),
            lambda a: _per_variant(a, "overtime_hours"),
        ),
        Measure(
            "total_cost",
            ("total cost", "cost", "koszt", "stoimość", "стоимост", "затрат", "расход"),
            lambda a: _per_variant(a, "total_cost"),
        ),
        Measure(
            "coverage_pct", ("coverage", "pokrycie", "pokrycia", "покрыти"), lambda a: _per_variant(a, "coverage_pct")
        ),
        Measure("most_weekly_hours", WEEKLY_HOURS, lambda a: _per_variant(a, "most_weekly_hours")),
        Measure(
            "violations",
            ("violation", "naruszeń", "naruszen", "naruszenia", "нарушени"),
            lambda a: _per_variant(a, "violations"),
        ),
    ),
    inputs=(
        DataInput(
            name="employees",
            what={
                "en": "the staff list (CSV: id, name, competences, contract_hours, hourly_cost)",
                "pl": "lista pracowników (CSV: id, name, competences, contract_hours, hourly_cost)",
                "ru": "список сотрудников (CSV: id, name, competences, contract_hours, hourly_cost)",
            },
            file="employees.csv",
            format="csv",
            max_bytes=MAX_FILE_BYTES,
            fields=("id", "name", "competences", "contract_hours", "hourly_cost"),
            number_fields=("contract_hours", "hourly_cost"),
            aliases={
                "id": ("employee_id", "emp_id", "staff_id", "personnel_number", "nr", "табельный_номер"),
                "name": ("full_name", "employee", "employee_name", "imię_i_nazwisko", "nazwisko", "фио", "имя"),
                "competences": (
                    "skills",
                    "competence",
                    "qualifications",
                    "roles",
                    "kompetencje",
                    "umiejętności",
                    "компетенции",
                    "навыки",
                ),
                "contract_hours": ("weekly_hours", "hours_per_week", "contract", "etat_h", "часы_в_неделю"),
                "hourly_cost": ("hourly_rate", "rate", "cost_per_hour", "stawka", "stawka_godzinowa", "ставка"),
            },
        ),
        DataInput(
            name="demand",
            what={
                "en": "the demand forecast (CSV: day, shift, competence, required)",
                "pl": "prognoza zapotrzebowania (CSV: day, shift, competence, required)",
                "ru": "прогноз потребности (CSV: day, shift, competence, required)",
            },
            file="demand.csv",
            format="csv",
            max_bytes=MAX_FILE_BYTES,
            fields=("day", "shift", "competence", "required"),
            number_fields=("required",),
            aliases={
                "day": ("days", "weekday", "date", "dzień", "dni", "день", "дни"),
                "shift": ("zmiana", "смена"),
                "competence": ("skill", "role", "kompetencja", "компетенция", "навык"),
                "required": ("needed", "headcount", "count", "people", "liczba", "potrzeba", "количество", "нужно"),
            },
        ),
        DataInput(
            name="vacations",
            what={
                "en": "the vacations (CSV: employee, from, to)",
                "pl": "urlopy (CSV: employee, from, to)",
                "ru": "отпуска (CSV: employee, from, to)",
            },
            file="vacations.csv",
            format="csv",
            max_bytes=MAX_FILE_BYTES,
            fields=("employee", "from", "to"),
            day_fields=("from", "to"),
            may_be_empty=True,  # a header alone: nobody is on vacation
            aliases={
                "employee": ("employee_id", "id", "person", "pracownik", "сотрудник"),
                "from": ("start", "starts", "first_day", "od", "с", "начало"),
                "to": ("end", "ends", "last_day", "until", "do", "по", "конец"),
            },
        ),
        DataInput(
            name="rules",
            what={
                "en": "the approved shift rules (JSON)",
                "pl": "zatwierdzone zasady zmian (JSON)",
                "ru": "утверждённые правила смен (JSON)",
            },
            file="rules.json",
            format="json",
            max_bytes=MAX_FILE_BYTES,
            fields=("shifts", "min_rest_hours", "max_weekly_hours"),
        ),
    ),
)

__all__ = ["DATA_DIR", "WORKFLOW", "ScheduleParameters"]
