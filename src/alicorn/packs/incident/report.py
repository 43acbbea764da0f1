"""`perf.summarize_tests`: the incident report as a document artifact (and the same as Markdown).

Sections: "Data" (what was read and what was left out), "Change" (where render time rose), one "Hypothesis N"
per test with its verdict, and "Conclusion". Every section cites the sources it rests on, and the source registry
names the file, the rows and the method behind each, so the document validator can check completeness, sources and
that a figure repeated in two sections (the rise) agrees.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.incident.models import MAX_HYPOTHESES, Change, SkippedRow, TestedHypothesis
from alicorn.packs.incident.ops import MAX_SKIPPED


class SummarizeInputs(Model):
    change: Change
    path: RelativePath = Field("render_jobs.csv", description="the job log the figures come from")
    jobs: int = Field(ge=0, description="jobs analysed")
    skipped: list[SkippedRow] = Field(default_factory=list, max_length=MAX_SKIPPED)
    result_1: TestedHypothesis | None = None
    result_2: TestedHypothesis | None = None
    result_3: TestedHypothesis | None = None
    result_4: TestedHypothesis | None = None
    result_5: TestedHypothesis | None = None
    title: str = Field("Render time incident: cause of the increase", min_length=1, max_length=200)


class SummarizeOutputs(Model):
    document: dict[str, Any] = Field(description="the document artifact: title, sections, sources, findings")
    markdown: str
    supported: list[str] = Field(max_length=MAX_HYPOTHESES, description="'factor = level' of supported hypotheses")
    tested: int = Field(ge=0)


def _results(inputs: SummarizeInputs) -> list[TestedHypothesis]:
    found = [inputs.result_1, inputs.result_2, inputs.result_3, inputs.result_4, inputs.result_5]
    return sorted((r for r in found if r is not None), key=lambda r: r.rank)


def _hypothesis_section(r: TestedHypothesis) -> dict[str, Any]:
    key = f"h{r.rank}"
    figures: dict[str, Any] = {f"{key}.verdict": r.verdict}
    lines = [f"{r.statement}.", f"Verdict: {r.verdict}: {r.reason}."]
    if r.level_effect is not None:
        e = r.level_effect
        lines.append(
            f"After the change, {e.group} job(s) at the level had a median of {e.median_group_s:.1f} s against "
            f"{e.median_rest_s:.1f} s for the other {e.rest} ({e.ratio:.2f}x, p={e.p_value:g})."
        )
        figures |= {f"{key}.level_ratio": e.ratio, f"{key}.level_p": e.p_value}
    if r.residual is not None:
        x = r.residual
        lines.append(
            f"Jobs not at the level: median {x.median_rest_s:.1f} s before and {x.median_group_s:.1f} s after "
            f"({x.ratio:.2f}x, p={x.p_value:g})."
        )
        figures |= {f"{key}.residual_ratio": x.ratio, f"{key}.residual_p": x.p_value}
    lines.append(f"Method: {r.method}.")
    return {
        "heading": f"Hypothesis {r.rank}: {r.factor} = {r.level}".replace("= >", ">").replace("= <=", "<="),
        "text": " ".join(lines),
        "sources": [key],
        "figures": figures,
    }


def build_document(inputs: SummarizeInputs) -> dict[str, Any]:
    """The report as a document artifact (see the module docstring)."""
    c, results = inputs.change, _results(inputs)
    supported = [r for r in results if r.verdict == "supported"]
    skipped = "; ".join(f"line {s.line} ({s.job_id}): {s.reason}" for s in inputs.skipped) or "none"
    sections: list[dict[str, Any]] = [
        {
            "heading": "Data",
            "text": f"{inputs.jobs} job(s) from {inputs.path} were analysed. Rows left out: {skipped}.",
            "sources": ["jobs"],
            "figures": {"jobs": inputs.jobs, "skipped": len(inputs.skipped)},
        },
        {
            "heading": "Change",
            "text": (
                f"Median render time rose from {c.before.median_s:.1f} s ({c.before.jobs} jobs, {c.before.start} to "
                f"{c.before.end}) to {c.after.median_s:.1f} s ({c.after.jobs} jobs, {c.after.start} to "
                f"{c.after.end}): {c.increase_s:+.1f} s ({c.increase_pct:+.1f}%). The change starts on "
                f"{c.split_date} ({c.chosen_by}, p={c.p_value:g})."
            ),
            "sources": ["jobs", "change"],
            "figures": {
                "split_date": c.split_date,
                "median_before_s": c.before.median_s,
                "median_after_s": c.after.median_s,
                "increase_pct": c.increase_pct,
            },
        },
        *(_hypothesis_section(r) for r in results),
    ]
    if supported:
        names = ", ".join(f"hypothesis {r.rank} ({r.factor} = {r.level})" for r in supported)
        verdict = f"Supported: {names}. It accounts for the {c.increase_pct:+.1f}% rise from {c.split_date}"
        if len(supported) > 1:
            verdict += "; more than one hypothesis holds, so the causes may overlap and need a closer look"
        cited = [f"h{r.rank}" for r in supported]
    else:
        verdict = (
            f"None of the {len(results)} hypotheses explains the {c.increase_pct:+.1f}% rise from {c.split_date}; "
            "the cause lies elsewhere"
        )
        cited = ["change", *(f"h{r.rank}" for r in results)]
    sections.append(
        {
            "heading": "Conclusion",
            "text": verdict + ".",
            "sources": cited,
            "figures": {"increase_pct": c.increase_pct, "supported": len(supported)},
        }
    )
    sources: dict[str, Any] = {
        "jobs": {"path": inputs.path, "rows": inputs.jobs, "skipped": [s.model_dump() for s in inputs.skipped]},
        "change": {
            "path": inputs.path,
            "split_date": c.split_date,
            "before_jobs": c.before.jobs,
            "after_jobs": c.after.jobs,
            "method": c.chosen_by,
        },
    }
    for r in results:
        sources[f"h{r.rank}"] = {"path": inputs.path, "factor": r.factor, "level": r.level, "rows": r.evidence}
    findings = [
        {
            "rank": r.rank,
            "factor": r.factor,
            "level": r.level,
            "verdict": r.verdict,
            "ratio": r.level_effect.ratio if r.level_effect else None,
            "p_value": r.level_effect.p_value if r.level_effect else None,
        }
        for r in results
    ]
    return {"title": inputs.title, "sections": sections, "sources": sources, "findings": findings}


def to_markdown(document: dict[str, Any]) -> str:
    """The document as Markdown: a heading per section, its text, and what it cites."""
    out = [f"# {document['title']}", ""]
    for s in document["sections"]:
        out += [f"## {s['heading']}", "", s["text"], "", f"Sources: {', '.join(s['sources'])}", ""]
    out += ["## Sources", ""]
    for key, source in sorted(document["sources"].items()):
        rows = source.get("rows")
        if isinstance(rows, list):
            shown = f"job(s) {', '.join(rows)}"
        elif "split_date" in source:
            shown = f"{source['before_jobs']} job(s) before and {source['after_jobs']} from {source['split_date']}"
        else:
            shown = f"{rows} job(s)"
        out.append(f"- {key}: {source['path']}, {shown}")
    return "\n".join(out) + "\n"


def summarize_tests(inputs: SummarizeInputs, ctx: OperationContext) -> SummarizeOutputs:
    """Write the test results up as a document (and Markdown) with a section per hypothesis."""
    results = _results(inputs)
    if not results:
        raise OperationError("no test results to summarize; bind result_1 (and more) to perf.test_hypothesis nodes")
    document = build_document(inputs)
    return SummarizeOutputs(
        document=document,
        markdown=to_markdown(document),
        supported=[f"{r.factor} = {r.level}" for r in results if r.verdict == "supported"],
        tested=sum(1 for r in results if r.verdict != "untested"),
    )


SUMMARIZE_TESTS = Operation(
    "perf.summarize_tests",
    "Write the incident report: the change, a section per tested hypothesis with its verdict, and the conclusion.",
    SummarizeInputs,
    SummarizeOutputs,
    "none",
    "repeatable",
    summarize_tests,
)
