"""A journal whose file is damaged (random bytes over pages, undecodable rows, a missing table, wrong column types)
is reported as damaged, with the first unreadable point; `verify` salvages and checks what can still be read; and
nothing reading it changes a byte."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.errors import AlicornError, DamagedJournalError, EnvironmentFailure, NotAJournalError
from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import Head
from alicorn.journal.verify import verify_journal

from .harness import at

runner = CliRunner()
STREAMS = ("run-a", "run-b", "run-c", "run-d")
PAGE = 4096


def _journal(path: Path) -> Path:
    """Four streams of 40 events whose bodies (about 900 bytes) fill many pages."""
    with SQLiteStore(path) as store:
        for s, stream in enumerate(STREAMS):
            for i in range(4):
                batch = [
                    Draft("test.event", at(i * 10 + j), {"n": i * 10 + j, "text": f"{stream}-{j}-" + "x" * 900})
                    for j in range(10)
                ]
                store.append(stream, batch, expect=i * 10)
            assert store.last_seq(stream) == 40, s
    return path


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return _journal(tmp_path_factory.mktemp("sound") / "journal.db").read_bytes()


def _damage(data: bytes, rng: random.Random) -> bytes:
    """Random bytes over one to four places, each up to 600 bytes, anywhere after the file's header page."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        offset = rng.randrange(PAGE, len(buf) - 1)
        size = rng.randint(1, 600)
        buf[offset : offset + size] = rng.randbytes(size)[: len(buf) - offset]
    return bytes(buf)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_random_damage_is_reported_salvaged_and_left_untouched(sound: bytes, tmp_path: Path) -> None:
    """60 damaged copies: the store raises only Alicorn's errors, verify reports (never raises) the damage with its
    first unreadable point, and no byte of any copy changes, nor is any file left beside it."""
    outcomes: Counter[str] = Counter()
    for case in range(60):
        folder = tmp_path / f"c{case}"
        folder.mkdir()
        path = folder / "journal.db"
        path.write_bytes(_damage(sound, random.Random(case)))
        before = _digest(path)
        try:
            store = SQLiteStore(path, read_only=True)
        except (NotAJournalError, DamagedJournalError):
            outcomes["refused at open"] += 1
            continue
        with store:
            try:
                store.streams()
                for stream in STREAMS:
                    store.read(stream)
            except AlicornError:
                pass  # DamagedJournalError, or JournalIntegrityError for a row that still decodes
            report = verify_journal(store)
        if report.damage:
            outcomes["damaged"] += 1
            assert all(isinstance(d, str) and d for d in report.damage)
            for text in report.damage:
                if text.startswith("stream "):
                    assert "cannot be read" in text and "#" in text  # the first unreadable point
        elif report.problems:
            outcomes["chain problems"] += 1
        else:
            outcomes["sound"] += 1  # the bytes landed where nothing is stored
        assert report.events <= 160
        assert _digest(path) == before
        assert sorted(p.name for p in folder.iterdir()) == ["journal.db"]
    assert outcomes["damaged"] >= 20, outcomes


