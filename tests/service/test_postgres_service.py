"""`alicorn serve` on a home whose journal is PostgreSQL ([journal] url): the command starts and answers, and a
journal server that dies while it serves is a 503 with one sentence (password masked), never a traceback, until the
server is back; then the run list has what was written meanwhile, by the service's connection or another's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from alicorn.anvil.identity import os_user
from alicorn.journal.postgres import PostgresJournalStore
from tests.cli._support import ALARMS, invoke
from tests.pgserver import next_schema, start_server
from tests.service.conftest import at, journal_toml, serve_home, serve_process
from tests.service.test_runs import clone_run


def _token(home: Path) -> str:
    """A read token of the OS user running the tests (the home's first person: enrolled as admin by this)."""
    made = subprocess.run(
        [sys.executable, "-c", "from alicorn.cli import main; main()", "tokens", "create", "--person", os_user(),
         "--scope", "read", "--home", str(home)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def test_serve_runs_on_a_postgres_journal(tmp_path: Path, pg_url: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    schema = next_schema("serve")
    (home / "alicorn.toml").write_text(journal_toml((pg_url, schema)))
    token = _token(home)  # the first person is enrolled as admin by this command
    ran = invoke(home, "run", str(ALARMS), "-q")
    assert ran.exit_code == 0, ran.output
    with serve_process(home, "/api/v1/runs", token=token) as (_, listed):
        assert listed.status_code == 200, listed.text
        [run] = listed.json()["runs"]
        assert run["status"] == "succeeded" and run["goal"].startswith("Analyse yesterday's camera alarms")
    assert not (home / "journal.db").exists()  # everything went to the server


def test_a_journal_server_that_dies_is_a_503_until_it_is_back(tmp_path: Path) -> None:
    server = start_server(Path(tempfile.mkdtemp(prefix="alicorn-pg-serve-")) / "data")
    try:
        url = str(server.get_uri())
        schema = next_schema("outage")
        for served in serve_home(tmp_path, (url, schema)):
            with served.client("vic") as client:
                before = client.get("/api/v1/runs").json()["runs"]
                assert {r["run"] for r in before} == set(served.runs)
                pid = int(server.get_pid())
                os.kill(pid, signal.SIGKILL)  # a crash of the server; it is started again below
                while os.path.exists(f"/proc/{pid}"):
                    time.sleep(0.01)
                down = client.get("/api/v1/runs")
                assert down.status_code == 503, down.text
                assert down.headers["content-type"].startswith("application/problem+json")
                assert "PostgreSQL" in down.json()["detail"] and "try again" in down.json()["detail"]
                assert "Traceback" not in down.text
                server.ensure_postgres_running()
                with PostgresJournalStore(url, schema=schema) as elsewhere:
                    clone_run(elsewhere, "corpus-stop", "run-after-outage", at(27))
                deadline = time.monotonic() + 30
                while True:
                    back = client.get("/api/v1/runs", params={"limit": 1})
                    if back.status_code == 200:
                        break
                    assert time.monotonic() < deadline, back.text
                    time.sleep(0.1)
                assert back.json()["runs"][0]["run"] == "run-after-outage"
    finally:
        server.cleanup()
