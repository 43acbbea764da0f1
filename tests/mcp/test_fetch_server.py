"""The real `mcp-server-fetch` (PyPI) over stdio, fetching from a loopback HTTP server the test starts.

What the server needed: `--allow-private-ips`, since it refuses loopback, private and link-local destinations by
default (a refusal it answers as a tool error, pinned below). It checks the target's robots.txt before every
autonomous fetch; that check is left on: the loopback target serves a robots.txt that disallows /private/.
Nothing here reaches the internet.
"""

from __future__ import annotations

import http.server
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_support import plan, write_config

from alicorn.anvil.identity import parse_principal
from alicorn.app import App, open_app
from alicorn.core.execution import failure_feedback
from alicorn.runtime.humans import Approval

FETCH = [sys.executable, "-m", "mcp_server_fetch"]
REVIEWER = "human:reviewer"
PAGE = b"<html><head><title>Status</title></head><body><h1>Loopback status</h1><p>All systems normal.</p></body></html>"
ROBOTS = b"User-agent: *\nDisallow: /private/\n"
HITS: dict[str, list[str]] = {}


@pytest.fixture
def target() -> Iterator[str]:
    """A loopback site: /robots.txt, /status.html and a /private/ page robots.txt disallows. Every path asked for
    is kept in HITS[url]."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            HITS.setdefault(base, []).append(self.path)
            body, kind = (ROBOTS, "text/plain") if self.path == "/robots.txt" else (PAGE, "text/html")
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield base
    finally:
        httpd.shutdown()
        httpd.server_close()


def _open(home: Path, *flags: str, **extra: Any) -> App:
    write_config(home, {"fetch": {"command": [*FETCH, *flags], **extra}})
    app = open_app(home)
    assert app.people is not None
    app.people.bootstrap(parse_principal(REVIEWER))
    return app


def _fetch(app: App, home: Path, url: str) -> Any:
    """A run of one fetch, approved by a human (an external transmission needs one)."""
    nodes = [{"node_id": "get", "operation": "mcp.fetch.fetch", "inputs": {"url": {"value": url}}}]
    state = app.executor(home).start(plan(nodes), approvals=[Approval(REVIEWER, "a loopback fetch")])
    events = app.store.read(state.run_id)
    call = next(e.data for e in events if e.kind == "tool.call")
    result = next(e.data for e in events if e.kind == "tool.result")
    return state, call, result


def test_its_fetch_tool_is_an_external_transmission_whatever_the_operator_wrote(tmp_path: Path) -> None:
    app = _open(tmp_path / "plain")
    try:
        op = app.registry.get("mcp.fetch.fetch")
        assert (op.effect, op.idempotency) == ("external_transmission", "unsafe")  # no class: it sends data out
        assert {"url", "max_length", "start_index", "raw"} == set(op.inputs.model_fields)
        assert op.inputs.model_fields["url"].is_required() and set(op.outputs.model_fields) == {"content"}
        assert op.summary.startswith("[MCP server 'fetch', untrusted description] Fetches a URL")
    finally:
        app.close()
    app = _open(tmp_path / "read", tools={"fetch": "read"})
    try:
        # The operator called it a read; its openWorldHint raises that (the server is not marked trusted), and its
        # readOnlyHint and idempotentHint lower nothing.
        op = app.registry.get("mcp.fetch.fetch")
        assert op.effect == "external_transmission" and op.idempotency == "unsafe"
    finally:
        app.close()


def test_an_approved_run_fetches_the_loopback_page_and_journals_call_and_result(tmp_path: Path, target: str) -> None:
    app = _open(tmp_path, "--allow-private-ips")
    try:
        state, call, result = _fetch(app, tmp_path, f"{target}/status.html")
        assert state.status == "succeeded"
        assert call["op"] == "mcp.fetch.fetch" and call["effect"] == "external_transmission"
        assert call["inputs"] == {"url": f"{target}/status.html"}
        content = result["output"]["content"]
        assert result["ok"] is True and f"Contents of {target}/status.html" in content
        assert "All systems normal." in content and "<p>" not in content  # simplified to markdown by the server
        assert HITS[target] == ["/robots.txt", "/status.html"]  # robots.txt first: the check stays on
    finally:
        app.close()


def test_an_unapproved_fetch_waits_for_a_human_and_sends_nothing(tmp_path: Path, target: str) -> None:
    app = _open(tmp_path, "--allow-private-ips")
    try:
        nodes = [{"node_id": "get", "operation": "mcp.fetch.fetch", "inputs": {"url": {"value": f"{target}/x"}}}]
        state = app.executor(tmp_path).start(plan(nodes))
        assert state.status == "awaiting_approval"
        assert not [e for e in app.store.read(state.run_id) if e.kind == "tool.call"]
        assert HITS.get(target, []) == []  # the server was never asked to fetch
    finally:
        app.close()


def test_refusals_by_robots_txt_and_for_loopback_are_tool_errors_journaled(tmp_path: Path, target: str) -> None:
    app = _open(tmp_path / "allowed", "--allow-private-ips")
    try:
        state, _, result = _fetch(app, tmp_path, f"{target}/private/page.html")
        assert state.status == "failed" and result["ok"] is False
        message = result["error"]["message"]
        assert "MCP server 'fetch' tool 'fetch' answered with an error" in message and "robots.txt" in message
        assert HITS[target] == ["/robots.txt"]  # the disallowed page itself was never requested
        # Where a tool's words reach a planner again (the replan after a failed run), they are fenced as data.
        feedback = failure_feedback(message)
        assert '<data id="previous-run"' in feedback and feedback.rstrip().endswith("</data>")
    finally:
        app.close()
    app = _open(tmp_path / "default")  # without --allow-private-ips the server refuses loopback by itself
    try:
        state, _, result = _fetch(app, tmp_path, f"{target}/status.html")
        assert state.status == "failed" and result["ok"] is False
        message = result["error"]["message"]
        assert (
            "answered with an error" in message and "Refused to fetch" in message and "--allow-private-ips" in message
        )
        assert HITS[target] == ["/robots.txt"]  # nothing more reached the loopback site
    finally:
        app.close()
