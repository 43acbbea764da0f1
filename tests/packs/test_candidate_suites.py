"""`build.run_tests` runs a candidate's tests with the runner they were written for (`suite_main`).

pytest-style suites (fixtures, parametrize, conftest, marks) run under pytest inside the real sandbox; a unittest
suite stays on unittest; without pytest, the plain functions of a pytest-style file still run (fixtures skipped).
Either way the transcript ends as unittest's does, so the counts come from one parser.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from alicorn.ops.registry import OperationContext
from alicorn.packs.candidate import WORKFLOW
from alicorn.packs.candidate.ops import CreateInputs, VariantInputs, apply_variant, create_candidate
from alicorn.packs.candidate.runner import SUITE_MAIN, RunTestsInputs, parse, run_tests
from alicorn.packs.candidate.suite_main import written_for_pytest

BUNDLED_TESTS = 14  # the bundled app's unittest suite in a demo build

PYTEST_FILE = """import pytest

from stockroom.models import Item


@pytest.fixture
def crate():
    return Item(sku="C-1", name="crate", quantity=3, unit_price_cents=250)


@pytest.mark.parametrize("count", [1, 2, 5])
def test_counts(count, tmp_path):
    (tmp_path / "scratch.txt").write_text(str(count))
    assert count < 5


def test_fixture_from_conftest(shelf_label):
    assert shelf_label == "A-1"


def test_own_fixture(crate):
    assert crate.quantity == 3


def test_raises():
    with pytest.raises(ZeroDivisionError):
        1 / 0


@pytest.mark.skip(reason="not on weekends")
def test_skipped():
    raise AssertionError("never run")


@pytest.mark.xfail(reason="known bug")
def test_known_bug():
    assert 1 == 2


def test_broken_setup(missing_fixture):
    pass
"""

CONFTEST = """import pytest


@pytest.fixture
def shelf_label():
    return "A-1"
