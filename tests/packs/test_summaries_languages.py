"""Each pack's `summarize(artifact, report, language)`: the headline and result lines in the request's language,
with the plural forms Polish and Russian need, and the validator's sentences in that language too."""

from __future__ import annotations

from typing import Any

import pytest

from alicorn.i18n import N_
from alicorn.packs.alarms import WORKFLOW as ALARMS
from alicorn.packs.candidate import WORKFLOW as CANDIDATE
from alicorn.packs.incident import WORKFLOW as INCIDENT
from alicorn.packs.notes import WORKFLOW as NOTES
from alicorn.packs.schedule import WORKFLOW as SCHEDULE
from alicorn.validate.base import ValidationReport, check

COMPLETE = ValidationReport.of("document", [check("completeness", True, N_("the title is empty"))])
MISSING = ValidationReport.unreadable_because("document", N_("the run produced no artifact to validate"))


def _alarms(need_human: int) -> dict[str, Any]:
    return {
        "counts": {"day": 52, "merged": 17, "kept": 35, "need_human": need_human},
        "events": [
            {"id": 4131, "ts": "2026-11-29T02:14:00", "camera": "gate", "zone": "perimeter", "type": "person",
             "duplicates": 3},
            {"id": 4140, "ts": "2026-11-29T03:40:00", "camera": "dock", "zone": "loading", "type": "vehicle",
             "duplicates": 0},
        ],
    }  # fmt: skip


def test_the_alarms_headline_in_english_polish_and_russian() -> None:
    english = ALARMS.summarize(_alarms(8), COMPLETE, "en")
    assert english.lines == (
        "8 events need a human, of 52 alarms (17 duplicates merged)",
        "alarm 4131 at 2026-11-29T02:14:00: person on gate (perimeter), 3 repeats merged into it",
        "alarm 4140 at 2026-11-29T03:40:00: vehicle on dock (loading)",
    )
    assert ALARMS.summarize(_alarms(8), COMPLETE).lines == english.lines  # English unless told otherwise
    polish = ALARMS.summarize(_alarms(8), COMPLETE, "pl")
    assert polish.lines[0] == "8 zdarzeń wymaga człowieka (alarmów łącznie: 52, scalonych duplikatów: 17)"
    assert polish.lines[1] == (
        "alarm 4131 o 2026-11-29T02:14:00: osoba, kamera gate (perimeter), scalono z nim 3 powtórzenia"
    )
    russian = ALARMS.summarize(_alarms(8), COMPLETE, "ru")
    assert russian.lines[0] == "8 событий требуют внимания человека (всего тревог: 52, объединено дубликатов: 17)"
    assert russian.lines[1].endswith("с ним объединены 3 повтора")
    assert polish.metrics == russian.metrics == english.metrics  # figures are figures in every language


@pytest.mark.parametrize(
    ("n", "polish", "russian"),
    [
        (1, "1 zdarzenie wymaga", "1 событие требует"),
        (3, "3 zdarzenia wymagają", "3 события требуют"),
        (5, "5 zdarzeń wymaga", "5 событий требуют"),
        (12, "12 zdarzeń wymaga", "12 событий требуют"),
        (21, "21 zdarzeń wymaga", "21 событие требует"),
        (22, "22 zdarzenia wymagają", "22 события требуют"),
    ],
)
def test_the_headline_counts_with_the_right_plural(n: int, polish: str, russian: str) -> None:
    assert ALARMS.summarize(_alarms(n), COMPLETE, "pl").lines[0].startswith(polish + " człowieka")
    assert ALARMS.summarize(_alarms(n), COMPLETE, "ru").lines[0].startswith(russian + " внимания")
    assert ALARMS.summarize(_alarms(1), COMPLETE, "en").lines[0].startswith("1 event needs a human")


SCHEDULE_ARTIFACT: dict[str, Any] = {
    "month": "2026-12",
    "currency": "PLN",
    "metrics": [
        {"variant": 1, "label": "Lowest cost", "objective": "lowest_cost", "total_cost": 123456.5,
         "coverage_pct": 100.0, "hours_spread": 6, "violations": 0},
        {"variant": 2, "label": "Night shifts shared evenly", "objective": "fair_nights", "total_cost": 130000,
         "coverage_pct": 98.25, "hours_spread": 4.5, "violations": 2},
    ],
    "document": "reports/schedule-2026-12.md",
    "published": None,
    "issues": ["row 7: unknown competence"],
}  # fmt: skip


