"""`validate_report`: the incident report checked as a document, and for what its hypotheses settle.

On top of `validate_document` (completeness, sources, consistency, no forbidden data, sections):

- the required sections are the criteria's (data, change, hypothesis 1, conclusion) plus a "hypothesis N" section
  for every hypothesis the report names in its `findings`, so a report that drops one is incomplete;
- `tests` (error): every hypothesis the report names was tested. One confounded with the change (it switched on
  with it, so this data cannot tell the two apart) or untested (too few jobs to compare) is no answer: the check
  fails, naming each and why, and the outcome is partial however clean the document;
- `count` (error when failed): the request asked for no more hypotheses than the template tests (criteria
  `hypotheses`, the number asked, against MAX_HYPOTHESES). When the data offered fewer candidate factors than
  asked, every one of them was tested and the check passes, saying how many could be formed.

A malformed artifact is reported as `validate_document` reports it; the validator never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alicorn.i18n import N_
from alicorn.packs.incident.models import MAX_HYPOTHESES
from alicorn.packs.incident.testing import MIN_GROUP
from alicorn.validate.base import CheckResult, ValidationReport, check, phrase, problems_check
from alicorn.validate.document import validate_document

#: Verdicts that settle nothing about a hypothesis.
UNSETTLED = frozenset({"confounded", "untested"})


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def count_of(artifact: Mapping[str, Any], key: str, default: int) -> int:
    """A count from the report's `hypotheses` block (asked, planned, formed, candidates), or `default`."""
    counts = artifact.get("hypotheses")
    value = _number(counts.get(key)) if isinstance(counts, Mapping) else None
    return int(value) if value is not None else default


def level_shares(finding: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The hypothesis' level's share of jobs before and after the change, in whole percent (None if unknown)."""
    before, after = _number(finding.get("before_share")), _number(finding.get("after_share"))
    return (
        round(100 * before) if before is not None else None,
        round(100 * after) if after is not None else None,
    )


def _findings(artifact: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = artifact.get("findings")
    return [f for f in found if isinstance(f, Mapping)] if isinstance(found, list) else []


def _split_date(artifact: Mapping[str, Any]) -> Any:
    for section in artifact.get("sections") or []:
        if isinstance(section, Mapping) and section.get("heading") == "Change":
            figures = section.get("figures")
            return figures.get("split_date", "?") if isinstance(figures, Mapping) else "?"
    return "?"


def _unsettled(finding: Mapping[str, Any], split_date: Any) -> dict[str, Any]:
    """Why a hypothesis settles nothing, as a phrase."""
    rank = finding.get("rank")
    name = f"{finding.get('factor')} = {finding.get('level')}"
    before, after = level_shares(finding)
    if finding.get("verdict") == "confounded" and before is not None and after is not None:
        values = {"rank": rank, "name": name, "before": before, "after": after, "date": split_date}
        if before == 0 and after == 100:
            return phrase(
                N_(
                    "hypothesis {rank} ({name}) was not tested: it coincides exactly with the change ({before}% of "
                    "jobs before {date}, {after}% after), so this data cannot separate it from the change (confounded "
                    "with time)"
                ),
                **values,
            )
        return phrase(
            N_(
                "hypothesis {rank} ({name}) was not tested: it nearly coincides with the change ({before}% of jobs "
                "before {date}, {after}% after), so this data cannot separate it from the change (confounded with "
                "time)"
            ),
            **values,
        )
    at, rest = _number(finding.get("after_at_level")), _number(finding.get("after_rest"))
    if at is not None and rest is not None:
        return phrase(
            N_(
                "hypothesis {rank} ({name}) was not tested: after the change {at} job(s) are at its level and {rest} "
                "are not, too few to compare (at least {least} of each)"
            ),
            rank=rank,
            name=name,
            at=at,
            rest=rest,
            least=MIN_GROUP,
        )
    return phrase(N_("hypothesis {rank} ({name}) was not tested"), rank=rank, name=name)


def _tests(artifact: Mapping[str, Any], findings: list[Mapping[str, Any]]) -> CheckResult:
    if not findings:
        return check("tests", False, N_("the report names no hypothesis"))
    unsettled = [f for f in findings if f.get("verdict") in UNSETTLED]
    if unsettled:
        split_date = _split_date(artifact)
        return problems_check("tests", [_unsettled(f, split_date) for f in unsettled])
    return check("tests", True, N_("{n} hypothesis(es) named, every one tested"), n=len(findings))


def _count(findings: list[Mapping[str, Any]], asked: int) -> CheckResult:
    formed = len(findings)
    if asked > MAX_HYPOTHESES:
        return check(
            "count",
            False,
            N_("{asked} hypothesis(es) asked, but this template tests at most {most}; {formed} formed from the data"),
            asked=asked,
            most=MAX_HYPOTHESES,
            formed=formed,
        )
    if formed > asked:
        return check(
            "count",
            False,
            N_("the report names {formed} hypothesis(es), more than the {asked} asked"),
            formed=formed,
            asked=asked,
        )
    if formed < asked:
        return check(
            "count",
            True,
            N_(
                "{formed} of the {asked} hypothesis(es) asked could be formed: no other factor changed its mix at "
                "the change, and each one formed is reported"
            ),
            formed=formed,
            asked=asked,
        )
    return check("count", True, N_("{formed} hypothesis(es) formed, as many as asked"), formed=formed)


def validate_report(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    """Check an incident report against `criteria` (see the module docstring); never raises."""
    criteria = criteria if isinstance(criteria, Mapping) else {}
    if not isinstance(artifact, Mapping):
        return validate_document(artifact, criteria)
    try:
        findings = _findings(artifact)
        wanted = dict(criteria)
        required = [r for r in wanted.get("required_sections") or [] if isinstance(r, str)]
        named = [f"hypothesis {f.get('rank')}" for f in findings]
        wanted["required_sections"] = [*required, *(h for h in named if h not in required)]
        minimum = _number(wanted.get("min_sections"))
        wanted["min_sections"] = max(int(minimum or 0), 3 + len(findings))
        report = validate_document(artifact, wanted)
        if report.status == "failed" and [c.name for c in report.checks] == ["artifact"]:
            return report
        checks = [*report.checks, _tests(artifact, findings)]
        asked = _number(criteria.get("hypotheses"))
        if asked is None:  # criteria from before the number asked was kept: the report's own count, if any
            asked = count_of(artifact, "asked", 0) or None
        if asked is not None:
            checks.append(_count(findings, int(asked)))
        return ValidationReport.of(report.artifact, checks)
    except Exception as exc:  # a validator reports; it never takes the caller down with it
        return ValidationReport.unreadable_because(
            "document", N_("the report could not be checked: {error}"), error=type(exc).__name__
        )
