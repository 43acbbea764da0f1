"""validate_conversation on real artifacts of the notes pack (bundled transcripts, real runs) and doctored copies."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.ops.builtin import builtin_registry
from alicorn.packs.notes import WORKFLOW, NotesParams
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.validate.base import ValidationReport
from alicorn.validate.conversation import validate_conversation

CRITERIA = WORKFLOW.criteria(NotesParams())
Artifact = dict[str, Any]


def _artifact(tmp: Path, conversation: str) -> Artifact:
    registry = builtin_registry()
    for op in WORKFLOW.operations:
        registry.register(op)
    built = WORKFLOW.build(NotesParams(conversation=conversation), frozenset())
    plan = Plan(goal="notes", goal_hash=goal_digest("notes"), nodes=list(built.nodes))
    state = Executor(InMemoryStore(), registry, RunEnvironment(tmp / "ws", WORKFLOW.data_dir), poll_s=0.02).start(plan)
    assert state.status == "succeeded"
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None
    return artifact


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> Artifact:
    return _artifact(tmp_path_factory.mktemp("en"), "2026-11-27-planning.json")


@pytest.fixture(scope="module")
def polish(tmp_path_factory: pytest.TempPathFactory) -> Artifact:
    return _artifact(tmp_path_factory.mktemp("pl"), "latest")


def doctored(artifact: Artifact, change: Callable[[Artifact], None]) -> Artifact:
    copied = copy.deepcopy(artifact)
    change(copied)
    return copied


def failed(report: ValidationReport) -> list[str]:
    return [c.name for c in report.failures]


def check(report: ValidationReport, name: str) -> str:
    return next(c.detail for c in report.checks if c.name == name)


def test_real_artifacts_are_complete(english: Artifact, polish: Artifact) -> None:
    for artifact in (english, polish):
        report = validate_conversation(artifact, CRITERIA)
        assert report.status == "complete", report.summary
        assert [c.name for c in report.checks] == [
            "transcription_quality",
            "speakers",
            "consents",
            "tasks",
            "note",
            "draft",
            "evidence_confidence",
        ]
    assert "words of Dev Patel left out" in check(validate_conversation(english, CRITERIA), "consents")
    assert "SPEAKER_04 left out" in check(validate_conversation(english, CRITERIA), "speakers")
    assert "draft to 3 participants, not sent" in check(validate_conversation(english, CRITERIA), "draft")


def _revoke_consent(a: Artifact) -> None:
    for person in a["participants"]:
        if person["id"] == "ben":
            person["processing"] = False


def _unknown_speaker(a: Artifact) -> None:
    a["segments"][4]["speaker"] = "SPEAKER_07"  # T1's evidence now comes from a voice nobody identified


def _unowned(a: Artifact) -> None:
    a["tasks"][1]["owner"] = None


def _stranger_owner(a: Artifact) -> None:
    a["tasks"][0]["owner"] = "dev"  # a participant whose words may not be used cannot be made an owner


def _cites_redacted(a: Artifact) -> None:
    a["tasks"][0]["evidence"] = [7]  # Dev's segment, redacted


def _undeclared(a: Artifact) -> None:
    a["excluded"] = [e for e in a["excluded"] if e["speaker"] != "dev"]


def _note_silent(a: Artifact) -> None:
    a["note"]["text"] = a["note"]["text"].replace("Dev Patel", "a guest")


def _draft_to_dev(a: Artifact) -> None:
    a["draft"]["to"].append("dev.patel@hostline.example")


def _poor_asr(a: Artifact) -> None:
    for seg in a["segments"]:
        seg["confidence"] = 0.55
    a["quality"].update(mean_confidence=0.55, low_confidence_share=1.0)


def _quality_misreported(a: Artifact) -> None:
    a["quality"]["mean_confidence"] = 0.99


def _sent_anyway(a: Artifact) -> None:
    a["sent"] = {"message_id": "notes-" + "0" * 24, "to": a["draft"]["to"], "path": "outbox/x.json"}


def _no_draft(a: Artifact) -> None:
    a["draft"] = None


def _draft_to_outsider(a: Artifact) -> None:
    a["draft"]["to"] = ["someone@elsewhere.example"]


def _uncited(a: Artifact) -> None:
    a["note"]["text"] = a["note"]["text"].replace("#22", "#2")


def _no_tasks(a: Artifact) -> None:
    a["tasks"] = []


@pytest.mark.parametrize(
    ("change", "check_name", "says"),
    [
        (_revoke_consent, "consents", "words of participants without consent are used: ben"),
        (_unknown_speaker, "speakers", "items cite segments of unidentified voices: #4 (T1)"),
        (_unowned, "tasks", "tasks without an owner: T2"),
        (_stranger_owner, "tasks", "not a consenting participant: T1 (dev)"),
        (_cites_redacted, "consents", "items cite segments of participants without consent: #7"),
        (_undeclared, "consents", "the exclusion of dev is not declared"),
        (_note_silent, "consents", "the note does not say that the words of Dev Patel were left out"),
        (_draft_to_dev, "consents", "the draft is addressed to participants without consent: dev"),
        (_poor_asr, "transcription_quality", "mean ASR confidence 0.55 is below 0.80"),
        (_quality_misreported, "transcription_quality", "does not match the segments"),
        (_sent_anyway, "draft", "sent although the request said not to send"),
        (_no_draft, "draft", "no draft reply was written"),
        (_draft_to_outsider, "draft", "addressed to non-participants: someone@elsewhere.example"),
        (_uncited, "note", "the note does not cite segments #22"),
        (_no_tasks, "tasks", "no task was found"),
    ],
)
def test_doctored_artifacts_fail_the_named_check(
    english: Artifact, change: Callable[[Artifact], None], check_name: str, says: str
) -> None:
    report = validate_conversation(doctored(english, change), CRITERIA)
    assert check_name in failed(report), report.summary
    assert says in check(report, check_name)
    assert report.status == "partial"  # the other checks still pass: the result is usable, not complete


def test_poor_transcription_with_tasks_is_partial_not_failed(english: Artifact) -> None:
    report = validate_conversation(doctored(english, _poor_asr), CRITERIA)
    assert report.status == "partial" and failed(report) == ["transcription_quality"]
    warning = next(c for c in report.checks if c.name == "evidence_confidence")
    assert not warning.passed and warning.severity == "warning"  # every task now rests on weak evidence


def test_criteria_decide_what_is_required(english: Artifact) -> None:
    sent = doctored(english, _sent_anyway)
    assert validate_conversation(sent, {**CRITERIA, "send": True}).status == "complete"
    assert "was to be sent but was not" in check(validate_conversation(english, {**CRITERIA, "send": True}), "draft")
    empty = doctored(english, _no_tasks)
    assert validate_conversation(empty, {**CRITERIA, "require_tasks": False}).status == "complete"
    unconsented = validate_conversation(doctored(english, _revoke_consent), {**CRITERIA, "require_consent": False})
    assert unconsented.status == "complete"
    assert any(c.name == "consents" and not c.passed and c.severity == "warning" for c in unconsented.checks)
    strict = validate_conversation(english, {**CRITERIA, "min_confidence": 0.95})
    assert strict.status == "partial" and "transcription_quality" in failed(strict)


def test_too_many_unidentified_voices_fail_speakers(polish: Artifact) -> None:
    def many(a: Artifact) -> None:
        for seg in a["segments"][:6]:
            if not any(seg["index"] in t["evidence"] for t in a["tasks"]) and seg["index"] not in (6, 12, 14):
                seg.update(speaker="SPEAKER_01", redacted=True)
        a["excluded"].append({"speaker": "SPEAKER_01", "reason": "unidentified speaker", "segments": [0, 1, 2]})

    report = validate_conversation(doctored(polish, many), CRITERIA)
    assert "speakers" in failed(report)
    assert "of segments come from unidentified voices" in check(report, "speakers")


@pytest.mark.parametrize(
    "artifact",
    [None, {}, {"segments": "x"}, {"participants": [], "segments": [], "quality": {}}, {"participants": 3}],
)
def test_a_malformed_artifact_fails_without_raising(artifact: Any) -> None:
    report = validate_conversation(artifact, CRITERIA)
    assert report.status == "failed" and failed(report) == ["artifact"]


def test_malformed_criteria_fail_without_raising(english: Artifact) -> None:
    report = validate_conversation(english, {"min_confidence": "high"})
    assert report.status == "failed" and "criteria are malformed" in report.summary


def test_no_mutation_of_a_real_artifact_makes_the_validator_raise(english: Artifact) -> None:
    junk: list[Any] = [None, 0, -1, 1.5, "", "x", [], {}, [None], [{}], {"a": 1}, True]
    paths: list[tuple[Any, ...]] = [(k,) for k in english] + [
        ("segments", 0),
        ("segments", 0, "index"),
        ("segments", 0, "confidence"),
        ("tasks", 0),
        ("tasks", 0, "evidence"),
        ("participants", 0, "email"),
        ("draft", "to"),
        ("note", "text"),
        ("quality", "mean_confidence"),
    ]
    seen = set()
    for path in paths:
        for value in junk:
            broken = copy.deepcopy(english)
            target = broken
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
            seen.add(validate_conversation(broken, CRITERIA).status)
    assert seen >= {"failed", "partial"}  # the mutations reach both outcomes; none raised


def test_summarize_shows_the_conflicts(english: Artifact) -> None:
    report = validate_conversation(doctored(english, _unowned), CRITERIA)
    summary = WORKFLOW.summarize(doctored(english, _unowned), report)
    assert summary.lines[0].startswith("Launch planning (2026-11-27, en): 8 tasks, 2 decisions, 1 open questions")
    assert "Draft reply to 3 participants: ready, not sent" in summary.lines
    assert any(c.startswith("T2 has no owner") for c in summary.conflicts)
    assert any(c.startswith("T4 rests on low-confidence segments #14 (0.6)") for c in summary.conflicts)
    assert any(c.startswith("tasks: tasks without an owner: T2") for c in summary.conflicts)
    assert summary.metrics["excluded_speakers"] == 2 and summary.metrics["status"] == "partial"
    none = WORKFLOW.summarize(None, validate_conversation(None, CRITERIA))
    assert none.lines[0].startswith("No conversation notes")