def test_the_schedule_summary_in_polish_and_russian() -> None:
    report = ValidationReport.of("schedule", [check("coverage", True, N_("the data loaded without problems"))])
    english = SCHEDULE.summarize(SCHEDULE_ARTIFACT, report, "en").lines
    assert english[0] == "2 schedule variant(s) for December 2026: complete."
    assert english[1] == (
        "Variant 1 (Lowest cost): 123,456.50 PLN, coverage 100.00%, hours spread 6 h, 0 labour-law violation(s)"
    )
    polish = SCHEDULE.summarize(SCHEDULE_ARTIFACT, report, "pl")
    assert polish.lines[0] == "2 warianty grafiku na grudzień 2026: kompletny."
    assert polish.lines[1] == (
        "Wariant 1 (Najniższy koszt): 123\xa0456,50 PLN, pokrycie 100,00%, rozrzut godzin 6 h, 0 naruszeń prawa pracy"
    )
    assert polish.lines[2].endswith("pokrycie 98,25%, rozrzut godzin 4,5 h, 2 naruszenia prawa pracy")
    assert polish.lines[3:] == (
        "Najtańszy: wariant 1.",
        "Porównanie zapisano jako reports/schedule-2026-12.md w przestrzeni roboczej przebiegu.",
        "Niczego nie opublikowano.",
    )
    assert polish.conflicts == ("dane: row 7: unknown competence",)
    russian = SCHEDULE.summarize(SCHEDULE_ARTIFACT, report, "ru")
    assert russian.lines[0] == "2 варианта графика на декабрь 2026: выполнено."
    assert russian.lines[2].startswith("Вариант 2 (Ночные смены распределены поровну): 130\xa0000,00 PLN")
    assert SCHEDULE.summarize(None, MISSING, "ru").lines == (
        "Нет графика для показа: документ: результат не принят; запуск не создал артефакта для проверки.",
    )


NOTES_ARTIFACT: dict[str, Any] = {
    "conversation": {"title": "Planowanie", "date": "2026-11-27", "language": "pl"},
    "tasks": [{"id": "T1", "text": "Zamówić części", "owner": None, "evidence": [3]}],
    "participants": [
        {"id": "ann", "name": "Anna", "recording": True, "processing": True},
        {"id": "dev", "name": "Dev Patel", "recording": True, "processing": False},
    ],
    "segments": [{"index": 3, "confidence": 0.41, "low_confidence": True}],
    "excluded": [{"speaker": "dev", "name": "Dev Patel", "reason": "no processing consent"}],
    "draft": {"to": ["anna@example.com"]},
    "sent": None,
}


def test_the_notes_summary_in_polish_and_russian() -> None:
    failed = ValidationReport.of("conversation", [check("note", False, N_("no note was written"))])
    polish = NOTES.summarize(NOTES_ARTIFACT, failed, "pl")
    assert polish.lines == (
        "Planowanie (2026-11-27, pl): zadania: 1, decyzje: 0, otwarte pytania: 0; uczestnicy: 2",
        "Szkic odpowiedzi do 1 uczestnika: gotowy, niewysłany",
        "Pominięto: Dev Patel (brak zgody na przetwarzanie)",
        "rozmowa: wynik nieudany; zaliczone kontrole: 0 z 1; niezaliczone: notatka",
    )
    assert polish.conflicts == (
        "T1 opiera się na fragmentach o niskiej pewności #3 (0.41): sprawdź nagranie",
        "T1 nie ma właściciela: 'Zamówić części'",
        "Dev Patel: brak zgody na przetwarzanie, wypowiedzi pominięto",
        "notatka: nie napisano notatki",
    )
    russian = NOTES.summarize(NOTES_ARTIFACT, failed, "ru")
    assert russian.lines[1] == "Черновик ответа 1 участнику: готов, не отправлен"
    assert russian.conflicts[-1] == "заметка: заметка не написана"
    assert NOTES.summarize(NOTES_ARTIFACT, failed).lines[1] == "Draft reply to 1 participant: ready, not sent"


def test_the_incident_and_candidate_summaries_in_polish_and_russian() -> None:
    artifact = {
        "sections": [{"heading": "Change", "figures": {"increase_pct": 31.2, "split_date": "2026-10-12",
                                                       "median_before_s": 40, "median_after_s": 52.5}}],
        "findings": [
            {"rank": 1, "factor": "renderer_version", "level": "4.2", "verdict": "supported", "ratio": 1.3,
             "p_value": 0.001},
            {"rank": 2, "factor": "host", "level": "r7", "verdict": "not supported"},
        ],
    }  # fmt: skip
    polish = INCIDENT.summarize(artifact, COMPLETE, "pl")
    assert polish.lines == (
        "Czas renderowania wzrósł o 31,2% od 2026-10-12 (mediana 40 s → 52,5 s).",
        "Hipoteza 1: renderer_version = 4.2: potwierdzona (mediana 1,3× względem pozostałych zadań, p=0,001)",
        "Hipoteza 2: host = r7: niepotwierdzona",
    )
    twice = {**artifact, "findings": [{**f, "verdict": "supported"} for f in artifact["findings"]]}
    assert INCIDENT.summarize(twice, COMPLETE, "ru").conflicts == (
        "2 гипотезы подтверждаются одновременно: причины могут пересекаться",
    )
    assert INCIDENT.summarize(None, MISSING, "pl").lines[0].startswith("Nie powstał raport (dokument: wynik nieudany;")

    built = {
        "candidate": {"root": "candidate", "files": 13},
        "tests": {"total": 14, "passed": 14, "failed": 0, "errors": 0, "skipped": 0},
        "installed": False,
    }
    assert CANDIDATE.summarize(built, COMPLETE, "pl").lines == (
        "Kandydat candidate: skopiowane pliki: 13.",
        "Testy: zaliczone 14, niezaliczone 0, błędy 0, pominięte 0, łącznie 14.",
        "Nie zainstalowano: zatrzymano przed instalacją.",
    )
    assert CANDIDATE.summarize(built, COMPLETE, "ru").lines[-1] == "Не установлено: остановлено перед установкой."
