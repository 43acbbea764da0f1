"""`alicorn run --queue`, `alicorn worker` and `alicorn jobs` as a user types them (in subprocesses: a worker's
leases are measured on the machine's clock, which the test process itself never reads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from alicorn.packs import pack_dir
from tests.pgserver import next_schema

ALARMS = pack_dir("alarms") / "plan.json"


def alicorn(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ALICORN_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-c", "from alicorn.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_a_queued_run_waits_for_a_worker_which_finishes_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    queued = alicorn("run", str(ALARMS), "--queue", home=home)
    assert queued.returncode == 0, queued.stderr
    run = queued.stdout.split()[0]
    assert run.startswith("run-") and "queued" in queued.stdout
    listed = json.loads(alicorn("jobs", "--json", home=home).stdout)
    assert [(j["run"], j["state"], j["epoch"]) for j in listed["jobs"]] == [(run, "ready", 0)]
    worked = alicorn("worker", "--until-idle", "--lease", "5", "--name", "worker:test", home=home)
    assert worked.returncode == 0, worked.stderr
    assert f"{run}: done: succeeded" in worked.stdout and "stopped after 1 claims" in worked.stdout
    job = json.loads(alicorn("jobs", "--json", home=home).stdout)["jobs"][0]
    assert (job["state"], job["worker"], job["epoch"]) == ("done", "worker:test", 1)
    replayed = alicorn("replay", run, "--verify", home=home)
    assert replayed.returncode == 0 and "verified" in replayed.stdout, replayed.stderr


def test_bad_journal_urls_and_limits_are_one_sentence_and_change_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert alicorn("run", str(ALARMS), "--queue", home=home).returncode == 0
    before = (home / "journal.db").read_bytes()
    for args, said in [
        (("worker", "--journal", str(tmp_path / "x.db")), "is not a PostgreSQL URL"),
        (("worker", "--journal", "postgresql://me:secret@127.0.0.1:1/db", "--until-idle"), "cannot connect"),
        (("jobs", "--limit", "project:ops=0"), "at least 1"),
        (("jobs", "--limit", "team:ops=2"), "write project:NAME=N"),
    ]:
        done = alicorn(*args, home=home)
        assert done.returncode in (1, 5), (args, done.stdout, done.stderr)
        assert said in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
        assert "secret" not in done.stderr  # the password is masked
    assert (home / "journal.db").read_bytes() == before
    assert json.loads(alicorn("jobs", "--json", home=home).stdout)["jobs"][0]["state"] == "ready"


def test_a_worker_elsewhere_drives_runs_queued_on_a_postgres_journal(tmp_path: Path, pg_url: str) -> None:
    """The submitter's home names the journal in alicorn.toml; the worker, on "another machine" (a home of its own
    with no configuration), is given only the URL and schema."""
    schema = next_schema("q")
    home = tmp_path / "office"
    home.mkdir()
    (home / "alicorn.toml").write_text(f'[journal]\nurl = "{pg_url}"\nschema = "{schema}"\n', encoding="utf-8")
    runs = [alicorn("run", str(ALARMS), "--queue", home=home).stdout.split()[0] for _ in range(2)]
    worker_home = tmp_path / "worker-machine"
    worked = alicorn(
        "worker", "--journal", pg_url, "--schema", schema, "--until-idle", "--lease", "5", home=worker_home
    )
    assert worked.returncode == 0, worked.stderr
    assert all(f"{run}: done: succeeded" in worked.stdout for run in runs), worked.stdout
    jobs = json.loads(alicorn("jobs", "--json", home=home).stdout)["jobs"]
    assert sorted(j["state"] for j in jobs) == ["done", "done"]
    assert not (worker_home / "journal.db").exists()


def test_listing_jobs_writes_nothing_not_even_the_broker_tables(tmp_path: Path) -> None:
    """`alicorn jobs` on a journal no worker or queue has used: no jobs, no limits, and the file is unchanged (no
    job table created, no write lock taken); setting a limit is what creates the tables."""
    home = tmp_path / "home"
    assert alicorn("run", str(ALARMS), home=home).returncode == 0  # a run driven in-process: no broker involved
    journal = home / "journal.db"
    before = journal.read_bytes()
    listed = alicorn("jobs", "--json", home=home)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {"jobs": [], "limits": {"project": {}, "operation": {}}}
    assert journal.read_bytes() == before
    import sqlite3

    with sqlite3.connect(journal) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "broker_jobs" not in tables
    assert alicorn("jobs", "--limit", "project:ops=2", home=home).returncode == 0
    limits = json.loads(alicorn("jobs", "--json", home=home).stdout)["limits"]
    assert limits == {"project": {"ops": 2}, "operation": {}}


def test_listing_jobs_on_a_postgres_journal_creates_no_tables(tmp_path: Path, pg_url: str) -> None:
    schema = next_schema("ro")
    home = tmp_path / "office"
    home.mkdir()
    (home / "alicorn.toml").write_text(f'[journal]\nurl = "{pg_url}"\nschema = "{schema}"\n', encoding="utf-8")
    assert alicorn("run", str(ALARMS), home=home).returncode == 0
    listed = alicorn("jobs", "--json", home=home)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["jobs"] == []
    import psycopg

    with psycopg.connect(pg_url) as conn:
        found = conn.execute("SELECT to_regclass(%s)", (f"{schema}.broker_jobs",)).fetchone()
    assert found is not None and found[0] is None


def test_a_mistyped_limit_or_journal_url_is_bad_input_that_names_the_option(tmp_path: Path) -> None:
    """A limit for an operation the home does not have or for a project name `run --project` refuses is never
    stored; a --journal URL whose parameter PostgreSQL refuses is bad input (exit 1), not a server fault; and what
    --journal gave is fixed with --journal, not in alicorn.toml."""
    home = tmp_path / "home"
    assert alicorn("run", str(ALARMS), "--queue", home=home).returncode == 0
    before = (home / "journal.db").read_bytes()
    bogus = "postgresql://me:secret@127.0.0.1:1/x?sslmode=bogus"
    for args, code, said in [
        (("jobs", "--limit", "operation:nope.op=2"), 1, "this home has no operation 'nope.op' (`alicorn schema"),
        (("jobs", "--limit", "project:ÜNI=2"), 1, "'ÜNI' is not a project name"),
        (("jobs", "--journal", bogus), 1, "sslmode=bogus is not a value PostgreSQL takes"),
        (("worker", "--journal", bogus, "--until-idle"), 1, "sslmode=bogus is not a value PostgreSQL takes"),
        (("jobs", "--journal", "postgresql://me:secret@127.0.0.1:1/x"), 5, "user and password (--journal)"),
    ]:
        done = alicorn(*args, home=home)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert said in " ".join(done.stderr.split()) and "alicorn.toml" not in done.stderr, (args, done.stderr)
        assert "secret" not in done.stderr and "Traceback" not in done.stderr
    assert (home / "journal.db").read_bytes() == before
    assert (
        alicorn("jobs", "--limit", "operation:util.noop=2", "--limit", "operation:gone.op=none", home=home).returncode
        == 0
    )
    limits = json.loads(alicorn("jobs", "--json", home=home).stdout)["limits"]
    assert limits == {"project": {}, "operation": {"util.noop": 2}}
