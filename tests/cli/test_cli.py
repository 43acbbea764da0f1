"""The command line as a user types it: runs, listings, the journal, verification, replay and bad input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.packs import pack_dir
from alicorn.plan.dsl import goal_digest
from alicorn.testing.people import act_as

runner = CliRunner()
ALARMS = pack_dir("alarms") / "plan.json"


def cli(home: Path, *args: str) -> Any:
    return runner.invoke(app, [*args, "--home", str(home)], catch_exceptions=False)


def only_run(home: Path) -> str:
    listed = json.loads(cli(home, "runs", "--json").stdout)
    assert len(listed) == 1
    return str(listed[0]["run"])


def write_plan(path: Path, nodes: list[dict[str, Any]], goal: str = "cli test") -> Path:
    path.write_text(json.dumps({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}))
    return path


def test_run_show_journal_verify_replay(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = cli(home, "run", str(ALARMS), "-q")
    assert result.exit_code == 0, result.output
    assert "succeeded" in result.stdout
    run_id = only_run(home)
    shown = cli(home, "show", run_id)
    assert shown.exit_code == 0 and "dedupe" in shown.stdout and "local_write" in shown.stdout
    lines = cli(home, "journal", run_id, "--json").stdout.splitlines()
    assert json.loads(lines[0])["kind"] == "run.created" and json.loads(lines[-1])["kind"] == "run.finished"
    only_results = cli(home, "journal", run_id, "--json", "--kind", "tool.result", "--node", "load").stdout
    assert [json.loads(x)["kind"] for x in only_results.splitlines()] == ["tool.result"]
    assert "ok: 1 stream(s)" in cli(home, "verify").stdout
    replayed = cli(home, "replay", run_id, "--verify")
    assert replayed.exit_code == 0 and "byte for byte" in replayed.stdout
    assert (home / "workspaces" / run_id / "alarms-report.txt").read_text().startswith("Camera alarms")


@pytest.mark.parametrize(
    ("flag", "expected"), [((), "grouped"), (("--every-step",), "step"), (("--grouped",), "grouped")]
)
def test_run_groups_effect_free_steps_unless_told_every_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: tuple[str, ...], expected: str
) -> None:
    """`alicorn run` makes effect-free steps durable in groups by default (issue 17); `--every-step` asks for one
    commit per step. Either way the run journals the same events and replays."""
    from alicorn.runtime.executor import Executor

    used: list[str] = []
    start = Executor.start

    def spying(self: Executor, *args: Any, **kwargs: Any) -> Any:
        used.append(self.durability)
        return start(self, *args, **kwargs)

    monkeypatch.setattr(Executor, "start", spying)
    home = tmp_path / "home"
    result = cli(home, "run", str(ALARMS), "-q", *flag)
    assert result.exit_code == 0, result.output
    assert used == [expected]
    replayed = cli(home, "replay", only_run(home), "--verify")
    assert replayed.exit_code == 0 and "byte for byte" in replayed.stdout


def test_malformed_and_invalid_plans_change_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{ not json")
    result = cli(home, "run", str(bad_json))
    assert result.exit_code == 1 and "not valid JSON" in result.stderr
    unknown = write_plan(tmp_path / "unknown.json", [{"node_id": "a", "operation": "data.read_cvs"}])
    result = cli(home, "run", str(unknown))
    assert result.exit_code == 1
    assert "unknown operation 'data.read_cvs'" in result.stderr and "data.read_csv" in result.stderr
    assert not home.exists() or json.loads(cli(home, "runs", "--json").stdout) == []
    missing = cli(home, "run", str(tmp_path / "nope.json"))
    assert missing.exit_code == 1 and "cannot read the plan file" in missing.stderr


def test_a_file_that_is_not_a_journal_is_refused_untouched(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "journal.db").write_bytes(b"these are my notes, not a database\n")
    before = (home / "journal.db").read_bytes()
    for args in (("runs",), ("verify",), ("run", str(ALARMS), "-q")):
        result = cli(home, *args)
        assert result.exit_code == 1 and "not an Alicorn journal" in result.stderr
    assert (home / "journal.db").read_bytes() == before


def test_verify_names_the_first_tampered_event_and_truncation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "run", str(ALARMS), "-q").exit_code == 0
    run_id = only_run(home)
    head = tmp_path / "head.json"
    assert cli(home, "journal", "head", "-o", str(head)).exit_code == 0
    db = sqlite3.connect(home / "journal.db")
    # The first tool.call (after run.created and Anvil's decisions) is the event we tamper with.
    seq = db.execute(
        'SELECT min(seq) FROM events WHERE stream=? AND body LIKE \'%"kind":"tool.call"%\'', (run_id,)
    ).fetchone()[0]
    body = db.execute("SELECT body FROM events WHERE stream=? AND seq=?", (run_id, seq)).fetchone()[0]
    edited = body.replace('"attempt":1', '"attempt":2')
    assert edited != body
    db.execute("UPDATE events SET body=? WHERE stream=? AND seq=?", (edited, run_id, seq))
    db.commit()
    result = cli(home, "verify")
    assert result.exit_code == 1 and f"event #{seq}" in result.stderr and "edited" in result.stderr
    db.execute("UPDATE events SET body=? WHERE stream=? AND seq=?", (body, run_id, seq))
    db.execute("DELETE FROM events WHERE stream=? AND seq > 20", (run_id,))
    db.commit()
    db.close()
    assert cli(home, "verify").exit_code == 0  # a clean cut leaves a valid chain...
    result = cli(home, "verify", "--head", str(head))
    assert result.exit_code == 1 and "truncated" in result.stderr and "#21" in result.stderr  # ...the head catches it


def test_resume_of_a_finished_run_and_of_an_unknown_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "run", str(ALARMS), "-q").exit_code == 0
    run_id = only_run(home)
    result = cli(home, "resume", run_id)
    assert result.exit_code == 1 and "already finished" in result.stderr
    result = cli(home, "resume", "run-nope")
    assert result.exit_code == 1 and "run-nope" in result.stderr


def test_archive_keeps_runs_verifiable_and_replayable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "run", str(ALARMS), "-q").exit_code == 0
    run_id = only_run(home)
    before = cli(home, "journal", run_id, "--json").stdout
    archived = cli(home, "journal", "archive")
    assert archived.exit_code == 0 and "archived 1 run(s)" in archived.stdout
    listed = json.loads(cli(home, "runs", "--json").stdout)[0]
    assert listed["archived_bytes"] and listed["archived_bytes"] < listed["bytes"]
    assert cli(home, "journal", run_id, "--json").stdout == before
    assert cli(home, "verify").exit_code == 0
    assert cli(home, "replay", run_id).exit_code == 0
    assert cli(home, "journal", "archive", run_id).exit_code == 1


def test_export_import_round_trip(tmp_path: Path) -> None:
    home, other = tmp_path / "home", tmp_path / "other"
    assert cli(home, "run", str(ALARMS), "-q").exit_code == 0
    run_id = only_run(home)
    exported = tmp_path / "run.jsonl"
    exported.write_text(cli(home, "journal", "export", run_id).stdout)
    assert cli(other, "journal", "import", str(exported)).exit_code == 0
    assert cli(other, "journal", run_id, "--json").stdout == cli(home, "journal", run_id, "--json").stdout
    assert cli(other, "replay", run_id).exit_code == 0
    again = cli(other, "journal", "import", str(exported))
    assert again.exit_code == 1 and "already exists" in again.stderr


class _Sink(BaseHTTPRequestHandler):
    received: list[tuple[str, Any]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        _Sink.received.append((self.headers["Idempotency-Key"], json.loads(self.rfile.read(length))))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"accepted": true}')

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def sink() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Sink)
    _Sink.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/events"
    server.shutdown()


def test_external_effect_waits_for_approval_then_sends_once(
    tmp_path: Path, sink: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    plan = write_plan(
        tmp_path / "send.json",
        [
            {
                "node_id": "send",
                "operation": "http.post_json",
                "inputs": {"url": {"value": sink}, "payload": {"value": {"alarm": 4154}}},
            }
        ],
    )
    waiting = cli(home, "run", str(plan), "-q")
    assert waiting.exit_code == 4 and "waiting for approval" in waiting.stdout
    assert _Sink.received == []
    run_id = only_run(home)
    refused = cli(home, "resume", run_id)
    assert refused.exit_code == 1 and "--approve" in refused.stderr
    act_as(monkeypatch, "alice")  # another person (the OS user) approves: on this new home, its first admin
    done = cli(home, "resume", run_id, "--approve", "--as", "alice", "--comment", "send it")
    assert done.exit_code == 0, done.output
    assert len(_Sink.received) == 1 and _Sink.received[0][1] == {"alarm": 4154}
    events = [json.loads(x) for x in cli(home, "journal", run_id, "--json").stdout.splitlines()]
    approval = next(e for e in events if e["kind"] == "approval.granted")
    assert approval["data"]["by"] == "human:alice" and approval["data"]["comment"] == "send it"
    call = next(e for e in events if e["kind"] == "tool.call")
    assert _Sink.received[0][0] == call["data"]["key"]
    assert cli(home, "replay", run_id).exit_code == 0


def test_schema_outputs_json() -> None:
    plan_schema = json.loads(runner.invoke(app, ["schema", "plan"]).stdout)
    assert plan_schema["title"] == "Plan" and "nodes" in plan_schema["properties"]
    ops = json.loads(runner.invoke(app, ["schema", "operations"]).stdout)
    assert {"data.read_csv", "workspace.write_file", "http.post_json"} <= {o["name"] for o in ops}
    assert runner.invoke(app, ["schema", "nonsense"]).exit_code == 2


def test_schema_operations_lists_every_operation_a_plan_may_name(tmp_path: Path) -> None:
    # the unknown-operation error points there: the packs' operations must be listed too, not only the built-in ones
    from alicorn.app import standard_registry

    result = runner.invoke(app, ["schema", "operations", "--home", str(tmp_path / "fresh")])
    assert result.exit_code == 0, result.output
    assert {o["name"] for o in json.loads(result.stdout)} == set(standard_registry().names())
    assert {"schedule.publish", "perf.load_jobs"} <= {o["name"] for o in json.loads(result.stdout)}
    assert not (tmp_path / "fresh").exists()


def test_help_and_demo_as_processes(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("alicorn")
    assert subprocess.run([exe, "--help"], capture_output=True, timeout=30).returncode == 0
    demo = subprocess.run([exe, "demo", "--home", str(tmp_path / "h")], capture_output=True, text=True, timeout=120)
    assert demo.returncode == 0, demo.stderr
    assert "replay verified" in demo.stdout and "hash chain verified" in demo.stdout
    assert "4154" in demo.stdout and "4198" in demo.stdout
