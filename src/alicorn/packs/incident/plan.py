"""The incident template's plan, artifact, criteria and summary.

    load ─► change ─► propose ─┬► test_1 ─┐
                               ├► ...    ─┼► summarize ─► write (reports/render-time-incident.md)
                               └► test_N ─┘

One test node per hypothesis (N = the `hypotheses` slot, at most 5: the template tests no more), so the plan has
N + 5 nodes. A request asking for more keeps its number in the slot and in the criteria (`hypotheses`), and the
report says that fewer were tested; the data may also offer fewer candidate factors than N, and the report then
names only those (a test node with no hypothesis to test adds nothing to it). The request forbids nothing this plan
needs, but `build` still honours `forbidden`: a node whose effect class is forbidden is left out, and so is every
node that needs its output (only the report file, a local write, can go without losing the result).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from alicorn.i18n import N_, tr, tr_marked, trn
from alicorn.ops.workspace import WRITE_FILE
from alicorn.packs.incident.checks import UNSETTLED, count_of, level_shares
from alicorn.packs.incident.models import MAX_HYPOTHESES
from alicorn.packs.incident.ops import FIND_CHANGE, LOAD_JOBS, PROPOSE_HYPOTHESES
from alicorn.packs.incident.report import SUMMARIZE_TESTS
from alicorn.packs.incident.slots import IncidentParameters
from alicorn.packs.incident.testing import TEST_HYPOTHESIS
from alicorn.packs.workflow import BuiltPlan, ResultSummary, without_forbidden
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.validate.base import ValidationReport

OPERATIONS = (LOAD_JOBS, FIND_CHANGE, PROPOSE_HYPOTHESES, TEST_HYPOTHESIS, SUMMARIZE_TESTS)
_EFFECTS: dict[str, EffectClass] = {op.name: op.effect for op in (*OPERATIONS, WRITE_FILE)}
DATA_FILE = "render_jobs.csv"
REPORT_PATH = "reports/render-time-incident.md"


def _ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def _val(value: Any) -> dict[str, Any]:
    return {"value": value}


def parameters(params: BaseModel) -> IncidentParameters:
    """The slots as this template's model, whatever model the caller filled."""
    if isinstance(params, IncidentParameters):
        return params
    return IncidentParameters.model_validate(params.model_dump())


def planned(p: IncidentParameters) -> int:
    """How many hypotheses the plan tests: as many as asked, at most MAX_HYPOTHESES."""
    return min(p.hypotheses, MAX_HYPOTHESES)


