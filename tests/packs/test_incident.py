"""The render-time incident pack: slots, plan, operations and whole runs on the bundled job log.

The bundled log (`render_jobs.csv`, 309 rows over 2026-10-01..28) was generated with one planted cause: from
2026-10-15 hosts render-01..03 run renderer 4.2, which renders 1.75x slower. Distractors change at the same time: a
new scene (ocean, not slower), a busier host (render-05, barely slower), a little more 4k (slower by nature), and
the log has two unfinished jobs and one job logged twice with conflicting durations.
"""

from __future__ import annotations

import copy
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from alicorn import canonical
from alicorn.errors import OperationError
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import OperationContext, Registry
from alicorn.packs.incident import WORKFLOW
from alicorn.packs.incident.models import Hypothesis
from alicorn.packs.incident.ops import (
    FindChangeInputs,
    LoadJobsInputs,
    ProposeInputs,
    find_change,
    load_jobs,
    propose_hypotheses,
)
from alicorn.packs.incident.report import SummarizeInputs, summarize_tests
from alicorn.packs.incident.slots import IncidentParameters
from alicorn.packs.incident.testing import CheckInputs, check_hypothesis
from alicorn.packs.workflow import LANGUAGES
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.plan.validate import validate_plan
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.state import RunState

SEED = "Find the cause of the increase in render time, check three hypotheses and show the test results."
NOW = datetime(2026, 10, 29, 9, 30)
DATA = WORKFLOW.data_dir / "render_jobs.csv"


def registry() -> Registry:
    reg = builtin_registry()
    for op in WORKFLOW.operations:
        reg.register(op)
    return reg


def plan_for(params: IncidentParameters, forbidden: frozenset[Any] = frozenset()) -> Plan:
    built = WORKFLOW.build(params, forbidden)
    return validate_plan(Plan(goal=SEED, goal_hash=goal_digest(SEED), nodes=list(built.nodes)), registry())


def run(tmp_path: Path, params: IncidentParameters, data_root: Path | None = None) -> RunState:
    store = SQLiteStore(tmp_path / "journal.db")
    try:
        env = RunEnvironment(tmp_path / "ws", data_root or WORKFLOW.data_dir)
        return Executor(store, registry(), env, poll_s=0.02).start(plan_for(params))
    finally:
        store.close()


def ctx(tmp_path: Path, data_root: Path | None = None) -> OperationContext:
    return OperationContext("run", "node", 1, "key", tmp_path / "ws", data_root or WORKFLOW.data_dir)


def findings(state: RunState) -> list[dict[str, Any]]:
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None
    return list(artifact["findings"])


# ---------------------------------------------------------------------------------------------- whole runs


def test_seed_command_runs_end_to_end_and_finds_the_renderer_upgrade(tmp_path: Path) -> None:
    params = IncidentParameters.model_validate(WORKFLOW.extract(SEED, "en", NOW))
    assert params.hypotheses == 3
    state = run(tmp_path, params)
    assert state.status == "succeeded"
    assert sorted(state.nodes) == sorted(
        ["load", "change", "propose", "test_1", "test_2", "test_3", "summarize", "write"]
    )
    artifact = WORKFLOW.artifact_of(state)
    report = WORKFLOW.validator(artifact, WORKFLOW.criteria(params))
    assert report.status == "complete", report.summary
    assert {c.name for c in report.checks} >= {"completeness", "sources", "consistency", "no_forbidden_data"}
    change = state.nodes["change"].output
    assert change is not None and change["split_date"] == "2026-10-15" and change["increase_pct"] > 20
    supported = [(f["factor"], f["level"]) for f in findings(state) if f["verdict"] == "supported"]
    assert supported == [("renderer_version", "4.2")]
    assert [f["verdict"] for f in findings(state)].count("not supported") == 2
    # The report file is the document's Markdown, written into the run's workspace.
    written = Path(state.workspace) / "reports" / "render-time-incident.md"
    summarize = state.nodes["summarize"].output
    assert summarize is not None and written.read_text(encoding="utf-8") == summarize["markdown"]
    assert "## Hypothesis 1: renderer_version = 4.2" in summarize["markdown"]
    summary = WORKFLOW.summarize(artifact, report)
    assert "2026-10-15" in summary.lines[0] and "supported" in summary.lines[1]
    assert summary.metrics["supported"] == 1 and summary.conflicts == ()


