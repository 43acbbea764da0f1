"""What every validator returns: named checks, each passed or not with a sentence, and the overall status.

failed    the artifact is missing or unreadable, or no error-severity check passed
partial   some error-severity checks passed and some did not (the result is usable, not complete)
complete  every error-severity check passed (warnings may remain)

A check's sentence is written once, as an English msgid with its values (`check(name, passed, N_("…{x}…"), x=…)`):
`detail` holds the English rendering (what is journaled and what older reports hold alone), `message` and `values`
let a report say the same sentence in any language (`CheckResult.sentence`, `ValidationReport.summary_in`). A value
may itself be a sentence (`phrase(N_("…"), …)`) or a list of them (joined with "; ", or as `joined` says), rendered
in the same language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.i18n import N_, tr, tr_marked

ArtifactType = Literal["document", "code", "schedule", "conversation"]
Status = Literal["complete", "partial", "failed"]
Severity = Literal["error", "warning"]
M = TypeVar("M", bound=BaseModel)

#: The message of a check whose sentence is its problems, one after another: nothing of its own to translate.
JOINED = "{problems}"

#: What each check is called in a report (`time_limits` → "time limits", "limity czasu pracy"). The journal and
#: `--json` keep the name; a name not listed here is shown as it is.
CHECK_TITLES: dict[str, str] = {
    "artifact": N_("artifact"),
    "asked": N_("period asked"),
    "bytes": N_("size"),
    "competences": N_("competences"),
    "completeness": N_("completeness"),
    "confidence": N_("confidence"),
    "conflicts": N_("conflicts"),
    "consents": N_("consents"),
    "consistency": N_("consistency"),
    "constraint": N_("constraint"),
    "count": N_("count"),
    "counts": N_("counts"),
    "coverage": N_("coverage"),
    "criteria": N_("criteria"),
    "data": N_("data"),
    "demand_total": N_("total demand"),
    "diff": N_("diff"),
    "draft": N_("draft"),
    "evidence_confidence": N_("confidence of the evidence"),
    "installation": N_("installation"),
    "lines": N_("lines"),
    "min_sections": N_("sections"),
    "month": N_("month"),
    "no_forbidden_data": N_("no forbidden data"),
    "note": N_("note"),
    "package": N_("package"),
    "period": N_("period"),
    "run": N_("run"),
    "sources": N_("sources"),
    "speakers": N_("speakers"),
    "tasks": N_("tasks"),
    "tests": N_("tests"),
    "time_limits": N_("time limits"),
    "transcription_quality": N_("transcription quality"),
    "ts": N_("timestamps"),
    "type": N_("type"),
    "variants": N_("variants"),
    "zone": N_("zone"),
}

#: How each artifact type is named in a summary.
ARTIFACT_LABELS: dict[str, str] = {
    "document": N_("document"),
    "code": N_("code"),
    "schedule": N_("schedule"),
    "conversation": N_("conversation"),
}


def phrase(message: str, /, **values: Any) -> dict[str, Any]:
    """A sentence kept as its msgid (marked with N_) and values, to be a value of another: JSON, re-rendered later."""
    return {"message": message, "values": values}


def joined(items: list[Any], separator: str) -> dict[str, Any]:
    """Phrases (or plain values) said one after another with `separator` (a plain list is joined with "; ")."""
    return {"join": separator, "items": items}


def render(language: str, message: str, values: Mapping[str, Any]) -> str:
    """`message` in `language` with `values`, every nested phrase (or list of them) rendered in `language` too."""
    return tr_marked(language, message, **{k: _value(language, v) for k, v in values.items()})


def _value(language: str, value: Any) -> Any:
    if isinstance(value, Mapping) and isinstance(value.get("message"), str):
        return render(language, value["message"], value.get("values") or {})
    if isinstance(value, Mapping) and isinstance(value.get("join"), str):
        return value["join"].join(str(_value(language, v)) for v in value.get("items") or [])
    if isinstance(value, list | tuple):
        return "; ".join(str(_value(language, v)) for v in value)
    return value


class CheckResult(BaseModel):
    """One validation check: its name (`coverage`, `sources`…), whether it passed, and why, in one sentence.

    `detail` is the sentence in English; `message` (an English msgid) and `values` (JSON) say it again in any
    language (`sentence`). Reports journaled before messages existed have only `detail`, and still validate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    passed: bool
    detail: str
    severity: Severity = "error"
    message: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)

    def title(self, language: str) -> str:
        """What the check is called, in `language` (its name when CHECK_TITLES does not list it)."""
        words = CHECK_TITLES.get(self.name)
        return tr_marked(language, words) if words else self.name

    def sentence(self, language: str) -> str:
        """The check's sentence in `language` (the English `detail` when it was stored without a message)."""
        if self.message is None:
            return self.detail
        return render(language, self.message, self.values)


