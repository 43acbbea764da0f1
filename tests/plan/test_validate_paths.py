"""Literal paths given to the data-root and workspace operations are checked when the plan is validated.

A path that would leave its root (`..`), an absolute path or one with a NUL character is refused before anything is
journaled, with the node and the path named: it would fail at run time anyway, after the run was admitted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from alicorn.errors import PlanError
from alicorn.journal.memory import InMemoryStore
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import Operation, Registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.plan.validate import validate_plan
from alicorn.runtime.executor import Executor, RunEnvironment

REGISTRY = builtin_registry()
BAD = ["../../x", "/tmp/x", "a\x00b", "sub/../../x"]


def _plan(*nodes: dict[str, Any]) -> Plan:
    return Plan.model_validate({"goal": "paths", "goal_hash": goal_digest("paths"), "nodes": list(nodes)})


def _write(path: Any, node_id: str = "save") -> dict[str, Any]:
    inputs = {"path": path if isinstance(path, dict) else {"value": path}, "content": {"value": "x"}}
    return {"node_id": node_id, "operation": "workspace.write_file", "inputs": inputs}


@pytest.mark.parametrize("path", BAD)
def test_a_workspace_write_outside_the_workspace_is_refused_naming_node_and_path(path: str) -> None:
    with pytest.raises(PlanError) as caught:
        validate_plan(_plan(_write(path)), REGISTRY)
    [problem] = caught.value.problems
    assert problem.startswith("node 'save' (workspace.write_file): input 'path': ")
    assert repr(path) in problem


@pytest.mark.parametrize(("path", "reason"), [("../a.csv", "contains '..'"), ("/etc/passwd", "is absolute")])
@pytest.mark.parametrize("operation", ["data.read_csv", "data.read_json"])
def test_a_data_read_outside_the_data_root_is_refused(operation: str, path: str, reason: str) -> None:
    node = {"node_id": "load", "operation": operation, "inputs": {"path": {"value": path}}}
    with pytest.raises(PlanError, match=reason) as caught:
        validate_plan(_plan(node), REGISTRY)
    assert "node 'load'" in str(caught.value) and repr(path) in str(caught.value)


def test_every_bad_path_of_a_plan_is_named() -> None:
    with pytest.raises(PlanError) as caught:
        validate_plan(_plan(_write("../up", "one"), _write("/abs", "two"), _write("fine/x.txt", "three")), REGISTRY)
    assert len(caught.value.problems) == 2
    assert "node 'one'" in caught.value.problems[0] and "node 'two'" in caught.value.problems[1]


def test_good_paths_and_paths_from_references_are_accepted() -> None:
    load = {"node_id": "load", "operation": "data.read_json", "inputs": {"path": {"value": "in/items.json"}}}
    ok = _plan(load, _write("reports/out.txt"), _write("./a.txt", "dot"))
    assert validate_plan(ok, REGISTRY) == ok
    # A path computed by another node is only known when the node runs; the operation confines it then.
    referenced = _plan(
        {
            "node_id": "name",
            "operation": "workspace.write_file",
            "inputs": {"path": {"value": "n.txt"}, "content": {"value": "x"}},
        },
        _write({"ref": {"node": "name", "output": "path"}}, "copy"),
    )
    assert validate_plan(referenced, REGISTRY) == referenced


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target: str


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


def test_the_input_an_operation_declares_as_its_path_is_checked_whatever_its_type() -> None:
    op = Operation("t.touch", "touch", _In, _Out, "local_write", "idempotent", lambda i, c: _Out(), path_input="target")
    node = {"node_id": "touch", "operation": "t.touch", "inputs": {"target": {"value": "../../etc/x"}}}
    with pytest.raises(PlanError, match=r"node 'touch' \(t.touch\): input 'target': path '\.\./\.\./etc/x' contains"):
        validate_plan(_plan(node), Registry([op]))


def test_a_refused_path_journals_nothing(tmp_path: Path) -> None:
    store = InMemoryStore()
    executor = Executor(store, REGISTRY, RunEnvironment(tmp_path / "ws", tmp_path))
    with pytest.raises(PlanError, match=r"'\.\./\.\./x'"):
        executor.start(_plan(_write("../../x")), run_id="run-paths")
    assert store.head("run-paths") is None and list(store.streams()) == []
    assert not (tmp_path / "ws").exists() and not (tmp_path.parent / "x").exists()