"""


def ctx(tmp_path: Path) -> OperationContext:
    return OperationContext("run", "node", 1, "key-1", tmp_path / "ws", WORKFLOW.data_dir)


def candidate(tmp_path: Path) -> Path:
    create_candidate(CreateInputs(app="app"), ctx(tmp_path))
    apply_variant(VariantInputs(root="candidate"), ctx(tmp_path))
    return tmp_path / "ws" / "candidate"


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_a_pytest_suite_runs_under_pytest_in_the_sandbox(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    (root / "stockroom" / "tests" / "test_shelves.py").write_text(PYTEST_FILE, encoding="utf-8")
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "--cov=stockroom"\n', encoding="utf-8")
    before = files(root)
    out = run_tests(RunTestsInputs(root="candidate"), ctx(tmp_path))
    tail = out.output_tail
    # 14 unittest cases (pytest runs them too), 3 parametrized, 3 functions, a skip, an xfail, a setup error.
    assert (out.total, out.failed, out.errors, out.skipped) == (BUNDLED_TESTS + 9, 1, 1, 1), tail
    assert out.ran and not out.ok and out.passed == BUNDLED_TESTS + 6
    assert "stockroom/tests/test_shelves.py::test_counts[5] ... FAIL" in tail
    assert "stockroom/tests/test_shelves.py::test_fixture_from_conftest ... ok" in tail
    assert "stockroom/tests/test_shelves.py::test_own_fixture ... ok" in tail
    assert "test_skipped ... skipped 'not on weekends'" in tail and "never run" not in tail
    assert "test_known_bug ... expected failure" in tail
    assert "ERROR: stockroom/tests/test_shelves.py::test_broken_setup" in tail and "missing_fixture" in tail
    assert "E   assert 5 < 5" in tail  # pytest's assertion rewriting, in the failure's report
    # Plugins installed beside pytest are not loaded (anyio's would offer its fixture to the missing one's list).
    assert "available fixtures: " in tail and "anyio_backend" not in tail
    assert tail.rstrip().endswith("FAILED (failures=1, errors=1, skipped=1, expected failures=1)")
    # Nothing but what the tests wrote: no cache, no bytecode; --cov from addopts was not applied (no such plugin).
    assert files(root) == before


def test_a_flat_project_imports_its_modules_and_a_failed_teardown_is_an_error(tmp_path: Path) -> None:
    """`calc.py` at the top, tests in a folder with no `__init__.py`: importable as under `python -m pytest`."""
    root = tmp_path / "ws" / "calc"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (root / "tests" / "test_calc.py").write_text(
        "import pytest\n\nfrom calc import add\n\n\n"
        "@pytest.fixture\ndef leaky():\n    yield 1\n    raise RuntimeError('teardown boom')\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_with_leaky(leaky):\n    assert leaky == 1\n",
        encoding="utf-8",
    )
    out = run_tests(RunTestsInputs(root="calc"), ctx(tmp_path))
    assert (out.total, out.passed, out.failed, out.errors) == (2, 1, 0, 1), out.output_tail
    assert "tests/test_calc.py::test_add ... ok" in out.output_tail
    assert "ERROR: tests/test_calc.py::test_with_leaky" in out.output_tail and "teardown boom" in out.output_tail


def test_a_unittest_suite_stays_on_unittest(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    assert not written_for_pytest(str(root), "test*.py")
    out = run_tests(RunTestsInputs(root="candidate"), ctx(tmp_path))
    assert out.ok and out.total == BUNDLED_TESTS, out.output_tail
    assert "::" not in out.output_tail and " (stockroom.tests." in out.output_tail


def test_a_conftest_that_does_not_import_is_an_error_not_an_empty_suite(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    (root / "conftest.py").write_text("import a_module_nobody_installed\n", encoding="utf-8")
    out = run_tests(RunTestsInputs(root="candidate"), ctx(tmp_path))
    assert (out.total, out.errors, out.ok) == (1, 1, False), out.output_tail
    assert "a_module_nobody_installed" in out.output_tail
    assert "pytest stopped before the suite ran through (exit status 4)" in out.output_tail


def test_without_pytest_the_plain_functions_still_run(tmp_path: Path) -> None:
    """`python -S` has no site-packages, so no pytest: the fallback runs, on the same file."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    (tests / "test_plain.py").write_text(
        "from os.path import exists as test_imported  # an imported function is not one of this file's tests\n\n\n"
        "def test_adds():\n    assert 1 + 1 == 2\n\n\n"
        "def test_breaks():\n    assert 'a' == 'b'\n\n\n"
        "def test_needs_a_fixture(tmp_path):\n    raise RuntimeError('never called')\n\n\n"
        "def helper():\n    return 1\n",
        encoding="utf-8",
    )
    argv = [sys.executable, "-I", "-S", "-B", "-c", SUITE_MAIN.read_text(encoding="utf-8"), "test*.py"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    transcript = done.stdout + done.stderr
    assert parse(transcript) == (3, 1, 0, 1), transcript
    assert done.returncode == 1
    assert "the tests are written for pytest, which is not installed here" in transcript
    assert "test_adds (tests.test_plain) ... ok" in transcript
    assert "test_breaks (tests.test_plain) ... FAIL" in transcript
    assert "needs pytest fixtures (tmp_path)" in transcript and "never called" not in transcript
    assert "test_imported" not in transcript


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("conftest.py", "", True),
        ("pytest.ini", "[pytest]\n", True),
        ("pyproject.toml", "[tool.pytest.ini_options]\nminversion = '8'\n", True),
        ("setup.cfg", "[tool:pytest]\ntestpaths = tests\n", True),
        ("tox.ini", "[pytest]\naddopts = -q\n", True),
        ("tests/test_a.py", "import pytest\n", True),
        ("tests/test_a.py", "from pytest import approx\n", True),
        ("tests/test_a.py", "def test_total():\n    assert True\n", True),
        ("tests/test_a.py", "async def test_total():\n    assert True\n", True),
        ("pyproject.toml", "[tool.ruff]\nline-length = 100\n", False),
        ("tox.ini", "[tox]\nenvlist = py311\n", False),
        ("tests/test_a.py", "import unittest\n# we left pytest\nclass T(unittest.TestCase):\n    pass\n", False),
        ("tests/helpers.py", "import pytest\n", False),  # not a test file by the pattern
        (".venv/lib/test_x.py", "import pytest\n", False),  # hidden folders are not the project's tests
        ("node_modules/pkg/test_x.py", "import pytest\n", False),
    ],
)
def test_which_suites_are_written_for_pytest(tmp_path: Path, name: str, text: str, expected: bool) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert written_for_pytest(str(tmp_path), "test*.py") is expected
