"""The exporter process is told of each append by one line on a non-blocking pipe, and reads the events from the
journal itself: a full pipe (the child behind, here stopped) delays spans and loses none; a dead child is counted
at close, within the deadline, and never holds the run."""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path

import pytest

from alicorn.journal.events import Draft
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.observe.process import ProcessExporter
from alicorn.observe.settings import read_settings
from tests.conftest import TEST_NOW
from tests.observe.receiver import receiving

AT = TEST_NOW.replace("Z", ".000000Z")  # the journal's own format
RUNS = 150  # two lines each, ~30 bytes a line: more than the 4 KiB pipe a queue of 1 asks for


def _run(store: JournalStore, stream: str) -> None:
    store.append(stream, [Draft("run.created", AT, {"plan": {}})], expect=0)
    store.append(stream, [Draft("run.finished", AT, {"status": "succeeded"})], expect=1)


def test_a_full_pipe_delays_spans_and_loses_none(tmp_path: Path) -> None:
    with receiving() as (url, got):
        store = SQLiteStore(tmp_path / "journal.db")
        settings = dataclasses.replace(read_settings(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url}), queue=1)
        exporter = ProcessExporter(store, store.path, settings, metrics=False).start()
        assert exporter.ready(60)
        child = exporter._process.pid
        assert child is not None
        os.kill(child, signal.SIGSTOP)  # the child falls behind: the pipe fills
        try:
            for i in range(RUNS):  # never waits for the stopped child
                _run(store, f"run-full-{i:03d}")
            waiting = dict(exporter._unsaid)
        finally:
            os.kill(child, signal.SIGCONT)
        stats = exporter.close(timeout_s=60)
        store.close()
    assert waiting, "the pipe never filled: the test did not test a full pipe"
    assert (stats.exported_spans, stats.dropped_events, stats.failed_spans, stats.pending) == (RUNS, 0, 0, 0)
    assert len(got.spans) == RUNS and {s.name for s in got.spans} == {"invoke_workflow alicorn.plan"}


def test_a_dead_exporter_is_counted_at_close_and_never_holds_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with receiving() as (url, _got):
        store = SQLiteStore(tmp_path / "journal.db")
        settings = dataclasses.replace(read_settings(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url}), queue=1)
        exporter = ProcessExporter(store, store.path, settings, metrics=False).start()
        assert exporter.ready(60)
        child = exporter._process.pid
        assert child is not None
        os.kill(child, signal.SIGKILL)
        exporter._process.join(10)
        for i in range(RUNS):
            _run(store, f"run-dead-{i:03d}")
        stats = exporter.close(timeout_s=1.0)  # waits for room in the pipe until the deadline, then stops
        store.close()
    assert stats.exported_spans == 0 and stats.dropped_events + stats.pending > 0
    assert "live trace export lost data" in capsys.readouterr().err


def test_a_postgresql_journal_is_exported_from_a_process_of_its_own(tmp_path: Path, pg_url: str) -> None:
    """Workers on PostgreSQL get the same hand-over: the child opens the journal by its URL and schema, read-only."""
    from alicorn.journal.postgres import PostgresJournalStore
    from alicorn.observe.export import start_live
    from tests.pgserver import next_schema

    with receiving() as (url, got):
        store = PostgresJournalStore(pg_url, schema=next_schema("live"))
        live = start_live(read_settings(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url}), store, metrics=False)
        assert live is not None and isinstance(live.exporter, ProcessExporter)
        assert live.exporter.ready(60)  # its start-up (imports, a connection) is not what is tested
        for i in range(3):
            _run(store, f"run-pg-{i}")
        stats = live.close()
        store.close()
    assert (stats.exported_spans, stats.dropped_events, stats.failed_spans) == (3, 0, 0)
    assert len(got.spans) == 3


def test_a_stream_the_exporter_cannot_read_is_counted_and_the_others_still_go(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    with receiving() as (url, got):
        store = SQLiteStore(tmp_path / "journal.db")
        settings = read_settings(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url})
        exporter = ProcessExporter(store, store.path, settings, metrics=False).start()
        assert exporter.ready(60)
        child = exporter._process.pid
        assert child is not None
        os.kill(child, signal.SIGSTOP)  # it reads the lines only after the row below is damaged
        try:
            _run(store, "run-damaged")
            _run(store, "run-whole")
            with sqlite3.connect(store.path) as raw:
                raw.execute("UPDATE events SET body = 'not json' WHERE stream = 'run-damaged' AND seq = 2")
        finally:
            os.kill(child, signal.SIGCONT)
        stats = exporter.close(timeout_s=30)
        store.close()
    assert stats.exported_spans == 1 and [s.name for s in got.spans] == ["invoke_workflow alicorn.plan"]
    assert stats.unread_events == 2 and stats.dropped_events == 0  # run-damaged, read in one go; the pipe never filled
    said = capfd.readouterr().err  # the exporter process's stderr too
    assert "could not read run-damaged" in said
    assert "2 journal event(s) the exporter could not read" in said
