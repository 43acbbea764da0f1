"""What every validator returns: named checks, each passed or not with a sentence, and the overall status.

failed    the artifact is missing or unreadable, or no error-severity check passed
partial   some error-severity checks passed and some did not (the result is usable, not complete)
complete  every error-severity check passed (warnings may remain)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

ArtifactType = Literal["document", "code", "schedule", "conversation"]
Status = Literal["complete", "partial", "failed"]
Severity = Literal["error", "warning"]
M = TypeVar("M", bound=BaseModel)


class CheckResult(BaseModel):
    """One validation check: its name (`coverage`, `sources`…), whether it passed, and why, in one sentence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    passed: bool
    detail: str
    severity: Severity = "error"


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
        failed = [c.name for c in errors if not c.passed]
        warned = [c.name for c in checks if c.severity == "warning" and not c.passed]
        summary = f"{artifact}: {status}; {len(passed)} of {len(errors)} checks passed"
        if failed:
            summary += f"; failed: {', '.join(failed)}"
        if warned:
            summary += f"; warnings: {', '.join(warned)}"
        return cls(artifact=artifact, status=status, checks=checks, summary=summary)

    @classmethod
    def unreadable(cls, artifact: ArtifactType, why: str) -> ValidationReport:
        """A missing or malformed artifact: failed, with the reason as its only check."""
        check = CheckResult(name="artifact", passed=False, detail=why)
        return cls(artifact=artifact, status="failed", checks=(check,), summary=f"{artifact}: failed; {why}")


def parse_artifact(model: type[M], artifact: Mapping[str, Any] | None, kind: ArtifactType) -> M | ValidationReport:
    """The artifact as `model`, or an `unreadable` report naming the first problems (never raises)."""
    if artifact is None:
        return ValidationReport.unreadable(kind, "the run produced no artifact to validate")
    try:
        return model.model_validate(artifact)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(artifact)'}: {e['msg']}" for e in exc.errors()[:3]
        )
        return ValidationReport.unreadable(kind, f"the artifact is malformed: {problems}")
