"""The real `mcp-server-time` (PyPI) over stdio: its tools imported, pinned at first use, and called by a run.

The result holds the server's wall-clock time: that is the tool's output. The test reads no clock itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_support import TIME_COMMAND, plan, write_config

from alicorn.app import App, open_app
from alicorn.errors import PlanError
from alicorn.mcp.pins import MCP_STREAM
from alicorn.runtime.replay import replay_run


@pytest.fixture
def app(tmp_path: Path) -> App:
    write_config(tmp_path, {"time": {"command": TIME_COMMAND, "tools": {"get_current_time": "read"}}})
    opened = open_app(tmp_path)
    yield opened
    opened.close()


def test_its_tools_become_operations_with_the_operators_classes(app: App) -> None:
    assert [n for n in app.registry.names() if n.startswith("mcp.")] == [
        "mcp.time.convert_time",
        "mcp.time.get_current_time",
    ]
    now = app.registry.get("mcp.time.get_current_time")
    assert (now.effect, now.idempotency) == ("read", "repeatable")
    assert set(now.inputs.model_fields) == {"timezone"} and now.inputs.model_fields["timezone"].is_required()
    assert {"timezone", "datetime", "day_of_week", "is_dst", "content"} == set(now.outputs.model_fields)
    convert = app.registry.get("mcp.time.convert_time")  # no class configured: it sends data out, and is not repeated
    assert (convert.effect, convert.idempotency) == ("external_transmission", "unsafe")
    pinned = app.store.read(MCP_STREAM)
    assert [(e.kind, e.data["tool"], e.data["reason"]) for e in pinned] == [
        ("mcp.tool.pinned", "convert_time", "first_use"),
        ("mcp.tool.pinned", "get_current_time", "first_use"),
    ]


def test_a_run_calls_it_and_journals_the_call_and_its_result(app: App, tmp_path: Path) -> None:
    executor = app.executor(tmp_path)
    state = executor.start(
        plan(
            [
                {
                    "node_id": "now",
                    "operation": "mcp.time.get_current_time",
                    "inputs": {"timezone": {"value": "Asia/Tokyo"}},
                }
            ]
        )
    )
    assert state.status == "succeeded"
    events = app.store.read(state.run_id)
    calls = [e.data for e in events if e.kind == "tool.call"]
    results = [e.data for e in events if e.kind == "tool.result"]
    assert [c["op"] for c in calls] == ["mcp.time.get_current_time"]
    assert calls[0]["inputs"] == {"timezone": "Asia/Tokyo"} and calls[0]["effect"] == "read"
    output = results[0]["output"]
    assert results[0]["ok"] is True and output["timezone"] == "Asia/Tokyo" and output["datetime"].endswith("+09:00")
    assert '"timezone": "Asia/Tokyo"' in output["content"]


def test_arguments_of_the_wrong_type_are_refused_with_the_plan(app: App, tmp_path: Path) -> None:
    before = app.store.streams()
    with pytest.raises(PlanError, match=r"mcp\.time\.get_current_time.*timezone"):
        app.executor(tmp_path).start(
            plan([{"node_id": "now", "operation": "mcp.time.get_current_time", "inputs": {"timezone": {"value": 5}}}])
        )
    assert app.store.streams() == before  # nothing was journaled, nothing was called


def test_a_read_only_open_starts_nothing_and_still_replays_the_run(app: App, tmp_path: Path) -> None:
    tokyo = {"timezone": {"value": "Asia/Tokyo"}}
    state = app.executor(tmp_path).start(
        plan([{"node_id": "now", "operation": "mcp.time.get_current_time", "inputs": tokyo}])
    )
    assert state.status == "succeeded"
    looking = open_app(tmp_path, read_only=True)
    try:
        assert looking.mcp is not None and looking.mcp.pool.servers == []  # no session, no process
        assert looking.registry.fingerprint() == app.registry.fingerprint()
        report = replay_run(looking.store, state.run_id, looking.registry)  # from the recorded result alone
        assert report.status == "succeeded"
    finally:
        looking.close()
