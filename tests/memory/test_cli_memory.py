"""`alicorn memory ...` as a person types it: add, search, show, forget, graph, relate, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from alicorn.cli import app

runner = CliRunner()


def cli(home: Path, *args: str) -> Any:
    return runner.invoke(app, ["memory", *args, "--home", str(home)], catch_exceptions=False)


def test_add_search_show_forget_graph(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = cli(
        home,
        "add",
        "Anna Kowalska is on vacation from 3 to 14 March",
        "--key",
        "anna/vacation",
        "-e",
        "Anna Kowalska",
        "--embedder",
        "hashing",
        "--json",
    )
    assert first.exit_code == 0, first.output
    anna_fact = json.loads(first.stdout)[0]["record"]["id"]
    second = cli(home, "add", "Anna Kowalska ma urlop od 10 do 20 marca", "--key", "anna/vacation")
    assert second.exit_code == 0 and f"contradicts {anna_fact}" in second.stdout and "both are valid" in second.stdout
    again = cli(home, "add", "anna kowalska is on vacation from 3 to 14 march")
    assert again.exit_code == 0 and f"merged into {anna_fact}" in again.stdout

    found = cli(home, "search", "Anna vacation March", "--json")
    hits = json.loads(found.stdout)["hits"]
    assert hits and hits[0]["record"]["id"] == anna_fact
    assert "Anna" in cli(home, "search", "Anna vacation").stdout

    assert cli(home, "relate", "Anna Kowalska", "works_at", "Gdańsk warehouse").exit_code == 0
    graph = cli(home, "graph", "Gdańsk warehouse", "--depth", "2")
    assert graph.exit_code == 0 and "Anna Kowalska -works_at-> Gdańsk warehouse" in graph.stdout
    route = cli(home, "graph", "Gdańsk warehouse", "--to", anna_fact)
    assert route.exit_code == 0 and "mentions" in route.stdout and "works_at" in route.stdout

    shown = json.loads(cli(home, "show", anna_fact, "--json").stdout)
    assert [s["ref"].startswith("cli:") for s in shown["record"]["sources"]] == [True, True]
    assert {h["kind"] for h in shown["history"]} >= {"added", "merged", "contradiction"}

    forgot = cli(home, "forget", anna_fact, "--reason", "plans changed", "--from", "2020-01-01")
    assert forgot.exit_code == 0 and "no longer valid from 2020-01-01" in forgot.stdout and "kept" in forgot.stdout
    assert all(
        h["record"]["id"] != anna_fact
        for h in json.loads(cli(home, "search", "Anna vacation", "--json").stdout)["hits"]
    )
    past = json.loads(cli(home, "search", "Anna vacation", "--at", "2019-06-01", "--json").stdout)["hits"]
    assert anna_fact in [h["record"]["id"] for h in past]  # records without valid_from were always true
    assert "plans changed" in cli(home, "show", anna_fact).stdout


def test_bad_input_is_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "add", "seed", "--embedder", "hashing").exit_code == 0
    cases = [
        (["add", "x", "--valid-from", "2025-03-10", "--valid-to", "2025-03-01"], "valid_to", 1),
        (["add", "x", "--valid-from", "next tuesday"], "not an ISO 8601", 2),
        (["add", "x", "--kind", "rumour"], "invalid input", 2),
        (["add", "x", "--project", "no such/project"], "invalid project name", 1),
        (["add"], "give the text", 2),
        (["forget", "m-missing", "--reason", "gone"], "no record 'm-missing'", 1),
        (["graph", "Nobody"], "no record or entity 'Nobody'", 1),
        (
            ["add", "y", "--embedder", "openai", "--embed-url", "http://127.0.0.1:9/v1", "--embed-model", "m"],
            "built with the embedder hashing/384",
            1,
        ),
    ]
    for args, message, code in cases:
        result = cli(home, *args)
        assert result.exit_code == code, (args, result.output)
        assert message in " ".join(result.output.split()), (args, result.output)
    store = json.loads(cli(home, "search", "x y seed", "--json", "--include-invalid").stdout)
    assert [h["record"]["text"] for h in store["hits"]] == ["seed"]


def test_a_file_becomes_document_chunks_and_a_broken_store_is_reported(tmp_path: Path) -> None:
    home = tmp_path / "home"
    doc = tmp_path / "handbook.txt"
    doc.write_text(
        "\n\n".join(f"Rule {i}. " + "Keep the warehouse aisles clear. " * 40 for i in range(4)), encoding="utf-8"
    )
    added = cli(home, "add", "--file", str(doc), "--embedder", "hashing", "--json")
    assert added.exit_code == 0
    chunks = [r["record"] for r in json.loads(added.stdout)]
    assert (
        len(chunks) >= 4 and {c["kind"] for c in chunks} == {"chunk"} and chunks[0]["meta"]["title"] == "handbook.txt"
    )
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 10)
    broken = runner.invoke(app, ["memory", "search", "x", "--store", str(junk)])
    assert broken.exit_code == 1 and "not an Alicorn memory store" in broken.output


def test_a_refused_add_creates_no_file_and_no_folder(tmp_path: Path) -> None:
    """Input is checked before the store or the home is opened: a mistyped --store does not create the folders of
    its path, and refused text or a missing --file leave the home as it was (no journal.db, no memory.db)."""
    home = tmp_path / "home"
    home.mkdir()
    missing = tmp_path / "no" / "such" / "m.db"
    result = cli(home, "add", "hi", "--store", str(missing), "--embedder", "hashing")
    assert result.exit_code == 1
    assert f"the folder {missing.parent} does not exist; create it first or fix --store" in result.output
    assert not (tmp_path / "no").exists()
    for args, message in (
        (["add", ""], "at least 1 character"),
        (["add", "--file", str(tmp_path / "absent.txt")], "No such file or directory; nothing was written"),
        (["add", "x", "--valid-from", "soon"], "not an ISO 8601"),
    ):
        refused = cli(home, *args)
        assert refused.exit_code in (1, 2) and message in " ".join(refused.output.split()), (args, refused.output)
    assert list(home.iterdir()) == []


def test_reading_a_memory_that_does_not_exist_creates_none(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for args in (["search", "anything"], ["show", "m-nope"], ["graph", "Ada"], ["forget", "m-nope", "--reason", "x"]):
        refused = cli(home, *args)
        said = " ".join(refused.output.split())
        assert refused.exit_code == 1 and f"no memory at {home / 'memory.db'} yet" in said, (args, refused.output)
        assert "nothing was created" in said
    assert list(home.iterdir()) == []


def test_mcp_serve_refuses_a_port_out_of_range_before_opening_anything(tmp_path: Path) -> None:
    # a port uvicorn cannot bind was a traceback, after journal.db and memory.db were made
    home = tmp_path / "home"
    for port in ("-1", "0", "65536", "99999"):
        result = runner.invoke(app, ["mcp", "serve", "--transport", "http", "--port", port, "--home", str(home)])
        assert result.exit_code == 2 and "is not in the range 1<=x<=65535" in result.output, result.output
        assert "Traceback" not in result.output and not home.exists()
