"""No run reads the Alicorn home: its journal, keys, every run's workspace and every project's attachments.

A data root that holds the home (a plan run from the folder `.alicorn` sits in) still reads the user's files, but
any path into the home, or a folder that contains it, is refused before anything is opened.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.errors import OperationError
from alicorn.ops.paths import read_path
from alicorn.ops.registry import OperationContext
from alicorn.runtime.executor import RunEnvironment


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    home = project / ".alicorn"
    (home / "workspaces" / "run-other").mkdir(parents=True)
    (home / "workspaces" / "run-other" / "secret.txt").write_text("another run's file", encoding="utf-8")
    (home / "journal.db").write_bytes(b"SQLite format 3\x00")
    (project / "data.csv").write_text("a\n1\n", encoding="utf-8")
    return project, home


def _ctx(project: Path, home: Path) -> OperationContext:
    env = RunEnvironment(project / ".alicorn" / "workspaces", project, hidden=(home,))
    return OperationContext("run", "n", 1, "k", env.workspace("run"), project, hidden=env.hidden_under(project))


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (".alicorn/journal.db", "Alicorn home"),
        (".alicorn/workspaces/run-other/secret.txt", "Alicorn home"),
        (".alicorn", "Alicorn home"),
        (".", "Alicorn home"),  # a folder holding the home: a tree copy of it would copy the journal
        ("sub/../.alicorn/x", ".."),
    ],
)
def test_a_path_into_the_home_or_around_it_is_refused(tmp_path: Path, path: str, why: str) -> None:
    project, home = _project(tmp_path)
    with pytest.raises(OperationError) as refused:
        read_path(_ctx(project, home), path)
    assert why in str(refused.value)


def test_the_users_files_beside_the_home_are_read(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    assert read_path(_ctx(project, home), "data.csv") == (project / "data.csv").resolve()


def test_a_symlink_into_the_home_is_refused(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    (project / "innocent.db").symlink_to(home / "journal.db")
    with pytest.raises(OperationError, match="Alicorn home"):
        read_path(_ctx(project, home), "innocent.db")


def test_a_data_root_inside_the_home_is_that_runs_own_data(tmp_path: Path) -> None:
    _project_dir, home = _project(tmp_path)
    staged = home / "inputs" / "conv-1"
    staged.mkdir(parents=True)
    (staged / "alarms.csv").write_text("a\n", encoding="utf-8")
    env = RunEnvironment(home / "workspaces", staged, hidden=(home,))
    assert env.hidden_under(staged) == ()
    ctx = OperationContext("run", "n", 1, "k", env.workspace("run"), staged, hidden=env.hidden_under(staged))
    assert read_path(ctx, "alarms.csv").name == "alarms.csv"
    with pytest.raises(OperationError, match="Alicorn home"):  # the home itself as a data root reads nothing
        home_ctx = OperationContext("run", "n", 1, "k", env.workspace("run"), home, hidden=env.hidden_under(home))
        read_path(home_ctx, "journal.db")