def _nodes(p: IncidentParameters) -> list[Node]:
    n = planned(p)
    change_inputs = {"jobs": _ref("load", "jobs"), "metric": _val(p.metric)}
    if p.since is not None:
        change_inputs["since"] = _val(p.since)
    raw: list[dict[str, Any]] = [
        {
            "node_id": "load",
            "operation": LOAD_JOBS.name,
            "description": f"Read the render job log {DATA_FILE}; unfinished and repeated jobs are set aside.",
            "inputs": {"path": _val(DATA_FILE), "metric": _val(p.metric)},
            "expected_outputs": ["jobs", "count", "skipped"],
            "completion": {"kind": "check", "path": "count", "op": "gte", "value": 6},
            "critical": True,
            "stop": {"reason": "the job log holds too few usable jobs to find a change"},
        },
        {
            "node_id": "change",
            "operation": FIND_CHANGE.name,
            "description": "Find the day render time rose (or use the date the request gives) and by how much.",
            "inputs": change_inputs,
            "expected_outputs": ["change", "split_date", "increase_s"],
            "critical": True,
            "stop": {
                "reason": "render time did not rise in the job log: there is no increase to explain",
                "when": {"kind": "check", "path": "increase_s", "op": "lte", "value": 0},
            },
        },
        {
            "node_id": "propose",
            "operation": PROPOSE_HYPOTHESES.name,
            "description": f"Name up to {n} factor(s) whose mix changed at that day as candidate causes.",
            "inputs": {
                "jobs": _ref("load", "jobs"),
                "split_date": _ref("change", "split_date"),
                "metric": _val(p.metric),
                "count": _val(n),
            },
            "expected_outputs": ["hypotheses", "considered"],
            "critical": True,
            "stop": {
                "reason": "no factor changed between the periods: there is no hypothesis to test",
                "when": {"kind": "check", "path": "hypotheses", "op": "len_eq", "value": 0},
            },
        },
    ]
    for k in range(1, n + 1):
        raw.append(
            {
                "node_id": f"test_{k}",
                "operation": TEST_HYPOTHESIS.name,
                "description": f"Test hypothesis {k}: slower at its level after the change, and no rise without it?",
                "inputs": {
                    "jobs": _ref("load", "jobs"),
                    "split_date": _ref("change", "split_date"),
                    "hypotheses": _ref("propose", "hypotheses"),
                    "rank": _val(k),
                    "metric": _val(p.metric),
                },
                "expected_outputs": ["result", "verdict"],
            }
        )
    raw.append(
        {
            "node_id": "summarize",
            "operation": SUMMARIZE_TESTS.name,
            "description": "Write the report: the change, a section per hypothesis with its verdict, the conclusion.",
            "inputs": {
                "change": _ref("change", "change"),
                "path": _val(DATA_FILE),
                "jobs": _ref("load", "count"),
                "skipped": _ref("load", "skipped"),
                **{f"result_{k}": _ref(f"test_{k}", "result") for k in range(1, n + 1)},
                "asked": _val(p.hypotheses),
                "considered": _ref("propose", "considered"),
            },
            "expected_outputs": ["document", "markdown"],
            # data, change, conclusion and at least one hypothesis: the data may offer fewer than were planned
            "completion": {"kind": "check", "path": "document.sections", "op": "len_gte", "value": 4},
        }
    )
    raw.append(
        {
            "node_id": "write",
            "operation": WRITE_FILE.name,
            "description": f"Save the report as {REPORT_PATH} in the run's workspace.",
            "inputs": {"path": _val(REPORT_PATH), "content": _ref("summarize", "markdown")},
            "expected_outputs": ["path", "sha256"],
        }
    )
    return [Node.model_validate(n) for n in raw]


def build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    """The incident plan for these slots, less what `forbidden` rules out."""
    return without_forbidden(_nodes(parameters(params)), forbidden, _EFFECTS)


def artifact_of(state: RunState) -> dict[str, Any] | None:
    """The report document the summarize node produced, or None if it did not run."""
    node = state.nodes.get("summarize")
    if node is None or node.status != "succeeded":
        return None
    output = state.effective_output("summarize") or {}
    document = output.get("document")
    return document if isinstance(document, dict) else None


def criteria(params: BaseModel) -> dict[str, Any]:
    """What the report must hold: the sections every report has, each citing its sources, and the number of
    hypotheses asked (`checks.validate_report` requires a section per hypothesis the report names, and says when
    fewer than asked were made or any was left untested)."""
    p = parameters(params)
    sections = ["data", "change", "hypothesis 1", "conclusion"]
    return {
        "required_sections": sections,
        "require_sources": True,
        "min_sections": len(sections),
        "hypotheses": p.hypotheses,
    }


#: A hypothesis' verdict, as the summary says it.
VERDICT_LABELS = {
    "supported": N_("supported"),
    "not supported": N_("not supported"),
    "confounded": N_("confounded with the change"),
    "untested": N_("untested"),
}


