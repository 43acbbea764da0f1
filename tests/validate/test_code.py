"""`validate_code`: tests, diff, package and installation, on good and doctored code artifacts."""

from __future__ import annotations

from typing import Any

import pytest

from alicorn.validate.code import path_problem, validate_code

CRITERIA: dict[str, Any] = {"tests_must_pass": True, "require_diff": True, "installed": False}
SHA = "ab" * 32


def artifact() -> dict[str, Any]:
    return {
        "candidate": {"root": "candidate", "files": 13},
        "tests": {"total": 14, "passed": 13, "failed": 0, "errors": 0, "skipped": 1, "timed_out": False},
        "diff": {
            "files": [
                {"path": "config.json", "status": "modified", "added": 3, "removed": 3},
                {"path": "data/demo_items.json", "status": "added", "added": 50, "removed": 0},
            ],
            "added": 53,
            "removed": 3,
            "text": '--- a/config.json\n+++ b/config.json\n-  "demo": false,\n+  "demo": true,\n',
        },
        "package": {"path": "dist/app-demo.tar.gz", "sha256": SHA, "bytes": 3665},
        "installed": False,
        "installation": None,
    }


def failures(art: Any, criteria: Any = CRITERIA) -> dict[str, str]:
    return {c.name: c.detail for c in validate_code(art, criteria).failures}


def test_a_good_artifact_is_complete() -> None:
    report = validate_code(artifact(), CRITERIA)
    assert report.status == "complete", report.summary
    assert [c.name for c in report.checks] == ["tests", "diff", "package", "installation"]
    assert report.checks[0].detail == "14 test(s) ran: 13 passed, 1 skipped"


@pytest.mark.parametrize(
    ("art", "problem"),
    [
        (None, "no artifact"),
        ({"tests": {"total": -1}}, "tests.total"),
        ({"tests": {"total": "many"}}, "tests.total"),
        ({"diff": {"files": "all"}}, "diff.files"),
        ({"package": {"sha256": SHA}}, "package.path: Field required"),
        (["not", "an", "object"], "malformed"),
    ],
)
def test_a_missing_or_malformed_artifact_fails_without_raising(art: Any, problem: str) -> None:
    report = validate_code(art, CRITERIA)
    assert report.status == "failed" and report.checks[0].name == "artifact"
    assert problem in report.checks[0].detail


@pytest.mark.parametrize(
    ("tests", "detail"),
    [
        ({"total": 14, "failed": 2, "errors": 1}, "2 failed and 1 errored of 14 test(s)"),
        ({"total": 0}, "the test suite ran no tests"),
        ({"total": 3, "timed_out": True}, "the test suite timed out after 3 test(s)"),
        (None, "no test results: the candidate's tests did not run"),
    ],
)
def test_tests_must_run_and_pass(tests: Any, detail: str) -> None:
    art = {**artifact(), "tests": tests}
    report = validate_code(art, CRITERIA)
    assert report.status == "partial" and failures(art) == {"tests": detail}


def test_failures_are_tolerated_only_when_the_criteria_say_so() -> None:
    art = {**artifact(), "tests": {"total": 5, "failed": 1}}
    assert validate_code(art, {**CRITERIA, "tests_must_pass": False}).status == "complete"
    assert validate_code(art, {}).failures[0].name == "tests"  # passing tests are the default


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/etc/passwd", "path(s) outside the candidate: '/etc/passwd' (absolute)"),
        ("../outside.py", "path(s) outside the candidate: '../outside.py' (leaves the candidate ('..'))"),
        ("C:\\Windows\\x.dll", "(absolute)"),
        ("src\\..\\..\\x", "(leaves the candidate ('..'))"),
        (".env", "secret-bearing file(s) touched: .env"),
        ("config/.env.production", "secret-bearing file(s) touched: config/.env.production"),
        ("keys/server.pem", "secret-bearing file(s) touched: keys/server.pem"),
        ("home/.ssh/id_rsa", "secret-bearing file(s) touched: home/.ssh/id_rsa"),
    ],
)
def test_diff_paths_stay_inside_and_leave_secrets_alone(path: str, detail: str) -> None:
    art = artifact()
    art["diff"]["files"].append({"path": path, "status": "added", "added": 1, "removed": 0})
    found = failures(art)
    assert list(found) == ["diff"] and detail in found["diff"]


def test_a_secret_in_the_diff_text_fails_and_is_not_repeated() -> None:
    art = artifact()
    art["diff"]["text"] += '+API_KEY = "sk-live-abcdefghijklmnopqrstuvwxyz"\n'
    report = validate_code(art, CRITERIA)
    assert [c.name for c in report.failures] == ["diff"]
    assert report.failures[0].detail == "the diff text contains a secret"
    assert "sk-live" not in report.model_dump_json()


def test_the_diff_is_required_only_when_asked() -> None:
    art = {**artifact(), "diff": None}
    assert failures(art) == {"diff": "no diff of the candidate against its source"}
    report = validate_code(art, {**CRITERIA, "require_diff": False})
    assert report.status == "complete" and "diff" not in [c.name for c in report.checks]


def test_package_needs_a_path_and_a_sha256() -> None:
    assert failures({**artifact(), "package": None}) == {"package": "no package was built"}
    bad = {**artifact(), "package": {"path": "dist/a.tar.gz", "sha256": "not-a-hash", "bytes": 10}}
    assert failures(bad) == {"package": "the package has no valid SHA-256"}
    outside = {**artifact(), "package": {"path": "/tmp/a.tar.gz", "sha256": SHA, "bytes": 0}}
    assert failures(outside) == {"package": "package path '/tmp/a.tar.gz' is absolute; the package is empty"}
    report = validate_code({**artifact(), "package": None}, {**CRITERIA, "require_package": False})
    assert report.status == "complete" and "package" not in [c.name for c in report.checks]


def test_installation_matches_the_request() -> None:
    done = {**artifact(), "installed": True, "installation": {"path": "outbox/installed/app-demo.tar.gz"}}
    assert failures(done) == {"installation": "installed, but the request said to stop before installation"}
    assert validate_code(done, {**CRITERIA, "installed": True}).status == "complete"
    assert failures(artifact(), {**CRITERIA, "installed": True}) == {
        "installation": "not installed, but the request asked for installation"
    }
    # An installation record alone counts as installed, whatever the flag says.
    assert "installation" in failures({**artifact(), "installation": {"path": "x"}})
    assert "installation" not in [c.name for c in validate_code(done, {"require_diff": True}).checks]


def test_an_artifact_failing_every_check_is_failed() -> None:
    art = {"tests": {"total": 0}, "diff": {"files": [{"path": "/x"}]}, "installed": True}
    report = validate_code(art, CRITERIA)
    assert report.status == "failed"
    assert [c.name for c in report.failures] == ["tests", "diff", "package", "installation"]


def test_path_problem() -> None:
    assert path_problem("src/app.py") is None
    assert path_problem("") == "empty or NUL"
    assert path_problem("a\x00b") == "empty or NUL"
    assert path_problem("\\\\server\\share") == "absolute"
