"""The commands that only read the journal (`runs`, `show`, `journal`, `why`) start without the heavy modules: the
app builds its operations registry and Anvil on first use (alicorn.app), so listing and showing runs never loads every
pack's code, Cedar, OR-Tools, numpy, the executor, the service, telemetry or the date parser. `runs`, `show` and
`journal` go further on a home whose alicorn.toml sets neither [anvil] nor [data]: no pydantic model of Alicorn's is
built (their defaults are built on first use, alicorn.config; the usage fold is alicorn.anvil.usage), no plan model,
no progress bar, and no pydantic at all (typer is held below 0.29, which imports pydantic to parse every argument:
pyproject.toml)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer.core import TyperGroup

from alicorn import __version__
from alicorn.cli import _command_name, app, app_for

from ._support import ALARMS, invoke, runner


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with a run written by `alicorn run`."""
    home = tmp_path / "home"
    ran = invoke(home, "run", str(ALARMS), "-q")
    assert ran.exit_code == 0, ran.output
    return home


def _run_id(home: Path) -> str:
    listed = invoke(home, "runs", "--json")
    assert listed.exit_code == 0, listed.output
    return str(json.loads(listed.output)[0]["run"])


#: Modules that the read commands never need: every pack's operations, Cedar, OR-Tools, the executor, the
#: service (its commands register through a typer-only module), models, telemetry and the date parser.
HEAVY = (
    "alicorn.packs",
    "alicorn.anvil.service",
    "alicorn.anvil.policy",
    "alicorn.runtime.executor",
    "alicorn.service.app",
    "alicorn.service.index",
    "alicorn.core.conversation",
    "alicorn.models.router",
    "cedarpy",
    "ortools",
    "numpy",
    "opentelemetry",
    "dateparser",
    "fastapi",
    "mcp",
    "httpx",
    "psycopg",
)

#: What `runs`, `show` and `journal` do not need either (`why` does: it explains decisions by their rights and rules):
#: Anvil's settings and labels, the plan's and the budgets' pydantic models, the MCP servers' settings, the model
#: profiles, the operations registry, telemetry's settings, rich's progress bar, and pydantic itself.
MODELS = (
    "pydantic",
    "pydantic_core",
    "alicorn.anvil.settings",
    "alicorn.anvil.labels",
    "alicorn.anvil.budget",
    "alicorn.anvil.rights",
    "alicorn.plan.dsl",
    "alicorn.mcp.settings",
    "alicorn.models.profiles",
    "alicorn.ops.registry",
    "alicorn.observe.settings",
    "rich.progress",
)


