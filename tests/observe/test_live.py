"""Live export over real OTLP/HTTP on loopback: every model and tool step of a real run arrives as a conforming span;
a collector that is down, slow or misnamed never changes or fails the run."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.observe import semconv as sc
from alicorn.observe.errors import ObserveError
from alicorn.observe.export import start_live, trace
from alicorn.observe.live import LiveExporter
from alicorn.observe.otlp import OtlpSpanSink
from alicorn.observe.process import NICENESS, ProcessExporter
from alicorn.observe.settings import ObserveSettings, home_settings, read_settings
from alicorn.observe.spans import SpanRecord
from alicorn.runtime.state import fold
from tests.conftest import TEST_NOW
from tests.observe.conftest import Journal
from tests.observe.receiver import attributes, receiving
from tests.observe.support import alarms_home, run_alarms
from tests.observe.test_projector import conforms

SPAN_KIND_INTERNAL, SPAN_KIND_CLIENT = 1, 3


def _kinds(store: SQLiteStore, stream: str) -> list[str]:
    return [e.kind for e in store.read(stream)]


def test_a_real_run_exports_a_conforming_span_for_every_model_and_tool_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for signal in ("", "_TRACES", "_METRICS"):
        monkeypatch.delenv(f"OTEL_EXPORTER_OTLP{signal}_COMPRESSION", raising=False)
    with receiving() as (url, got):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        application, ran = alarms_home(tmp_path)
        assert application.live_export is not None
        assert isinstance(application.live_export.exporter, ProcessExporter)  # a journal file: its own process
        store = application.store
        requests = _kinds(store, ran.conversation).count("llm.request")
        calls = _kinds(store, ran.run).count("tool.call")
        application.close()  # flushes what is queued (bounded)
        spans = list(got.spans)
        assert {r["service.name"] for r in got.resources} == {"alicorn"}
        assert {"gen_ai.client.token.usage", "gen_ai.client.operation.duration"} <= set(got.metrics)
        assert set(got.encodings) == {("/v1/traces", "gzip"), ("/v1/metrics", "gzip")}  # the default, for both
    chats = [s for s in spans if attributes(s).get(sc.OPERATION_NAME) == sc.CHAT]
    tools = [s for s in spans if attributes(s).get(sc.OPERATION_NAME) == sc.EXECUTE_TOOL]
    assert len(chats) == requests == 2 and len(tools) == calls == 7
    assert [p for s in chats + tools for p in conforms(s, attributes(s))] == []
    assert all(len(s.trace_id) == 16 and len(s.span_id) == 8 and s.end_time_unix_nano >= s.start_time_unix_nano
               for s in spans)  # fmt: skip
    assert {s.kind for s in tools} == {SPAN_KIND_INTERNAL}
    # Content is off by default: no reference, and no prompt text anywhere in what the collector got.
    blob = b"".join(s.SerializeToString() for s in spans)
    assert b"camera alarms" not in blob and b"alicorn.content" not in blob
    # The run span arrived once, finished, with the run's status.
    roots = [s for s in spans if s.name == "invoke_workflow alicorn.plan" and not s.parent_span_id]
    assert len(roots) == 1 and attributes(roots[0])[sc.STATUS] == "succeeded"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_collector_leaves_the_run_unaffected_and_the_loss_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    application = open_app(tmp_path)
    sink = OtlpSpanSink(f"http://127.0.0.1:{_free_port()}", timeout_s=0.5)
    exporter = LiveExporter(application.store, sink).start()
    ran = run_alarms(application)
    stats = exporter.close(timeout_s=10)
    state = fold(application.store.read(ran.run), ran.run)
    application.close()
    assert state.status == "succeeded"
    assert stats.exported_spans == 0 and stats.failed_spans == 25
    assert "the collector did not take" in capsys.readouterr().err


def test_an_unreachable_collector_through_the_exporter_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], journal: Journal
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{_free_port()}")
    application, ran = alarms_home(tmp_path)
    kinds = _kinds(application.store, ran.run)
    state = fold(application.store.read(ran.run), ran.run)
    assert application.live_export is not None
    stats = application.live_export.close()
    application.live_export = None
    application.close()
    assert state.status == "succeeded" and kinds == _kinds(journal.store, journal.ran.run)  # the same run as without
    assert stats.exported_spans == 0 and stats.failed_spans == 25
    err = capfd.readouterr().err
    said = "live trace export lost data (25 span(s) the collector did not take; 1 metrics export(s) the collector"
    assert said in err and "Transient error" not in err  # counted and said once, not the SDK's own logs


class _Stuck:
    """A sink whose first send waits until released: a collector that stopped answering."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.sent: list[SpanRecord] = []

    def send(self, records: Sequence[SpanRecord]) -> bool:
        self.release.wait(30)
        self.sent.extend(records)
        return True

    def close(self) -> None:
        pass


