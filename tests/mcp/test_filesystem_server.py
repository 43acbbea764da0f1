"""The real npm `@modelcontextprotocol/server-filesystem` under node, over stdio, confined to a tmp folder.

`make test` installs it once into a cache folder (`make mcp-filesystem`) and exports where
(ALICORN_MCP_FILESYSTEM); without that variable the cache path is looked at. Only a machine without node or npm
skips these tests; with node but without the package they fail, naming the make target that installs it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp_support import plan, write_config

from alicorn.app import App, open_app

PACKAGE = Path(
    os.environ.get("ALICORN_MCP_FILESYSTEM")
    or Path.home() / ".cache/alicorn-npm/node_modules/@modelcontextprotocol/server-filesystem"
)
NODE = shutil.which("node")
READS = {"read_text_file": "read", "list_directory": "read"}
WRITES = ("write_file", "edit_file", "create_directory", "move_file")

pytestmark = pytest.mark.skipif(
    NODE is None or shutil.which("npm") is None,
    reason="node and npm are not installed: the npm MCP filesystem server cannot run here",
)


def _command(allowed: Path) -> list[str]:
    entry = PACKAGE / "dist" / "index.js"
    if not entry.is_file():
        pytest.fail(f"{entry} is missing: run `make mcp-filesystem` (make test does) to install the npm server")
    assert NODE is not None
    return [NODE, str(entry), str(allowed)]


def _open(home: Path, allowed: Path, **extra: Any) -> App:
    write_config(home, {"fs": {"command": _command(allowed), **extra}})
    return open_app(home)


@pytest.fixture
def allowed(tmp_path: Path) -> Path:
    folder = tmp_path / "allowed"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "today.txt").write_text("buy milk\ncall Ola\n", encoding="utf-8")
    return folder.resolve()


def test_its_tools_import_with_their_schemas_and_are_external_transmissions_without_classes(
    tmp_path: Path, allowed: Path
) -> None:
    app = _open(tmp_path / "home", allowed)
    try:
        names = {n.removeprefix("mcp.fs.") for n in app.registry.names() if n.startswith("mcp.fs.")}
        assert {"read_text_file", "list_directory", "write_file", "edit_file", "move_file", "search_files"} <= names
        assert app.mcp is not None and app.mcp.problems == {} and app.mcp.withheld == {}  # every schema converted
        read = app.registry.get("mcp.fs.read_text_file")
        assert (
            set(read.inputs.model_fields) == {"path", "head", "tail"} and read.inputs.model_fields["path"].is_required()
        )
        assert not read.inputs.model_fields["head"].is_required()
        assert "content" in read.outputs.model_fields  # its output schema's one property
        # The server is untrusted and nobody gave a class: every tool sends its arguments out of Alicorn, whatever
        # its readOnlyHint says (hints only raise).
        effects = {name: app.registry.get(f"mcp.fs.{name}").effect for name in names}
        assert set(effects.values()) == {"external_transmission"}, effects
    finally:
        app.close()


def test_operator_classes_make_reads_reads_and_write_hints_raise_none_to_local_write(
    tmp_path: Path, allowed: Path
) -> None:
    app = _open(tmp_path / "home", allowed, tools={**READS, "write_file": "none", "create_directory": "none"})
    try:
        assert app.registry.get("mcp.fs.read_text_file").effect == "read"
        assert app.registry.get("mcp.fs.list_directory").idempotency == "repeatable"
        # `none` from the operator, but the (untrusted) server says readOnlyHint: false: that raises it.
        assert app.registry.get("mcp.fs.write_file").effect == "local_write"
        assert app.registry.get("mcp.fs.create_directory").effect == "local_write"
        assert app.registry.get("mcp.fs.move_file").effect == "external_transmission"  # no class given
    finally:
        app.close()
    app = _open(tmp_path / "trusting", allowed, trusted=True, tools={"write_file": "none"})
    try:
        # For a server the operator marked trusted, the operator's word is the last: `none` stays `none`, and an
        # unnamed tool takes what its hints claim.
        assert app.registry.get("mcp.fs.write_file").effect == "none"
        assert app.registry.get("mcp.fs.read_text_file").effect == "read"
        assert app.registry.get("mcp.fs.edit_file").effect == "local_write"
    finally:
        app.close()


def test_a_plan_lists_the_allowed_folder_and_reads_a_file_in_it(tmp_path: Path, allowed: Path) -> None:
    home = tmp_path / "home"
    app = _open(home, allowed, tools=READS)
    try:
        nodes = [
            {
                "node_id": "ls",
                "operation": "mcp.fs.list_directory",
                "inputs": {"path": {"value": str(allowed / "notes")}},
            },
            {
                "node_id": "cat",
                "operation": "mcp.fs.read_text_file",
                "inputs": {"path": {"value": str(allowed / "notes" / "today.txt")}},
                "depends_on": ["ls"],
            },
        ]
        state = app.executor(home).start(plan(nodes))
        assert state.status == "succeeded"
        events = app.store.read(state.run_id)
        calls = [(e.data["op"], e.data["effect"]) for e in events if e.kind == "tool.call"]
        assert calls == [("mcp.fs.list_directory", "read"), ("mcp.fs.read_text_file", "read")]
        outputs = [e.data["output"]["content"] for e in events if e.kind == "tool.result"]
        assert outputs == ["[FILE] today.txt", "buy milk\ncall Ola\n"]
    finally:
        app.close()


def test_a_path_outside_the_allowed_folder_is_a_clear_tool_error_and_nothing_is_written(
    tmp_path: Path, allowed: Path
) -> None:
    home = tmp_path / "home"
    app = _open(home, allowed, tools={**READS, "write_file": "local_write"})
    outside = tmp_path / "outside.txt"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if "home" not in p.parts)
    try:
        nodes = [
            {
                "node_id": "w",
                "operation": "mcp.fs.write_file",
                "inputs": {"path": {"value": str(outside)}, "content": {"value": "owned"}},
            }
        ]
        state = app.executor(home).start(plan(nodes))
        assert state.status == "failed"
        result = next(e.data for e in app.store.read(state.run_id) if e.kind == "tool.result")
        message = result["error"]["message"]
        assert result["ok"] is False and "MCP server 'fs' tool 'write_file' answered with an error" in message
        assert "Access denied - path outside allowed directories" in message
    finally:
        app.close()
    assert not outside.exists()
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if "home" not in p.parts) == before
