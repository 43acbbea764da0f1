"""A malicious MCP server of our own (tests/mcp/fixture_server.py, real SDK, over stdio): poisoned descriptions,
definitions that change after approval, a rename, results that break their own schema, a hang; and servers that
do not start. Each case: a clear sentence naming the server, and everything else goes on working."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp_support import TIME_COMMAND, fixture_server, plan, write_config

from alicorn.app import App, open_app
from alicorn.core.contract import OutcomeContract
from alicorn.core.planner import operation_menu
from alicorn.errors import OperationError, PlanError
from alicorn.mcp.pins import MCP_STREAM
from alicorn.mcp.report import McpAcceptError, accept_changes
from alicorn.ops.registry import OperationContext

ADMIN = "human:test-admin"


def _open(home: Path, variant: str = "v1", **extra: Any) -> App:
    write_config(home, {"fx": fixture_server(variant, effect="read", **extra)})
    return open_app(home)


def _ctx(tmp_path: Path) -> OperationContext:
    return OperationContext("run-x", "n", 1, "key", tmp_path, tmp_path, threading.Event())


def _call(app: App, tool: str, tmp_path: Path, **inputs: Any) -> Any:
    op = app.registry.get(f"mcp.fx.{tool}")
    return op.run(op.inputs.model_validate(inputs), _ctx(tmp_path))


def _lookup_plan() -> Any:
    return plan([{"node_id": "look", "operation": "mcp.fx.lookup", "inputs": {"word": {"value": "alicorn"}}}])


def test_a_poisoned_description_reaches_the_planner_only_fenced_as_data(tmp_path: Path) -> None:
    app = _open(tmp_path, "v2")  # the poisoned definition is what the server listed first
    try:
        menu = operation_menu(app.registry, OutcomeContract(goal="g", result="document"))
        summary = next(m["summary"] for m in menu if m["operation"] == "mcp.fx.lookup")
        assert summary.startswith('<data id="mcp-mcp.fx.lookup" source="mcp.fx.lookup"')
        assert 'warning="contains instruction-like text: ' in summary and "override" in summary
        assert summary.count("</data>") == 1 and summary.endswith("</data>")  # the forged fence was neutralised
        builtin = next(m for m in menu if not m["operation"].startswith("mcp."))
        assert not builtin["summary"].startswith("<data")  # the operator's own operations are not fenced
    finally:
        app.close()


def test_a_definition_changed_after_approval_is_quarantined_until_an_admin_accepts_it(tmp_path: Path) -> None:
    app = _open(tmp_path, "v1")
    try:
        assert "mcp.fx.lookup" in app.registry
        assert app.executor(tmp_path).start(_lookup_plan()).status == "succeeded"
    finally:
        app.close()

    app = _open(tmp_path, "v2")  # the server now describes lookup with an injection
    try:
        assert "mcp.fx.lookup" not in app.registry and "mcp.fx.stable" in app.registry
        with pytest.raises(PlanError, match=r"mcp\.fx\.lookup is quarantined.*alicorn mcp accept fx\.lookup"):
            app.executor(tmp_path).start(_lookup_plan())
        changed = [e.data for e in app.store.read(MCP_STREAM) if e.kind == "mcp.tool.changed"]
        assert [(c["tool"], c["status"]) for c in changed] == [("lookup", "changed")]
        with pytest.raises(McpAcceptError, match="nothing to accept"):
            accept_changes(app, "fx.stable", by=ADMIN)
        assert accept_changes(app, "fx", by=ADMIN) == [
            f"accepted mcp.fx.lookup (changed): pinned {changed[0]['seen'][:19]}… by {ADMIN}"
        ]
    finally:
        app.close()

    app = _open(tmp_path, "v2")
    try:
        assert "mcp.fx.lookup" in app.registry
        assert app.executor(tmp_path).start(_lookup_plan()).status == "succeeded"
    finally:
        app.close()


def test_a_rename_withholds_the_new_name_and_reports_the_old_one_missing(tmp_path: Path) -> None:
    _open(tmp_path, "v1").close()
    app = _open(tmp_path, "renamed")
    try:
        found = app.mcp
        assert found is not None
        statuses = {s.tool: s.status for s in found.tools}
        assert statuses["stable"] == "missing" and statuses["stable_v2"] == "new"
        assert "mcp.fx.stable_v2" not in app.registry and "mcp.fx.stable" not in app.registry
        assert "not among the tools first pinned" in found.withheld["mcp.fx.stable_v2"]
        assert "mcp.fx.pid" in app.registry  # the server's other tools are still offered
    finally:
        app.close()


def test_results_that_break_the_schema_errors_and_hangs_are_clear_operation_errors(tmp_path: Path) -> None:
    app = _open(tmp_path, "v1", timeout_s=1)
    try:
        with pytest.raises(OperationError, match=r"MCP server 'fx' tool 'bad_output' returned a result that violates"):
            _call(app, "bad_output", tmp_path)
        with pytest.raises(OperationError, match=r"'fx' tool 'fails' answered with an error: the dictionary is closed"):
            _call(app, "fails", tmp_path)
        with pytest.raises(OperationError, match=r"'fx' tool 'lookup' break its input schema") as refused:
            _call(app, "lookup", tmp_path, word="")  # minLength 1: only the pinned JSON Schema says so
        assert refused.value.certain
        with pytest.raises(OperationError, match=r"'fx' tool 'sleepy' did not answer within 1 s") as hung:
            _call(app, "sleepy", tmp_path)
        assert hung.value.retryable and hung.value.certain  # a read: nothing may have been applied
        assert _call(app, "stable", tmp_path).value == 42  # the session survives all of that
    finally:
        app.close()


def test_a_broken_result_fails_its_run_with_the_sentence_journaled(tmp_path: Path) -> None:
    app = _open(tmp_path, "v1")
    try:
        state = app.executor(tmp_path).start(plan([{"node_id": "bad", "operation": "mcp.fx.bad_output", "inputs": {}}]))
        assert state.status == "failed"
        results = [e.data for e in app.store.read(state.run_id) if e.kind == "tool.result"]
        assert results and "'fx' tool 'bad_output' returned a result that violates" in results[0]["error"]["message"]
    finally:
        app.close()


def test_a_destructive_hint_raises_the_operators_class(tmp_path: Path) -> None:
    app = _open(tmp_path, "v1")
    try:
        assert app.registry.get("mcp.fx.remember").effect == "local_write"  # configured read, says destructive
        assert app.registry.get("mcp.fx.lookup").effect == "read"
    finally:
        app.close()


def test_one_session_per_server_for_the_apps_life_and_its_process_ends_with_the_app(tmp_path: Path) -> None:
    app = _open(tmp_path, "v1")
    try:
        pids = {_call(app, "pid", tmp_path).pid for _ in range(3)}
        run = app.executor(tmp_path).start(plan([{"node_id": "p", "operation": "mcp.fx.pid", "inputs": {}}]))
        output = next(e.data["output"] for e in app.store.read(run.run_id) if e.kind == "tool.result")
        pids.add(output["pid"])
        assert len(pids) == 1  # the same server process answered every call: no session was re-opened
    finally:
        app.close()
    (pid,) = pids
    for _ in range(100):  # the server is stopped when the app closes (waiting, not timing: bounded polling)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the fixture server {pid} still runs after the app closed")


def test_servers_that_do_not_start_or_hang_are_left_out_and_the_rest_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        tmp_path,
        {
            "fx": fixture_server("v1", effect="read"),
            "missing": {"command": [str(tmp_path / "no-such-server")]},
            "silent": {"command": [sys.executable, "-c", "import time; time.sleep(60)"], "start_timeout_s": 1},
            "nolist": {**fixture_server("hang_list"), "start_timeout_s": 8},  # time to start, then it hangs
            "crashes": {"command": [sys.executable, "-c", "import sys; sys.exit('cannot open my database')"]},
        },
    )
    app = open_app(tmp_path)
    try:
        found = app.mcp
        assert found is not None and sorted(found.problems) == ["crashes", "missing", "nolist", "silent"]
        assert "no-such-server was not found" in found.problems["missing"]
        assert "did not complete the MCP handshake within 1 s" in found.problems["silent"]
        assert "start_timeout_s" in found.problems["silent"]
        assert "did not list its tools within 8 s" in found.problems["nolist"]
        assert "cannot open my database" in found.problems["crashes"]  # the server's last words are quoted
        for problem in found.problems.values():
            assert "alicorn.toml" in problem or "start_timeout_s" in problem or "check the server" in problem
        assert _call(app, "stable", tmp_path).value == 42
        pinned = {e.data["server"] for e in app.store.read(MCP_STREAM)}
        assert pinned == {"fx"}  # nothing of the broken servers was written
    finally:
        app.close()
    assert "going on without its tools" in capsys.readouterr().err


def test_a_pinned_server_that_stops_working_withholds_its_tools_with_the_reason(tmp_path: Path) -> None:
    _open(tmp_path, "v1").close()
    write_config(tmp_path, {"fx": {"command": [str(tmp_path / "gone")]}, "time": {"command": TIME_COMMAND}})
    app = open_app(tmp_path)
    try:
        with pytest.raises(PlanError, match=r"MCP server 'fx' .* cannot be used.*its tool 'lookup' cannot be used now"):
            app.executor(tmp_path).start(_lookup_plan())
        assert "mcp.time.get_current_time" in app.registry
    finally:
        app.close()