def test_with_five_hypotheses_only_the_true_cause_is_supported(tmp_path: Path) -> None:
    state = run(tmp_path, IncidentParameters(hypotheses=5))
    assert state.status == "succeeded"
    results = {(f["factor"], f["level"]): f["verdict"] for f in findings(state)}
    assert len(results) == 5
    assert [k for k, v in results.items() if v == "supported"] == [("renderer_version", "4.2")]
    # 4k frames are slower by nature, so the level test alone would blame them; the residual test clears them.
    resolution = next(
        (n.output or {})["result"]
        for n in state.nodes.values()
        if ((n.output or {}).get("result") or {}).get("factor") == "resolution"
    )
    assert resolution["level_effect"]["p_value"] < 0.05 and resolution["level_effect"]["ratio"] > 1.1
    assert resolution["residual"]["p_value"] < 0.05 and resolution["verdict"] == "not supported"
    report = WORKFLOW.validator(WORKFLOW.artifact_of(state), WORKFLOW.criteria(IncidentParameters(hypotheses=5)))
    assert report.status == "complete", report.summary


def test_two_runs_give_byte_identical_reports(tmp_path: Path) -> None:
    first = run(tmp_path / "a", IncidentParameters())
    second = run(tmp_path / "b", IncidentParameters())
    assert canonical.dumps(WORKFLOW.artifact_of(first)) == canonical.dumps(WORKFLOW.artifact_of(second))


def test_a_stated_date_fixes_the_split(tmp_path: Path) -> None:
    params = IncidentParameters.model_validate(
        WORKFLOW.extract("Renders have been slower since 20 October; test two hypotheses.", "en", NOW)
    )
    assert params.since == "2026-10-20" and params.hypotheses == 2
    state = run(tmp_path, params)
    assert state.status == "succeeded"
    change = (state.nodes["change"].output or {})["change"]
    assert change["split_date"] == "2026-10-20" and change["chosen_by"] == "given date"