@pytest.mark.parametrize("journal_in", ["a file", "memory"])
def test_a_collector_that_refuses_the_metrics_is_counted_and_said_once(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], journal: Journal, journal_in: str
) -> None:
    """The periodic metrics reader drops the exporter's answer; live export counts refused metric exports and says
    them with the rest, from the exporter process (a journal file) and from a thread (a journal in memory)."""
    recorded = journal.store.read(journal.ran.run)
    with receiving(refuse=frozenset({"/v1/metrics"})) as (url, got):
        store = SQLiteStore(tmp_path / "journal.db") if journal_in == "a file" else InMemoryStore()
        live = start_live(ObserveSettings(url, timeout_s=1.0), store)
        assert live is not None
        assert isinstance(live.exporter, ProcessExporter if journal_in == "a file" else LiveExporter)
        if isinstance(live.exporter, ProcessExporter):
            assert live.exporter.ready(60)
        for n, event in enumerate(recorded):  # the recorded run, appended again: its model and tool steps
            store.append("run-again", [Draft(event.kind, event.at, event.data)], expect=n)
        stats = live.close()
        store.close()
        spans = len(got.spans)
    err = capfd.readouterr().err
    assert stats.failed_spans == 0 and spans == stats.exported_spans == 21
    assert stats.failed_metric_exports == 1
    assert err.count("live trace export lost data (1 metrics export(s) the collector did not take)") == 1
    assert "Failed to export" not in err


def test_a_stuck_collector_never_blocks_the_run_and_drops_are_counted(tmp_path: Path) -> None:
    application = open_app(tmp_path)
    sink = _Stuck()
    exporter = LiveExporter(application.store, sink, queue_size=2, flush_s=0.0).start()
    ran = run_alarms(application)  # finishes although the exporter is stuck from its first span on
    store = application.store
    state = fold(store.read(ran.run), ran.run)
    stats = exporter.stats()
    sink.release.set()
    closed = exporter.close(timeout_s=10)
    assert state.status == "succeeded"
    assert stats.dropped_events > 0 and closed.dropped_events == stats.dropped_events
    assert "dropped because the export queue was full" in (closed.sentence() or "")
    # Dropping loses spans but never makes a wrong one: what was sent is exactly what the journal projects.
    after = {s.span_id: s for stream in (ran.conversation, ran.run) for s in trace(store, stream).spans}
    assert sink.sent and all(after[s.span_id] == s for s in sink.sent)
    application.close()


def test_a_slow_collector_does_not_fail_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with receiving(delay_s=0.3) as (url, got):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        application, ran = alarms_home(tmp_path)
        state = fold(application.store.read(ran.run), ran.run)
        application.close()
    assert state.status == "succeeded"
    assert got.requests >= 1


def test_a_bad_endpoint_is_said_once_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318")
    application, ran = alarms_home(tmp_path)
    assert application.live_export is None
    state = fold(application.store.read(ran.run), ran.run)
    application.close()
    err = capsys.readouterr().err
    assert state.status == "succeeded"
    assert "live trace export is off: OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP endpoint 'collector:4318'" in err
    assert "write it like http://localhost:4318" in err