def _finding_line(lang: str, f: Mapping[str, Any], split_date: Any, suspect: bool) -> str:
    """One hypothesis and its verdict; a confounded one is `suspect` when no hypothesis explains the rise."""
    verdict = str(f.get("verdict"))
    line = tr(
        lang,
        "Hypothesis {rank}: {factor} = {level}: {verdict}",
        rank=f.get("rank"),
        factor=f.get("factor"),
        level=f.get("level"),
        verdict=tr_marked(lang, VERDICT_LABELS[verdict]) if verdict in VERDICT_LABELS else verdict,
    )
    before, after = level_shares(f)
    if verdict == "confounded" and before is not None and after is not None and suspect:
        line += tr(
            lang,
            " ({before}% of jobs before {date}, {after}% after): the prime suspect, but this data cannot separate it "
            "from the change",
            before=before,
            after=after,
            date=split_date,
        )
    elif verdict == "confounded" and before is not None and after is not None:
        line += tr(
            lang,
            " ({before}% of jobs before {date}, {after}% after): this data cannot separate it from the change",
            before=before,
            after=after,
            date=split_date,
        )
    elif verdict == "untested" and f.get("after_at_level") is not None and f.get("after_rest") is not None:
        line += tr(
            lang,
            " (after the change {at} job(s) at its level and {rest} not: too few to compare)",
            at=f.get("after_at_level"),
            rest=f.get("after_rest"),
        )
    if f.get("ratio") is not None:
        line += tr(lang, " (median {ratio}x the other jobs', p={p})", ratio=f.get("ratio"), p=f.get("p_value"))
    return line


def summarize(artifact: Mapping[str, Any] | None, report: ValidationReport, language: str = "en") -> ResultSummary:
    """Headline (the rise and the supported cause), a line per hypothesis, and what a human should look at, in
    `language`."""
    lang = language
    if artifact is None:
        why = report.summary_in(lang)
        return ResultSummary(lines=(tr(lang, "No report was produced ({why}).", why=why),), conflicts=(why,))
    sections = {s.get("heading", ""): s for s in artifact.get("sections", []) if isinstance(s, dict)}
    figures = sections.get("Change", {}).get("figures", {})
    findings = [f for f in artifact.get("findings", []) if isinstance(f, dict)]
    supported = [f for f in findings if f.get("verdict") == "supported"]
    lines = [
        tr(
            lang,
            "Render time rose {increase}% from {date} (median {before} s → {after} s).",
            increase=figures.get("increase_pct", "?"),
            date=figures.get("split_date", "?"),
            before=figures.get("median_before_s", "?"),
            after=figures.get("median_after_s", "?"),
        )
    ]
    lines += [_finding_line(lang, f, figures.get("split_date", "?"), suspect=not supported) for f in findings]
    asked, planned, candidates = (count_of(artifact, key, len(findings)) for key in ("asked", "planned", "candidates"))
    if len(findings) < planned:
        lines.append(
            trn(
                lang,
                "Only {n} hypothesis could be formed from the data ({asked} asked): no other factor changed its mix",
                "Only {n} hypotheses could be formed from the data ({asked} asked): no other factor changed its mix",
                len(findings),
                asked=asked,
            )
        )
    unsettled = [f for f in findings if f.get("verdict") in UNSETTLED]
    conflicts = [c.sentence(lang) for c in report.failures]
    if not supported and unsettled:
        conflicts.append(
            tr(
                lang,
                "no hypothesis was confirmed and {n} could not be tested: the cause is not settled",
                n=len(unsettled),
            )
        )
    elif not supported and candidates > len(findings):
        conflicts.append(
            trn(
                lang,
                "no hypothesis tested explains the rise; {n} more factor whose mix changed was not tested",
                "no hypothesis tested explains the rise; {n} more factors whose mix changed were not tested",
                candidates - len(findings),
            )
        )
    elif not supported:
        conflicts.append(tr(lang, "no hypothesis explains the rise: the cause lies elsewhere"))
    elif len(supported) > 1:
        conflicts.append(
            trn(
                lang,
                "{n} hypothesis holds at once: the causes may overlap",
                "{n} hypotheses hold at once: the causes may overlap",
                len(supported),
            )
        )
    metrics = {
        "increase_pct": figures.get("increase_pct"),
        "split_date": figures.get("split_date"),
        "hypotheses": len(findings),
        "asked": asked,
        "tested": sum(1 for f in findings if f.get("verdict") in ("supported", "not supported")),
        "supported": len(supported),
        "status": report.status,
    }
    return ResultSummary(lines=tuple(lines), metrics=metrics, conflicts=tuple(conflicts))
