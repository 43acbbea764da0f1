"""The incident report says exactly what its hypotheses showed (DESIGN invariant 11).

Each test builds its own job log, in the form `perf.load_jobs` reads (comma-separated, ISO dates), over
2026-11-01..28 with ten jobs a day and render time rising from 2026-11-15:

- *switch*: every job from 2026-11-15 runs renderer 4.2 (before: 4.1) and is ~150 s slower; host and cache_hit
  change their mix a little but do not matter. The renderer coincides exactly with the change: no job after it runs
  4.1, so "with vs without it after the change" cannot be compared. It is the prime suspect, never "untested, the
  cause lies elsewhere", and the report is partial.
- *planted*: from 2026-11-15 hosts r1 and r2 (half the jobs) run renderer 4.2 and only they are slower; a new scene
  (ocean) comes in but is not slower; the hosts' mix does not change. Two candidate factors, one confirmed.

The clock is never read: `NOW` is injected where slot extraction needs one.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import OperationContext, Registry
from alicorn.packs.incident import WORKFLOW
from alicorn.packs.incident.ops import LoadJobsInputs, ProposeInputs, load_jobs, propose_hypotheses
from alicorn.packs.incident.slots import IncidentParameters
from alicorn.packs.incident.testing import CheckInputs, check_hypothesis
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.plan.validate import validate_plan
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.state import RunState
from alicorn.validate.base import ValidationReport

NOW = datetime(2026, 11, 30, 9, 0)
GOAL = "Find the cause of the increase in render time and show the test results."
SPLIT = "2026-11-15"
DAYS = [date(2026, 11, 1) + timedelta(days=d) for d in range(28)]


def _jitter(i: int) -> float:
    return float((i * 37) % 41 - 20)


def switch_log() -> str:
    """Renderer 4.2 from 2026-11-15 on every job, 150 s slower; host and cache_hit shift a little, harmlessly."""
    lines = ["job_id,date,host,renderer_version,cache_hit,duration_s"]
    i = 0
    for day in DAYS:
        for _ in range(10):
            i += 1
            after = day.isoformat() >= SPLIT
            host = ("r1", "r2", "r3", "r2")[i % 4] if after else ("r1", "r2", "r3")[i % 3]
            cache = (i % 3 == 0) if after else (i % 2 == 0)
            duration = 500.0 + _jitter(i) + (150.0 if after else 0.0)
            version = "4.2" if after else "4.1"
            lines.append(f"J{i:04d},{day.isoformat()},{host},{version},{str(cache).lower()},{duration:.1f}")
    return "\n".join(lines) + "\n"


def planted_log() -> str:
    """From 2026-11-15 hosts r1/r2 run renderer 4.2 and only they are slower; the new scene ocean is not slower."""
    lines = ["job_id,date,host,renderer_version,scene,duration_s"]
    i = 0
    for day in DAYS:
        for _ in range(10):
            i += 1
            after = day.isoformat() >= SPLIT
            host = ("r1", "r2", "r3", "r4")[i % 4]
            version = "4.2" if after and host in ("r1", "r2") else "4.1"
            scene = ("city", "forest", "ocean")[i % 3] if after else ("city", "forest")[i % 2]
            duration = 500.0 + _jitter(i) + (250.0 if version == "4.2" else 0.0)
            lines.append(f"J{i:04d},{day.isoformat()},{host},{version},{scene},{duration:.1f}")
    return "\n".join(lines) + "\n"


def registry() -> Registry:
    reg = builtin_registry()
    for op in WORKFLOW.operations:
        reg.register(op)
    return reg


def data_root(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    (root / "render_jobs.csv").write_text(text, encoding="utf-8")
    return root


def run(tmp_path: Path, params: IncidentParameters, text: str) -> RunState:
    built = WORKFLOW.build(params, frozenset())
    plan = validate_plan(Plan(goal=GOAL, goal_hash=goal_digest(GOAL), nodes=list(built.nodes)), registry())
    env = RunEnvironment(tmp_path / "ws", data_root(tmp_path, text))
    return Executor(InMemoryStore(), registry(), env).start(plan)


def outcome(state: RunState, params: IncidentParameters) -> tuple[dict[str, Any], ValidationReport]:
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None, state.stop_reason
    return artifact, WORKFLOW.validator(artifact, WORKFLOW.criteria(params))


def markdown(state: RunState) -> str:
    return str((state.nodes["summarize"].output or {})["markdown"])


def verdicts(artifact: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["factor"], f["level"], f["verdict"]) for f in artifact["findings"]]


def ctx(tmp_path: Path, root: Path) -> OperationContext:
    return OperationContext("run", "node", 1, "key", tmp_path / "ws", root)


# ------------------------------------------------------------------------- a factor confounded with the change


def test_a_factor_that_switched_exactly_at_the_change_is_confounded_not_untested(tmp_path: Path) -> None:
    root = data_root(tmp_path, switch_log())
    jobs = load_jobs(LoadJobsInputs(), ctx(tmp_path, root)).jobs
    hypotheses = propose_hypotheses(ProposeInputs(jobs=jobs, split_date=SPLIT, count=3), ctx(tmp_path, root))
    first = hypotheses.hypotheses[0]
    assert (first.factor, first.level, first.before_share, first.after_share) == ("renderer_version", "4.2", 0, 1)
    out = check_hypothesis(
        CheckInputs(jobs=jobs, split_date=SPLIT, hypotheses=hypotheses.hypotheses, rank=1), ctx(tmp_path, root)
    )
    assert out.verdict == "confounded" and not out.supported
    assert "coincides exactly with the change" in out.result.reason
    assert "confounded with time" in out.result.reason and "on the same days would settle it" in out.result.reason
    assert "too few jobs" not in out.result.reason


def test_a_confounded_cause_makes_the_report_partial_and_never_the_cause_lies_elsewhere(tmp_path: Path) -> None:
    params = IncidentParameters(hypotheses=3)
    state = run(tmp_path, params, switch_log())
    assert state.status == "succeeded"
    artifact, report = outcome(state, params)
    assert verdicts(artifact) == [
        ("renderer_version", "4.2", "confounded"),
        ("cache_hit", "false", "not supported"),
        ("host", "r2", "not supported"),
    ]
    # Untested is no answer: the outcome is partial, and the unmet check says which hypothesis and why.
    assert report.status == "partial", report.summary
    assert [c.name for c in report.failures] == ["tests"]
    why = report.failures[0].detail
    assert "hypothesis 1 (renderer_version = 4.2)" in why and "coincides exactly with the change" in why
    assert "0% of jobs before 2026-11-15, 100% after" in why and "confounded with time" in why
    # The saved report names the prime suspect instead of sending the reader elsewhere.
    text = markdown(state)
    assert "lies elsewhere" not in text and "too few jobs" not in text
    conclusion = text.split("## Conclusion", 1)[1].split("## Sources", 1)[0]
    assert "renderer_version = 4.2" in conclusion and "coincides exactly with the change" in conclusion
    assert "prime suspect" in conclusion
    summary = WORKFLOW.summarize(artifact, report, "en")
    assert summary.lines[1] == (
        "Hypothesis 1: renderer_version = 4.2: confounded with the change (0% of jobs before 2026-11-15, 100% "
        "after): the prime suspect, but this data cannot separate it from the change"
    )
    assert not any("lies elsewhere" in c for c in summary.conflicts)
    assert "no hypothesis was confirmed and 1 could not be tested: the cause is not settled" in summary.conflicts
    assert summary.metrics["tested"] == 2 and summary.metrics["supported"] == 0


def test_the_confounded_verdict_in_polish_and_russian(tmp_path: Path) -> None:
    params = IncidentParameters(hypotheses=3)
    artifact, report = outcome(run(tmp_path, params, switch_log()), params)
    polish = WORKFLOW.summarize(artifact, report, "pl")
    assert polish.lines[1] == (
        "Hipoteza 1: renderer_version = 4.2: nierozdzielna od zmiany (0% zadań przed 2026-11-15, 100% po): "
        "główny podejrzany, ale na tych danych nie da się go oddzielić od zmiany"
    )
    assert "żadna hipoteza nie została potwierdzona, a 1 nie dało się sprawdzić: przyczyna nie jest ustalona" in (
        polish.conflicts
    )
    assert any("pokrywa się dokładnie ze zmianą" in c for c in polish.conflicts)
    assert not any("gdzie indziej" in c for c in polish.conflicts)
    russian = WORKFLOW.summarize(artifact, report, "ru")
    assert russian.lines[1].startswith("Гипотеза 1: renderer_version = 4.2: неотделима от изменения (0% заданий")
    assert any("в точности совпадает с изменением" in c for c in russian.conflicts)
    assert not any("причина в другом" in c for c in russian.conflicts)


# -------------------------------------------------------------------------- fewer factors than hypotheses


def test_fewer_candidate_factors_than_hypotheses_shows_no_placeholders(tmp_path: Path) -> None:
    params = IncidentParameters(hypotheses=5)
    state = run(tmp_path, params, switch_log())
    assert state.status == "succeeded"
    artifact, report = outcome(state, params)
    assert len(artifact["findings"]) == 3
    headings = [s["heading"] for s in artifact["sections"]]
    assert headings == [
        "Data",
        "Change",
        "Hypothesis 1: renderer_version = 4.2",
        "Hypothesis 2: cache_hit = false",
        "Hypothesis 3: host = r2",
        "Conclusion",
    ]
    text = markdown(state)
    assert "(none)" not in text and "no hypothesis number" not in text
    assert "data offered 3 candidate factor(s)" in text
    summary = WORKFLOW.summarize(artifact, report, "en")
    assert not any("(none)" in line for line in summary.lines)
    assert "Only 3 hypotheses could be formed from the data (5 asked): no other factor changed its mix" in (
        summary.lines
    )
    count = next(c for c in report.checks if c.name == "count")
    assert count.passed and count.detail.startswith("3 of the 5 hypothesis(es) asked could be formed")
    assert summary.metrics["hypotheses"] == 3 and summary.metrics["asked"] == 5


def test_a_confirmed_cause_among_fewer_factors_is_still_complete(tmp_path: Path) -> None:
    params = IncidentParameters(hypotheses=3)
    state = run(tmp_path, params, planted_log())
    artifact, report = outcome(state, params)
    assert verdicts(artifact) == [("renderer_version", "4.2", "supported"), ("scene", "ocean", "not supported")]
    assert report.status == "complete", report.summary
    assert {"tests", "count"} <= {c.name for c in report.checks}
    summary = WORKFLOW.summarize(artifact, report, "pl")
    assert summary.lines[1].startswith("Hipoteza 1: renderer_version = 4.2: potwierdzona")
    assert not any("(none)" in line for line in summary.lines)
    assert (
        "Udało się sformułować tylko 2 hipotezy z danych (poproszono o 3): żaden inny czynnik nie zmienił rozkładu "
        "wartości"
    ) in summary.lines
    assert summary.conflicts == ()
    assert "Supported: hypothesis 1 (renderer_version = 4.2)" in markdown(state)


# ----------------------------------------------------------------------- more hypotheses asked than made


def test_more_hypotheses_asked_than_the_template_tests_is_partial_and_said(tmp_path: Path) -> None:
    found = WORKFLOW.extract("Find why render time rose, check seven hypotheses and show the tests.", "en", NOW)
    assert found["hypotheses"] == 7  # what was asked, not what the template can do
    params = IncidentParameters.model_validate(found)
    built = WORKFLOW.build(params, frozenset())
    assert [n.node_id for n in built.nodes if n.operation == "perf.test_hypothesis"] == [
        f"test_{k}" for k in range(1, 6)
    ]
    assert WORKFLOW.criteria(params)["hypotheses"] == 7
    state = run(tmp_path, params, planted_log())
    artifact, report = outcome(state, params)
    assert [f["verdict"] for f in artifact["findings"]] == ["supported", "not supported"]
    assert report.status == "partial", report.summary
    assert [c.name for c in report.failures] == ["count"]
    assert report.failures[0].detail == (
        "7 hypothesis(es) asked, but this template tests at most 5; 2 formed from the data"
    )
    assert "7 hypotheses were asked; this template tests at most 5" in markdown(state)
    summary = WORKFLOW.summarize(artifact, report, "ru")
    assert summary.metrics["asked"] == 7 and summary.metrics["hypotheses"] == 2
    assert any("шаблон проверяет не больше 5" in c for c in summary.conflicts)


@pytest.mark.parametrize(
    ("language", "text", "asked"),
    [
        ("pl", "Znajdź przyczynę wzrostu czasu renderowania, sprawdź siedem hipotez i pokaż wyniki testów", 7),
        ("ru", "Найди причину роста времени рендеринга, проверь десять гипотез", 10),
        ("en", "Check 12 hypotheses about the render time", 12),
    ],
)
def test_the_number_asked_is_kept_when_it_exceeds_what_the_template_tests(language: str, text: str, asked: int) -> None:
    params = IncidentParameters.model_validate(WORKFLOW.extract(text, language, NOW))
    assert params.hypotheses == asked
    tests = [n for n in WORKFLOW.build(params, frozenset()).nodes if n.operation == "perf.test_hypothesis"]
    assert len(tests) == 5


# ------------------------------------------------------------------------------ what the summary may conclude


def _artifact(findings: list[dict[str, Any]], **counts: int) -> dict[str, Any]:
    figures = {"increase_pct": 30.3, "split_date": SPLIT, "median_before_s": 500, "median_after_s": 650}
    return {
        "title": "Render time incident",
        "sections": [{"heading": "Change", "text": "The change.", "sources": ["change"], "figures": figures}],
        "findings": findings,
        "hypotheses": {"asked": len(findings), "planned": len(findings), "formed": len(findings), **counts},
    }


SWITCHED = {"rank": 1, "factor": "renderer_version", "level": "4.2", "verdict": "confounded", "before_share": 0.0,
            "after_share": 1.0, "after_at_level": 140, "after_rest": 0}  # fmt: skip
REFUTED = {"rank": 2, "factor": "host", "level": "r2", "verdict": "not supported", "ratio": 0.99, "p_value": 0.9}


def test_a_confounded_factor_beside_a_confirmed_cause_is_no_prime_suspect() -> None:
    confirmed = {**REFUTED, "verdict": "supported", "ratio": 1.5, "p_value": 0.001}
    artifact = _artifact([SWITCHED, confirmed])
    report = WORKFLOW.validator(artifact, {"hypotheses": 2})
    summary = WORKFLOW.summarize(artifact, report, "en")
    assert summary.lines[1] == (
        "Hypothesis 1: renderer_version = 4.2: confounded with the change (0% of jobs before 2026-11-15, 100% after): "
        "this data cannot separate it from the change"
    )
    assert [c.name for c in report.failures if c.name in ("tests", "count")] == ["tests"]


def test_the_cause_lies_elsewhere_only_when_every_candidate_factor_was_tested_and_refuted() -> None:
    refuted = {**SWITCHED, "verdict": "not supported", "ratio": 1.0, "p_value": 0.5}
    untried = WORKFLOW.summarize(
        _artifact([refuted, REFUTED], candidates=4), _valid(_artifact([refuted, REFUTED])), "en"
    )
    assert "no hypothesis tested explains the rise; 2 more factors whose mix changed were not tested" in (
        untried.conflicts
    )
    assert not any("lies elsewhere" in c for c in untried.conflicts)
    everything = WORKFLOW.summarize(
        _artifact([refuted, REFUTED], candidates=2), _valid(_artifact([refuted, REFUTED])), "en"
    )
    assert everything.conflicts[-1] == "no hypothesis explains the rise: the cause lies elsewhere"
    russian = WORKFLOW.summarize(_artifact([refuted, REFUTED], candidates=3), _valid(_artifact([refuted])), "ru")
    assert "ещё 1 фактор с изменившимся распределением значений не проверен" in russian.conflicts[-1]


def _valid(artifact: dict[str, Any]) -> ValidationReport:
    return WORKFLOW.validator(artifact, {"hypotheses": len(artifact["findings"])})