def test_an_undecodable_row_is_located_and_the_rest_salvaged(sound: bytes, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    path.write_bytes(sound)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE events SET body = CAST(x'7b22ff80' AS TEXT) WHERE stream = 'run-b' AND seq = 13")
    conn.commit()
    conn.close()
    before = _digest(path)
    with SQLiteStore(path, read_only=True) as store:
        with pytest.raises(DamagedJournalError, match=r"'run-b' can be read up to event #12, not beyond") as caught:
            store.read("run-b")
        assert (caught.value.stream, caught.value.seq) == ("run-b", 13)
        assert isinstance(caught.value, EnvironmentFailure)
        report = verify_journal(store)
    assert report.streams == 4 and report.events == 159 and not report.problems
    [damage] = report.damage
    assert damage.startswith("stream 'run-b': events #1-#12 read and checked; #13 cannot be read")
    assert "27 later event(s), #14-#40, could be read: each one's hash checks" in damage
    result = runner.invoke(app, ["verify", "--home", str(tmp_path)])
    assert result.exit_code == 5 and "DAMAGED stream 'run-b'" in result.stderr
    assert "159 event(s) of 4 stream(s) could still be read and were checked" in result.stderr
    listed = runner.invoke(app, ["runs", "--home", str(tmp_path)])
    assert listed.exit_code in (0, 5) and "Traceback" not in listed.output
    shown = runner.invoke(app, ["journal", "run-b", "--home", str(tmp_path)])
    assert shown.exit_code == 5 and "can be read up to event #12" in shown.stderr and "Traceback" not in shown.output
    assert _digest(path) == before


def test_a_row_of_the_wrong_type_is_damage_not_a_type_error(sound: bytes, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    path.write_bytes(sound)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE events SET at = x'00ff' WHERE stream = 'run-c' AND seq = 1")
    conn.commit()
    conn.close()
    with SQLiteStore(path, read_only=True) as store, pytest.raises(DamagedJournalError, match="wrong type"):
        store.streams()
    # `runs` lists the run-summary rows without reading events; the commands that list the streams find it (these
    # streams are not runs, so `show run-c` says that first, as `replay` does)
    for args in (["journal", "head"], ["verify"]):
        result = runner.invoke(app, [*args, "--home", str(tmp_path)])
        assert result.exit_code == 5 and "damaged" in result.stderr and "Traceback" not in result.output, args


def test_meta_without_events_table_is_a_damaged_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE alicorn_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.executemany("INSERT INTO alicorn_meta VALUES (?, ?)", [("format", "alicorn-journal"), ("version", "1")])
    conn.commit()
    conn.close()
    before = _digest(path)
    for kwargs in ({"create": True}, {"create": False}, {"read_only": True}):
        with pytest.raises(DamagedJournalError, match=r"without its archives, events table"):
            SQLiteStore(path, **kwargs)  # type: ignore[arg-type]
    for args in (["runs"], ["verify"], ["show", "run-a"], ["run", "plan.json"]):
        result = runner.invoke(app, [*args, "--home", str(tmp_path)])
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        if args[0] != "run":  # (the plan file does not exist: refused before the journal is opened)
            assert result.exit_code == 5 and "without its archives, events table" in result.stderr, args
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.db"]


def test_a_damaged_header_page_is_refused_at_open(sound: bytes, tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    buf = bytearray(sound)
    buf[100:400] = random.Random(7).randbytes(300)  # the schema, right after the 100-byte file header
    path.write_bytes(bytes(buf))
    with pytest.raises((DamagedJournalError, NotAJournalError)):
        SQLiteStore(path, read_only=True)
    result = runner.invoke(app, ["verify", "--home", str(tmp_path)])
    assert result.exit_code in (1, 5) and "Traceback" not in result.output
    assert path.read_bytes() == bytes(buf)


def test_a_read_that_skips_an_event_is_damage_and_nothing_acts_on_it(sound: bytes, tmp_path: Path) -> None:
    """A zeroed page can take rows out of the middle of a stream: acting on what is left would append after the
    wrong event (the fuzzer found `cancel` journaling its request before the run's append was refused)."""
    path = tmp_path / "journal.db"
    path.write_bytes(sound)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM events WHERE stream = 'run-b' AND seq = 7")
    conn.commit()
    conn.close()
    before = _digest(path)
    with SQLiteStore(path) as store:
        with pytest.raises(DamagedJournalError, match="'run-b' skips from event #6 to #8"):
            store.read("run-b")
        assert [e.seq for e in store.read("run-b", after=7)] == list(range(8, 41))  # past the hole: readable
        with pytest.raises(DamagedJournalError, match="events are missing"):
            store.read("run-b", after=3)
    assert _digest(path) == before


def test_a_read_that_stops_short_of_the_head_is_damage(sound: bytes, tmp_path: Path) -> None:
    """The other face of a damaged index: the stream's head (its last event by the key) lies beyond what a read of
    the stream returns. Seen through the engine's own head look-up, reporting an event the rows do not hold."""
    path = tmp_path / "journal.db"
    path.write_bytes(sound)

    class ShortReads(SQLiteStore):
        def _head_txn(self, tx: sqlite3.Connection, stream: str) -> Head | None:
            head = super()._head_txn(tx, stream)
            return Head(head.seq + 13, head.hash) if head is not None and stream == "run-c" else head

    with ShortReads(path) as store:
        with pytest.raises(DamagedJournalError, match="'run-c' reads up to event #40 but its last event is #53"):
            store.read("run-c")
        assert len(store.read("run-a")) == 40
