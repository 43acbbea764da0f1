"""Core's outage mode on a PostgreSQL journal (its job broker): the server dies mid-run; `alicorn ask` says what is
kept and how to go on, starts nothing new, and continuing the conversation once the server is back finishes it
without doing any node twice."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import psycopg

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.verify import verify_journal
from alicorn.packs import PACKS_DIR
from tests.pgserver import start_server

REQUEST = "Prepare three variants of next month's work schedule, take vacations into account, do not publish"


def _ask(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ALICORN_HOME": str(home), "ALICORN_NOW": "2026-11-20T09:00:00Z"}
    return subprocess.Popen(
        [sys.executable, "-c", "from alicorn.cli import main; main()", "ask", *args, "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _run_events(url: str) -> int:
    try:
        with psycopg.connect(url, connect_timeout=2) as conn:
            row = conn.execute("SELECT count(*) FROM core.journal_events WHERE stream LIKE 'run-%'").fetchone()
            return int(row[0]) if row else 0
    except psycopg.Error:
        return 0


def test_a_server_lost_mid_run_keeps_the_conversation_and_it_finishes_once_back(tmp_path: Path) -> None:
    server = start_server(Path(tempfile.mkdtemp(prefix="alicorn-pg-outage-")) / "data")
    try:
        url = str(server.get_uri())
        home = tmp_path / "home"
        home.mkdir()
        (home / "alicorn.toml").write_text(f'[journal]\nurl = "{url}"\nschema = "core"\n', encoding="utf-8")
        asked = _ask(home, REQUEST, "--data", str(PACKS_DIR / "schedule" / "data"))
        deadline = time.monotonic() + 120
        while _run_events(url) < 5 and time.monotonic() < deadline and asked.poll() is None:
            time.sleep(0.05)  # the run has started (its creation, Anvil's decision and a first call are in)
        server._stop()  # the journal's server goes away mid-run
        out, err = asked.communicate(timeout=120)
        assert asked.returncode == 5, (out, err)  # an environment fault, as the CLI's boundary says it
        assert "Traceback" not in out + err
        assert "no new job was started" in out and "the plan and the conversation are saved" in out, out
        conversation = out.split("alicorn ask --conversation ")[1].split()[0]
        assert conversation.startswith("conv-")

        server.ensure_postgres_running()
        again = _ask(home, "--conversation", conversation)
        out, err = again.communicate(timeout=300)
        # the bundled roster's deliberate data problems make the report partial (exit 3), as without the outage
        assert again.returncode == 3 and "[partial]" in out and "Nothing was published." in out, (out, err)
        with PostgresJournalStore(url, schema="core") as store:
            assert verify_journal(store).ok
            runs = [s.stream for s in store.streams() if s.stream.startswith("run-")]
            assert len(runs) == 1  # continuing started no second run
            events = store.read(runs[0])
            assert events[-1].kind == "run.finished" and events[-1].data["status"] == "succeeded"
            done = Counter(e.data["node"] for e in events if e.kind == "node.succeeded")
            assert done and max(done.values()) == 1  # no node done twice
            assert any(e.kind == "run.resumed" for e in events)
    finally:
        server.cleanup()
