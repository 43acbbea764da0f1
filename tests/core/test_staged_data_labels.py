"""The data Core stages keeps its label, and Core's data step never reads the Alicorn home (red-team report D, #6
and #10).

Before: the data step copied a file to the name the plan reads (`keys/alarms.csv` became `alarms.csv`), so the
home's `[data]` patterns no longer named it: a secret file given with `--data` was read with nobody's allowance and
its contents were journaled in clear, and a private one became `internal`, so sending it was no external
transmission. And the data step checked only "inside the project's roots", so with the home in the project folder
(`./.alicorn`) it read and staged the home's keys, its alicorn.toml and other runs' workspace files, and journaled
their first lines in its question."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from alicorn.anvil.labels import DataLabels
from alicorn.app import App, open_app, record_staged_labels, staged_labels_file
from alicorn.clock import PinnedClock
from alicorn.context.artifacts import ArtifactStore
from alicorn.core.data import DataSources, locate, stage, stage_given
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.catalog import bundled_workflows
from alicorn.packs.inputs import DataInput, inspect
from alicorn.packs.workflow import BuiltPlan, ResultSummary, Workflow
from alicorn.plan.dsl import Node, Plan
from alicorn.runtime.state import fold as fold_run
from alicorn.testing.people import enrol
from alicorn.validate.base import CheckResult, ValidationReport
from tests.core.test_user_data import ALARMS, alarm_log

AS_OF = datetime(2026, 12, 1, 7, 30, tzinfo=UTC)  # "yesterday" is 2026-11-30
PASSWORD = "Hunter2-SuperSecret!"
TOKEN = "zq9XW7vKp2Lm"
LABELS = '[data]\nprivate = ["hr/**"]\nsecret = ["keys/**"]\ndefault = "internal"\n'


def _project(tmp_path: Path, toml: str = LABELS) -> tuple[Path, Path]:
    """A project folder with the Alicorn home inside it (`./.alicorn`, the default) and the report's labels."""
    project = tmp_path / "p1"
    home = project / ".alicorn"
    home.mkdir(parents=True)
    (home / "alicorn.toml").write_text(toml, encoding="utf-8")
    return project, home


