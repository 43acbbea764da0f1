"""A home whose alicorn.toml names a PostgreSQL journal (`[journal] url`): the commands run on it, and a wrong,
unreachable or foreign journal is one clear sentence (password masked), never a traceback, and changes nothing."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from alicorn.app import open_app
from alicorn.config import ConfigError
from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from tests.cli._support import ALARMS, assert_clean, fast_invocations, invoke
from tests.pgserver import next_schema


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_invocations(monkeypatch)


def _home(tmp_path: Path, journal: str) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "alicorn.toml").write_text(f"[journal]\n{journal}\n", encoding="utf-8")
    return home


def test_open_app_opens_the_configured_postgres_journal(tmp_path: Path, pg_url: str) -> None:
    schema = next_schema("a")
    home = _home(tmp_path, f'url = "{pg_url}"\nschema = "{schema}"')
    app = open_app(home)
    try:
        assert isinstance(app.store, PostgresJournalStore) and app.store.schema == schema
    finally:
        app.close()
    assert not (home / "journal.db").exists()
    plain = open_app(tmp_path / "plain")  # no [journal]: the home's SQLite file, as before
    try:
        assert isinstance(plain.store, SQLiteStore)
    finally:
        plain.close()


def test_commands_run_on_a_postgres_journal(tmp_path: Path, pg_url: str) -> None:
    schema = next_schema("a")
    home = _home(tmp_path, f'url = "{pg_url}"\nschema = "{schema}"')
    ran = invoke(home, "run", str(ALARMS))
    assert_clean(ran)
    assert ran.exit_code == 0, ran.output
    listed = invoke(home, "runs")
    assert listed.exit_code == 0 and "succeeded" in listed.output
    verified = invoke(home, "verify")
    assert verified.exit_code == 0 and "verified" in verified.output
    assert not (home / "journal.db").exists()
    with psycopg.connect(pg_url) as conn:  # the events are in the server, in the configured schema
        (count,) = conn.execute(f"SELECT count(*) FROM {schema}.journal_events").fetchone()  # type: ignore[misc]
    assert count > 10


def test_unreachable_server_is_exit_5_with_the_password_masked(tmp_path: Path) -> None:
    home = _home(tmp_path, 'url = "postgresql://alicorn:s3cret@127.0.0.1:1/journal"')
    result = invoke(home, "runs")
    assert_clean(result)
    assert result.exit_code == 5
    assert "cannot connect to the PostgreSQL journal at postgresql://" in result.output
    assert "127.0.0.1:1/journal" in result.output and "s3cret" not in result.output
    assert sorted(p.name for p in home.iterdir()) == ["alicorn.toml"]


@pytest.mark.parametrize(
    ("journal", "said"),
    [
        ('url = "sqlite:///journal.db"', "[journal] url must be a PostgreSQL URL"),
        ("url = 5", "[journal] url must be a PostgreSQL URL"),
        ('url = "postgresql://h/db"\npath = "x"', "[journal] has unknown key(s) path"),
        ('url = "postgresql://u:s3cret@h:port/db"', "cannot be used"),
        ('url = "postgresql://h/db"\nschema = "Not-A-Schema"', "invalid journal schema name"),
    ],
)
def test_a_wrong_journal_setting_is_refused(tmp_path: Path, journal: str, said: str) -> None:
    home = _home(tmp_path, journal)
    result = invoke(home, "runs")
    assert_clean(result)
    assert result.exit_code == 1 and said in result.output and "s3cret" not in result.output
    assert sorted(p.name for p in home.iterdir()) == ["alicorn.toml"]


def test_a_database_that_is_not_ours_is_refused_by_the_command(tmp_path: Path, pg_url: str) -> None:
    schema = next_schema("a")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"CREATE TABLE {schema}.journal_events (id serial PRIMARY KEY, payload jsonb)")
    home = _home(tmp_path, f'url = "{pg_url}"\nschema = "{schema}"')
    result = invoke(home, "runs")
    assert_clean(result)
    assert result.exit_code == 1 and "is not an Alicorn journal" in result.output
    assert "Point [journal] url at another database" in result.output


def test_config_error_is_a_config_error(tmp_path: Path) -> None:
    home = _home(tmp_path, "url = 5")
    with pytest.raises(ConfigError, match=r"\[journal\] url"):
        open_app(home)
