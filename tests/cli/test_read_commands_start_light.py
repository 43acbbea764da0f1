"""The commands that only read the journal (`runs`, `show`, `journal`) start without the heavy modules: the app
builds its operations registry and Anvil on first use (alicorn.app), so listing and showing runs never loads every
pack's code, Cedar, OR-Tools, numpy, the executor, the service, telemetry or the date parser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ._support import ALARMS, invoke


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
)


@pytest.mark.parametrize("command", [["runs"], ["runs", "--json"], ["show", "RUN"], ["journal", "RUN"]])
def test_read_commands_do_not_import_the_heavy_modules(home: Path, command: list[str]) -> None:
    run_id = _run_id(home)
    argv = [run_id if a == "RUN" else a for a in command]
    script = (
        "import sys\n"
        "from alicorn.cli import app\n"
        f"try:\n    app({[*argv, '--home', str(home)]!r})\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print(code, file=sys.stderr)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in ('alicorn', *{HEAVY!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.stderr.strip().splitlines()[-1] == "0", done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == [], heavy
