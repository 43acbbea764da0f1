"""The program `build.run_tests` runs inside the sandbox: the candidate's tests, with the runner they were written for.

It is executed as `python -I -B -c <this file's text> PATTERN` in the candidate's folder, so it imports nothing of
Alicorn: the standard library, and pytest when the sandbox's Python has it (Alicorn depends on it).

Which runner:
- **pytest**, when the tests are written for it: a `conftest.py`, a pytest configuration (`pytest.ini`,
  `[tool.pytest…]` in pyproject.toml, `[tool:pytest]` in setup.cfg, `[pytest]` in tox.ini), or a test file that
  imports pytest or defines a module-level `test*` function. Fixtures, parametrize, marks and `pytest.raises` work as
  on the author's machine. Three things differ, so the run stays inside the sandbox's promises: the project's
  `addopts` are not applied (they often name plugins that are not here, such as `--cov`), the cache is not written
  (`-p no:cacheprovider`), and `-B` keeps bytecode out; the candidate's folder changes only by what its tests write.
- **unittest's discovery** otherwise, plus the plain test functions of a file it imported (used when pytest is not
  importable): one with no parameters is called, one with parameters needs pytest's fixtures and is counted as
  skipped with the parameters named, never called.

Either way the transcript ends as unittest's does (`name ... ok` lines, "Ran N tests", "OK" / "FAILED (…)"), so
the runner's parser reads every suite alike. The exit status is 0 only when at least one test ran and all passed.
"""

from __future__ import annotations

import contextlib
import fnmatch
import inspect
import io
import os
import re
import sys
import unittest
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: Folders never searched for tests or pytest's markers (virtual environments, caches, version control).
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "env", "build", "dist", "site-packages"})
#: How many files the search for pytest's markers reads at most (a candidate is a project, not a disk).
MAX_FILES_READ = 2_000
_PYTEST_CONFIG = {
    "pytest.ini": None,
    "pyproject.toml": re.compile(r"^\[tool\.pytest", re.MULTILINE),
    "setup.cfg": re.compile(r"^\[tool:pytest\]", re.MULTILINE),
    "tox.ini": re.compile(r"^\[pytest\]", re.MULTILINE),
}
_PYTEST_STYLE = re.compile(r"^(?:import pytest\b|from pytest\b|from _pytest\b|(?:async )?def test)", re.MULTILINE)
_SEPARATOR = "-" * 70


# ---- which runner ---------------------------------------------------------------------------------------------


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(1_000_000)
    except OSError:
        return ""


def written_for_pytest(top: str, pattern: str) -> bool:
    """Whether the tests under `top` are written for pytest (the module docstring's markers)."""
    for name, marker in _PYTEST_CONFIG.items():
        path = os.path.join(top, name)
        if os.path.isfile(path) and (marker is None or marker.search(_read(path))):
            return True
    read = 0
    for folder, folders, files in os.walk(top):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS)
        if "conftest.py" in files:
            return True
        for name in sorted(files):
            if not name.endswith(".py") or not fnmatch.fnmatch(name, pattern):
                continue
            read += 1
            if read > MAX_FILES_READ:
                return False
            if _PYTEST_STYLE.search(_read(os.path.join(folder, name))):
                return True
    return False


# ---- pytest ---------------------------------------------------------------------------------------------------


def _skip_mark(report: Any) -> str:
    """unittest's mark of a skipped test, with pytest's reason: "skipped 'not on weekends'"."""
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
    return f"skipped {reason.removeprefix('Skipped: ')!r}"


