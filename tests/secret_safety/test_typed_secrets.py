"""Secrets a person types into a request never reach the journal (red-team report D, finding 11).

`alicorn ask` journals the request's words in `intent.received`, `contract.fixed`, `plan.proposed`, `run.created` and
`report.written`. Credentials known by their format are replaced there: a provider key, a private key block, and also
a URL's password (its user and host kept), an AWS secret key given with its key id, and a credential given under its
label ("password: …"). The run still replays byte for byte and its chain verifies.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.packs import pack_dir

PASSWORD = "Tr0ub4dor&3xyz"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
DB_PASSWORD = "S3cr3tPass"
SECRETS = (PASSWORD, AWS_ID, AWS_SECRET, DB_PASSWORD, "sk-proj-Zx81", "ghp_abcdef", "b3BlbnNzaC1rZXkt")
REQUEST = (
    "Analyse yesterday's camera alarms. Use api key sk-proj-Zx81abcdefghijklmnopqrstuv, "
    f"my password: {PASSWORD}, AWS {AWS_ID} secret {AWS_SECRET}, github ghp_abcdefghijklmnopqrstuvwxyz0123456789, "
    f"db postgres://admin:{DB_PASSWORD}@db.local/x -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA "
    "-----END OPENSSH PRIVATE KEY-----"
)
REPORTED_KINDS = {"intent.received", "contract.fixed", "plan.proposed", "run.created", "report.written"}


def _invoke(home: Path, *args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output[-3000:]
    return str(result.output)


def test_the_reports_request_leaves_no_typed_secret_in_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALICORN_NOW", "2026-11-30T12:00:00Z")  # "yesterday" is the sample's last day
    shutil.copy(pack_dir("alarms") / "alarms.csv", tmp_path / "alarms.csv")
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    _invoke(home, "ask", "--no-input", "--model", "none", "--data", "alarms.csv", REQUEST)

    with sqlite3.connect(home / "journal.db") as db:
        rows = db.execute("SELECT kind, body FROM events").fetchall()
    held = {(kind, secret) for kind, body in rows for secret in SECRETS if secret in body}
    assert not held, held
    request_events = {kind for kind, body in rows if "camera alarms. Use api key" in body}
    assert request_events >= REPORTED_KINDS, request_events  # the five events still hold the (redacted) request
    bodies = "\n".join(body for kind, body in rows if kind in REPORTED_KINDS)
    assert "postgres://admin:[SECRET:url_password]@db.local/x" in bodies  # the user and host are kept
    assert "my password: [SECRET:labelled_secret], AWS [SECRET:api_key] secret [SECRET:aws_secret_key]," in bodies
    for path in home.rglob("*"):  # the run's workspace and report files too
        if path.is_file() and path.suffix != ".db":
            data = path.read_bytes()
            assert not [s for s in SECRETS if s.encode() in data], path

    run_id = re.search(r"run-\d{8}-[0-9a-f]+-\d+", _invoke(home, "runs")).group(0)  # type: ignore[union-attr]
    assert "byte for byte" in _invoke(home, "replay", run_id)  # redaction is a function of the text alone
    assert _invoke(home, "verify").startswith("ok")


def test_the_journal_store_redacts_typed_secrets_in_every_event_and_every_string() -> None:
    store = InMemoryStore()
    data = {
        "text": REQUEST,
        "plan": {"nodes": [{"inputs": {"dsn": {"value": f"mysql://root:{DB_PASSWORD}@10.0.0.5:3306/db"}}}]},
        "stdout": f"line one\nAWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\npassword={PASSWORD}\n",
        "model": [f'{{"db_password": "{PASSWORD}"}}', f"\npassword:\t{PASSWORD}"],
    }
    [event] = store.append("s", [Draft("run.created", "2026-11-30T08:00:00Z", data)], expect=0)
    assert not [s for s in (PASSWORD, AWS_SECRET, DB_PASSWORD) if s in event.line], event.line
    assert event.data["plan"]["nodes"][0]["inputs"]["dsn"]["value"] == (
        "mysql://root:[SECRET:url_password]@10.0.0.5:3306/db"
    )
    assert json.loads(event.line)["data"] == event.data


def test_a_key_at_the_start_of_a_line_is_found_in_a_journaled_structure() -> None:
    """The journal used to run the detectors on the event's JSON, where a newline is the two characters `\\n`: a key
    at the start of a line of a tool's output ("…\\nghp_…") had no word boundary before it and was stored in clear."""
    store = InMemoryStore()
    key = "ghp_" + "a1B2" * 8
    [event] = store.append("s", [Draft("tool.result", "2026-11-30T08:00:00Z", {"out": [f"x\n{key}"]})], expect=0)
    assert key not in event.line and event.data == {"out": ["x\n[SECRET:api_key]"]}
