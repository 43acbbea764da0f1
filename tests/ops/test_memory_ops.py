"""`memory.search` and `memory.get`: the home's memory read as operations, confined to one project, never creating
a store, with errors that say what to do."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from alicorn.errors import OperationError
from alicorn.memory.models import NewRecord, Provenance
from alicorn.memory.open import open_memory
from alicorn.ops.memory import GetInputs, SearchInputs, home_memory, memory_operations
from alicorn.ops.registry import OperationContext

SEARCH, GET = memory_operations()
NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def _ctx(home: Path) -> OperationContext:
    workspace = home / "workspaces" / "run-1"
    return OperationContext("run-1", "search", 1, "key", workspace, home / "data")


def _fill(home: Path, project: str, text: str) -> str:
    with open_memory(home / "memory.db", project=project, clock=lambda: NOW) as store:
        source = Provenance(origin="operator", ref="cli:ann")
        return store.add(NewRecord(text=text, provenance=source)).record.id


def test_the_store_is_the_home_of_the_calls_workspace(tmp_path: Path) -> None:
    assert home_memory(_ctx(tmp_path)) == tmp_path / "memory.db"


def test_search_and_get_read_only_the_runs_project(tmp_path: Path) -> None:
    mine = _fill(tmp_path, "default", "The loading dock opens at 05:30 on weekdays.")
    other = _fill(tmp_path, "other", "The loading dock of the other project opens at noon.")
    found = SEARCH.run(SearchInputs(query="When does the loading dock open?"), _ctx(tmp_path))
    assert [h.id for h in found.hits] == [mine] and found.hits[0].similarity is not None
    assert found.hits[0].source == "cli:ann" and found.hits[0].trust == "data"
    got = GET.run(GetInputs(ids=[mine]), _ctx(tmp_path))
    assert [r.text for r in got.records] == ["The loading dock opens at 05:30 on weekdays."]
    with pytest.raises(OperationError, match=rf"no record {other} in project 'default'"):
        GET.run(GetInputs(ids=[other]), _ctx(tmp_path))
    # The project is the run's, never a plan input: a plan cannot name another project's memory.
    with pytest.raises(ValidationError, match="project"):
        SearchInputs.model_validate({"query": "dock", "project": "other"})
    theirs = dataclasses.replace(_ctx(tmp_path), project="other")
    assert [h.id for h in SEARCH.run(SearchInputs(query="When does the loading dock open?"), theirs).hits] == [other]


def test_a_home_without_a_store_is_an_error_and_no_store_is_created(tmp_path: Path) -> None:
    with pytest.raises(OperationError, match="alicorn memory add"):
        SEARCH.run(SearchInputs(query="anything"), _ctx(tmp_path))
    assert not (tmp_path / "memory.db").exists()


def test_both_are_reads() -> None:
    assert (SEARCH.name, SEARCH.effect, GET.name, GET.effect) == ("memory.search", "read", "memory.get", "read")
    assert not SEARCH.has_effect and not GET.has_effect
