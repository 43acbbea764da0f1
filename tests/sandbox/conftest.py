"""Fixtures of the sandbox tests: an Alicorn home with two run workspaces, and a real HTTP server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.loopback import serving


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An Alicorn home with a journal, a secret, and two run workspaces (ours is `run-1/work`)."""
    root = tmp_path / "home"
    (root / "workspaces" / "run-1" / "work").mkdir(parents=True)
    (root / "workspaces" / "run-2").mkdir(parents=True)
    (root / "journal.db").write_text("journal rows", encoding="utf-8")
    (root / "keys").mkdir()
    (root / "keys" / "approver.key").write_text("PRIVATE KEY", encoding="utf-8")
    (root / "workspaces" / "run-2" / "secret.txt").write_text("sibling data", encoding="utf-8")
    (root / "workspaces" / "run-1" / "beside.txt").write_text("outside my folder", encoding="utf-8")
    return root


@pytest.fixture
def server() -> Iterator[int]:
    """A real HTTP server on the host's loopback; yields its port."""
    with serving(b"hello from the host") as port:
        yield port
