"""No known secret reaches the journal, a prompt, a log or the command line's error output: every writer, driven.

A home with a fake API key pasted into models.toml, an API key in an environment variable models.toml references,
and a file the operator labels secret. Then each path that writes text runs with those values in its way: a run
that reads the secret file (allowed and approved), a tool error quoting it, an HTTP error body (from a loopback
server) holding it, a model request, response and error, a memory record, a CLI error (with and without --debug)
and a log line. Finally the journal database's bytes, the prompts the provider received, the CLI's output and the
captured log are scanned for each secret in its plain, base64 and hex forms: 0 hits.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.anvil.secret_reads import allowing
from alicorn.app import App, open_app
from alicorn.cli import app as cli
from alicorn.context.tap import JournalTap
from alicorn.memory.embedders import HashingEmbedder
from alicorn.memory.models import NewRecord
from alicorn.memory.open import open_memory
from alicorn.models.errors import ProviderUnavailableError
from alicorn.models.messages import ChatRequest
from alicorn.models.providers.scripted import ScriptedProvider
from alicorn.models.recorder import ModelCallRecorder, ModelClient
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Executor
from alicorn.runtime.humans import Approval
from alicorn.runtime.replay import replay_run
from alicorn.secrets import install_log_redaction
from tests.memory.harness import OPERATOR, Clock
from tests.models.support import FakeClock, profile

CONFIG_KEY = "cfgKEY-7f3a9b2c4d5e6f70"  # pasted into models.toml by mistake
ENV_KEY = "envKEY-1a2b3c4d5e6f7a8b"  # in ALICORN_TEST_API_KEY, which models.toml names
FILE_SECRET = "fileSECRET-9z8y7x6w5v4u"  # a cell of keys/service.csv, labelled secret
SECRETS = (CONFIG_KEY, ENV_KEY, FILE_SECRET)


def forms(secret: str) -> list[bytes]:
    """The secret as the bytes a leak could take: plain, base64 (standard, URL-safe, unpadded) and hex."""
    raw = secret.encode()
    b64 = [base64.b64encode(raw), base64.urlsafe_b64encode(raw)]
    return [raw, *b64, *(b.rstrip(b"=") for b in b64), raw.hex().encode(), raw.hex().upper().encode()]


def hits(data: bytes) -> int:
    return sum(data.count(form) for secret in SECRETS for form in forms(secret))


def plan(*nodes: dict[str, Any], goal: str = "secrets test") -> Plan:
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": list(nodes)})


def node(node_id: str, operation: str, **inputs: Any) -> dict[str, Any]:
    bound = {k: v if isinstance(v, dict) and "ref" in v else {"value": v} for k, v in inputs.items()}
    return {"node_id": node_id, "operation": operation, "inputs": bound}


def ref(node_id: str, output: str = "records") -> dict[str, Any]:
    return {"ref": {"node": node_id, "output": output}}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ALICORN_TEST_API_KEY", ENV_KEY)
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text('[data]\nsecret = ["keys/**"]\n')
    (home / "models.toml").write_text(
        '[[profiles]]\nid = "remote"\nprovider = "openai_http"\nendpoint = "http://127.0.0.1:9/v1"\n'
        f'model = "m"\napi_key_env = "ALICORN_TEST_API_KEY"\napi_key = "{CONFIG_KEY}"\n'
    )
    data = tmp_path / "data"
    (data / "keys").mkdir(parents=True)
    (data / "keys" / "service.csv").write_text(f"name,token\nbilling,{FILE_SECRET}\n")
    (data / "where.json").write_text('"keys/service.csv"')
    return home


def executor(application: App, data: Path) -> Executor:
    ex = application.executor(data)
    # Who may approve is another suite's subject (tests/anvil): here the approval is a given, unsigned.
    ex.approvers = None
    return ex


def agent_terms(application: App, *allowed: str) -> Any:
    terms = allowing(application.anvil.terms("agent:planner"), allowed)
    application.anvil.prepare(terms)
    return terms


@pytest.fixture
def loopback() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 whose every answer is a 404 with the environment's key in its body."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"no such thing; your key {ENV_KEY} and {FILE_SECRET} were logged".encode()
            self.send_response(404)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_no_writer_lets_a_known_secret_through(home: Path, loopback: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    prompts: list[str] = []
    captured = io.StringIO()
    cli_output: list[str] = []
    writers: list[str] = []

    application = open_app(home)
    log_handler = logging.StreamHandler(captured)
    logger = logging.getLogger("alicorn")
    logger.addHandler(log_handler)
    try:
        install_log_redaction(lambda: application.store.secrets)
        ex = executor(application, data)
        approve = [Approval("human:bob", "reviewed")]

        # 1. a run that reads the secret file, allowed and approved: tool.result and a downstream node's text
        read = plan(
            node("load", "data.read_csv", path="keys/service.csv"),
            node("show", "report.render_text", title="services", records=ref("load"), columns=["name", "token"]),
        )
        state = ex.start(read, terms=agent_terms(application, "keys/**"), approvals=approve)
        assert state.status == "succeeded", state.status
        assert state.nodes["load"].status == "succeeded"
        replay_run(application.store, state.run_id, application.registry)  # the redacted journal still replays
        writers += ["tool.result (a secret read)", "tool.call (a reference to it)"]

        # 2. a tool error quoting the secret (a cell that is not an int)
        broken = plan(node("load", "data.read_csv", path="keys/service.csv", columns={"token": "int"}))
        state = ex.start(broken, terms=agent_terms(application, "keys/**"), approvals=approve)
        assert state.status == "failed"
        assert any(e.kind == "tool.result" and not e.data["ok"] for e in application.store.read(state.run_id))
        writers.append("tool.result error")

        # 3. an HTTP error body holding the key
        get = plan(node("get", "http.get_json", url=f"{loopback}/status"))
        state = ex.start(get, terms=agent_terms(application), approvals=approve)
        assert state.status == "failed"
        errors = [e.data for e in application.store.read(state.run_id) if e.kind == "tool.result"]
        assert errors and "404" in json.dumps(errors) and "[SECRET_" in json.dumps(errors)
        writers.append("HTTP error body")

        # 4. a model request, its response and a model error
        provider = ScriptedProvider([f"done; I used {ENV_KEY}", ProviderUnavailableError(f"bad key {CONFIG_KEY}")])
        client = ModelClient(profile(), provider, ModelCallRecorder(JournalTap(application.store, "c-1", FakeClock())))
        answer = client.complete(ChatRequest.chat("system", f"call it with {FILE_SECRET} or {CONFIG_KEY}"))
        with pytest.raises(ProviderUnavailableError):
            client.complete(ChatRequest.chat("system", f"again with {ENV_KEY}"))
        prompts += [m.content for r in provider.requests for m in r.messages]
        prompts.append(answer.text)
        assert len(provider.requests) == 2
        writers += ["llm.request (prompt)", "llm.response", "llm.error"]

        # 5. a memory record
        with open_memory(
            tmp_path / "memory.db",
            project="ops",
            embedder=HashingEmbedder(64),
            journal=application.store,
            clock=Clock(),
        ) as memory:
            memory.add(NewRecord(text=f"The billing token is {FILE_SECRET}.", provenance=OPERATOR))
        assert any(s.stream.startswith("memory") for s in application.store.streams())
        writers.append("memory record")

        # 6. a log line, through a child of the alicorn logger
        logging.getLogger("alicorn.runtime").warning("calling with %s and %s", ENV_KEY, FILE_SECRET)
        assert "calling with [SECRET_" in captured.getvalue()
        writers.append("log line")
    finally:
        logger.removeHandler(log_handler)
        application.close()

    # 7. CLI errors that quote a secret (a plan path), with and without --debug
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(plan(node("load", "data.read_csv", path="keys/x.csv")).model_dump(mode="json")))
    text = bad.read_text().replace("keys/x.csv", f"../{FILE_SECRET}")
    bad.write_text(text)
    runner = CliRunner()
    for extra in ([], ["--debug"]):
        result = runner.invoke(cli, [*extra, "run", str(bad), "--home", str(home), "--data", str(data), "-q"])
        assert result.exit_code == 1, result.output
        assert "contains '..'" in result.stderr and "[SECRET_" in result.stderr
        cli_output.append(result.output + result.stderr)
    writers.append("CLI error (and its --debug traceback)")

    journal = b"".join(p.read_bytes() for p in home.iterdir() if p.name.startswith("journal.db") and p.is_file())
    assert FILE_SECRET.encode() not in journal and b"[SECRET_" in journal  # the scan reads the real bytes
    found = {
        "journal": hits(journal),
        "prompts": hits("\n".join(prompts).encode()),
        "logs": hits(captured.getvalue().encode()),
        "cli": hits("\n".join(cli_output).encode()),
    }
    print(f"writer paths covered: {len(writers)}; secrets found: {found}")
    assert found == {"journal": 0, "prompts": 0, "logs": 0, "cli": 0}
    assert len(writers) == 10