def _log(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return alarm_log(path, ["2026-11-30"])


def _secret_log(path: Path) -> Path:
    """An alarm log whose notes hold a password and a token (an export nobody cleaned)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    alarm_log(path, ["2026-11-30"])
    text = path.read_text(encoding="utf-8").replace(",\n", f",password {PASSWORD} token {TOKEN}\n", 2)
    path.write_text(text, encoding="utf-8")
    assert PASSWORD in path.read_text(encoding="utf-8")
    return path


def _core(home: Path, project: Path, workflows: tuple[Workflow, ...] | None = None) -> tuple[App, Norbi]:
    app = open_app(home)
    return app, Norbi(app, workflows or bundled_workflows(), clock=PinnedClock(AS_OF), workdir=project)


def _ask(core: Norbi, text: str, **fields: Any) -> Any:
    return core.receive(IntentEnvelope(utterance=text, author="human:ann", **fields))


def _runs(app: App) -> list[str]:
    return [i.stream for i in app.store.streams() if i.stream.startswith("run-")]


def _journal_text(app: App) -> str:
    return "\n".join(
        json.dumps(e.data, ensure_ascii=False) for i in app.store.streams() for e in app.store.read(i.stream)
    )


def _staged(home: Path) -> list[str]:
    inputs = home / "inputs"
    return sorted(str(p.relative_to(inputs)) for p in inputs.rglob("*") if p.is_file()) if inputs.exists() else []


# --- #6: a secret file given to Core -------------------------------------------------------------------------------


def test_a_secret_file_given_with_data_is_refused_unread_and_nothing_of_it_is_journaled(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    _secret_log(project / "keys" / "alarms.csv")
    app, core = _core(home, project)
    turn = _ask(core, ALARMS, data=("alarms=keys/alarms.csv",))
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert "keys/alarms.csv is labelled secret by [data] secret in alicorn.toml" in turn.question, turn.question
    assert "nothing of it was read" in turn.question
    assert "`alicorn run PLAN --allow-secret-read keys/alarms.csv`" in turn.question  # how to read it anyway
    assert _runs(app) == []
    assert _staged(home) == []
    journal = _journal_text(app)
    assert PASSWORD not in journal and TOKEN not in journal


def test_the_secret_refusal_is_said_in_the_requests_language(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    _secret_log(project / "keys" / "alarms.csv")
    _app, core = _core(home, project)
    turn = _ask(core, "Przeanalizuj wczorajsze alarmy z kamer i pokaż tylko zdarzenia wymagające człowieka",
                data=("alarms=keys/alarms.csv",))  # fmt: skip
    assert turn.question is not None, turn.report
    assert "keys/alarms.csv jest oznaczony jako tajny przez [data] secret w alicorn.toml" in turn.question


def _attach(app: App, *files: Path) -> tuple[str, ...]:
    """Attach `files` as `alicorn ask --attach` does (the project's artifact store, each file's path kept)."""
    store = ArtifactStore(app.artifacts("default"))
    return tuple(store.put_file(f).sha256 for f in files)


def test_a_secret_file_attached_is_refused_as_the_same_file_given(tmp_path: Path) -> None:
    """Attachments are stored by digest; they were labelled by their name alone, so `keys/alarms.csv` attached was
    read, its password journaled, where the same file given with --data is refused."""
    project, home = _project(tmp_path)
    app, core = _core(home, project)
    attached = _attach(app, _secret_log(project / "keys" / "alarms.csv"))
    turn = _ask(core, ALARMS, attachments=attached)
    assert turn.phase == "asking" and turn.question is not None, turn.report
    assert "alarms.csv is labelled secret by [data] secret in alicorn.toml" in turn.question, turn.question
    assert _runs(app) == [] and _staged(home) == []
    assert PASSWORD not in _journal_text(app) and TOKEN not in _journal_text(app)


def test_the_same_bytes_attached_again_from_a_secret_folder_are_secret(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    app, core = _core(home, project)
    exported = _secret_log(project / "exports" / "alarms.csv")
    first = _attach(app, exported)
    (project / "keys").mkdir()
    (project / "keys" / "cams.csv").write_bytes(exported.read_bytes())
    assert _attach(app, project / "keys" / "cams.csv") == first  # one artifact, two origins: the strictest counts
    turn = _ask(core, ALARMS, attachments=first)
    assert turn.question is not None and "is labelled secret" in turn.question, turn.report
    assert _runs(app) == []


def test_a_private_file_attached_stays_private_and_an_upload_is_labelled_by_its_name(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    app, core = _core(home, project)
    turn = _ask(core, ALARMS, attachments=_attach(app, _log(project / "hr" / "alarms.csv")))
    assert turn.report is not None and turn.report.outcome == "complete", (turn.question, turn.report)
    (run,) = _runs(app)
    assert "alarms.csv" in app.store.read(run)[0].data["labels"]["private"]
    # an upload has no path: its name is all the patterns can read (as before)
    uploaded = ArtifactStore(app.artifacts("default")).put_bytes(b"x", name="notes.txt")
    assert ArtifactStore(app.artifacts("default")).meta(uploaded.sha256).origins == ()


@pytest.mark.parametrize("given", ["keys", "keys/"], ids=["folder", "folder-slash"])
def test_a_secret_file_in_a_folder_given_is_refused_and_no_other_file_of_it_runs_in_its_place(
    tmp_path: Path, given: str
) -> None:
    project, home = _project(tmp_path)
    _secret_log(project / "keys" / "alarms.csv")
    alarm_log(project / "keys" / "more.csv", ["2026-11-30"])  # readable, but the folder's data is not all of it
    app, core = _core(home, project)
    turn = _ask(core, ALARMS, data=(given,))
    assert turn.question is not None and "keys/alarms.csv is labelled secret" in turn.question, turn.report
    assert _runs(app) == [] and _staged(home) == []
    assert PASSWORD not in _journal_text(app)


def test_a_copy_of_a_secret_file_staged_for_a_plan_is_refused_as_the_original_and_redacted(tmp_path: Path) -> None:
    """A free plan's data (`stage_given`) keeps its labels too: a plan reading the copy of a secret file is denied
    by forbid-secret-read, and the file's values are known secrets of the journal."""
    project, home = _project(tmp_path)
    secret = _secret_log(project / "keys" / "alarms.csv")
    app = open_app(home)
    sources = DataSources(given=((None, secret),), roots=(project,), labels=app.config.data, hidden=(home,))
    root = stage_given(sources, home / "inputs" / "conv-1")
    assert (root / "alarms.csv").is_file()
    plan = Plan.model_validate(
        {"goal": "read the alarms", "goal_hash": "0" * 64, "nodes": [{"node_id": "read", "operation": "data.read_csv",
                                               "inputs": {"path": {"value": "alarms.csv"}}}]}
    )  # fmt: skip
    executor = app.executor(root)
    # the run's terms as Core makes them (core/execution.py): the staged data's labels are the run's
    terms = app.anvil.terms("human:ann").model_copy(update={"labels": app.data_labels(root)})
    state = executor.start(plan, terms=terms)
    assert state.status == "denied", state.status
    assert "forbid-secret-read" in _journal_text(app)
    assert PASSWORD not in _journal_text(app)
    redacted, count = app.store.secrets.redact_text(f"the note says {PASSWORD}")
    assert PASSWORD not in redacted and count == 1


# --- #6: a private file given to Core, and a workflow that sends what it read ---------------------------------------

LOOKED_UP: list[Any] = []


class _LookupInputs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str
    rows: list[dict[str, Any]]


class _LookupOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    found: int


def _lookup(inputs: _LookupInputs, ctx: OperationContext) -> _LookupOutputs:
    LOOKED_UP.append(inputs.rows)  # stands in for the request to the host: whatever reaches here has left
    return _LookupOutputs(found=len(inputs.rows))


LOOKUP = Operation("test.directory_lookup", "Look each row up on a directory host.", _LookupInputs, _LookupOutputs,
                   "read", "repeatable", _lookup, url_input="url")  # fmt: skip


class _NoSlots(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _lookup_plan(params: BaseModel, forbidden: frozenset[str]) -> BuiltPlan:
    read = {"node_id": "read", "operation": "data.read_csv", "inputs": {"path": {"value": "roster.csv"}}}
    rows = {"ref": {"node": "read", "output": "records"}}
    url = {"value": "https://directory.example.com/find"}
    send = {"node_id": "lookup", "operation": LOOKUP.name, "inputs": {"url": url, "rows": rows}}
    return BuiltPlan((Node.model_validate(read), Node.model_validate(send)), ())


ROSTER_LOOKUP = Workflow(
    id="roster_lookup",
    title="roster lookup",
    summary="look everyone on the staff roster up in the company directory",
    artifact="document",
    parameters=_NoSlots,
    operations=(LOOKUP,),
    examples={"en": ("Look up everyone on the staff roster in the directory",), "pl": ("Sprawdź listę",)},
    data_dir=Path("."),
    extract=lambda text, language, now: {},
    questions={},
    build=_lookup_plan,
    artifact_of=lambda state: {"nodes": {n: state.nodes[n].status for n in state.order}},
    criteria=lambda params: {},
    validator=lambda artifact, criteria: ValidationReport.of(
        "document", [CheckResult(name="done", passed=True, detail="")]
    ),
    summarize=lambda artifact, report, language: ResultSummary(("looked up",), {}, ()),
    inputs=(DataInput("roster", {"en": "the staff roster (CSV)"}, "roster.csv", "csv", ("name", "email")),),
    vocabulary=("roster",),
)


def _roster_core(tmp_path: Path) -> tuple[Path, App, Norbi]:
    project, home = _project(tmp_path)
    (project / "hr").mkdir()
    (project / "hr" / "staff.csv").write_text("name,email\nAlice Private,alice@corp.example\n", encoding="utf-8")
    registry = builtin_registry()
    registry.register(LOOKUP)
    app = open_app(home)
    app = App(home, app.store, registry, app.config)
    enrol(app, "ann", "bob")
    return project, app, Norbi(app, (ROSTER_LOOKUP,), clock=PinnedClock(AS_OF), workdir=project)


def test_a_private_file_given_with_data_stays_private_so_sending_what_was_read_is_an_external_transmission(
    tmp_path: Path,
) -> None:
    LOOKED_UP.clear()
    _project_dir, app, core = _roster_core(tmp_path)
    turn = _ask(core, "Look up everyone on the staff roster in the directory", data=("roster=hr/staff.csv",))
    (run,) = _runs(app)
    created = app.store.read(run)[0].data
    assert "roster.csv" in created["labels"]["private"], created["labels"]  # the copy is what hr/staff.csv is
    assert created["risk"]["outbound"] == "private", created["risk"]
    assert created["risk"]["by_class"]["external_transmission"] == ["lookup"], created["risk"]
    assert fold_run(app.store.read(run), run).status == "awaiting_approval", turn
    assert LOOKED_UP == []


def test_a_request_that_forbids_sending_never_sends_the_private_file_it_was_given(tmp_path: Path) -> None:
    LOOKED_UP.clear()
    _project_dir, app, core = _roster_core(tmp_path)
    _ask(core, "Look up everyone on the staff roster in the directory", data=("roster=hr/staff.csv",),
         forbid=("external_transmission",))  # fmt: skip
    (run,) = _runs(app)
    assert fold_run(app.store.read(run), run).status == "denied"
    assert LOOKED_UP == []  # before: the roster went to directory.example.com, as "internal" data read with a GET


# --- #10: the home is never data ------------------------------------------------------------------------------------


def _home_files(home: Path) -> dict[str, Path]:
    other = home / "workspaces" / "run-otherproject" / "alarms.csv"
    other.parent.mkdir(parents=True)
    alarm_log(other, ["2026-11-30"])
    with other.open("a", encoding="utf-8") as handle:
        handle.write(f"999,2026-11-30T09:00:00,cam-9,yard,tamper,0.9,other project {TOKEN}\n")
    key = home / "keys" / "root.ed25519"
    key.parent.mkdir(parents=True)
    key.write_text(f"ed25519 signing key {TOKEN}\n", encoding="utf-8")
    return {"key": key, "toml": home / "alicorn.toml", "workspace": other, "home": home, "keys": key.parent}


@pytest.mark.parametrize("which", ["key", "toml", "workspace", "home", "keys"])
def test_a_file_of_the_home_given_with_data_is_refused_unread(tmp_path: Path, which: str) -> None:
    project, home = _project(tmp_path)
    target = _home_files(home)[which]
    app, core = _core(home, project)
    turn = _ask(core, ALARMS, data=(f"alarms={target.relative_to(project)}",))
    assert turn.phase == "asking" and turn.question is not None, turn.report
    where = str(target.relative_to(project))
    assert f"{where} is inside Alicorn's home folder" in turn.question, turn.question
    assert "nothing of it was read" in turn.question
    assert _runs(app) == [] and _staged(home) == []
    journal = _journal_text(app)
    assert TOKEN not in journal and "[data]" not in journal  # neither a file's header nor alicorn.toml's


def test_a_link_into_the_home_a_path_in_the_words_and_a_projects_source_are_refused_too(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    files = _home_files(home)
    (project / "alarms-link.csv").symlink_to(files["workspace"])
    app, core = _core(home, project)
    linked = _ask(core, ALARMS, data=("alarms=alarms-link.csv",))
    assert linked.question is not None and "alarms-link.csv is inside Alicorn's home folder" in linked.question
    worded = _ask(core, f"{ALARMS} The log is .alicorn/workspaces/run-otherproject/alarms.csv")
    assert worded.question is not None, worded.report
    assert ".alicorn/workspaces/run-otherproject/alarms.csv is inside Alicorn's home folder" in worded.question
    (home / "alicorn.toml").write_text(
        LABELS + f'\n[projects.ops]\nroots = ["{project}"]\n[projects.ops.data]\nalarms = "{files["workspace"]}"\n',
        encoding="utf-8",
    )
    app, core = _core(home, project)
    configured = _ask(core, ALARMS, project="ops")
    assert configured.question is not None and "is inside Alicorn's home folder" in configured.question
    assert _runs(app) == [] and _staged(home) == [] and TOKEN not in _journal_text(app)


def test_a_projects_glob_passes_over_the_home_and_finds_the_users_own_log(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    _home_files(home)
    _log(project / "logs" / "cams.csv")
    glob = f"{project}/**/*.csv"  # the project's every CSV: the home's among them
    (home / "alicorn.toml").write_text(LABELS + f'\n[projects.default.data]\nalarms = "{glob}"\n', encoding="utf-8")
    app, core = _core(home, project)
    turn = _ask(core, ALARMS)
    assert turn.report is not None and turn.report.outcome == "complete", (turn.question, turn.report)
    assert any("logs/cams.csv" in line for line in turn.report.evidence), turn.report.evidence
    assert not any(".alicorn" in line for line in turn.report.evidence), turn.report.evidence
    assert TOKEN not in _journal_text(app)


def test_a_folder_input_holding_the_home_is_read_and_staged_without_it(tmp_path: Path) -> None:
    """The project's root given as an application folder (`--data app=.`) holds `.alicorn`: it is read, digested
    and copied without the home, as if the home were not there."""
    project, home = _project(tmp_path)
    _home_files(home)
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("print('hello')\n", encoding="utf-8")
    (project / "pyproject.toml").write_text("[project]\nname = 'app'\n", encoding="utf-8")
    want = DataInput(name="app", what={"en": "the app"}, file="app", format="tree")
    sources = DataSources(given=(("app", project),), roots=(project,), hidden=(home,))
    found = locate(want, sources, [])
    assert found.found, found.problems
    assert found.chosen[0].files == ("pyproject.toml", "src/main.py"), found.chosen[0].files
    bare = tmp_path / "bare"  # the same folder with no home in it: the same digest
    (bare / "src").mkdir(parents=True)
    (bare / "src" / "main.py").write_text("print('hello')\n", encoding="utf-8")
    (bare / "pyproject.toml").write_text("[project]\nname = 'app'\n", encoding="utf-8")
    assert found.chosen[0].sha256 == inspect(bare, want).sha256
    root = stage([found], home / "inputs" / "conv-1", sources=sources)
    staged = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert staged == ["app/pyproject.toml", "app/src/main.py"], staged


def test_a_home_that_is_the_project_folder_refuses_what_alicorn_keeps_and_reads_the_projects_data(
    tmp_path: Path,
) -> None:
    """`--home .`: the home is the project's folder, so its data folders are the project's, and only what Alicorn
    keeps there (journal, keys, configuration, workspaces, staged data) is refused."""
    home = tmp_path / "proj"
    home.mkdir()
    (home / "alicorn.toml").write_text(LABELS, encoding="utf-8")
    _log(home / "data" / "alarms.csv")
    files = _home_files(home)
    app, core = _core(home, home)
    for given in ("journal.db", "alicorn.toml", "keys/root.ed25519", "workspaces/run-otherproject/alarms.csv"):
        turn = _ask(core, ALARMS, data=(f"alarms={given}",))
        assert turn.question is not None and f"{given} is inside Alicorn's home folder" in turn.question, given
    assert files["key"].is_file() and _runs(app) == [] and TOKEN not in _journal_text(app)
    turn = _ask(core, ALARMS, data=("alarms=data/alarms.csv",))
    assert turn.report is not None and turn.report.outcome == "complete", (turn.question, turn.report)


# --- honest data ----------------------------------------------------------------------------------------------------


def test_honest_data_runs_as_before_and_its_runs_terms_are_the_homes(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    _log(project / "logs" / "alarms.csv")
    app, core = _core(home, project)
    turn = _ask(core, ALARMS, data=("alarms=logs/alarms.csv",))
    assert turn.report is not None and turn.report.outcome == "complete", (turn.question, turn.report)
    (run,) = _runs(app)
    assert DataLabels.model_validate(app.store.read(run)[0].data["labels"]) == app.config.data  # nothing raised


def test_a_private_log_is_still_read_and_its_run_knows_it_is_private(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    _log(project / "hr" / "alarms.csv")
    app, core = _core(home, project)
    turn = _ask(core, ALARMS, data=("alarms=hr/alarms.csv",))
    assert turn.report is not None and turn.report.outcome == "complete", (turn.question, turn.report)
    (run,) = _runs(app)
    assert "alarms.csv" in app.store.read(run)[0].data["labels"]["private"]


def test_labels_are_taken_only_from_beside_a_folder_core_staged(tmp_path: Path) -> None:
    """A labels file beside a folder given to `alicorn run --data` is nobody's record: it classifies nothing. And a
    damaged record of Core's refuses to run over data whose labels it lost."""
    project, home = _project(tmp_path, toml="")
    app = open_app(home)
    given = project / "data"
    given.mkdir()
    staged_labels_file(given).write_text('{"x.csv": "secret"}', encoding="utf-8")
    assert app.data_labels(given) == app.config.data
    staged = home / "inputs" / "conv-1"
    staged.mkdir(parents=True)
    record_staged_labels(staged, {"x.csv": "secret"})
    assert app.data_labels(staged).classify("x.csv") == "secret"
    staged_labels_file(staged).write_text('{"x.csv": "very secret"}', encoding="utf-8")
    with pytest.raises(Exception, match="damaged"):
        app.data_labels(staged)
