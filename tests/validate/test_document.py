"""`validate_document`: completeness, sources, consistency and forbidden data, on good and doctored documents."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from alicorn.validate.document import heading_matches, validate_document

CRITERIA: dict[str, Any] = {"required_sections": ["summary", "finding 1", "finding 2"], "require_sources": True}


def document() -> dict[str, Any]:
    return {
        "title": "Camera alarms, 29 November",
        "sections": [
            {
                "heading": "Summary",
                "text": "Four events need a human; 31 duplicates were merged.",
                "sources": ["log"],
                "figures": {"events": 4, "duplicates": 31},
            },
            {
                "heading": "Finding 1: gate camera offline",
                "text": "The gate camera went offline at 02:14 and stayed offline.",
                "sources": ["log", "alarm-17"],
                "figures": {"events": 4.0},
            },
            {
                "heading": "Finding 2: person at the loading dock",
                "text": "A person was seen at the loading dock at 03:40 with confidence 0.91.",
                "sources": ["alarm-23"],
            },
        ],
        "sources": {"log": {"path": "alarms.csv"}, "alarm-17": {"row": 17}, "alarm-23": {"row": 23}},
    }


def failed_checks(artifact: Any, criteria: Any = CRITERIA) -> list[str]:
    return [c.name for c in validate_document(artifact, criteria).failures]


def test_a_good_document_is_complete() -> None:
    report = validate_document(document(), CRITERIA)
    assert report.status == "complete", report.summary
    assert [c.name for c in report.checks] == ["completeness", "sources", "consistency", "no_forbidden_data"]
    assert report.artifact == "document"


@pytest.mark.parametrize(
    ("artifact", "problem"),
    [
        (None, "no artifact"),
        ({"sections": []}, "title: Field required"),
        ({"title": "t", "sections": "none"}, "sections: Input should be a valid list"),
        ({"title": "t", "sections": [{"heading": "h"}]}, "sections.0.text: Field required"),
        ([1, 2, 3], "malformed"),
        ("a string", "malformed"),
    ],
)
def test_a_missing_or_malformed_document_fails_without_raising(artifact: Any, problem: str) -> None:
    report = validate_document(artifact, CRITERIA)
    assert report.status == "failed"
    assert report.checks[0].name == "artifact" and problem in report.checks[0].detail


@pytest.mark.parametrize("criteria", [None, [], "x", {"required_sections": 3, "min_sections": "two"}])
def test_odd_criteria_do_not_raise(criteria: Any) -> None:
    assert validate_document(document(), criteria).status == "complete"


def test_a_missing_or_empty_section_fails_completeness() -> None:
    doc = document()
    del doc["sections"][2]
    report = validate_document(doc, CRITERIA)
    assert report.status == "partial" and failed_checks(doc) == ["completeness"]
    assert "missing required section(s): finding 2" in report.failures[0].detail
    doc = document()
    doc["sections"][1]["text"] = "   "
    assert failed_checks(doc) == ["completeness"]
    assert "empty section(s): Finding 1" in validate_document(doc, CRITERIA).failures[0].detail
    assert failed_checks({**document(), "title": ""}) == ["completeness"]


def test_heading_matching() -> None:
    assert heading_matches("Hypothesis 1: renderer = 4.2", "hypothesis 1")
    assert heading_matches("  CHANGE ", "change")
    assert not heading_matches("Hypothesis 10: host", "hypothesis 1")
    assert not heading_matches("Changes", "change")


def test_sources_every_section_cites_a_known_source() -> None:
    doc = document()
    doc["sections"][2]["sources"] = []
    report = validate_document(doc, CRITERIA)
    assert failed_checks(doc) == ["sources"] and "citing no source: Finding 2" in report.failures[0].detail
    assert validate_document(doc, {**CRITERIA, "unsourced_sections": ["finding 2"]}).status == "complete"
    assert validate_document(doc, {**CRITERIA, "require_sources": False}).status == "complete"
    doc = document()
    doc["sections"][2]["sources"] = ["alarm-99"]
    assert "not in the document's sources: alarm-99" in validate_document(doc, CRITERIA).failures[0].detail
    doc["sources"] = ["log", "alarm-17", "alarm-99"]  # a list of ids is a registry too
    assert validate_document(doc, CRITERIA).status == "complete"
    del doc["sources"]
    report = validate_document(doc, CRITERIA)
    assert report.status == "complete" and "no source registry" in report.checks[1].detail


def test_consistency_of_headings_and_figures() -> None:
    doc = document()
    doc["sections"][1]["figures"] = {"events": 5}
    report = validate_document(doc, CRITERIA)
    assert failed_checks(doc) == ["consistency"]
    assert "figure 'events' is 4 in 'Summary' but 5 in 'Finding 1: gate camera offline'" in report.failures[0].detail
    doc = document()
    doc["sections"].append({**doc["sections"][0], "text": "Five events need a human."})
    assert failed_checks(doc) == ["consistency"]
    doc = document()
    doc["sections"].append(copy.deepcopy(doc["sections"][0]))  # a repeated section that agrees is fine
    assert validate_document(doc, CRITERIA).status == "complete"


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("anna.nowak@example.com", "private data (email)"),
        ("PESEL 44051401359", "private data (pesel)"),
        ("PL61 1090 1014 0000 0712 1981 2874", "private data (iban)"),
        ("4111 1111 1111 1111", "secret data (payment_card)"),
        ("sk-proj-abcdefghijklmnopqrstuvwx", "secret data (api_key)"),
        ("password: Kot!2345", "secret data (password)"),
        ("Jan Kowalski", "private data (name)"),
    ],
)
def test_forbidden_data_is_found_and_never_repeated(value: str, kind: str) -> None:
    doc = document()
    doc["sections"][2]["text"] += f" Reported by {value}."
    report = validate_document(doc, CRITERIA)
    assert report.status == "partial" and failed_checks(doc) == ["no_forbidden_data"]
    detail = report.failures[0].detail
    assert detail == f"{kind} in section 3's text"
    assert value not in report.model_dump_json()


def test_forbidden_data_in_headings_figures_and_sources_is_found_by_position() -> None:
    doc = document()
    doc["sections"][0]["heading"] = "Summary for ops@example.com"
    doc["sections"][1]["figures"] = {"contact ops@example.com": 1}
    doc["sources"]["log"] = {"path": "alarms.csv", "owner": "ops@example.com"}
    report = validate_document(doc, {"require_sources": True})
    assert report.failures[0].detail == (
        "private data (email) in section 1's heading, section 2's figures, the sources"
    )


def test_allowed_private_categories_terms_and_known_names() -> None:
    doc = document()
    doc["sections"][2]["text"] += " Contact anna.nowak@example.com."
    assert validate_document(doc, {**CRITERIA, "allowed_private": ["email"]}).status == "complete"
    doc["sections"][2]["text"] += " Key sk-proj-abcdefghijklmnopqrstuvwx."
    # Secrets are never allowed, whatever the criteria say.
    report = validate_document(doc, {**CRITERIA, "allowed_private": ["email", "api_key"]})
    assert report.failures[0].detail == "secret data (api_key) in section 3's text"
    doc = document()
    report = validate_document(doc, {**CRITERIA, "forbidden_terms": ["loading dock", "warehouse"]})
    assert report.failures[0].detail == "forbidden term 'loading dock' in section 3's heading, section 3's text"
    assert validate_document(doc, {**CRITERIA, "forbidden_terms": ["dock"]}).failures[0].name == "no_forbidden_data"
    assert validate_document(doc, {**CRITERIA, "forbidden_terms": ["doc"]}).status == "complete"  # whole words
    doc["sections"][2]["text"] += " Seen by Nowaka."
    assert validate_document(doc, CRITERIA).status == "complete"
    report = validate_document(doc, {**CRITERIA, "names": ["Anna Nowak"]})
    assert report.failures[0].detail == "private data (name) in section 3's text"


def test_min_sections() -> None:
    assert failed_checks(document(), {"min_sections": 4}) == ["min_sections"]
    assert validate_document(document(), {"min_sections": 3}).status == "complete"


def test_a_document_failing_every_check_is_failed() -> None:
    doc = {
        "title": "Report",
        "sections": [
            {"heading": "Summary", "text": "Call jan@example.com.", "sources": []},
            {"heading": "Summary", "text": "Something else."},
        ],
    }
    report = validate_document(doc, {**CRITERIA, "min_sections": 3})
    assert report.status == "failed"
    assert [c.name for c in report.failures] == [
        "completeness",
        "sources",
        "consistency",
        "no_forbidden_data",
        "min_sections",
    ]
    assert "failed: completeness, sources, consistency, no_forbidden_data, min_sections" in report.summary
