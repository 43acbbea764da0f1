"""How a run ends for Core: its result validated against the contract, and the final report built from both.

The report's outcome comes from the validator, never from the run alone: a run whose every node succeeded can still
miss the contract (partial), and a run a human rejected or policy denied ended safely with nothing done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alicorn.core.consent import consent_said
from alicorn.core.contract import OutcomeContract
from alicorn.core.conversation import ConversationState
from alicorn.core.decided import triage_said
from alicorn.core.report import OUTCOME_LABELS, Outcome, Report, run_facts
from alicorn.i18n import N_, tr, tr_marked
from alicorn.packs.workflow import LeftOut, Workflow
from alicorn.plan.dsl import Plan
from alicorn.runtime.state import RunState
from alicorn.state_words import STATE_WORDS
from alicorn.validate.base import ArtifactType, CheckResult, ValidationReport, check, phrase
from alicorn.validate.constraints import check_constraints

#: Runs that ended without doing the work: there is nothing to validate, and nothing was done.
ENDED_UNDONE = frozenset({"rejected", "denied", "cancelled", "withdrawn", "replaced"})


def validate_run(
    workflow: Workflow | None,
    contract: OutcomeContract,
    run: RunState,
    data: Mapping[str, Any] | None = None,
) -> ValidationReport:
    """The workflow's validator on the run's artifact, then Core's own checks: the data covers the period asked,
    every stated constraint holds (or is said unchecked). The outcome is the weakest check: a run that did no work
    fails; any failed check, a warning included, keeps the outcome below complete."""
    kind: ArtifactType = "document"
    if contract.result in ("document", "code", "schedule", "conversation"):
        kind = contract.result
    if run.status in ENDED_UNDONE:
        return ValidationReport.unreadable(kind, f"the run ended {run.status}: {run.stop_reason or 'nothing was done'}")
    if contract.follows is not None:  # a follow-up acts on a result already checked: did each step happen?
        return ValidationReport.of(kind, [_step_check(run, n) for n in run.order])
    if workflow is not None:
        artifact = workflow.artifact_of(run)
        report = workflow.validator(artifact, contract.acceptance)
        checks = [*report.checks, *_coverage_checks(data), *_constraint_checks(contract, workflow, artifact)]
        return weakest(ValidationReport.of(report.artifact, checks))
    if run.status == "succeeded":  # a free plan: no validator knows its artifact, so each step is a check
        steps = [_step_check(run, n) for n in run.order]
        return weakest(ValidationReport.of(kind, [*steps, *_constraint_checks(contract, None, None)]))
    return ValidationReport.unreadable(kind, f"the run ended {run.status}: {run.stop_reason or 'no result'}")


def _step_check(run: RunState, node: str) -> CheckResult:
    status = run.nodes[node].status
    said = phrase(STATE_WORDS[status]) if status in STATE_WORDS else status  # "succeeded" in the report's words
    return check(node, status == "succeeded", N_("{node}: {status}"), node=node, status=said)


def weakest(report: ValidationReport) -> ValidationReport:
    """`complete` only when every check passed: a failed warning (a data problem, an unchecked constraint) makes
    the outcome partial."""
    if report.status == "complete" and any(not c.passed for c in report.checks):
        return report.model_copy(update={"status": "partial", "summary": report.summary + "; not every check passed"})
    return report


def _coverage_checks(data: Mapping[str, Any] | None) -> list[CheckResult]:
    coverage = (data or {}).get("coverage")
    if not coverage:
        return []
    if coverage["status"] == "covered":
        return [check("period", True, N_("the data covers the period asked ({asked})"), asked=coverage["asked"])]
    if coverage.get("running"):  # asked before the period ended: what had not happened yet, no data could hold
        said = (
            N_(
                "the data covers {found} only, up to the request's time ({as_of}); the request asks about {asked}, "
                "which was not over then ({days} day(s) missing before it)"
            )
            if coverage["missing_days"]
            else N_(
                "the data covers {found} only, up to the request's time ({as_of}); the request asks about {asked}, "
                "which was not over then"
            )
        )
        return [
            check(
                "period",
                False,
                said,
                found=coverage["found"],
                asked=coverage["asked"],
                as_of=coverage["as_of"],
                days=coverage["missing_days"],
            )
        ]
    return [
        check(
            "period",
            False,
            N_("the data covers {found} only; the request asks about {asked} ({days} day(s) missing)"),
            found=coverage["found"],
            asked=coverage["asked"],
            days=coverage["missing_days"],
        )
    ]


#: Why a stated constraint could not be checked, by the checker's reason code.
_UNCHECKED = {
    "no-measure": N_(
        "“{words}” was not checked, because it names none of the figures this workflow measures ({measures})"
    ),
    "no-measures": N_("“{words}” was not checked, because this workflow measures no figures a constraint could bound"),
    "no-result": N_("“{words}” was not checked, because there is no result to check it on"),
    "no-figures": N_("“{words}” was not checked, because the result carries no figures for it"),
}


def _constraint_checks(
    contract: OutcomeContract, workflow: Workflow | None, artifact: Mapping[str, Any] | None
) -> list[CheckResult]:
    """Every constraint the person stated, as a check: held on every item, broken by some (named), or unchecked."""
    stated = [c.value for c in contract.constraints if c.kind == "stated"]
    measures = workflow.measures if workflow is not None else ()
    results = []
    for found in check_constraints(stated, measures, artifact):
        if not found.checked:
            names = ", ".join(m.key for m in measures)
            results.append(
                check("constraint", False, _UNCHECKED[found.why_unchecked], words=found.words, measures=names)
            )
        elif found.breaking:
            figures = "; ".join(f"{label}: {value:g}" for label, value in found.values if label in found.breaking)
            results.append(
                check(
                    "constraint",
                    False,
                    N_("“{words}” is broken by {items} ({figures})"),
                    words=found.words,
                    items=", ".join(found.breaking),
                    figures=figures,
                )
            )
        else:
            figures = "; ".join(f"{label}: {value:g}" for label, value in found.values)
            results.append(
                check("constraint", True, N_("“{words}” holds ({figures})"), words=found.words, figures=figures)
            )
    return results


def final_report(
    state: ConversationState,
    run: RunState,
    contract: OutcomeContract,
    workflow: Workflow | None,
    validation: ValidationReport,
    language: str = "en",
) -> Report:
    """The final report: outcome, headline, the result's lines, evidence (every check, every file read, every failed
    node), conflicts, metrics and run facts, all in the request's `language`."""
    facts = run_facts(run, language)
    served = goal_served(workflow, contract, language)
    if contract.follows is not None:
        workflow = None  # a follow-up's result is its steps, not a new artifact of the workflow
    summary = workflow.summarize(workflow.artifact_of(run), validation, language) if workflow is not None else None
    outcome: Outcome
    if run.status in ENDED_UNDONE:
        outcome = "stopped_safely"
        headline = tr(language, "run {run} ended {status}: nothing was done", run=run.run_id, status=run.status)
        if run.status == "rejected":
            headline += f" ({(run.rejection or {}).get('reason', '')})"
    else:
        outcome = validation.status
        headline = summary.lines[0] if summary and summary.lines else validation.summary_in(language)
        if contract.follows is not None:
            done = [str(Plan.model_validate(run.plan).node(n).description or n) for n in run.order]
            headline = tr(language, "done: {steps}", steps="; ".join(done)) if outcome == "complete" else headline
        if outcome != "complete":
            label = tr_marked(language, OUTCOME_LABELS.get(outcome, outcome))
            headline = tr(language, "{outcome} result: {headline}", outcome=label, headline=headline)
    plan_info = state.plans[-1] if state.plans else {}
    # a check on a step the plan left out because the request forbade it did not fail: it was not run, and says why
    left_out = {item.node: item for item in map(LeftOut.from_json, plan_info.get("left_out") or [])}
    ok, failed, not_run = tr(language, "ok"), tr(language, "FAILED"), tr(language, "NOT RUN")

    def said(c: CheckResult) -> str:
        return left_out[c.name].sentence(language) if not c.passed and c.name in left_out else c.sentence(language)

    def verdict(c: CheckResult) -> str:
        return ok if c.passed else not_run if c.name in left_out else failed

    evidence = [f"{c.title(language)}: {verdict(c)} — {said(c)}" for c in validation.checks]
    not_run_sentences = {c.sentence(language) for c in validation.checks if not c.passed and c.name in left_out}
    evidence += read_lines(state.data, language)
    evidence += [
        tr(
            language,
            "node {node} failed: {why}",
            node=n,
            why=(run.nodes[n].error or {}).get("message") or run.nodes[n].reason or tr(language, "no reason recorded"),
        )
        for n in run.order
        if run.nodes[n].status == "failed"
    ]
    known = [served, *contract.sentences(language)]
    if state.triage is not None:  # an alarm that asked for this work was triaged first: said beside its result
        known.append(triage_said(str(state.triage.get("severity", "")), str(state.triage.get("action", "")), language))
    known.append(tr(language, "plan {source}: {n} nodes", source=plan_info.get("source", "?"), n=len(run.order)))
    known += left_out_lines(plan_info, language)
    known += [tr(language, "slot not taken as given: {what}", what=r) for r in (state.slots or {}).get("reverted", [])]
    metrics = dict(summary.metrics) if summary else {}
    metrics.update({"model_calls": state.model_calls, "tokens": state.tokens})
    return Report(
        conversation=state.id,
        outcome=outcome,
        headline=headline,
        goal_hash=contract.goal_hash,
        run=run.run_id,
        result=list(summary.lines[1:]) if summary is not None else [],
        known=known,
        missing=[f"{c.title(language)}: {said(c)}" for c in validation.checks if not c.passed],
        jobs_finished=facts["finished"],
        decisions_needed=facts["decisions"],
        pending_effects=facts["pending"] or [tr(language, "none")],
        evidence=evidence,
        # a step not run by the request's own prohibition is no conflict (the pack says its failed checks as ones)
        conflicts=[c for c in (summary.conflicts if summary else ()) if c not in not_run_sentences],
        metrics=metrics,
        artifacts=[run.workspace] if run.workspace else [],
        language=language,
    )