def test_alicorn_toml_wins_over_the_environment_and_can_turn_export_off(tmp_path: Path) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"}
    assert read_settings(tmp_path, env).endpoint == "http://env:4318"
    (tmp_path / "alicorn.toml").write_text('[observe]\nendpoint = "http://toml:4318"\ncontent = true\n')
    settings = read_settings(tmp_path, env)
    assert (settings.endpoint, settings.content) == ("http://toml:4318", True)
    (tmp_path / "alicorn.toml").write_text("[observe]\nlive = false\n")
    assert read_settings(tmp_path, env).endpoint is None


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("compression = 5", 'compression = 5 is not a string (in quotes: "…")'),
        ('timeout_s = "2"', "timeout_s = '2' is not a number"),
        ("queue = true", "queue = True is not a whole number"),
        ("live = 1", "live = 1 is not true or false"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_file_and_the_key(
    tmp_path: Path, written: str, said: str
) -> None:
    (tmp_path / "alicorn.toml").write_text(f"[observe]\n{written}\n")
    with pytest.raises(ObserveError) as refused:
        read_settings(tmp_path, {})
    assert str(refused.value) == f"{tmp_path / 'alicorn.toml'}: [observe] {said}"


def test_the_compression_comes_from_alicorn_toml_else_the_environment_and_a_wrong_one_turns_export_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"}
    assert read_settings(tmp_path, env).compression == "gzip"
    assert read_settings(tmp_path, {**env, "OTEL_EXPORTER_OTLP_COMPRESSION": "None"}).compression == "none"
    wrong = {**env, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "lz4"}
    with pytest.raises(ObserveError, match=r"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION = 'lz4' .*gzip, deflate, none"):
        read_settings(tmp_path, wrong)
    assert home_settings(tmp_path, wrong).endpoint is None  # said once, export off, nothing else stops
    assert "live trace export is off: OTEL_EXPORTER_OTLP_TRACES_COMPRESSION = 'lz4'" in capsys.readouterr().err
    metrics_own = {**env, "OTEL_EXPORTER_OTLP_COMPRESSION": "deflate", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "none"}
    both = read_settings(tmp_path, metrics_own)
    assert (both.compression, both.metrics_compression) == ("deflate", "none")  # each signal's own variable first
    with pytest.raises(ObserveError, match=r"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION = 'br'"):
        read_settings(tmp_path, {**env, "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "br"})
    (tmp_path / "alicorn.toml").write_text('[observe]\ncompression = "deflate"\n')
    from_file = read_settings(tmp_path, {**wrong, "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "br"})
    assert (from_file.compression, from_file.metrics_compression) == ("deflate", "deflate")  # the file wins
    (tmp_path / "alicorn.toml").write_text('[observe]\ncompression = "zip"\n')
    with pytest.raises(ObserveError, match=r"alicorn.toml: \[observe\] compression = 'zip'"):
        read_settings(tmp_path, env)


def test_the_exporter_process_yields_the_cpu_to_the_run_and_counts_its_own(tmp_path: Path) -> None:
    with receiving() as (url, got):
        store = SQLiteStore(tmp_path / "journal.db")
        settings = read_settings(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url})
        exporter = ProcessExporter(store, store.path, settings, metrics=False).start()
        assert exporter.ready(60)
        child = exporter._process.pid
        assert child is not None
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, child) == min(mine + NICENESS, 19)
        at = TEST_NOW.replace("Z", ".000000Z")  # the journal's own format
        store.append("run-nice", [Draft("run.created", at, {"plan": {}})], expect=0)
        store.append("run-nice", [Draft("run.finished", at, {"status": "succeeded"})], expect=1)
        stats = exporter.close(timeout_s=10)
        store.close()
    assert stats.exported_spans == 1 and [s.name for s in got.spans] == ["invoke_workflow alicorn.plan"]
    assert exporter.cpu_s > 0  # what export cost, after the child's start-up, as the child measured it
