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
from alicorn.i18n import N_
from alicorn.validate.base import CheckResult, ValidationReport, check, joined, parse_artifact, phrase, problems_check

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
        return check("tests", False, N_("no test results: the candidate's tests did not run"))
    if t.timed_out:
        return check("tests", False, N_("the test suite timed out after {total} test(s)"), total=t.total)
    if t.total == 0:
        return check("tests", False, N_("the test suite ran no tests"))
    if must_pass and (t.failed or t.errors):
        return check(
            "tests",
            False,
            N_("{failed} failed and {errors} errored of {total} test(s)"),
            failed=t.failed,
            errors=t.errors,
            total=t.total,
        )
    return check(
        "tests",
        True,
        N_("{total} test(s) ran: {passed} passed, {skipped} skipped"),
        total=t.total,
        passed=t.passed,
        skipped=t.skipped,
    )


def path_problem(path: str) -> str | None:
    """Why a diff path is not a plain path inside the candidate (an English msgid, marked), or None."""
    if not path or "\x00" in path:
        return N_("empty or NUL")
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute() or path.startswith("\\"):
        return N_("absolute")
    if ".." in PurePosixPath(path.replace("\\", "/")).parts:
        return N_("leaves the candidate ('..')")
    return None


def _diff(art: CodeArtifact) -> CheckResult:
    d = art.diff
    if d is None:
        return check("diff", False, N_("no diff of the candidate against its source"))
    problems: list[dict[str, Any]] = []
    outside = [
        phrase(N_("{path} ({why})"), path=repr(f.path), why=phrase(why))
        for f in d.files
        if (why := path_problem(f.path)) is not None
    ]
    if outside:
        problems.append(phrase(N_("path(s) outside the candidate: {paths}"), paths=joined(outside, ", ")))
    secret_files = sorted(f.path for f in d.files if _SECRET_FILES.search(f.path.replace("\\", "/")))
    if secret_files:
        problems.append(phrase(N_("secret-bearing file(s) touched: {files}"), files=", ".join(secret_files)))
    if contains_secret(d.text):
        problems.append(phrase(N_("the diff text contains a secret")))
    if problems:
        return problems_check("diff", problems)
    return check(
        "diff",
        True,
        N_("{files} file(s) changed (+{added} -{removed}), all inside the candidate, no secrets"),
        files=len(d.files),
        added=d.added,
        removed=d.removed,
    )


def _package(art: CodeArtifact) -> CheckResult:
    p = art.package
    if p is None:
        return check("package", False, N_("no package was built"))
    problems = []
    if (why := path_problem(p.path)) is not None:
        problems.append(phrase(N_("package path {path} is {why}"), path=repr(p.path), why=phrase(why)))
    if not _SHA256.match(p.sha256):
        problems.append(phrase(N_("the package has no valid SHA-256")))
    if p.bytes <= 0:
        problems.append(phrase(N_("the package is empty")))
    if problems:
        return problems_check("package", problems)
    return check(
        "package",
        True,
        N_("{path} ({bytes} bytes, sha256 {sha256}…)"),
        path=p.path,
        bytes=p.bytes,
        sha256=p.sha256[:12],
    )


def _installation(art: CodeArtifact, wanted: bool) -> CheckResult:
    installed = art.installed or art.installation is not None
    if installed == wanted:
        message = N_("installed, as asked") if wanted else N_("not installed: the build stopped before installation")
        return check("installation", True, message)
    message = (
        N_("installed, but the request said to stop before installation")
        if installed
        else N_("not installed, but the request asked for installation")
    )
    return check("installation", False, message)


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
        return ValidationReport.unreadable_because(
            "code", N_("the code artifact could not be checked: {error}"), error=type(exc).__name__
        )