def left_out_lines(plan_info: Mapping[str, Any], language: str) -> list[str]:
    """What the plan left out, in `language`: from the structured `left_out` (since 2026-12-06; each sentence says
    "left out" itself), or an older journal's English `removed` sentences, introduced in `language`."""
    left_out = plan_info.get("left_out")
    if left_out is not None:
        return [LeftOut.from_json(item).sentence(language) for item in left_out]
    return [tr(language, "left out: {what}", what=r) for r in plan_info.get("removed", [])]


def goal_served(workflow: Workflow | None, contract: OutcomeContract, language: str) -> str:
    """The goal a run served, said in every report: the template's work, or the request's own words."""
    if workflow is None:
        return tr(language, "goal served: a plan written for the request “{goal}”", goal=contract.goal)
    if contract.follows is not None:  # a next step on the workflow's result (a picked variant published)
        return tr(
            language,
            "goal served: a next step on the result of {work} (workflow {id}), for the request “{goal}”",
            work=tr_marked(language, workflow.title),
            id=workflow.id,
            goal=contract.goal,
        )
    return tr(
        language,
        "goal served: {work} (workflow {id}), for the request “{goal}”",
        work=tr_marked(language, workflow.title),
        id=workflow.id,
        goal=contract.goal,
    )


def _where(file: Mapping[str, Any]) -> str:
    """A file by the name the person knows, and where it was read when that differs (an attachment's store)."""
    name, path = str(file.get("name") or ""), str(file["path"])
    return path if not name or path.endswith("/" + name) or path == name else f"{name} ({path})"