def test_private_data_in_the_log_makes_the_report_partial(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    text = DATA.read_text(encoding="utf-8").replace(",ocean,", ",ocean-jan.kowalski@example.com,")
    (data / "render_jobs.csv").write_text(text, encoding="utf-8")
    params = IncidentParameters()
    state = run(tmp_path, params, data)
    assert state.status == "succeeded"
    report = WORKFLOW.validator(WORKFLOW.artifact_of(state), WORKFLOW.criteria(params))
    assert report.status == "partial"
    assert [c.name for c in report.failures] == ["no_forbidden_data"]
    assert "email" in report.failures[0].detail and "kowalski" not in report.failures[0].detail


def test_a_log_without_a_rise_stops_the_run_and_fails_validation(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    lines = DATA.read_text(encoding="utf-8").splitlines()
    flat = [lines[0]] + [",".join([*ln.split(",")[:-1], "600.0"]) for ln in lines[1:] if ln.split(",")[-1]]
    (data / "render_jobs.csv").write_text("\n".join(flat) + "\n", encoding="utf-8")
    state = run(tmp_path, IncidentParameters(), data)
    assert state.status == "stopped"
    assert "did not rise" in (state.stop_reason or "")
    assert WORKFLOW.artifact_of(state) is None
    report = WORKFLOW.validator(None, WORKFLOW.criteria(IncidentParameters()))
    assert report.status == "failed" and report.checks[0].name == "artifact"


def test_a_doctored_report_missing_a_hypothesis_is_partial(tmp_path: Path) -> None:
    state = run(tmp_path, IncidentParameters())
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None
    doctored = {
        **artifact,
        "sections": [s for s in artifact["sections"] if not s["heading"].startswith("Hypothesis 2")],
    }
    report = WORKFLOW.validator(doctored, WORKFLOW.criteria(IncidentParameters()))
    assert report.status == "partial"
    assert {c.name for c in report.failures} == {"completeness", "min_sections"}
    assert "hypothesis 2" in next(c.detail for c in report.failures if c.name == "completeness")


# ------------------------------------------------------------------------------------------------------ plan


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_one_test_node_per_hypothesis(n: int) -> None:
    plan = plan_for(IncidentParameters(hypotheses=n))
    assert len(plan.nodes) == n + 5
    assert [x.node_id for x in plan.nodes if x.operation == "perf.test_hypothesis"] == [
        f"test_{k}" for k in range(1, n + 1)
    ]
    summarize = plan.node("summarize")
    assert sorted(k for k in summarize.inputs if k.startswith("result_")) == [f"result_{k}" for k in range(1, n + 1)]
    # Every report has these; a section for each hypothesis the data offers is required by the validator.
    criteria = WORKFLOW.criteria(IncidentParameters(hypotheses=n))
    assert criteria["required_sections"] == ["data", "change", "hypothesis 1", "conclusion"]
    assert criteria["hypotheses"] == n and summarize.inputs["asked"].model_dump() == {"value": n}


def test_forbidden_effects_leave_out_their_nodes_and_say_so() -> None:
    built = WORKFLOW.build(IncidentParameters(), frozenset({"local_write", "publication"}))
    assert [n.node_id for n in built.nodes] == ["load", "change", "propose", "test_1", "test_2", "test_3", "summarize"]
    assert built.removed == ("write (workspace.write_file, writing local files): left out, the request forbids it",)
    validate_plan(Plan(goal="g", goal_hash=goal_digest("g"), nodes=list(built.nodes)), registry())
    nothing = WORKFLOW.build(IncidentParameters(), frozenset({"read"}))
    assert nothing.nodes == () and len(nothing.removed) == 8
    assert nothing.removed[1].startswith("change (perf.find_change): left out, it needs load")
    assert WORKFLOW.build(IncidentParameters(), frozenset()).removed == ()


# ----------------------------------------------------------------------------------------------- operations


def test_load_jobs_sets_aside_unfinished_and_repeated_jobs(tmp_path: Path) -> None:
    out = load_jobs(LoadJobsInputs(), ctx(tmp_path))
    assert out.count == 306 and out.skipped_count == 3
    reasons = {s.job_id: s.reason for s in out.skipped}
    assert "did not finish" in reasons["J0041"] and "did not finish" in reasons["J0202"]
    assert "logged again" in reasons["J0121"] and "disagrees" in reasons["J0121"]
    job = out.jobs[0]
    assert (
        isinstance(job["frames"], int) and isinstance(job["cache_hit"], bool) and isinstance(job["duration_s"], float)
    )


@pytest.mark.parametrize(
    ("path", "content", "message"),
    [
        ("missing.csv", None, "no job log 'missing.csv'"),
        ("../render_jobs.csv", None, "contains '..'"),
        ("/etc/passwd", None, "is absolute"),
        ("bad.csv", "job_id,date,host\nJ1,2026-10-01,a\n", "lacks column(s) duration_s"),
        ("ragged.csv", "job_id,date,duration_s\nJ1,2026-10-01\n", "line 2: 2 fields"),
        ("empty.csv", "", "is empty"),
    ],
)
def test_load_jobs_refuses_bad_inputs_clearly(tmp_path: Path, path: str, content: str | None, message: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    if content is not None:
        (data / path).write_text(content, encoding="utf-8")
    with pytest.raises(OperationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_jobs(LoadJobsInputs(path=path), ctx(tmp_path, data))
    assert not (tmp_path / "ws").exists()  # nothing written


def test_find_change_refuses_bad_inputs(tmp_path: Path) -> None:
    jobs = load_jobs(LoadJobsInputs(), ctx(tmp_path)).jobs
    with pytest.raises(OperationError, match="at least 6 jobs"):
        find_change(FindChangeInputs(jobs=jobs[:3]), ctx(tmp_path))
    with pytest.raises(OperationError, match="outside the log"):
        find_change(FindChangeInputs(jobs=jobs, since="2027-01-01"), ctx(tmp_path))
    with pytest.raises(OperationError, match="no numeric 'duration_s'"):
        find_change(FindChangeInputs(jobs=[{**jobs[0], "duration_s": "slow"}, *jobs[1:]]), ctx(tmp_path))
    with pytest.raises(OperationError, match="no 'date'"):
        find_change(FindChangeInputs(jobs=[{**jobs[0], "date": "yesterday"}, *jobs[1:]]), ctx(tmp_path))
    found = find_change(FindChangeInputs(jobs=jobs), ctx(tmp_path))
    assert found.change.chosen_by == "Pettitt change point" and found.change.p_value < 0.001


def test_propose_ranks_changed_factors_and_skips_identifiers(tmp_path: Path) -> None:
    jobs = load_jobs(LoadJobsInputs(), ctx(tmp_path)).jobs
    out = propose_hypotheses(ProposeInputs(jobs=jobs, split_date="2026-10-15", count=5), ctx(tmp_path))
    assert [(h.rank, h.factor, h.level) for h in out.hypotheses[:3]] == [
        (1, "renderer_version", "4.2"),
        (2, "scene", "ocean"),
        (3, "host", "render-05"),
    ]
    assert "job_id" not in {f.factor for f in out.considered}
    frames = next(h for h in out.hypotheses if h.factor == "frames")
    assert frames.kind in ("above", "at_most") and frames.threshold is not None  # numeric: split at its median
    with pytest.raises(OperationError, match="leaves no jobs on one side"):
        propose_hypotheses(ProposeInputs(jobs=jobs, split_date="2030-01-01"), ctx(tmp_path))


def test_test_hypothesis_is_deterministic_and_reports_missing_ones_untested(tmp_path: Path) -> None:
    jobs = load_jobs(LoadJobsInputs(), ctx(tmp_path)).jobs
    hypotheses = propose_hypotheses(
        ProposeInputs(jobs=jobs, split_date="2026-10-15", count=2), ctx(tmp_path)
    ).hypotheses
    inputs = CheckInputs(jobs=jobs, split_date="2026-10-15", hypotheses=hypotheses, rank=1)
    first, again = check_hypothesis(inputs, ctx(tmp_path)), check_hypothesis(inputs, ctx(tmp_path))
    assert first == again and first.supported and len(first.result.evidence) == 10
    missing = check_hypothesis(inputs.model_copy(update={"rank": 3}), ctx(tmp_path))
    assert missing.verdict == "untested" and "only 2" in missing.result.reason and not missing.result.formed
    lonely = Hypothesis(
        rank=1, factor="host", level="render-99", before_share=0, after_share=0.01, shift=0.01, statement="s"
    )
    thin = check_hypothesis(inputs.model_copy(update={"hypotheses": [lonely]}), ctx(tmp_path))
    assert thin.verdict == "untested" and "too few jobs" in thin.result.reason
    with pytest.raises(OperationError, match="no numeric 'duration_s'"):
        check_hypothesis(
            inputs.model_copy(update={"jobs": [{**jobs[0], "duration_s": None}, *jobs[1:]]}), ctx(tmp_path)
        )


# ----------------------------------------------------------------------------------------------- extraction


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", SEED, 3),
        ("en", "Test 4 possible causes of the slower renders.", 4),
        ("en", "Why did rendering get slower? Give me two hypotheses and check them.", 2),
        ("en", "Check five explanations for the render time regression", 5),
        ("en", "hypotheses: 1", 1),
        ("pl", "Znajdź przyczynę wzrostu czasu renderowania, sprawdź trzy hipotezy i pokaż wyniki testów.", 3),
        ("pl", "Zweryfikuj cztery możliwe przyczyny spowolnienia renderingu.", 4),
        ("pl", "Sprawdź dwie hipotezy, czemu render trwa dłużej.", 2),
        ("pl", "Przetestuj pięć hipotez dotyczących czasu renderowania.", 5),
        ("ru", "Найди причину роста времени рендеринга, проверь три гипотезы и покажи результаты тестов.", 3),
        ("ru", "Проверь две гипотезы, почему рендер стал медленнее.", 2),
        ("ru", "Рассмотри четыре возможные причины замедления рендеринга.", 4),
        ("ru", "Проверь 5 версий причин роста времени рендера.", 5),
        ("en", "Check nine hypotheses about render time.", 9),  # as asked: the report says only five are tested
    ],
)
def test_extracts_the_number_of_hypotheses(language: str, text: str, expected: int) -> None:
    assert WORKFLOW.extract(text, language, NOW)["hypotheses"] == expected


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Render time went up by 30 percent on 3 hosts; find the cause."),
        ("pl", "Czas renderowania wzrósł o 40 sekund w wersji 4.2, znajdź przyczynę."),
        ("ru", "Рендер в версии 4.2 стал медленнее на 2 минуты, найди причину."),
    ],
)
def test_numbers_that_do_not_count_hypotheses_are_ignored(language: str, text: str) -> None:
    assert "hypotheses" not in WORKFLOW.extract(text, language, NOW)


