"""The command line's one error boundary: bad arguments, a broken alicorn.toml, an empty journal file and read-only
commands each end in one sentence and a meaningful exit code, and change nothing."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.errors import NotAJournalError

from ._support import ALARMS, assert_clean, digest, fast_invocations, invoke, listing


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_invocations(monkeypatch)


@pytest.fixture(scope="module")
def finished_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A home with one finished run (the module's tests copy it; none changes it)."""
    home = tmp_path_factory.mktemp("finished") / "home"
    result = invoke(home, "run", str(ALARMS), "-q")
    assert result.exit_code == 0, result.output
    [run] = json.loads(invoke(home, "runs", "--json").stdout)
    return home, str(run["run"])


def _copy(home: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "home"
    shutil.copytree(home, target)
    return target


# ---- 3: verify of a run that does not exist -------------------------------------------------------------------


def test_verify_of_a_run_that_does_not_exist_says_so(finished_home: tuple[Path, str]) -> None:
    home, run_id = finished_home
    for args in (["no-such-run"], [run_id, "no-such-run"]):
        result = invoke(home, "verify", *args)
        assert_clean(result)
        assert result.exit_code == 1, result.output
        assert "no run or stream 'no-such-run'" in result.stderr and "ok:" not in result.stdout
    assert invoke(home, "verify", run_id).exit_code == 0


# ---- 4: arguments that used to end in tracebacks ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run", "--budget", "money=inf", str(ALARMS)], "finite number"),
        (["run", "--budget", "wall_s=inf", str(ALARMS)], "finite number"),
        (["verify", "--head", "missing.json"], "cannot read the saved head missing.json"),
        (["journal", "head", "-o", "no/such/dir/h.json"], "cannot write the head to no/such/dir/h.json"),
        (["journal", "import", "missing.jsonl"], "cannot read the export missing.jsonl"),
        (["run", "latin1.json"], "not UTF-8"),
        (["verify", "--head", "latin1.json"], "not UTF-8"),
        (["journal", "import", "latin1.json"], "not UTF-8"),
        (["run", "folder"], "Is a directory"),
    ],
)
def test_bad_arguments_are_a_sentence_and_change_nothing(
    finished_home: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    home = _copy(finished_home[0], tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latin1.json").write_bytes('{"goal": "Zażółć"}'.encode("iso-8859-2"))
    (tmp_path / "folder").mkdir()
    before = listing(home)
    result = invoke(home, *args)
    assert_clean(result)
    assert result.exit_code == 1 and said in result.stderr, result.output
    assert listing(home) == before


def test_a_failed_import_creates_no_journal(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    result = invoke(home, "journal", "import", str(tmp_path / "missing.jsonl"))
    assert_clean(result)
    assert result.exit_code == 1 and not home.exists()
    (tmp_path / "bad.jsonl").write_text('{"not": "an event"}\n')
    result = invoke(home, "journal", "import", str(tmp_path / "bad.jsonl"))
    assert result.exit_code == 1 and "not a valid Alicorn event" in result.stderr and not home.exists()


def test_head_is_written_whole(finished_home: tuple[Path, str], tmp_path: Path) -> None:
    home = finished_home[0]
    target = tmp_path / "head.json"
    assert invoke(home, "journal", "head", "-o", str(target)).exit_code == 0
    assert json.loads(target.read_text())["format"] == "alicorn-head"
    assert [p.name for p in tmp_path.iterdir()] == ["head.json"]  # no temporary file left beside it
    assert invoke(home, "verify", "--head", str(target)).exit_code == 0


# ---- 5: a broken alicorn.toml ---------------------------------------------------------------------------------

MODULE_RAISES = "raise RuntimeError('the operations module is broken')\n"
FACTORY_RAISES = "def operations():\n    raise ValueError('cannot declare')\n"
NOT_CALLABLE = "operations = 42\n"
RETURNS_NONE = "def operations():\n    return None\n"


@pytest.mark.parametrize(
    ("toml", "module", "said"),
    [
        pytest.param(b"[anvil]\npolicy = '\xff\xfe'\n", "", "not UTF-8 text", id="not-utf8"),
        pytest.param(("x = " + "[" * 5000 + "]" * 5000 + "\n").encode(), "", "too deeply", id="nested-arrays"),
        pytest.param(("[anvil." + ".".join(["x"] * 5000) + "]\n").encode(), "", "levels deep", id="nested-tables"),
        pytest.param(b"operations = 5\n", "", "must be a table", id="operations-not-a-table"),
        pytest.param(b"[anvil]\nx = inf\n", "", "finite number", id="inf"),
        pytest.param(None, MODULE_RAISES, "importing", id="module-raises-at-import"),
        pytest.param(None, FACTORY_RAISES, "raised ValueError", id="factory-raises"),
        pytest.param(None, NOT_CALLABLE, "not a function", id="not-callable"),
        pytest.param(None, RETURNS_NONE, "returned None", id="factory-returns-none"),
    ],
)
def test_a_broken_config_is_a_sentence_from_every_command(
    finished_home: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    toml: bytes | None,
    module: str,
    said: str,
) -> None:
    home = _copy(finished_home[0], tmp_path)
    run_id = finished_home[1]
    if module:
        name = f"broken_ops_{abs(hash((module, str(tmp_path)))) % 10**8}"
        (tmp_path / f"{name}.py").write_text(module)
        monkeypatch.syspath_prepend(str(tmp_path))
        toml = f'[operations]\nmodules = ["{name}:operations"]\n'.encode()
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert toml is not None
    (home / "alicorn.toml").write_bytes(toml)
    before = listing(home)
    commands = [
        ["runs"],
        ["verify"],
        ["show", run_id],
        ["journal", run_id],
        ["journal", "head"],
        ["replay", run_id],
        ["resume", run_id],
        ["cancel", run_id],
        ["run", str(ALARMS), "-q"],
        ["proposals"],
        ["approve", run_id],
        ["why", run_id, "load"],
        ["rights", "agent:planner"],
        ["ask", "--no-input", "--model", "none", "Analyse yesterday's camera alarms"],
    ]
    for args in commands:
        result = invoke(home, *args)
        assert_clean(result)
        assert result.exit_code == 1, (args, result.output)
        assert "alicorn.toml" in result.stderr or "operations" in result.stderr, (args, result.stderr)
        assert said in result.stderr, (args, result.stderr)
    assert listing(home) == before


# ---- 6: an empty journal file, and read-only commands ---------------------------------------------------------

READ_ONLY = [
    ["runs"],
    ["verify"],
    ["show", "run-x"],
    ["journal", "run-x"],
    ["journal", "head"],
    ["journal", "export", "run-x"],
    ["replay", "run-x"],
]


@pytest.mark.parametrize("args", [*READ_ONLY, ["resume", "run-x"], ["cancel", "run-x"], ["approve", "run-x"]])
def test_an_empty_journal_file_is_refused_untouched(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "journal.db").write_bytes(b"")
    result = invoke(home, *args)
    assert_clean(result)
    assert result.exit_code == 1 and "empty file" in result.stderr, result.output
    assert listing(home) == {"journal.db": digest(home / "journal.db")} and (home / "journal.db").read_bytes() == b""


@pytest.mark.parametrize("args", READ_ONLY)
def test_read_only_commands_create_nothing_in_a_fresh_home(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "fresh"
    result = invoke(home, *args)
    assert_clean(result)
    assert result.exit_code == 1 and "no journal at" in result.stderr
    assert not home.exists()


@pytest.mark.parametrize("args", [["runs"], ["verify"], ["show"], ["journal"], ["journal", "head"], ["replay"]])
def test_read_only_commands_change_no_file(finished_home: tuple[Path, str], tmp_path: Path, args: list[str]) -> None:
    home = _copy(finished_home[0], tmp_path)
    before = listing(home)
    assert "journal.db-wal" not in before and "journal.db-shm" not in before
    if args in (["show"], ["journal"], ["replay"]):
        args = [*args, finished_home[1]]
    result = invoke(home, *args)
    assert result.exit_code == 0, result.output
    assert listing(home) == before  # the same bytes, and no -wal or -shm left behind


def test_read_only_commands_open_the_journal_with_sqlite_read_only_mode(finished_home: tuple[Path, str]) -> None:
    application = open_app(finished_home[0], create=False, read_only=True)
    try:
        assert application.store.read_only
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            application.store.raw_connection().execute("DELETE FROM events")
    finally:
        application.close()


def test_the_store_refuses_an_empty_file_unless_asked_to_create(tmp_path: Path) -> None:
    from alicorn.journal.sqlite import SQLiteStore

    path = tmp_path / "journal.db"
    path.write_bytes(b"")
    for kwargs in ({"create": False}, {"read_only": True}):
        with pytest.raises(NotAJournalError, match="empty file"):
            SQLiteStore(path, **kwargs)  # type: ignore[arg-type]
        assert path.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["journal.db"]


def test_a_new_journal_appears_whole(tmp_path: Path) -> None:
    """Created beside its place and linked there complete: nothing else is left, and it is a journal at once."""
    from alicorn.journal.sqlite import SQLiteStore

    with SQLiteStore(tmp_path / "journal.db"):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.db"]
    with SQLiteStore(tmp_path / "journal.db", read_only=True) as store:
        assert store.streams() == []


# ---- --debug, and the documented exit code --------------------------------------------------------------------


def test_debug_shows_the_traceback_too(finished_home: tuple[Path, str]) -> None:
    home = finished_home[0]
    plain = invoke(home, "verify", "no-such-run")
    assert "Traceback" not in plain.output
    for result in (
        invoke(None, "--debug", "verify", "no-such-run", "--home", str(home)),
        invoke(home, "verify", "no-such-run", env={"ALICORN_DEBUG": "1"}),
    ):
        assert result.exit_code == 1
        assert "Traceback" in result.stderr and "UnknownStreamError" in result.stderr
        assert "error: no run or stream 'no-such-run'" in result.stderr


def test_exit_code_five_is_documented() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "5 the environment failed" in " ".join(readme.split())


def test_reading_the_policy_creates_and_changes_nothing(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    for command in (("policy", "show"), ("policy", "check")):
        result = invoke(fresh, *command)
        assert result.exit_code == 0, result.output
        assert not fresh.exists()  # no home, no journal made just to read the rules
    used = tmp_path / "used"
    open_app(used).close()
    before = listing(used)
    for command in (("policy", "show"), ("policy", "check")):
        assert invoke(used, *command).exit_code == 0
    assert listing(used) == before


def test_a_journal_on_a_read_only_filesystem_is_read_without_making_any_file(
    finished_home: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a backup disk or a forensic copy mounted read-only: SQLite cannot make the -shm file a WAL reader needs, so the
    # journal is read as immutable (the filesystem is faked read-only: tests cannot mount one)
    import os

    from alicorn.journal import sqlite as engine

    home = _copy(finished_home[0], tmp_path)
    before = listing(home)
    real = os.statvfs
    journal_folder = str(home)

    class ReadOnly:
        def __init__(self, found: os.statvfs_result) -> None:
            self.f_flag = found.f_flag | os.ST_RDONLY

    monkeypatch.setattr(engine.os, "statvfs", lambda p: ReadOnly(real(p)) if str(p) == journal_folder else real(p))
    assert engine._on_read_only_media(home / "journal.db")
    for args in (["verify"], ["runs"], ["show", finished_home[1]], ["replay", finished_home[1]]):
        result = invoke(home, *args)
        assert result.exit_code == 0, result.output
    assert listing(home) == before
    (home / "journal.db-wal").write_bytes(b"x")  # a log beside it holds commits the file lacks: not immutable
    assert not engine._on_read_only_media(home / "journal.db")


@pytest.mark.parametrize("args", [["show"], ["journal", "archive"]])
def test_a_stream_that_is_no_run_is_said_so_where_a_run_is_wanted(
    finished_home: tuple[Path, str], tmp_path: Path, args: list[str]
) -> None:
    # a conversation's id where a run's is wanted: `show` crashed on the missing plan, `archive` called it "new"
    from alicorn.journal.events import Draft

    home = _copy(finished_home[0], tmp_path)
    application = open_app(home, create=False)
    try:
        application.store.append("conv-20261130-000000000001", [Draft("intent.received", "2026-11-30T09:00:00.000000Z",
                                                                     {"utterance": "hello"})], expect=0)  # fmt: skip
    finally:
        application.close()
    before = listing(home)
    result = invoke(home, *args, "conv-20261130-000000000001")
    assert_clean(result)
    assert result.exit_code == 1, result.output
    assert "is not a run (its first event is 'intent.received')" in result.stderr
    assert "alicorn ask -c conv-20261130-000000000001" in result.stderr
    assert listing(home) == before
