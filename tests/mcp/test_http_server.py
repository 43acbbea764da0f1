"""Streamable HTTP: our own Knowledge MCP server (`alicorn mcp serve --transport http`, a real subprocess on a
loopback port) used as an external server by another home, its `search` called by a run."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_support import plan, write_config

from alicorn.app import open_app
from alicorn.memory.embedders import HashingEmbedder
from alicorn.memory.models import NewRecord, Provenance
from alicorn.memory.open import open_memory


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def knowledge_url(tmp_path: Path) -> Iterator[str]:
    served = tmp_path / "served"
    served.mkdir()
    with open_memory(served / "memory.db", project="ops", embedder=HashingEmbedder(64)) as memory:
        memory.add(
            NewRecord(text="Camera 7 raises false alarms in wind.", provenance=Provenance(origin="human", ref="t"))
        )
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below, after the process
    command = [sys.executable, "-c", "from alicorn.cli import main; main()", "mcp", "serve", "--transport", "http"]
    args = ["--port", str(port), "--home", str(served), "--project", "ops", "--no-journal"]
    process = subprocess.Popen([*command, *args], stdout=log, stderr=log)
    try:
        for _ in range(300):  # bounded polling until the port accepts (or the server died)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError((tmp_path / "server.log").read_text()) from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_a_streamable_http_server_s_tools_are_operations(knowledge_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"knowledge": {"url": knowledge_url, "tools": {"search": "read"}}})
    app = open_app(home)
    try:
        assert app.mcp is not None and not app.mcp.problems
        search = app.registry.get("mcp.knowledge.search")
        assert search.effect == "read" and {"query", "k"} <= set(search.inputs.model_fields)
        # `add` says it is not read-only: with no class configured it stays an external transmission
        assert app.registry.get("mcp.knowledge.add").effect == "external_transmission"
        query = {"query": {"value": "camera false alarms"}, "k": {"value": 3}}
        state = app.executor(home).start(
            plan([{"node_id": "find", "operation": "mcp.knowledge.search", "inputs": query}])
        )
        assert state.status == "succeeded"
        output = next(e.data["output"] for e in app.store.read(state.run_id) if e.kind == "tool.result")
        found = output["structured"]  # `search` declares a free-form object: the whole result is one field
        assert found["project"] == "ops" and "Camera 7" in found["hits"][0]["text"]
    finally:
        app.close()


def test_a_url_nobody_answers_is_a_clear_problem(tmp_path: Path) -> None:
    write_config(tmp_path, {"gone": {"url": f"http://127.0.0.1:{_free_port()}/mcp", "start_timeout_s": 10}})
    app = open_app(tmp_path)
    try:
        assert app.mcp is not None
        problem = app.mcp.problems["gone"]
        assert problem.startswith("MCP server 'gone' (http://127.0.0.1:") and "alicorn.toml" in problem
    finally:
        app.close()
