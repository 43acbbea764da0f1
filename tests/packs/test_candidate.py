"""The candidate pack: slots, plan, operations and whole runs that build the bundled app for real.

The bundled app (`data/app/`, "stockroom") has a unittest suite of 14 tests; one of them runs only in a demo build,
so a passing run with 0 skipped shows the demo variant was applied before the suite ran in its child process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from alicorn.errors import OperationError
from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import OperationContext, Registry
from alicorn.packs.candidate import WORKFLOW, tree
from alicorn.packs.candidate.ops import (
    CreateInputs,
    DiffInputs,
    VariantInputs,
    apply_variant,
    create_candidate,
    diff,
)
from alicorn.packs.candidate.release import (
    FIXED_MTIME,
    InstallInputs,
    PackageInputs,
    install,
    installed,
    package,
)
from alicorn.packs.candidate.runner import RunTestsInputs, run_tests
from alicorn.packs.candidate.slots import CandidateParameters
from alicorn.packs.workflow import LANGUAGES
from alicorn.plan.dsl import EffectClass, Plan, goal_digest
from alicorn.plan.validate import validate_plan
from alicorn.runtime.executor import Approval, Executor, RunEnvironment
from alicorn.runtime.state import RunState
from alicorn.validate.code import validate_code

SEED = "Build a demo version of the application in an isolated candidate and stop before installation."
NOW = datetime(2026, 10, 29, 9, 30)
APP = WORKFLOW.data_dir / "app"


def registry() -> Registry:
    reg = builtin_registry()
    for op in WORKFLOW.operations:
        reg.register(op)
    return reg


def plan_for(params: CandidateParameters, forbidden: frozenset[EffectClass] = frozenset()) -> Plan:
    built = WORKFLOW.build(params, forbidden)
    return validate_plan(Plan(goal=SEED, goal_hash=goal_digest(SEED), nodes=list(built.nodes)), registry())


def run(
    tmp_path: Path,
    params: CandidateParameters,
    forbidden: frozenset[EffectClass] = frozenset(),
    data_root: Path | None = None,
    approvals: tuple[Approval, ...] = (),
) -> RunState:
    store = SQLiteStore(tmp_path / "journal.db")
    try:
        env = RunEnvironment(tmp_path / "ws", data_root or WORKFLOW.data_dir)
        return Executor(store, registry(), env, poll_s=0.02).start(plan_for(params, forbidden), approvals=approvals)
    finally:
        store.close()


def ctx(tmp_path: Path, data_root: Path | None = None, key: str = "key-1") -> OperationContext:
    return OperationContext("run", "node", 1, key, tmp_path / "ws", data_root or WORKFLOW.data_dir)


def digest_tree(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(root).as_posix().encode() + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def copy_app(tmp_path: Path) -> Path:
    """A data root holding a copy of the bundled app (to doctor it)."""
    data = tmp_path / "data"
    shutil.copytree(APP, data / "app", ignore=shutil.ignore_patterns("__pycache__"))
    return data


def candidate(tmp_path: Path, data_root: Path | None = None) -> Path:
    """A demo candidate in the workspace, made by the real operations."""
    create_candidate(CreateInputs(app="app"), ctx(tmp_path, data_root))
    apply_variant(VariantInputs(root="candidate"), ctx(tmp_path, data_root))
    return tmp_path / "ws" / "candidate"


# ---------------------------------------------------------------------------------------------- whole runs


def test_seed_command_builds_tests_and_packages_without_installing(tmp_path: Path) -> None:
    source_before = digest_tree(APP)
    params = CandidateParameters.model_validate(WORKFLOW.extract(SEED, "en", NOW))
    assert params.install is False and params.variant == "demo"
    state = run(tmp_path, params, forbidden=frozenset({"installation"}))
    assert state.status == "succeeded"
    assert list(state.nodes) == ["create", "variant", "tests", "diff", "package"]
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None
    report = WORKFLOW.validator(artifact, WORKFLOW.criteria(params))
    assert report.status == "complete", report.summary
    assert [c.name for c in report.checks] == ["tests", "diff", "package", "installation"]
    tests = artifact["tests"]
    assert (tests["total"], tests["passed"], tests["failed"], tests["skipped"]) == (14, 14, 0, 0)
    assert "Ran 14 tests\n\nOK" in tests["output_tail"] and str(tmp_path) not in tests["output_tail"]
    assert sorted(f["path"] for f in artifact["diff"]["files"]) == ["config.json", "data/demo_items.json"]
    workspace = Path(state.workspace)
    assert json.loads((workspace / "candidate" / "config.json").read_text())["demo"] is True
    archive = workspace / artifact["package"]["path"]
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == artifact["package"]["sha256"]
    assert not (workspace / "outbox").exists() and artifact["installed"] is False
    assert not list(workspace.rglob("__pycache__"))  # the suite ran with -B: nothing written besides the build
    assert digest_tree(APP) == source_before  # the source app is never touched
    summary = WORKFLOW.summarize(artifact, report)
    assert "Tests: 14 passed" in summary.lines[1] and summary.lines[-1].startswith("Not installed")


def test_with_running_code_forbidden_the_diff_is_still_shown(tmp_path: Path) -> None:
    # "show me the diff, skip the build and tests for now": the suite is left out, the diff does not need it
    params = CandidateParameters()
    built = WORKFLOW.build(params, frozenset({"code_execution", "installation"}))
    assert [n.node_id for n in built.nodes] == ["create", "variant", "diff"]
    assert built.removed[:2] == (
        "tests (build.run_tests, running code): left out, the request forbids it",
        "package (build.package): left out, it needs tests, left out too",
    )
    state = run(tmp_path, params, forbidden=frozenset({"code_execution", "installation"}))
    assert state.status == "succeeded" and list(state.nodes) == ["create", "variant", "diff"]
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None
    assert sorted(f["path"] for f in artifact["diff"]["files"]) == ["config.json", "data/demo_items.json"]
    report = WORKFLOW.validator(artifact, WORKFLOW.criteria(params))
    assert report.status != "complete"  # the suite did not run: the outcome says so
    assert {c.name for c in report.checks if not c.passed} >= {"tests", "package"}


def test_install_node_only_when_asked_and_allowed() -> None:
    assert "install" not in [n.node_id for n in plan_for(CandidateParameters()).nodes]
    assert WORKFLOW.build(CandidateParameters(), frozenset()).removed == ()
    asked = plan_for(CandidateParameters(install=True))
    assert [n.node_id for n in asked.nodes][-1] == "install"
    forbidden = WORKFLOW.build(CandidateParameters(install=True), frozenset({"installation"}))
    assert "install" not in [n.node_id for n in forbidden.nodes]
    assert forbidden.removed == ("install (build.install, installing software): left out, the request forbids it",)
    quiet = WORKFLOW.build(CandidateParameters(), frozenset({"installation"}))
    assert len(quiet.nodes) == 5 and "installing software): left out" in quiet.removed[0]
    nothing = WORKFLOW.build(CandidateParameters(), frozenset({"local_write"}))
    assert nothing.nodes == () and len(nothing.removed) == 5  # every node writes or needs the candidate


def test_installs_when_asked_after_a_human_approves(tmp_path: Path) -> None:
    params = CandidateParameters(install=True)
    waiting = run(tmp_path / "unapproved", params)
    assert waiting.status == "awaiting_approval"  # an installation needs a human, even when asked for
    assert not (tmp_path / "unapproved" / "ws" / waiting.run_id / "candidate").exists()
    state = run(tmp_path, params, approvals=(Approval("human:tester"),))
    assert state.status == "succeeded"
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None and artifact["installed"] is True
    assert WORKFLOW.validator(artifact, WORKFLOW.criteria(params)).status == "complete"
    outbox = Path(state.workspace) / "outbox" / "installed"
    assert (outbox / "app-demo.tar.gz").read_bytes() == (
        Path(state.workspace) / "dist" / "app-demo.tar.gz"
    ).read_bytes()
    assert list(json.loads((outbox / "ledger.json").read_text())) == [artifact["installation"]["key"]]
    # The same artifact judged against "stop before installation" fails exactly the installation check.
    report = validate_code(artifact, WORKFLOW.criteria(CandidateParameters(install=False)))
    assert report.status == "partial" and [c.name for c in report.failures] == ["installation"]


def test_a_failing_suite_stops_the_run_before_packaging(tmp_path: Path) -> None:
    data = copy_app(tmp_path)
    models = data / "app" / "stockroom" / "models.py"
    models.write_text(models.read_text().replace("self.quantity * self.unit_price_cents", "self.quantity"))
    state = run(tmp_path, CandidateParameters(), data_root=data)
    assert state.status == "stopped" and "tests do not pass" in (state.stop_reason or "")
    artifact = WORKFLOW.artifact_of(state)
    assert artifact is not None and artifact["package"] is None and artifact["diff"] is None
    tests = artifact["tests"]
    assert tests["failed"] >= 2 and tests["ok"] is False and "FAILED" in tests["output_tail"]
    report = WORKFLOW.validator(artifact, WORKFLOW.criteria(CandidateParameters()))
    assert report.status == "partial"
    assert [c.name for c in report.failures] == ["tests", "diff", "package"]
    assert not (Path(state.workspace) / "dist").exists()


def test_a_missing_app_folder_stops_the_run_and_fails_validation(tmp_path: Path) -> None:
    state = run(tmp_path, CandidateParameters(app="no-such-app"))
    assert state.status == "stopped" and "candidate could not be created" in (state.stop_reason or "")
    error = state.nodes["create"].error or {}
    assert "no folder 'no-such-app'" in str(error)
    assert WORKFLOW.artifact_of(state) is None
    assert WORKFLOW.validator(None, WORKFLOW.criteria(CandidateParameters())).status == "failed"


def test_two_builds_give_the_same_package(tmp_path: Path) -> None:
    first = WORKFLOW.artifact_of(run(tmp_path / "a", CandidateParameters()))
    second = WORKFLOW.artifact_of(run(tmp_path / "b", CandidateParameters()))
    assert first is not None and second is not None
    assert first["package"]["sha256"] == second["package"]["sha256"]
    assert first["tests"] == second["tests"] and first["diff"] == second["diff"]


# ----------------------------------------------------------------------------------------------- operations


def test_create_candidate_isolates_the_copy(tmp_path: Path) -> None:
    data = copy_app(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("not part of the app")
    (data / "app" / "link.txt").symlink_to(outside)
    (data / "app" / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    (data / "app" / ".env").write_text("API_TOKEN=abc123secret\n")
    out = create_candidate(CreateInputs(app="app"), ctx(tmp_path, data))
    assert out.skipped == {
        ".env": "secret-bearing file: kept out",
        "link.txt": "symlink: not followed",
        "linked-dir": "symlink: not followed",
    }
    copied = tmp_path / "ws" / "candidate"
    assert not (copied / ".env").exists() and not (copied / "link.txt").exists()
    assert not any(p.is_symlink() for p in copied.rglob("*"))
    assert out.files == 13 and out.root == "candidate"
    again = create_candidate(CreateInputs(app="app"), ctx(tmp_path, data))  # a retry replaces the copy whole
    assert again == out


@pytest.mark.parametrize(
    ("app", "message"),
    [
        ("missing", "no folder 'missing' in the data root"),
        ("../app", "contains '..'"),
        ("/etc", "is absolute"),
        ("escape", "outside the data root"),
        ("app/config.json", "no folder"),
    ],
)
def test_create_candidate_refuses_bad_folders(tmp_path: Path, app: str, message: str) -> None:
    data = copy_app(tmp_path)
    (data / "escape").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(OperationError, match=message):
        create_candidate(CreateInputs(app=app), ctx(tmp_path, data))
    assert not (tmp_path / "ws" / "candidate").exists()


def test_create_candidate_caps_the_size_before_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree, "MAX_FILES", 3)
    with pytest.raises(OperationError, match="more than 3 files"):
        create_candidate(CreateInputs(app="app"), ctx(tmp_path))
    assert not (tmp_path / "ws" / "candidate").exists()
    monkeypatch.undo()
    with pytest.raises(OperationError, match="cannot be the workspace itself"):
        create_candidate(CreateInputs(app="app", into="."), ctx(tmp_path))


def test_apply_variant_is_idempotent_and_refuses_a_candidate_without_config(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    before = digest_tree(root)
    apply_variant(VariantInputs(root="candidate"), ctx(tmp_path))
    assert digest_tree(root) == before
    config = json.loads((root / "config.json").read_text())
    assert config["name"] == "Stockroom (demo)" and config["data_file"] == "data/demo_items.json"
    (root / "config.json").write_text("[1, 2]")
    with pytest.raises(OperationError, match="must hold a JSON object"):
        apply_variant(VariantInputs(root="candidate"), ctx(tmp_path))
    (root / "config.json").unlink()
    with pytest.raises(OperationError, match=r"has no config\.json"):
        apply_variant(VariantInputs(root="candidate"), ctx(tmp_path))
    with pytest.raises(OperationError, match="no folder 'nowhere'"):
        apply_variant(VariantInputs(root="nowhere"), ctx(tmp_path))


def test_run_tests_reports_failures_and_errors_without_raising(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    (root / "stockroom" / "tests" / "test_broken.py").write_text(
        "import unittest\nimport no_such_module  # noqa\n", encoding="utf-8"
    )
    inventory = root / "stockroom" / "inventory.py"
    inventory.write_text(inventory.read_text().replace("item.quantity <= threshold", "item.quantity < threshold"))
    out = run_tests(RunTestsInputs(root="candidate"), ctx(tmp_path))
    assert out.ran and not out.ok and out.returncode != 0
    assert out.failed == 1 and out.errors == 1 and out.total == 15 and out.passed == 13
    assert "no_such_module" in out.output_tail and "<candidate>" in out.output_tail


def test_run_tests_gives_the_suite_a_clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALICORN_FAKE_TOKEN", "sk-test-abcdefghijklmnopqrstuvwx")
    root = candidate(tmp_path)
    (root / "stockroom" / "tests" / "test_env.py").write_text(
        "import os\nimport unittest\n\n\nclass EnvTest(unittest.TestCase):\n"
        "    def test_no_secrets(self) -> None:\n"
        "        self.assertNotIn('ALICORN_FAKE_TOKEN', os.environ)\n"
        "        self.assertEqual(sorted(os.environ), ['HOME', 'LANG', 'LC_ALL', 'PATH', 'PWD', 'TZ'])\n"
        "        self.assertEqual(os.environ['PWD'], '/workspace')\n",
        encoding="utf-8",
    )
    out = run_tests(RunTestsInputs(root="candidate"), ctx(tmp_path))
    assert out.ok and out.total == 15, out.output_tail
    assert "ALICORN_FAKE_TOKEN" in os.environ


def test_run_tests_times_out_and_refuses_a_missing_candidate(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    (root / "stockroom" / "tests" / "test_slow.py").write_text(
        "import time\nimport unittest\n\n\nclass SlowTest(unittest.TestCase):\n"
        "    def test_slow(self) -> None:\n        time.sleep(30)\n",
        encoding="utf-8",
    )
    out = run_tests(RunTestsInputs(root="candidate", timeout_s=2), ctx(tmp_path))
    assert out.timed_out and not out.ran and not out.ok
    assert validate_code({"tests": out.model_dump()}, {}).failures[0].detail.startswith("the test suite timed out")
    with pytest.raises(OperationError, match="no folder 'elsewhere'"):
        run_tests(RunTestsInputs(root="elsewhere"), ctx(tmp_path))
    with pytest.raises(OperationError, match=r"contains '\.\.'"):
        run_tests(RunTestsInputs(root="../candidate"), ctx(tmp_path))


def test_diff_shows_a_secret_file_added_to_the_candidate(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    clean = diff(DiffInputs(source="app", root="candidate"), ctx(tmp_path))
    assert [(f.path, f.status) for f in clean.files] == [("config.json", "modified"), ("data/demo_items.json", "added")]
    assert clean.removed == 3 and clean.added > 40 and '+  "demo": true,' in clean.text
    (root / ".env").write_text("DB_PASSWORD=hunter2!x\n")
    dirty = diff(DiffInputs(source="app", root="candidate"), ctx(tmp_path))
    assert ".env" in [f.path for f in dirty.files]
    report = validate_code({"tests": {"total": 1}, "diff": dirty.model_dump()}, {"require_package": False})
    assert [c.name for c in report.failures] == ["diff"]
    assert "secret-bearing file(s) touched: .env" in report.failures[0].detail
    assert "the diff text contains a secret" in report.failures[0].detail
    with pytest.raises(OperationError, match="no folder 'gone'"):
        diff(DiffInputs(source="gone", root="candidate"), ctx(tmp_path))


def test_package_is_reproducible_and_refuses_secrets(tmp_path: Path) -> None:
    root = candidate(tmp_path)
    first = package(PackageInputs(root="candidate", name="app-demo"), ctx(tmp_path))
    second = package(PackageInputs(root="candidate", name="app-demo"), ctx(tmp_path))
    assert first == second and first.path == "dist/app-demo.tar.gz" and first.files == 14
    with tarfile.open(tmp_path / "ws" / first.path) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names) and all(n.startswith("app-demo/") for n in names)
    assert {(m.mtime, m.uid, m.gid, m.mode) for m in members} == {(FIXED_MTIME, 0, 0, 0o644)}
    (root / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    with pytest.raises(OperationError, match="secret-bearing file"):
        package(PackageInputs(root="candidate", name="app-demo2"), ctx(tmp_path))
    assert not (tmp_path / "ws" / "dist" / "app-demo2.tar.gz").exists()
    with pytest.raises(OperationError, match="no folder 'missing'"):
        package(PackageInputs(root="missing", name="x"), ctx(tmp_path))
    with pytest.raises(ValueError, match="name"):
        PackageInputs(root="candidate", name="../evil")


def test_install_applies_once_per_key_and_checks_the_package(tmp_path: Path) -> None:
    candidate(tmp_path)
    built = package(PackageInputs(root="candidate", name="app-demo"), ctx(tmp_path))
    inputs = InstallInputs(package=built.path, sha256=built.sha256)
    assert installed(inputs, ctx(tmp_path)).applied is False
    first = install(inputs, ctx(tmp_path))
    again = install(inputs, ctx(tmp_path))
    assert first.installed and not first.deduplicated and again.deduplicated and again.path == first.path
    assert installed(inputs, ctx(tmp_path)).applied is True
    ledger = json.loads((tmp_path / "ws" / "outbox" / "installed" / "ledger.json").read_text())
    assert list(ledger) == ["key-1"]
    install(inputs, ctx(tmp_path, key="key-2"))
    assert sorted(json.loads((tmp_path / "ws" / "outbox" / "installed" / "ledger.json").read_text())) == [
        "key-1",
        "key-2",
    ]
    with pytest.raises(OperationError, match="changed since it was built"):
        install(inputs.model_copy(update={"sha256": "0" * 64}), ctx(tmp_path, key="key-3"))
    with pytest.raises(OperationError, match=r"no package 'dist/none\.tar\.gz'"):
        install(inputs.model_copy(update={"package": "dist/none.tar.gz"}), ctx(tmp_path, key="key-4"))
    assert sorted(json.loads((tmp_path / "ws" / "outbox" / "installed" / "ledger.json").read_text())) == [
        "key-1",
        "key-2",
    ]


# ----------------------------------------------------------------------------------------------- extraction


@pytest.mark.parametrize(
    ("language", "text", "install"),
    [
        ("en", SEED, False),
        ("en", "Build the demo but do not install it.", False),
        ("en", "Make a demo build without installing anything.", False),
        ("en", "Package a demo candidate; don't install.", False),
        ("en", "Build a demo candidate; installation is not needed.", False),
        ("en", "Build a demo of the app and install it.", True),
        ("en", "Create the demo build, run the tests, then install the package.", True),
        ("en", "Please install the demo version once it is built.", True),
        ("pl", "Zbuduj wersję demo aplikacji w izolowanym kandydacie i zatrzymaj się przed instalacją.", False),
        ("pl", "Zbuduj demo, ale nie instaluj.", False),
        ("pl", "Przygotuj wersję demonstracyjną bez instalacji.", False),
        ("pl", "Zrób kandydata demo i niczego nie instaluj.", False),
        ("pl", "Zbuduj wersję demo i zainstaluj ją.", True),
        ("pl", "Przetestuj demo aplikacji, a potem zainstaluj pakiet.", True),
        ("pl", "Zainstaluj demonstracyjną wersję aplikacji po zbudowaniu.", True),
        ("ru", "Собери демо-версию приложения в изолированном кандидате и остановись перед установкой.", False),
        ("ru", "Собери демо, но не устанавливай.", False),
        ("ru", "Подготовь демонстрационную сборку без установки.", False),
        ("ru", "Собери демо и ничего не устанавливай до проверки.", False),
        ("ru", "Собери демо-версию и установи её.", True),
        ("ru", "Протестируй демо приложения, затем установи пакет.", True),
        ("ru", "Установи демонстрационную версию после сборки.", True),
    ],
)
def test_extracts_install_only_when_affirmative(language: str, text: str, install: bool) -> None:
    found = WORKFLOW.extract(text, language, NOW)
    assert found["install"] is install
    assert found["variant"] == "demo"


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", "Build a demo of the app 'stockroom'.", {"app": "stockroom", "variant": "demo"}),
        ("pl", "Zbuduj demo aplikacji „sklep”.", {"app": "sklep", "variant": "demo"}),
        ("ru", "Собери демо приложения «склад».", {"variant": "demo"}),  # not a folder name we can use
        ("ru", "Собери демо приложения «shop».", {"app": "shop", "variant": "demo"}),
        ("en", "Build the application in a candidate folder.", {}),
    ],
)
def test_extracts_app_and_variant(language: str, text: str, expected: dict[str, Any]) -> None:
    assert WORKFLOW.extract(text, language, NOW) == expected


def test_parameters_refuse_a_folder_outside_the_data_root() -> None:
    for bad in ("../elsewhere", "apps/../../etc", "/etc"):
        with pytest.raises(ValueError, match="app"):
            CandidateParameters(app=bad)
    assert CandidateParameters(app="apps/shop").app == "apps/shop"


# ------------------------------------------------------------------------------------------------ contract


def test_workflow_contract() -> None:
    assert WORKFLOW.id == "candidate" and WORKFLOW.artifact == "code"
    assert WORKFLOW.required_slots() == []
    for language in LANGUAGES:
        assert len(WORKFLOW.examples[language]) >= 4
        for slot in WORKFLOW.questions:
            assert WORKFLOW.question(slot, language) == WORKFLOW.questions[slot][language]
        for text in WORKFLOW.examples[language]:
            CandidateParameters.model_validate(WORKFLOW.extract(text, language, NOW))
    effects = {op.name: (op.effect, op.idempotency) for op in WORKFLOW.operations}
    assert effects == {
        "build.create_candidate": ("local_write", "idempotent"),
        "build.apply_variant": ("local_write", "idempotent"),
        "build.run_tests": ("code_execution", "idempotent"),
        "build.diff": ("read", "repeatable"),
        "build.package": ("local_write", "idempotent"),
        "build.install": ("installation", "keyed"),
    }
    assert WORKFLOW.criteria(CandidateParameters()) == {
        "tests_must_pass": True,
        "require_diff": True,
        "require_package": True,
        "installed": False,
    }
    assert (WORKFLOW.data_dir / "app" / "config.json").is_file()