def _loaded(home: Path, command: list[str], watched: tuple[str, ...]) -> list[str]:
    """The watched modules (and their submodules) that running `command` in a fresh interpreter imported."""
    run_id = _run_id(home)
    argv = [run_id if a == "RUN" else a for a in command]
    script = (
        "import sys\n"
        "from alicorn.cli import app\n"
        f"try:\n    app({[*argv, '--home', str(home)]!r})\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print(code, file=sys.stderr)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in ('alicorn', 'rich', *{watched!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.stderr.strip().splitlines()[-1] == "0", done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))
    return [m for m in loaded if any(m == h or m.startswith(h + ".") for h in watched)]


@pytest.mark.parametrize("command", [["runs"], ["runs", "--json"], ["show", "RUN"], ["journal", "RUN"]])
def test_read_commands_do_not_import_the_heavy_modules(home: Path, command: list[str]) -> None:
    assert _loaded(home, command, HEAVY) == []


@pytest.mark.parametrize("command", [["why", "RUN"], ["why", "RUN", "load"]])
def test_why_reads_the_journal_without_the_registry_or_anvil(home: Path, command: list[str]) -> None:
    """`why` prints the rules that decided as Cedar text (so Cedar loads), and nothing else heavy."""
    assert _loaded(home, command, tuple(m for m in HEAVY if m not in ("alicorn.anvil.policy", "cedarpy"))) == []


@pytest.mark.parametrize("command", [["runs"], ["runs", "--json"], ["show", "RUN"], ["journal", "RUN"]])
def test_journal_readers_build_no_model(home: Path, command: list[str]) -> None:
    assert _loaded(home, command, MODELS) == []


def test_a_home_that_sets_anvil_validates_it_at_every_start(home: Path) -> None:
    """Only the defaults are deferred: a home whose alicorn.toml has [anvil] or [data] has them checked before any
    command touches the journal, so a bad value refuses `show` and `why` too, with the sentence `run` gives."""
    run_id = _run_id(home)
    before = (home / "journal.db").read_bytes()
    for toml, said in (
        ("[anvil]\nreplan_threshold = 'high'\n", "alicorn.toml [anvil]: replan_threshold"),
        ("[data]\nprivate = ['/etc/**']\n", "alicorn.toml [data]: private"),
    ):
        (home / "alicorn.toml").write_text(toml)
        for args in (["show", run_id], ["why", run_id], ["journal", run_id], ["run", str(ALARMS), "-q"]):
            result = invoke(home, *args)
            assert result.exit_code == 1, (args, result.output)
            assert said in " ".join(result.stderr.split()), (args, result.stderr)
    assert (home / "journal.db").read_bytes() == before


def _names(typer_app: typer.Typer) -> list[str]:
    return sorted(str(_command_name(info)) for info in (*typer_app.registered_commands, *typer_app.registered_groups))


def test_the_entry_point_builds_only_the_invoked_command() -> None:
    """`main` hands typer the one command the arguments name (typer inspects every function it is given, ~200 ms for
    the whole tree); each narrowed command has exactly the parameters, help and subcommands of the whole tree's."""
    whole = typer.main.get_command(app)
    assert isinstance(whole, TyperGroup)
    names = _names(app)
    assert len(names) > 25 and names == sorted(whole.commands)
    for name in names:
        narrowed_app = app_for(["--debug", name, "--help"])
        assert _names(narrowed_app) == [name]
        narrowed = typer.main.get_command(narrowed_app)
        assert isinstance(narrowed, TyperGroup) and list(narrowed.commands) == [name]
        mine, theirs = narrowed.commands[name], whole.commands[name]
        assert [p.opts for p in mine.params] == [p.opts for p in theirs.params], name
        assert mine.help == theirs.help, name
        if isinstance(theirs, TyperGroup):
            assert isinstance(mine, TyperGroup) and sorted(mine.commands) == sorted(theirs.commands), name
        assert [p.opts for p in narrowed.params] == [p.opts for p in whole.params]  # --debug, --version
    for args in ([], ["--help"], ["--debug"], ["jornal", "x"], ["--version"]):
        assert app_for(args) is app, args  # the whole tree: its help lists all, its suggestions need all


def test_the_narrowed_entry_point_runs_the_command_as_the_whole_tree_does(home: Path) -> None:
    run_id = _run_id(home)
    for args in (["runs", "--json"], ["show", run_id], ["journal", run_id], ["--debug", "why", run_id]):
        argv = [*args, "--home", str(home)]
        narrowed = runner.invoke(app_for(argv), argv)
        assert narrowed.exit_code == 0, narrowed.output
        assert narrowed.output == invoke(home, *args).output, args


def test_version_is_printed_by_the_installed_command() -> None:
    exe = Path(sys.executable).parent / "alicorn"
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, f"alicorn {__version__}\n"), done.stderr
    typo = subprocess.run([str(exe), "jornal"], capture_output=True, text=True, timeout=60, check=False)
    assert typo.returncode == 2 and "Did you mean 'journal'?" in typo.stderr, typo.stderr


def test_showing_a_run_compiles_no_secret_detector(home: Path) -> None:
    """The 33 secret and name detectors compile on their first search (alicorn.context.redact, .names), not when
    the journal is imported: `show` redacts nothing, so it compiles none of them."""
    script = (
        "import sys\n"
        "from alicorn.cli import app\n"
        f"try:\n    app(['show', {_run_id(home)!r}, '--home', {str(home)!r}])\nexcept SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "from alicorn.context import names, redact\n"
        "print(redact._compiled_detectors.cache_info().currsize, names._shapes.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "0 0"