@pytest.mark.parametrize(
    ("language", "text", "since"),
    [
        ("en", "Renders are slower since 2026-10-15.", "2026-10-15"),
        ("en", "Render time has been higher since October 12th.", "2026-10-12"),
        ("en", "It has been slow since yesterday.", "2026-10-28"),
        ("en", "Slower renders since last week.", "2026-10-19"),  # last week is a calendar week: from its Monday
        ("pl", "Rendery są wolniejsze od 15 października.", "2026-10-15"),
        ("pl", "Od wczoraj renderowanie trwa dłużej.", "2026-10-28"),
        ("pl", "Od trzech dni czas renderowania rośnie.", "2026-10-26"),
        ("en", "Rendering got slower 4 days ago.", "2026-10-25"),
        ("ru", "Рендер замедлился два дня назад.", "2026-10-27"),
        ("ru", "Рендер стал медленнее с 15 октября.", "2026-10-15"),
        ("ru", "Со вчерашнего дня рендер идёт дольше.", "2026-10-28"),
        ("ru", "После 2026-10-10 время рендера выросло.", "2026-10-10"),
        ("en", "Slower since 20 December.", "2025-12-20"),  # a date after `now` means last year's
    ],
)
def test_extracts_since(language: str, text: str, since: str) -> None:
    assert WORKFLOW.extract(text, language, NOW)["since"] == since


