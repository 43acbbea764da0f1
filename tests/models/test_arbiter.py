"""Consultants and the arbiter: evidence and tests decide, never the number of consultants."""

from __future__ import annotations

import json

from alicorn.models.arbiter import CheckResult, ConsultantAnswer, Evidence, Opinion, arbitrate, consult
from alicorn.models.messages import ChatRequest
from alicorn.models.providers.scripted import ScriptedProvider
from alicorn.models.recorder import ModelClient
from tests.models.support import profile


def said(who: str, answer: str, **parts: object) -> ConsultantAnswer:
    return ConsultantAnswer(profile=who, opinion=Opinion(answer=answer, **parts))  # type: ignore[arg-type]


def test_one_tested_answer_beats_three_untested_ones() -> None:
    answers = [
        said("a", "The cache is cold"),
        said("b", "the cache is cold."),
        said("c", "The cache is cold"),
        said("d", "Texture streaming regressed", tests=[CheckResult(name="bisect", passed=True)]),
    ]
    verdict = arbitrate(answers)
    assert verdict.settled and verdict.answer == "Texture streaming regressed"
    assert "passing test(s): bisect" in verdict.reasons[0]
    cold = next(p for p in verdict.positions if p.answer.lower().startswith("the cache"))
    assert len(cold.supporters) == 3 and cold.standing == 0


def test_failing_test_refutes_and_evidence_counts_only_from_known_sources() -> None:
    answers = [
        said("a", "A", tests=[CheckResult(name="t1", passed=False)], evidence=[Evidence(claim="x", source="frag-1")]),
        said("b", "B", evidence=[Evidence(claim="logs show it", source="frag-2")]),
        said("c", "C", evidence=[Evidence(claim="I remember", source="somewhere")]),
    ]
    verdict = arbitrate(answers, known_sources={"frag-1", "frag-2"})
    assert verdict.settled and verdict.answer == "B"
    assert any("'A' refuted by failing test(s): t1" in r for r in verdict.reasons)
    c = next(p for p in verdict.positions if p.answer == "C")
    assert c.unverified_evidence == ("somewhere: I remember",) and c.standing == 0


def test_equal_support_stays_unresolved_with_the_differences() -> None:
    answers = [
        said("a", "Variant 1", tests=[CheckResult(name="coverage", passed=True)], assumptions=["demand flat", "x"]),
        said("b", "Variant 2", tests=[CheckResult(name="cost", passed=True)], assumptions=["demand grows", "x"]),
    ]
    verdict = arbitrate(answers)
    assert not verdict.settled and verdict.answer is None and "a human must decide" in verdict.reasons[0]
    differences = verdict.differences()
    assert any("'demand flat'" in d and "'x'" not in d for d in differences)


def test_settled_answer_lists_its_assumptions_as_caveats() -> None:
    verdict = arbitrate([said("a", "Yes", tests=[CheckResult(name="t", passed=True)], assumptions=["EU law applies"])])
    assert verdict.settled and any("EU law applies" in r for r in verdict.reasons)


def test_nothing_survives() -> None:
    verdict = arbitrate(
        [
            said("a", "A", tests=[CheckResult(name="t", passed=False)]),
            ConsultantAnswer(profile="b", opinion=None, error="timeout"),
        ]
    )
    assert not verdict.settled and verdict.failed_consultants == ("b",) and "no answer survived" in verdict.reasons


def test_consult_collects_opinions_and_failures() -> None:
    good = json.dumps({"answer": "B", "tests": [{"name": "t", "passed": True}]})
    clients = [
        ModelClient(profile(id="one"), ScriptedProvider([good])),
        ModelClient(profile(id="two"), ScriptedProvider(["garbage", "still garbage"])),
    ]
    answers = consult(clients, ChatRequest.chat("You are a consultant.", "Why is rendering slow?"))
    assert answers[0].opinion is not None and answers[0].opinion.answer == "B"
    assert answers[1].opinion is None and "StructuredOutputError" in (answers[1].error or "")
    assert arbitrate(answers).answer == "B"
