"""A home for the web UI's tests, served by a real uvicorn on loopback: the recorded corpus runs, three people
with passwords (ada admin, abe approver, vic viewer), one run waiting for approval (proposed by agent:scribe, which
may not write locally), workers, and Core replaying recorded model answers. Time comes only from a `StepClock`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alicorn.anvil.agents import PermissionRegistry
from alicorn.anvil.identity import parse_principal
from alicorn.anvil.passwords import Passwords
from alicorn.anvil.people import People
from alicorn.anvil.rights import RightsChange
from alicorn.anvil.terms import RunTerms
from alicorn.app import open_app
from alicorn.journal.store import JournalStore
from alicorn.journal.transfer import import_lines
from alicorn.plan.dsl import goal_digest
from alicorn.plan.validate import parse_plan
from alicorn.service.app import create_app
from tests.service.conftest import CORPUS, StepClock, serve_in_thread

PASSWORDS = {"ada": "ada-correct-horse", "abe": "abe-battery-staple", "vic": "vic-viewer-only-1"}
WAITING = "run-web-waiting"


@dataclass
class WebHome:
    home: Path
    url: str
    clock: StepClock
    store: JournalStore
    api: Any


def waiting_run(application: Any, work: Path, run_id: str = WAITING, *, note: str = "note.txt") -> None:
    """Start run `run_id` in `application`: agent:scribe proposes writing `note` in `work`, and as it may not write
    locally, the run waits for a person's approval."""
    goal = f"write {note} for the team"
    plan = parse_plan(
        {
            "goal": goal,
            "goal_hash": goal_digest(goal),
            "nodes": [
                {
                    "node_id": "note",
                    "operation": "workspace.write_file",
                    "inputs": {"path": {"value": note}, "content": {"value": "hello"}},
                }
            ],
        }
    )
    state = application.executor(work).start(plan, run_id=run_id, terms=RunTerms(proposed_by="agent:scribe"))
    assert state.status == "awaiting_approval", state.status


def _waiting_run(application: Any, clock: StepClock, work: Path) -> None:
    """agent:scribe, without the right to write locally, and its run WAITING."""
    agents = PermissionRegistry(application.store, now=clock.now)
    agents.register("agent:scribe", ("executor",), cause="web tests", by="human:ada")
    agents.change("agent:scribe", RightsChange(effects=("local_write",)), grant=False, cause="web", by="human:ada")
    waiting_run(application, work)


def serve_home(
    tmp_path: Path, *, models: str = "recorded", samples: bool = False, queue: bool = False
) -> Iterator[WebHome]:
    """Build the home, serve it, yield it, stop it (a generator for a fixture). Core uses `models`
    (`alicorn serve --model`); with `samples`, the bundled sample files are the default project's data; with
    `queue`, Core's runs go to the job broker (`alicorn serve --queue`)."""
    home, clock = build_home(tmp_path, samples=samples)
    with serve_built(home, clock, models=models, queue=queue) as served:
        yield served


def build_home(tmp_path: Path, *, samples: bool = False) -> tuple[Path, StepClock]:
    """The web tests' home under `tmp_path` (see the module docstring), not yet served, and its clock."""
    home = tmp_path / "home"
    home.mkdir()
    if samples:
        from tests.core.support import samples_as_project_data

        samples_as_project_data(home)
    work = tmp_path / "work"
    work.mkdir()
    clock = StepClock()
    application = open_app(home)
    for path in sorted(CORPUS.glob("*.jsonl")):
        import_lines(application.store, path.read_text().splitlines())
    people = People(application.store, home / "keys", clock)
    ada = parse_principal("human:ada")
    people.bootstrap(ada)
    people.add("vic", "viewer", by=ada)
    people.add("abe", "approver", by=ada)
    passwords = Passwords(people, clock)
    for name, password in PASSWORDS.items():
        passwords.set(name, password, by=ada)
    _waiting_run(application, clock, work)
    application.close()
    return home, clock


@contextmanager
def serve_built(home: Path, clock: StepClock, *, models: str = "recorded", queue: bool = False) -> Iterator[WebHome]:
    """A real `alicorn serve` app over `home` (built by `build_home`), stopped when the block ends: serving the
    same home twice is what a restart of `serve` is."""
    api = create_app(home, clock=clock, poll_s=0.01, workers=2, models=models, queue=queue)
    api.state.pages.sessions.failure_delay_s = 0.0
    with serve_in_thread(api) as url:
        yield WebHome(home, url, clock, api.state.service.app.store, api)