class _Outcomes:
    """A pytest plugin that keeps each test's outcome in unittest's words, and each problem's report."""

    def __init__(self) -> None:
        self.marks: dict[str, str] = {}  # nodeid -> ok | FAIL | ERROR | skipped '…' | expected failure
        self.problems: list[tuple[str, str, str]] = []  # (FAIL | ERROR, nodeid, report text)

    def problem(self, kind: str, nodeid: str, text: str) -> None:
        self.marks[nodeid] = kind
        self.problems.append((kind, nodeid, text))

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:  # a test file that does not import: unittest counts it as an error too
            self.problem("ERROR", report.nodeid or "collection", report.longreprtext)

    def pytest_runtest_logreport(self, report: Any) -> None:
        nodeid, now = report.nodeid, self.marks.get(report.nodeid)
        if report.when == "setup":
            if report.failed:
                self.problem("ERROR", nodeid, report.longreprtext)
            elif report.skipped:
                self.marks[nodeid] = _skip_mark(report)
            else:
                self.marks[nodeid] = "ok"
        elif report.when == "call":
            if hasattr(report, "wasxfail") and report.skipped:
                self.marks[nodeid] = "expected failure"
            elif report.failed:
                self.problem("FAIL", nodeid, report.longreprtext)
            elif report.skipped:
                self.marks[nodeid] = _skip_mark(report)
        elif report.when == "teardown" and report.failed and now not in ("FAIL", "ERROR"):
            self.problem("ERROR", nodeid, report.longreprtext)

    def summary(self) -> tuple[str, bool]:
        """unittest's closing lines for these outcomes, and whether they are a success."""
        values = list(self.marks.values())
        counts = {
            "failures": values.count("FAIL"),
            "errors": values.count("ERROR"),
            "skipped": sum(1 for v in values if v.startswith("skipped")),
            "expected failures": values.count("expected failure"),
        }
        lines = [f"{nodeid} ... {mark}" for nodeid, mark in self.marks.items()]
        for kind, nodeid, text in self.problems:
            lines += ["", "=" * 70, f"{kind}: {nodeid}", _SEPARATOR, text.rstrip()]
        lines += [_SEPARATOR, f"Ran {len(values)} test{'' if len(values) == 1 else 's'} in 0.000s", ""]
        said = ", ".join(f"{key}={value}" for key, value in counts.items() if value)
        ok = bool(values) and not counts["failures"] and not counts["errors"]
        verdict = ("OK" if ok else "FAILED") if values else "NO TESTS RAN"
        lines.append(f"{verdict} ({said})" if said else verdict)
        return "\n".join(lines), ok


def run_pytest(pytest: ModuleType, top: str, pattern: str) -> int:
    # As `python -m pytest` does: the candidate's folder is importable. Plugins installed beside pytest are not
    # loaded: the suite runs the same whatever else the sandbox's Python has.
    sys.path.insert(0, top)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    outcomes = _Outcomes()
    arguments = ["-q", "--tb=short", "-p", "no:cacheprovider", "-o", "addopts=", "-o", f"python_files={pattern}"]
    own = io.StringIO()  # pytest's own report: shown only when pytest stopped before running any test
    with contextlib.redirect_stdout(own):
        code = pytest.main([*arguments, top], plugins=[outcomes])
    stopped = int(code) in (2, 3, 4)  # interrupted, an internal error, a usage or conftest error
    if stopped or not outcomes.marks:
        print(own.getvalue().rstrip(), flush=True)
    if stopped:
        outcomes.problem("ERROR", "pytest", f"pytest stopped before the suite ran through (exit status {int(code)})")
    text, ok = outcomes.summary()
    print(text, flush=True)
    return 0 if ok else 1


# ---- unittest -------------------------------------------------------------------------------------------------


def _skipped(reason: str) -> Callable[[], None]:
    def skip() -> None:
        raise unittest.SkipTest(reason)

    return skip


def _plain_tests(module: ModuleType) -> list[unittest.TestCase]:
    found: list[unittest.TestCase] = []
    for name, value in sorted(vars(module).items()):
        if not name.startswith("test") or not inspect.isfunction(value) or value.__module__ != module.__name__:
            continue
        required = [
            p.name
            for p in inspect.signature(value).parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        call: Callable[[], Any] = value
        if required:
            call = _skipped(f"needs pytest fixtures ({', '.join(required)}), and pytest is not installed here")
        found.append(unittest.FunctionTestCase(call, description=f"{name} ({module.__name__})"))
    return found


def _discovered_modules(top: str, pattern: str) -> list[ModuleType]:
    modules = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path or not fnmatch.fnmatch(os.path.basename(path), pattern):
            continue
        if os.path.abspath(path).startswith(top + os.sep):
            modules.append(module)
    return sorted(modules, key=lambda m: m.__name__)


def run_unittest(top: str, pattern: str) -> int:
    suite = unittest.TestLoader().discover(".", pattern=pattern)
    for module in _discovered_modules(top, pattern):
        suite.addTests(_plain_tests(module))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() and result.testsRun else 1


def main(pattern: str) -> int:
    top = os.path.abspath(".")
    if written_for_pytest(top, pattern):
        try:
            import pytest
        except ImportError:
            print("the tests are written for pytest, which is not installed here: unittest runs them", flush=True)
        else:
            return run_pytest(pytest, top, pattern)
    return run_unittest(top, pattern)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "test*.py"))
