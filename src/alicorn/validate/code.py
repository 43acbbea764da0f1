"""`validate_code`: a built candidate checked for tests, diff, package and installation.

The artifact is plain JSON (what a build pack's nodes produced):

    {"candidate": {"root": "candidate", ...},
     "tests": {"total": 12, "passed": 12, "failed": 0, "errors": 0, "skipped": 0, "timed_out": false, ...},
     "diff": {"files": [{"path": "config.json", "status": "modified", "added": 3, "removed": 3}, ...],
              "added": 3, "removed": 3, "text": "--- a/config.json ..."},
     "package": {"path": "dist/app-demo.tar.gz", "sha256": "...", "bytes": 1234},
     "installed": false, "installation": null}

Checks (each an error):

- `tests`: the suite ran (total > 0) and, when `criteria["tests_must_pass"]` (the default), none failed, none
  errored and it did not time out.
- `diff` (when `criteria["require_diff"]`, or whenever the artifact has one): the diff is present; every path is
  relative and stays inside the candidate (no absolute paths, no '..'); no secret-bearing file (.env, keys,
  credentials) is touched; the diff text holds no secret (`alicorn.context.redact.contains_secret`).
- `package` (unless `criteria["require_package"]` is false): a package path and its SHA-256.
- `installation` (when `criteria["installed"]` is given): installed exactly when the criteria say so.

A malformed artifact is a failed report naming the problem; the validator never raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn.context.redact import contains_secret
from alicorn.validate.base import CheckResult, ValidationReport, parse_artifact

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
# Files that hold secrets by convention; a build must never change or ship them.
_SECRET_FILES = re.compile(
    r"(^|/)(\.env(\..*)?|.*\.pem|.*\.key|id_rsa.*|id_ed25519.*|\.netrc|\.npmrc|\.pypirc|credentials(\..*)?"
    r"|secrets?(\..*)?|.*\.p12|.*\.pfx)$",
    re.IGNORECASE,
)


class _Loose(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Tests(_Loose):
    """What a test run reported."""

    total: int = Field(ge=0)
    passed: int = Field(0, ge=0)
    failed: int = Field(0, ge=0)
    errors: int = Field(0, ge=0)
    skipped: int = Field(0, ge=0)
    timed_out: bool = False


class DiffFile(_Loose):
    path: str
    status: str = "modified"
    added: int = Field(0, ge=0)
    removed: int = Field(0, ge=0)


class Diff(_Loose):
    """The candidate's changes against its source."""

    files: list[DiffFile]
    added: int = Field(0, ge=0)
    removed: int = Field(0, ge=0)
    text: str = ""


class Package(_Loose):
    path: str
    sha256: str
    bytes: int = Field(0, ge=0)


class CodeArtifact(_Loose):
    """A code artifact; every part may be missing (a stopped run), which the checks then report."""

    tests: Tests | None = None
    diff: Diff | None = None
    package: Package | None = None
    installed: bool = False
    installation: dict[str, Any] | None = None


def _tests(art: CodeArtifact, must_pass: bool) -> CheckResult:
    t = art.tests
    if t is None:
        return CheckResult(name="tests", passed=False, detail="no test results: the candidate's tests did not run")
    if t.timed_out:
        return CheckResult(name="tests", passed=False, detail=f"the test suite timed out after {t.total} test(s)")
    if t.total == 0:
        return CheckResult(name="tests", passed=False, detail="the test suite ran no tests")
    if must_pass and (t.failed or t.errors):
        return CheckResult(
            name="tests",
            passed=False,
            detail=f"{t.failed} failed and {t.errors} errored of {t.total} test(s)",
        )
    return CheckResult(
        name="tests", passed=True, detail=f"{t.total} test(s) ran: {t.passed} passed, {t.skipped} skipped"
    )


def path_problem(path: str) -> str | None:
    """Why a diff path is not a plain path inside the candidate, or None."""
    if not path or "\x00" in path:
        return "empty or NUL"
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute() or path.startswith("\\"):
        return "absolute"
    if ".." in PurePosixPath(path.replace("\\", "/")).parts:
        return "leaves the candidate ('..')"
    return None


def _diff(art: CodeArtifact) -> CheckResult:
    d = art.diff
    if d is None:
        return CheckResult(name="diff", passed=False, detail="no diff of the candidate against its source")
    problems: list[str] = []
    outside = [f"{f.path!r} ({why})" for f in d.files if (why := path_problem(f.path)) is not None]
    if outside:
        problems.append(f"path(s) outside the candidate: {', '.join(outside)}")
    secret_files = sorted(f.path for f in d.files if _SECRET_FILES.search(f.path.replace("\\", "/")))
    if secret_files:
        problems.append(f"secret-bearing file(s) touched: {', '.join(secret_files)}")
    if contains_secret(d.text):
        problems.append("the diff text contains a secret")
    if problems:
        return CheckResult(name="diff", passed=False, detail="; ".join(problems))
    return CheckResult(
        name="diff",
        passed=True,
        detail=f"{len(d.files)} file(s) changed (+{d.added} -{d.removed}), all inside the candidate, no secrets",
    )


def _package(art: CodeArtifact) -> CheckResult:
    p = art.package
    if p is None:
        return CheckResult(name="package", passed=False, detail="no package was built")
    problems = []
    if (why := path_problem(p.path)) is not None:
        problems.append(f"package path {p.path!r} is {why}")
    if not _SHA256.match(p.sha256):
        problems.append("the package has no valid SHA-256")
    if p.bytes <= 0:
        problems.append("the package is empty")
    if problems:
        return CheckResult(name="package", passed=False, detail="; ".join(problems))
    return CheckResult(name="package", passed=True, detail=f"{p.path} ({p.bytes} bytes, sha256 {p.sha256[:12]}…)")


def _installation(art: CodeArtifact, wanted: bool) -> CheckResult:
    installed = art.installed or art.installation is not None
    if installed == wanted:
        detail = "installed, as asked" if wanted else "not installed: the build stopped before installation"
        return CheckResult(name="installation", passed=True, detail=detail)
    detail = (
        "installed, but the request said to stop before installation"
        if installed
        else "not installed, but the request asked for installation"
    )
    return CheckResult(name="installation", passed=False, detail=detail)


def validate_code(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    """Check a code artifact against `criteria` (see the module docstring); never raises."""
    try:
        parsed = parse_artifact(CodeArtifact, artifact, "code")
        if isinstance(parsed, ValidationReport):
            return parsed
        criteria = criteria if isinstance(criteria, Mapping) else {}
        checks = [_tests(parsed, bool(criteria.get("tests_must_pass", True)))]
        if criteria.get("require_diff") or parsed.diff is not None:
            checks.append(_diff(parsed))
        if criteria.get("require_package", True):
            checks.append(_package(parsed))
        wanted = criteria.get("installed")
        if isinstance(wanted, bool):
            checks.append(_installation(parsed, wanted))
        return ValidationReport.of("code", checks)
    except Exception as exc:  # a validator reports; it never takes the caller down with it
        return ValidationReport.unreadable("code", f"the code artifact could not be checked: {type(exc).__name__}")
