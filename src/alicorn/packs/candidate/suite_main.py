"""The program `build.run_tests` runs inside the sandbox: unittest's discovery, plus the plain test functions of
pytest-style files, in one unittest run.

It is executed as `python -I -B -c <this file's text> PATTERN` in the candidate's folder, so it imports nothing of
Alicorn and uses the standard library only. Discovery imports every file matching PATTERN; a module-level function
named `test*` in such a file, defined there, is a test too:
- with no parameters, it is called, and an `assert` that fails is a failure;
- with parameters, it needs pytest's fixtures (`tmp_path`, `monkeypatch`, …), which are not here: it is counted as
  skipped, with the parameters named, never passed.

The transcript is unittest's own (`-v` lines, "Ran N tests", "OK" / "FAILED (…)"), so the runner's parser reads
both kinds of suite alike. The exit status is 0 only when every test passed.
"""

from __future__ import annotations

import fnmatch
import inspect
import os
import sys
import unittest
from collections.abc import Callable
from types import ModuleType
from typing import Any


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
            call = _skipped(f"needs pytest fixtures ({', '.join(required)}), which this runner does not provide")
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


def main(pattern: str) -> int:
    top = os.path.abspath(".")
    suite = unittest.TestLoader().discover(".", pattern=pattern)
    for module in _discovered_modules(top, pattern):
        suite.addTests(_plain_tests(module))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() and result.testsRun else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "test*.py"))