def read_lines(data: Mapping[str, Any] | None, language: str) -> list[str]:
    """One evidence line per file given to the run: where it came from, its path, digest, rows and span (for a source
    tree: the folder, its file count and its digest). Logs and tables are read whole; of several transcripts the run
    reads the one its parameters name, so they are "given"."""
    lines = []
    for item in (data or {}).get("inputs", []):
        for f in item["files"]:
            span = f["first"] if f["first"] == f["last"] else f"{f['first']} – {f['last']}"
            values = {
                "input": item["input"],
                "source": item["source"],
                "path": _where(f),
                "sha": f["sha256"][:16],
                "rows": f["rows"],
                "span": span if f["first"] else "—",
            }
            if item.get("format") == "tree":  # a source tree: the folder, its file count and its tree digest
                folder = {"path": f["path"], "files": f["rows"], "sha": values["sha"]}
                line = tr(language, "read {input} ({source}): the folder {path}, {files} files, tree sha256 {sha}…",
                          input=item["input"], source=item["source"], **folder)  # fmt: skip
                lines.append(line)
            elif item.get("format") == "json_files":
                line = tr(language, "given {input} ({source}): {path}, sha256 {sha}…, dates {span}", **values)
                lines.append("; ".join([line, *_captioned(f, language)]))
            else:
                line = tr(
                    language, "read {input} ({source}): {path}, sha256 {sha}…, {rows} rows, dates {span}", **values
                )
                lines.append("; ".join([line, *_staging(f, language)]))
    return lines


