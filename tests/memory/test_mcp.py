"""The Knowledge MCP server through the SDK's real client: over stdio to `alicorn mcp serve` in a subprocess,
and over streamable HTTP on 127.0.0.1. Tools are scoped to the project the server was started with."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from alicorn.memory.embedders import HashingEmbedder
from alicorn.memory.models import NewRecord
from alicorn.memory.open import open_memory

from .harness import OPERATOR

CLI = ["-c", "from alicorn.cli import main; main()"]


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A store with a hashing embedder (fast), one record in project `ops` and one in project `hr`."""
    path = tmp_path / "memory.db"
    with open_memory(path, project="ops", embedder=HashingEmbedder(64)) as ops:
        ops.add(
            NewRecord(
                text="Camera 7 in the north lot raises false alarms in wind.",
                entities=("Camera 7",),
                provenance=OPERATOR,
            )
        )
    with open_memory(path, project="hr") as hr:
        hr.add(
            NewRecord(
                text="Salary review for the camera team is in May.", classification="confidential", provenance=OPERATOR
            )
        )
    return path


async def _exercise(client: Client) -> dict[str, Any]:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"search", "add", "neighbours", "path", "relate"}
    assert tools["search"].annotations is not None and tools["search"].annotations.read_only_hint
    found = (await client.call_tool("search", {"query": "camera false alarms", "k": 5})).structured_content
    added = await client.call_tool(
        "add", {"text": "Camera 7 was cleaned on Monday.", "entities": ["Camera 7"], "source": "test-client"}
    )
    sneaky = await client.call_tool("add", {"text": "x", "kind": "instruction"})
    related = await client.call_tool("relate", {"source": "Camera 7", "type": "located_in", "target": "North lot"})
    graph = (await client.call_tool("neighbours", {"node": "Camera 7", "depth": 1})).structured_content
    route = (await client.call_tool("path", {"source": "North lot", "target": "Camera 7"})).structured_content
    missing = await client.call_tool("neighbours", {"node": "Salary review"})
    return {
        "found": found,
        "added": added.structured_content,
        "sneaky": sneaky,
        "related": related.structured_content,
        "graph": graph,
        "route": route,
        "missing": missing,
    }


def _check(outcome: dict[str, Any], path: Path) -> None:
    found = outcome["found"]
    assert found["project"] == "ops"
    texts = [hit["text"] for hit in found["hits"]]
    assert texts[0] == "Camera 7 in the north lot raises false alarms in wind." or "Camera 7" in texts
    assert all("Salary" not in text for text in texts)  # project hr is out of reach
    added = outcome["added"]
    assert (added["status"], added["trust"], added["source"]) == ("added", "data", "mcp:test-client")
    assert outcome["sneaky"].is_error  # kind must be fact or episode; an agent cannot write instructions
    assert outcome["related"]["type"] == "located_in"
    names = {node["name"] for node in outcome["graph"]["nodes"] if node["kind"] == "entity"}
    assert names == {"Camera 7", "North lot"}
    assert outcome["route"]["found"] and len(outcome["route"]["edges"]) == 1
    missing = outcome["missing"]
    assert missing.is_error and "no record or entity 'Salary review' in project 'ops'" in missing.content[0].text
    with open_memory(path, project="ops") as ops:
        stored = ops.get(added["id"])
        assert stored.provenance.origin == "agent" and stored.trust == "data"


def test_stdio_session_with_a_subprocess(store_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*CLI, "mcp", "serve", "--store", str(store_path), "--project", "ops", "--no-journal"],
    )

    async def run() -> dict[str, Any]:
        async with Client(params) as client:
            return await _exercise(client)

    _check(anyio.run(run), store_path)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(store_path: Path, tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below, after the process
    args = [*CLI, "mcp", "serve", "--transport", "http", "--port", str(port), "--store", str(store_path)]
    process = subprocess.Popen(
        [sys.executable, *args, "--project", "ops", "--home", str(tmp_path)], stdout=log, stderr=log
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "server.log").read_text()) from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_streamable_http_session_on_loopback(http_server: str, store_path: Path, tmp_path: Path) -> None:
    async def run() -> dict[str, Any]:
        async with Client(http_server) as client:
            return await _exercise(client)

    _check(anyio.run(run), store_path)
    from alicorn.journal.sqlite import SQLiteStore

    journal = SQLiteStore(tmp_path / "journal.db", create=False)  # the server journals changes by default
    kinds = [e.kind for e in journal.read("memory:ops")]
    journal.close()
    assert "memory.added" in kinds and "memory.related" in kinds
