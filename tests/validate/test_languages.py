"""Every check says its sentence in the request's language: `CheckResult.sentence`, `ValidationReport.summary_in`.

`detail` stays the English sentence (what is journaled); `message` and `values` say it again in Polish or Russian,
and a report journaled before messages existed still validates and reads as it did.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alicorn.i18n import catalog
from alicorn.validate.base import JOINED, CheckResult, ValidationReport, check, phrase
from alicorn.validate.code import validate_code
from alicorn.validate.conversation import validate_conversation
from alicorn.validate.document import validate_document
from alicorn.validate.schedule import validate_schedule

from . import test_code, test_document, test_schedule
from .test_conversation import CRITERIA as CONVERSATION_CRITERIA
from .test_conversation import _artifact as conversation_artifact

LANGUAGES = ("pl", "ru")


def _bad_document() -> dict[str, Any]:
    doc = test_document.document()
    doc["sections"][1]["sources"] = []
    doc["sections"][1]["figures"] = {"events": 5}
    doc["sections"][2]["text"] = "Call jan.kowalski@example.com about the loading dock."
    del doc["sections"][0]["text"]
    doc["sections"][0]["text"] = ""
    return doc


def _bad_code() -> dict[str, Any]:
    art = test_code.artifact()
    art["tests"].update(failed=2, errors=1)
    art["diff"]["files"].append({"path": "/etc/.env", "status": "modified"})
    art["package"] = {"path": "../out.tgz", "sha256": "nope", "bytes": 0}
    return art


def _bad_schedule() -> dict[str, Any]:
    doctored = test_schedule.schedule()
    doctored["month"] = "2026-11"
    a = test_schedule._a
    for variant in doctored["variants"]:
        variant["assignments"] = [a("A", 1, "morning", "forklift"), a("A", 1, "night", "forklift")]
        variant["assignments"] += [a("A", d, "night", "cashier") for d in range(2, 9)]
        variant["assignments"].append(a("B", 3, "morning", "cashier"))
    doctored["issues"] = ["row 4: no such person"]
    return doctored


def _conversations(tmp: Path) -> Iterator[ValidationReport]:
    art = conversation_artifact(tmp, "2026-11-27-planning.json")
    yield validate_conversation(art, CONVERSATION_CRITERIA)
    broken = copy.deepcopy(art)
    broken["tasks"][0]["owner"] = None
    broken["note"] = None
    broken["draft"]["to"] = ["stranger@example.com"]
    broken["participants"][0]["processing"] = False
    yield validate_conversation(broken, {**CONVERSATION_CRITERIA, "send": True})


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[ValidationReport]:
    """Good and doctored reports of every validator, and the unreadable ones."""
    return [
        validate_document(test_document.document(), test_document.CRITERIA),
        validate_document(_bad_document(), {**test_document.CRITERIA, "min_sections": 5, "forbidden_terms": ["dock"]}),
        validate_document(None, {}),
        validate_document({"title": 3}, {}),
        validate_code(test_code.artifact(), test_code.CRITERIA),
        validate_code(_bad_code(), {**test_code.CRITERIA, "installed": True}),
        validate_code({**test_code.artifact(), "tests": {"total": 3, "timed_out": True}}, test_code.CRITERIA),
        validate_schedule(test_schedule.schedule(), test_schedule.CRITERIA),
        validate_schedule(_bad_schedule(), test_schedule.CRITERIA),
        validate_schedule(test_schedule.schedule(), {"variants": "many"}),
        *_conversations(tmp_path_factory.mktemp("conversation")),
        validate_conversation(None, {"min_confidence": 7}),
    ]


def _messages(message: str | None, values: Any) -> Iterator[str]:
    """Every msgid a check's sentence is made of (its own, and its phrases')."""
    if message is not None and message != JOINED:
        yield message
    items = values.values() if isinstance(values, dict) else values if isinstance(values, list) else ()
    for value in items:
        if isinstance(value, dict) and "message" in value:
            yield from _messages(value["message"], value.get("values", {}))
        elif isinstance(value, dict) and "join" in value:
            yield from _messages(None, value["items"])
        elif isinstance(value, dict | list):
            yield from _messages(None, value)


def test_the_english_sentence_is_the_detail(reports: list[ValidationReport]) -> None:
    for report in reports:
        assert report.summary_in("en") == report.summary
        for c in report.checks:
            assert c.message is not None, f"{report.artifact}/{c.name} has no message: {c.detail}"
            assert c.sentence("en") == c.detail


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_a_validator_wrote_is_translated(reports: list[ValidationReport], language: str) -> None:
    untranslated = set()
    for report in reports:
        for c in report.checks:
            untranslated |= {m for m in _messages(c.message, c.values) if catalog(language).get(m) is None}
            assert c.sentence(language) != c.detail or not c.detail, c
        assert report.summary_in(language) != report.summary
    assert not untranslated


def test_values_are_json_and_survive_the_journal(reports: list[ValidationReport]) -> None:
    for report in reports:
        stored = json.loads(json.dumps(report.model_dump(mode="json")))
        again = ValidationReport.model_validate(stored)
        assert again == report
        for language in ("en", *LANGUAGES):
            assert again.summary_in(language) == report.summary_in(language)
            assert [c.sentence(language) for c in again.checks] == [c.sentence(language) for c in report.checks]


def test_polish_and_russian_sentences_read_in_their_language(reports: list[ValidationReport]) -> None:
    code = reports[5]
    tests = next(c for c in code.checks if c.name == "tests")
    assert tests.detail == "2 failed and 1 errored of 14 test(s)"
    assert tests.sentence("pl") == "niezaliczone: 2, z błędem: 1, testów łącznie: 14"
    assert tests.sentence("ru") == "провалено: 2, с ошибкой: 1, всего тестов: 14"
    package = next(c for c in code.checks if c.name == "package")
    assert package.sentence("pl").startswith("ścieżka pakietu '../out.tgz': wychodzi poza kandydata ('..'); ")
    assert code.summary.startswith("code: failed; 0 of 4 checks passed; failed: ")
    assert code.summary_in("pl").startswith("kod: wynik nieudany; zaliczone kontrole: 0 z 4; niezaliczone: testy")
    assert code.summary_in("ru").startswith("код: результат не принят; пройдено проверок: 0 из 4; не пройдены: тесты")

    schedule = reports[8]
    month = next(c for c in schedule.checks if c.name == "month")
    assert month.sentence("pl").startswith("problemy z miesiącem (")
    assert "grafik dotyczy 2026-11, a prośba dotyczyła 2026-12" in month.sentence("pl")
    assert "(и ещё " in next(c for c in schedule.checks if c.name == "time_limits").sentence("ru")
    data = next(c for c in schedule.checks if c.name == "data")
    assert data.sentence("ru") == "сообщено о проблемах с данными (1): row 4: no such person"  # the data's own words

    document = reports[1]
    forbidden = next(c for c in document.checks if c.name == "no_forbidden_data")
    assert "dane prywatne (email) w: tekst sekcji 3" in forbidden.sentence("pl")
    assert "запрещённый термин 'dock' в: заголовок раздела 3, текст раздела 3; " in forbidden.sentence("ru")

    unreadable = reports[2]
    assert unreadable.summary == "document: failed; the run produced no artifact to validate"
    assert unreadable.summary_in("pl") == "dokument: wynik nieudany; przebieg nie wytworzył artefaktu do sprawdzenia"
    assert unreadable.summary_in("ru") == "документ: результат не принят; запуск не создал артефакта для проверки"


def test_a_report_journaled_before_messages_still_validates_and_reads() -> None:
    old = {
        "artifact": "schedule",
        "status": "partial",
        "checks": [
            {"name": "coverage", "passed": False, "detail": "1 variant(s) short of staff: …", "severity": "error"},
            {"name": "month", "passed": True, "detail": "every assignment falls in 2026-12", "severity": "error"},
        ],
        "summary": "schedule: partial; 1 of 2 checks passed; failed: coverage",
    }
    report = ValidationReport.model_validate(old)
    assert report.checks[0].message is None and report.checks[0].values == {}
    assert report.checks[0].sentence("pl") == "1 variant(s) short of staff: …"  # only the English was kept
    assert report.summary_in("pl") == "grafik: wynik częściowy; zaliczone kontrole: 1 z 2; niezaliczone: pokrycie"
    assert report.summary_in("en") == old["summary"]
    with pytest.raises(ValueError, match="extra"):
        CheckResult.model_validate({**old["checks"][0], "colour": "red"})


def test_check_writes_the_sentence_once() -> None:
    made = check("tests", False, "{failed} failed and {errors} errored of {total} test(s)", failed=1, errors=0, total=3)
    assert made.detail == "1 failed and 0 errored of 3 test(s)"
    assert made.values == {"failed": 1, "errors": 0, "total": 3} and made.severity == "error"
    assert made.sentence("ru") == "провалено: 1, с ошибкой: 0, всего тестов: 3"
    warned = check("data", True, "the data loaded without problems", "warning")
    assert warned.severity == "warning" and warned.sentence("pl") == "dane wczytano bez problemów"
    nested = check("x", False, JOINED, problems=[phrase("the package is empty"), phrase("the title is empty")])
    assert nested.detail == "the package is empty; the title is empty"
    assert nested.sentence("pl") == "pakiet jest pusty; tytuł jest pusty"
    with pytest.raises(ValueError, match="frozen"):
        made.detail = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "; failed: tasks; warnings: evidence_confidence"),
        ("pl", "; niezaliczone: zadania; ostrzeżenia: pewność dowodów"),
        ("ru", "; не пройдены: задачи; предупреждения: уверенность доказательств"),
    ],
)
def test_the_summary_names_failed_checks_by_their_title_in_the_language(language: str, said: str) -> None:
    checks = (
        check("tasks", False, "no task has an owner"),
        check("speakers", True, "all speakers named"),
        CheckResult(name="evidence_confidence", passed=False, detail="low", severity="warning"),
    )
    report = ValidationReport.of("conversation", list(checks))
    assert report.summary_in(language).endswith(said), report.summary_in(language)