def _captioned(file: Mapping[str, Any], language: str) -> list[str]:
    """What Core did with a caption or text transcript: its kind and speakers, whose consent was stated by whom, the
    date it was given, and the name it was staged under (empty for the pack's own JSON)."""
    if not file.get("captions"):
        return []
    said = [
        tr(
            language,
            "a {kind} transcript with no ASR confidence, speakers: {speakers}",
            kind=file["captions"],
            speakers=", ".join(file.get("speakers", [])),
        )
    ]
    consent = file.get("consent")
    if isinstance(consent, Mapping):
        said.append(
            consent_said(
                {**dict.fromkeys(consent.get("agreed", []), True), **dict.fromkeys(consent.get("not", []), False)},
                str(consent.get("by", "")),
                language,
            )
        )
    if file.get("dated") == "request" and file.get("staged_as"):
        said.append(
            tr(
                language,
                "no date in the file: dated {day}, the day of the request",
                day=str(file["staged_as"])[:10],
            )
        )
    if file.get("staged_as"):
        said.append(tr(language, "staged as {name}", name=file["staged_as"]))
    return said


def _staging(file: Mapping[str, Any], language: str) -> list[str]:
    """What the staged copy of a CSV changed for the plan to read it: columns renamed, dates re-written, rows
    numbered (empty when it is the file byte for byte)."""
    said = []
    if file.get("delimiter"):
        said.append(tr(language, "fields separated by {delimiter!r}", delimiter=file["delimiter"]))
    if file.get("renamed"):
        pairs = ", ".join(f"{column} → {name}" for column, name in file["renamed"].items())
        said.append(tr(language, "columns read as {pairs}", pairs=pairs))
    if file.get("redated"):
        said.append(tr(language, "dates written as ISO 8601: {count}", count=file["redated"]))
    if file.get("numbered"):
        said.append(tr(language, "rows numbered as {field}", field=file["numbered"]))
    if file.get("renumbered"):
        said.append(tr(language, "numbers written with a decimal point: {count}", count=file["renumbered"]))
    if file.get("revalued"):
        pairs = ", ".join(f"{written} → {word}" for _field, written, word in file["revalued"][:12])
        more = len(file["revalued"]) - 12
        said.append(tr(language, "values read as {pairs}", pairs=pairs + (f", … (+{more})" if more > 0 else "")))
    if file.get("unknown"):
        counted = ", ".join(f"{field} {value!r} ×{count}" for field, value, count in file["unknown"][:12])
        said.append(tr(language, "values the workflow does not know, kept as written: {values}", values=counted))
    return said