def test_extraction_returns_only_what_it_found() -> None:
    assert WORKFLOW.extract("Hello there", "en", NOW) == {}
    assert WORKFLOW.extract("czas renderowania wzrósł", "pl", NOW) == {"metric": "duration_s"}
    found = WORKFLOW.extract(SEED, "en", NOW)
    assert found == {"hypotheses": 3, "metric": "duration_s"}
    IncidentParameters.model_validate(found)


# ------------------------------------------------------------------------------------------------ contract


def test_workflow_contract() -> None:
    assert WORKFLOW.id == "incident" and WORKFLOW.artifact == "document"
    assert WORKFLOW.required_slots() == []
    for language in LANGUAGES:
        assert len(WORKFLOW.examples[language]) >= 4
        for slot in WORKFLOW.questions:
            assert WORKFLOW.question(slot, language) == WORKFLOW.questions[slot][language]
    for language, texts in WORKFLOW.examples.items():
        for text in texts:
            IncidentParameters.model_validate(WORKFLOW.extract(text, language, NOW))
    assert (WORKFLOW.data_dir / "render_jobs.csv").is_file()
    names = {op.name for op in WORKFLOW.operations}
    assert names == {
        "perf.load_jobs",
        "perf.find_change",
        "perf.propose_hypotheses",
        "perf.test_hypothesis",
        "perf.summarize_tests",
    }
    assert all(op.idempotency == "repeatable" and op.effect in ("none", "read") for op in WORKFLOW.operations)


def test_the_run_works_from_a_copied_data_root(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(WORKFLOW.data_dir, data)
    state = Executor(InMemoryStore(), registry(), RunEnvironment(tmp_path / "ws", data)).start(
        plan_for(IncidentParameters(hypotheses=1))
    )
    assert state.status == "succeeded" and len(findings(state)) == 1


def test_summarize_tests_needs_results_and_keeps_the_rise_consistent(tmp_path: Path) -> None:
    jobs = load_jobs(LoadJobsInputs(), ctx(tmp_path))
    change = find_change(FindChangeInputs(jobs=jobs.jobs), ctx(tmp_path)).change
    with pytest.raises(OperationError, match="no test results to summarize"):
        summarize_tests(SummarizeInputs(change=change, jobs=jobs.count), ctx(tmp_path))
    hypotheses = propose_hypotheses(
        ProposeInputs(jobs=jobs.jobs, split_date=change.split_date, count=1), ctx(tmp_path)
    ).hypotheses
    result = check_hypothesis(
        CheckInputs(jobs=jobs.jobs, split_date=change.split_date, hypotheses=hypotheses, rank=1), ctx(tmp_path)
    ).result
    out = summarize_tests(
        SummarizeInputs(change=change, jobs=jobs.count, skipped=jobs.skipped, result_1=result), ctx(tmp_path)
    )
    assert out.supported == ["renderer_version = 4.2"] and out.tested == 1
    assert [s["heading"] for s in out.document["sections"]] == [
        "Data",
        "Change",
        "Hypothesis 1: renderer_version = 4.2",
        "Conclusion",
    ]
    assert "J0121" in out.document["sections"][0]["text"]  # the conflicting duplicate is reported, not hidden
    doctored = copy.deepcopy(out.document)
    doctored["sections"][3]["figures"]["increase_pct"] = 99.9
    report = WORKFLOW.validator(doctored, WORKFLOW.criteria(IncidentParameters(hypotheses=1)))
    assert report.status == "partial" and [c.name for c in report.failures] == ["consistency"]
    assert "increase_pct" in report.failures[0].detail
    assert not (tmp_path / "ws").exists()