def check(name: str, passed: bool, message: str, /, severity: Severity = "error", **values: Any) -> CheckResult:
    """A check whose sentence is `message` (an English msgid marked with N_) with `values` (JSON-friendly: str,
    numbers, bools, phrases and lists of phrases); `detail` is its English rendering."""
    return CheckResult(
        name=name,
        passed=passed,
        detail=render("en", message, values),
        severity=severity,
        message=message,
        values=values,
    )


def problems_check(name: str, problems: list[dict[str, Any]], /, severity: Severity = "error") -> CheckResult:
    """A failed check whose sentence is its problems (phrases), joined with "; "."""
    return check(name, False, JOINED, severity, problems=problems)


class ValidationReport(BaseModel):
    """A validator's verdict on one artifact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    artifact: ArtifactType
    status: Status
    checks: tuple[CheckResult, ...]
    summary: str

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed and c.severity == "error"]

    def summary_in(self, language: str) -> str:
        """`summary` in `language`, said again from the checks (in English, `summary` itself)."""
        if language == "en":
            return self.summary
        artifact = _artifact_label(self.artifact, language)
        only = self.checks[0] if len(self.checks) == 1 else None
        if only is not None and only.name == "artifact" and self.summary.startswith(f"{self.artifact}: failed; "):
            return tr(language, "{artifact}: failed; {why}", artifact=artifact, why=only.sentence(language))
        return _summary(self.artifact, self.status, self.checks, language)

    @classmethod
    def of(cls, artifact: ArtifactType, checks: Iterable[CheckResult]) -> ValidationReport:
        """The report of these checks; the status follows the rules in the module docstring."""
        checks = tuple(checks)
        errors = [c for c in checks if c.severity == "error"]
        passed = [c for c in errors if c.passed]
        if not errors or len(passed) == len(errors):
            status: Status = "complete"
        elif passed:
            status = "partial"
        else:
            status = "failed"
        return cls(artifact=artifact, status=status, checks=checks, summary=_summary(artifact, status, checks, "en"))

    @classmethod
    def unreadable(cls, artifact: ArtifactType, why: str | CheckResult) -> ValidationReport:
        """A missing or malformed artifact: failed, with the reason (an English sentence, or a check) as its only
        check."""
        reason = why if isinstance(why, CheckResult) else CheckResult(name="artifact", passed=False, detail=why)
        return cls(artifact=artifact, status="failed", checks=(reason,), summary=f"{artifact}: failed; {reason.detail}")

    @classmethod
    def unreadable_because(cls, artifact: ArtifactType, message: str, /, **values: Any) -> ValidationReport:
        """`unreadable`, its reason a msgid marked with N_ and its values, so that it can be said in any language."""
        return cls.unreadable(artifact, check("artifact", False, message, **values))


def _artifact_label(artifact: str, language: str) -> str:
    return tr_marked(language, ARTIFACT_LABELS[artifact]) if artifact in ARTIFACT_LABELS else artifact


def _summary(artifact: str, status: Status, checks: tuple[CheckResult, ...], language: str) -> str:
    """The summary line in `language` (document: partial; 2 of 3 checks passed; failed: sources; warnings: data)."""
    errors = [c for c in checks if c.severity == "error"]
    values: dict[str, Any] = {
        "artifact": _artifact_label(artifact, language),
        "passed": len([c for c in errors if c.passed]),
        "total": len(errors),
    }
    if status == "complete":
        text = tr(language, "{artifact}: complete; {passed} of {total} checks passed", **values)
    elif status == "partial":
        text = tr(language, "{artifact}: partial; {passed} of {total} checks passed", **values)
    else:
        text = tr(language, "{artifact}: failed; {passed} of {total} checks passed", **values)

    def named(c: CheckResult) -> str:
        """English keeps a check's name (what the journal, `--json` and their readers know it by); others its title."""
        return c.name if language == "en" else c.title(language)

    failed = [named(c) for c in errors if not c.passed]
    warned = [named(c) for c in checks if c.severity == "warning" and not c.passed]
    if failed:
        text += tr(language, "; failed: {checks}", checks=", ".join(failed))
    if warned:
        text += tr(language, "; warnings: {checks}", checks=", ".join(warned))
    return text


def parse_artifact(model: type[M], artifact: Mapping[str, Any] | None, kind: ArtifactType) -> M | ValidationReport:
    """The artifact as `model`, or an `unreadable` report naming the first problems (never raises)."""
    if artifact is None:
        return ValidationReport.unreadable_because(kind, N_("the run produced no artifact to validate"))
    try:
        return model.model_validate(artifact)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(artifact)'}: {e['msg']}" for e in exc.errors()[:3]
        )
        return ValidationReport.unreadable_because(kind, N_("the artifact is malformed: {problems}"), problems=problems)
