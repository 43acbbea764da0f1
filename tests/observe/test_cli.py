"""`alicorn trace`: the waterfall, JSON, export to a real loopback collector, and its refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.observe.spans import trace_id_of
from tests.observe.conftest import Journal
from tests.observe.receiver import receiving

runner = CliRunner()


def _trace(journal: Journal, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["trace", *args, "--home", str(journal.home)], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def test_the_waterfall_draws_every_span_under_its_parent(journal: Journal) -> None:
    code, out, _ = _trace(journal, journal.ran.conversation)
    assert code == 0
    lines = out.splitlines()
    assert "trace of " + journal.ran.conversation in lines[0] and "25 span(s)" in lines[0]
    turn = next(i for i, line in enumerate(lines) if line.strip().startswith("invoke_agent norbi"))
    tool = next(line for line in lines if "execute_tool workspace.write_file" in line)
    assert "effect local_write, done" in tool
    assert "allow [permit-within-rights]" in out and "recorded/bundled:smollm2" in out
    # The run started by the conversation is drawn under the conversation's turn, indented deeper.
    indent = [len(line) - len(line.lstrip()) for line in lines[turn:] if "policy data.read_csv" in line]
    assert indent and indent[0] > len(lines[turn]) - len(lines[turn].lstrip())


def test_json_lists_the_spans_with_their_ids(journal: Journal) -> None:
    code, out, _ = _trace(journal, journal.ran.run, "--json")
    spans = json.loads(out)
    assert code == 0 and len(spans) == 21
    assert {s["trace_id"] for s in spans} == {trace_id_of(journal.ran.run)}
    assert spans[0]["depth"] == 0 and spans[0]["attributes"]["alicorn.status"] == "succeeded"


def test_export_sends_the_trace_to_a_collector(journal: Journal) -> None:
    with receiving() as (url, got):
        code, _, err = _trace(journal, journal.ran.conversation, "--export", "--endpoint", url)
        names = sorted(s.name for s in got.spans)
    assert code == 0 and f"sent 25 span(s) of {journal.ran.conversation}" in err + _
    assert names.count("execute_tool records.filter") == 2 and len(names) == 25


def test_a_collector_that_takes_the_spans_but_not_the_metrics_is_said_and_exits_5(journal: Journal) -> None:
    with receiving(refuse=frozenset({"/v1/metrics"})) as (url, got):
        code, out, err = _trace(journal, journal.ran.run, "--export", "--endpoint", url)
        spans = len(got.spans)
    assert code == 5 and spans == 21 and "Traceback" not in out + err  # the collector failed, not the input
    assert f"the collector took the 21 span(s) of {journal.ran.run}, but not their metrics at {url}/v1/metrics" in err


_COMPRESSIONS = ("", "_TRACES", "_METRICS")


@pytest.mark.parametrize(
    ("toml", "env", "traces", "metrics"),
    [
        ("", {}, "gzip", "gzip"),
        ('[observe]\ncompression = "deflate"\n', {"OTEL_EXPORTER_OTLP_COMPRESSION": "none"}, "deflate", "deflate"),
        ("", {"OTEL_EXPORTER_OTLP_COMPRESSION": "deflate", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "none"},
         "deflate", ""),
        ("", {"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none"}, "", "gzip"),
    ],
)  # fmt: skip
def test_export_compresses_traces_and_metrics_as_alicorn_toml_else_each_signals_variable_says(
    journal: Journal, monkeypatch: pytest.MonkeyPatch, toml: str, env: dict[str, str], traces: str, metrics: str
) -> None:
    for signal in _COMPRESSIONS:
        monkeypatch.delenv(f"OTEL_EXPORTER_OTLP{signal}_COMPRESSION", raising=False)
    for name, said in env.items():
        monkeypatch.setenv(name, said)
    settings = journal.home / "alicorn.toml"
    settings.write_text(toml, encoding="utf-8")
    try:
        with receiving() as (url, got):
            code, out, err = _trace(journal, journal.ran.run, "--export", "--endpoint", url)
            encodings = set(got.encodings)
    finally:
        settings.unlink()
    assert code == 0, out + err
    assert encodings == {("/v1/traces", traces), ("/v1/metrics", metrics)}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--export", "--endpoint", "collector:4318"], "the OTLP endpoint 'collector:4318' is not an http(s) URL"),
        (["--export"], "--export needs a collector: pass --endpoint URL"),
    ],
)
def test_refusals_are_one_sentence_and_exit_1(journal: Journal, args: list[str], said: str) -> None:
    before = [e.line for e in journal.store.read(journal.ran.run)]
    code, out, err = _trace(journal, journal.ran.run, *args)
    assert code == 1 and said in err and "Traceback" not in out + err
    assert [e.line for e in journal.store.read(journal.ran.run)] == before


def test_a_dead_collector_is_a_fault_of_the_environment_and_exits_5(journal: Journal) -> None:
    before = [e.line for e in journal.store.read(journal.ran.run)]
    code, out, err = _trace(
        journal, journal.ran.run, "--export", "--endpoint", "http://127.0.0.1:9", "--timeout", "0.5"
    )
    assert code == 5 and "did not take the 21 span(s)" in err and "Traceback" not in out + err
    assert "check that it listens for OTLP over HTTP there" in err
    assert [e.line for e in journal.store.read(journal.ran.run)] == before


def test_a_clickhouse_path_that_is_a_file_is_refused(journal: Journal, tmp_path: Path) -> None:
    # Refused before the embedded engine starts, so this runs in-process (chdb allows one database per process).
    afile = tmp_path / "spans.json"
    afile.write_text("{}", encoding="utf-8")
    code, out, err = _trace(journal, journal.ran.run, "--clickhouse", str(afile))
    assert code == 1 and f"--clickhouse {afile} is a file; give a folder" in err, err
    assert "Traceback" not in out + err and afile.read_text(encoding="utf-8") == "{}"


@pytest.mark.parametrize("missing", [("nowhere", "x", "y"), ("nowhere", "y")])
def test_a_clickhouse_folder_in_a_missing_folder_is_refused_and_nothing_is_created(
    journal: Journal, tmp_path: Path, missing: tuple[str, ...]
) -> None:
    where = tmp_path.joinpath(*missing)
    code, out, err = _trace(journal, journal.ran.run, "--clickhouse", str(where))
    assert code == 1 and f"{where.parent} does not exist; create it first or fix --clickhouse" in err, err
    assert "Traceback" not in out + err and not (tmp_path / "nowhere").exists()


def test_a_clickhouse_folder_under_a_file_is_refused(journal: Journal, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("", encoding="utf-8")
    code, _, err = _trace(journal, journal.ran.run, "--clickhouse", str(tmp_path / "afile" / "ch"))
    assert code == 1 and f"{tmp_path / 'afile'} is a file, not a folder; fix --clickhouse" in err, err


def test_an_embedded_clickhouse_that_cannot_start_is_one_sentence(
    journal: Journal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import alicorn.observe.clickhouse

    def refuse(path: str | None = None) -> object:
        raise RuntimeError("Failed to create connection: Code: 36. DB::Exception: …\nStack trace: 0. …")

    monkeypatch.setattr(alicorn.observe.clickhouse, "connect", refuse)
    code, out, err = _trace(journal, journal.ran.run, "--clickhouse", str(tmp_path / "ch"))
    assert code == 5 and "Traceback" not in out + err and "Stack trace" not in err
    assert f"the embedded ClickHouse could not open {tmp_path / 'ch'} (Failed to create connection" in err


def test_an_unknown_stream_is_named(journal: Journal) -> None:
    code, _, err = _trace(journal, "run-nope")
    assert code == 1 and "run-nope" in err


def test_clickhouse_loads_the_trace_into_an_embedded_database(journal: Journal, tmp_path: Path) -> None:
    # chdb allows one database path per process: the command and the check each run in their own.
    where = tmp_path / "ch"
    env = {**os.environ, "COLUMNS": "200"}
    command = [sys.executable, "-c", "from alicorn.cli import main; main()", "trace", journal.ran.conversation,
               "--home", str(journal.home), "--clickhouse", str(where)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and f"loaded 25 span(s) of {journal.ran.conversation}" in done.stdout
    check = "from chdb import session; print(session.Session(%r).query('SELECT count() FROM otel.otel_traces', 'CSV'))"
    counted = subprocess.run([sys.executable, "-c", check % str(where)], capture_output=True, text=True, timeout=120)
    assert counted.stdout.strip() == "25"
