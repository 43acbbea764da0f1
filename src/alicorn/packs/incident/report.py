"""`perf.summarize_tests`: the incident report as a document artifact (and the same as Markdown).

Sections: "Data" (what was read and what was left out), "Change" (where render time rose), one "Hypothesis N"
per hypothesis the data offered, with its verdict, and "Conclusion". Every section cites the sources it rests on,
and the source registry names the file, the rows and the method behind each, so the document validator can check
completeness, sources and that a figure repeated in two sections (the rise) agrees.

The conclusion says only what the verdicts show: a supported hypothesis is the cause; "the cause lies elsewhere"
only when every candidate factor was tested and none holds; a hypothesis confounded with the change (or untested)
leaves the cause unsettled and is named as the suspect. How many hypotheses were asked, tested at most by the
template, and offered by the data is said too (the document's `hypotheses`), so that no shortfall passes unsaid.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.incident.models import MAX_ASKED, MAX_HYPOTHESES, Change, SkippedRow, TestedHypothesis
from alicorn.packs.incident.ops import MAX_SKIPPED, FactorShift


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
    asked: int | None = Field(None, ge=1, le=MAX_ASKED, description="hypotheses the request asked for")
    considered: list[FactorShift] = Field(
        default_factory=list, max_length=256, description="every candidate factor the data offered (propose's)"
    )
    title: str = Field("Render time incident: cause of the increase", min_length=1, max_length=200)


class SummarizeOutputs(Model):
    document: dict[str, Any] = Field(description="the document artifact: title, sections, sources, findings")
    markdown: str
    supported: list[str] = Field(max_length=MAX_HYPOTHESES, description="'factor = level' of supported hypotheses")
    tested: int = Field(ge=0)


def _bound(inputs: SummarizeInputs) -> list[TestedHypothesis]:
    """Every test node's result, formed or not (one per node the plan has)."""
    found = [inputs.result_1, inputs.result_2, inputs.result_3, inputs.result_4, inputs.result_5]
    return sorted((r for r in found if r is not None), key=lambda r: r.rank)


def _results(inputs: SummarizeInputs) -> list[TestedHypothesis]:
    """The hypotheses the data offered: a test node with no hypothesis to test is no hypothesis of the report."""
    return [r for r in _bound(inputs) if r.formed]


def _counts(inputs: SummarizeInputs) -> dict[str, int]:
    """Hypotheses asked, planned (test nodes: at most MAX_HYPOTHESES), formed, and candidate factors the data had."""
    planned, formed = len(_bound(inputs)), len(_results(inputs))
    return {
        "asked": inputs.asked or planned,
        "planned": planned,
        "most": MAX_HYPOTHESES,
        "formed": formed,
        "candidates": max(len(inputs.considered), formed),
    }


def _name(r: TestedHypothesis) -> str:
    return f"hypothesis {r.rank} ({r.factor} = {r.level})"


def _exact(r: TestedHypothesis) -> bool:
    """Whether the level switched on exactly at the change: no job before it had it, every job after does."""
    return r.before_share == 0 and r.after_share == 1


def _coincides(r: TestedHypothesis, split_date: str, suspect: bool) -> str:
    """A sentence on a hypothesis confounded with the change; `suspect` when no other hypothesis explains the rise."""
    how = "coincides exactly" if _exact(r) else "nearly coincides"
    said = (
        f"Hypothesis {r.rank} ({r.factor} = {r.level}) {how} with the change ({r.before_share or 0:.0%} of jobs "
        f"before {split_date}, {r.after_share or 0:.0%} after), so this data cannot separate it from the change "
        "(confounded with time)"
    )
    if suspect:
        said += ": it is the prime suspect, and jobs run with and without it on the same days would settle it"
    return said + "."


def _hypothesis_section(r: TestedHypothesis) -> dict[str, Any]:
    key = f"h{r.rank}"
    figures: dict[str, Any] = {f"{key}.verdict": r.verdict}
    said = "confounded with the change" if r.verdict == "confounded" else r.verdict
    lines = [f"{r.statement}.", f"Verdict: {said}: {r.reason}."]
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
    c, results, counts = inputs.change, _results(inputs), _counts(inputs)
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
    sections.append(
        {
            "heading": "Conclusion",
            "text": _conclusion(c, results, counts),
            "sources": [f"h{r.rank}" for r in supported] or ["change", *(f"h{r.rank}" for r in results)],
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
            "before_share": r.before_share,
            "after_share": r.after_share,
            "after_at_level": r.after_at_level,
            "after_rest": r.after_rest,
        }
        for r in results
    ]
    return {
        "title": inputs.title,
        "sections": sections,
        "sources": sources,
        "findings": findings,
        "hypotheses": counts,
    }


def _conclusion(c: Change, results: list[TestedHypothesis], counts: dict[str, int]) -> str:
    """What the verdicts settle (see the module docstring), then how many hypotheses were asked and tested."""
    supported = [r for r in results if r.verdict == "supported"]
    confounded = [r for r in results if r.verdict == "confounded"]
    untested = [r for r in results if r.verdict == "untested"]
    untried = counts["candidates"] - counts["formed"]
    rise = f"the {c.increase_pct:+.1f}% rise from {c.split_date}"
    if supported:
        names = ", ".join(_name(r) for r in supported)
        text = f"Supported: {names}. It accounts for {rise}"
        if len(supported) > 1:
            text += "; more than one hypothesis holds, so the causes may overlap and need a closer look"
        text += "."
    elif confounded or untested:
        text = f"No hypothesis is confirmed as the cause of {rise}, and the cause is not settled."
    elif untried > 0:
        text = (
            f"None of the {len(results)} hypotheses tested explains {rise}; {untried} more factor(s) whose mix "
            "changed were not tested, so the cause may lie there or outside this data."
        )
    else:
        text = f"None of the {len(results)} hypotheses explains {rise}; the cause lies elsewhere."
    text += "".join(f" {_coincides(r, c.split_date, suspect=not supported)}" for r in confounded)
    if untested:
        text += f" Not tested, too few jobs to compare: {', '.join(_name(r) for r in untested)}."
    if counts["asked"] > counts["planned"]:
        text += f" {counts['asked']} hypotheses were asked; this template tests at most {counts['most']}."
    text += (
        f" The data offered {counts['candidates']} candidate factor(s) (factors whose mix of values differs before "
        f"and after {c.split_date}); {counts['formed']} became hypotheses here."
    )
    return text


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
        tested=sum(1 for r in results if r.verdict in ("supported", "not supported")),
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
