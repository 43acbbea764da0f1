"""The built-in operations that touch files: data.read_csv, data.read_json and workspace.write_file."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from alicorn.errors import OperationError
from alicorn.ops.data import ReadCsvInputs
from alicorn.ops.workspace import MAX_WRITE_BYTES, WriteFileInputs

from .helpers import call, context


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------- read_csv


def test_read_csv_coerces_typed_columns_and_keeps_the_rest_as_strings(data: Path) -> None:
    write(
        data / "in" / "events.csv",
        '\ufeffid, name ,score,ok,ratio\n1,"Smith, J",10,true,0.5\n\n2,  spaced ,-3,No,1e2\n3,,, ,\n',
    )
    out = call(
        "data.read_csv",
        context(data),
        path="in/events.csv",
        columns={"id": "int", "score": "int", "ok": "bool", "ratio": "float"},
    )
    assert out == {
        "columns": ["id", "name", "score", "ok", "ratio"],
        "count": 3,
        "records": [
            {"id": 1, "name": "Smith, J", "score": 10, "ok": True, "ratio": 0.5},
            {"id": 2, "name": "  spaced ", "score": -3, "ok": False, "ratio": 100.0},
            {"id": 3, "name": "", "score": None, "ok": None, "ratio": None},
        ],
    }


def test_read_csv_with_another_delimiter_and_a_quoted_newline(data: Path) -> None:
    write(data / "x.csv", 'a;b\n"line one\nline two";2\n')
    out = call("data.read_csv", context(data), path="x.csv", delimiter=";")
    assert out["records"] == [{"a": "line one\nline two", "b": "2"}]


def test_read_csv_of_an_empty_file_has_no_records(data: Path) -> None:
    write(data / "empty.csv", "")
    assert call("data.read_csv", context(data), path="empty.csv") == {"records": [], "count": 0, "columns": []}


@pytest.mark.parametrize(
    ("cell", "kind"),
    [
        ("ten", "int"),
        ("1_000", "int"),
        ("1.5", "int"),
        ("nan", "float"),
        ("inf", "float"),
        ("1e999", "float"),
        ("maybe", "bool"),
    ],
)
def test_read_csv_names_row_line_and_column_of_a_bad_value(data: Path, cell: str, kind: str) -> None:
    write(data / "bad.csv", f"id,value\n1,1\n2,{cell}\n")
    with pytest.raises(OperationError) as err:
        call("data.read_csv", context(data), path="bad.csv", columns={"value": kind})
    message = str(err.value)
    assert "row 2 (line 3)" in message
    assert "column 'value'" in message
    assert repr(cell) in message
    assert not err.value.retryable


def test_read_csv_refuses_a_row_with_the_wrong_number_of_fields(data: Path) -> None:
    write(data / "bad.csv", "a,b\n1,2\n3,4,5\n")
    with pytest.raises(OperationError, match=r"row 2 \(line 3\) has 3 fields but the header has 2"):
        call("data.read_csv", context(data), path="bad.csv")


def test_read_csv_refuses_coercing_a_column_the_header_lacks(data: Path) -> None:
    write(data / "x.csv", "a,b\n1,2\n")
    with pytest.raises(OperationError, match=r"'c' to coerce are not in the header \(a, b\)"):
        call("data.read_csv", context(data), path="x.csv", columns={"c": "int"})


@pytest.mark.parametrize(("header", "problem"), [("a,a", "twice"), ("a,,b", "column 2 has no name")])
def test_read_csv_refuses_a_bad_header(data: Path, header: str, problem: str) -> None:
    write(data / "x.csv", header + "\n")
    with pytest.raises(OperationError, match=problem):
        call("data.read_csv", context(data), path="x.csv")


def test_read_csv_refuses_more_rows_than_max_rows(data: Path) -> None:
    write(data / "x.csv", "a\n1\n2\n3\n")
    assert call("data.read_csv", context(data), path="x.csv", max_rows=3)["count"] == 3
    with pytest.raises(OperationError, match="more than 2 data rows; raise max_rows"):
        call("data.read_csv", context(data), path="x.csv", max_rows=2)


@pytest.mark.parametrize(
    "bad",
    [
        {"max_rows": 0},
        {"max_rows": 1_000_001},
        {"delimiter": ",,"},
        {"delimiter": '"'},
        {"path": ""},
        {"columns": {"a": "date"}},
        {"surprise": 1},
    ],
)
def test_read_csv_inputs_are_bounded(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ReadCsvInputs.model_validate({"path": "x.csv", **bad})


def test_read_csv_of_a_missing_file_names_the_path_and_is_not_retryable(data: Path) -> None:
    with pytest.raises(OperationError) as err:
        call("data.read_csv", context(data), path="nope/alarms.csv")
    assert "'nope/alarms.csv'" in str(err.value)
    assert str(data) in str(err.value)
    assert not err.value.retryable


def test_read_csv_of_a_directory_or_of_non_utf8_bytes_is_refused(data: Path) -> None:
    (data / "dir").mkdir()
    with pytest.raises(OperationError, match="is a directory"):
        call("data.read_csv", context(data), path="dir")
    (data / "latin1.csv").write_bytes("name\nJos\xe9\n".encode("latin-1"))
    with pytest.raises(OperationError, match="not UTF-8"):
        call("data.read_csv", context(data), path="latin1.csv")


# ---------------------------------------------------------------------------------------------------- confinement


@pytest.mark.parametrize("name", ["data.read_csv", "data.read_json"])
@pytest.mark.parametrize("escape", ["../secret.txt", "sub/../../secret.txt", "sub/../x.csv"])
def test_reads_refuse_dotdot(tmp_path: Path, data: Path, name: str, escape: str) -> None:
    write(tmp_path / "secret.txt", "a\n1\n")
    write(data / "x.csv", "a\n1\n")
    with pytest.raises(OperationError) as err:
        call(name, context(data), path=escape)
    assert repr(escape) in str(err.value)
    assert str(data) in str(err.value)


@pytest.mark.parametrize("name", ["data.read_csv", "data.read_json"])
def test_reads_refuse_an_absolute_path(tmp_path: Path, data: Path, name: str) -> None:
    secret = write(tmp_path / "secret.json", "[]")
    with pytest.raises(OperationError, match="is absolute") as err:
        call(name, context(data), path=str(secret))
    assert str(data) in str(err.value)


@pytest.mark.parametrize("name", ["data.read_csv", "data.read_json"])
def test_reads_refuse_symlinks_that_lead_out(tmp_path: Path, data: Path, name: str) -> None:
    outside = tmp_path / "outside"
    write(outside / "secret.json", "[]")
    (data / "link.json").symlink_to(outside / "secret.json")
    (data / "linkdir").symlink_to(outside, target_is_directory=True)
    for path in ("link.json", "linkdir/secret.json"):
        with pytest.raises(OperationError, match="outside the data root") as err:
            call(name, context(data), path=path)
        assert repr(path) in str(err.value)
        assert str(data) in str(err.value)


def test_a_symlink_that_stays_inside_the_root_is_followed(data: Path) -> None:
    write(data / "real" / "x.csv", "a\n1\n")
    (data / "alias.csv").symlink_to(data / "real" / "x.csv")
    assert call("data.read_csv", context(data), path="alias.csv")["records"] == [{"a": "1"}]


# ---------------------------------------------------------------------------------------------------- read_json


def test_read_json_of_a_list_of_objects_gives_records(data: Path) -> None:
    write(data / "a.json", '[{"id": 1}, {"id": 2, "tags": ["x"]}]')
    assert call("data.read_json", context(data), path="a.json") == {
        "value": [{"id": 1}, {"id": 2, "tags": ["x"]}],
        "records": [{"id": 1}, {"id": 2, "tags": ["x"]}],
        "count": 2,
    }


def test_read_json_takes_records_from_a_dotted_field(data: Path) -> None:
    write(data / "a.json", '{"meta": {"n": 1}, "data": {"items": [{"k": "v"}]}}')
    out = call("data.read_json", context(data), path="a.json", field="data.items")
    assert out["records"] == [{"k": "v"}]
    assert out["count"] == 1
    assert out["value"] == {"meta": {"n": 1}, "data": {"items": [{"k": "v"}]}}


@pytest.mark.parametrize("document", ['{"a": 1}', "[1, 2]", '[{"a": 1}, 2]', '"text"', "null"])
def test_read_json_without_records_gives_an_empty_list(data: Path, document: str) -> None:
    write(data / "a.json", document)
    out = call("data.read_json", context(data), path="a.json")
    assert (out["records"], out["count"]) == ([], 0)


@pytest.mark.parametrize(("field", "problem"), [("missing", "nothing"), ("meta", "not a list of objects")])
def test_read_json_field_must_hold_a_list_of_objects(data: Path, field: str, problem: str) -> None:
    write(data / "a.json", '{"meta": {"n": 1}}')
    with pytest.raises(OperationError, match=problem):
        call("data.read_json", context(data), path="a.json", field=field)


@pytest.mark.parametrize("document", ["{", '{"a": NaN}', "[Infinity]"])
def test_read_json_refuses_what_is_not_json(data: Path, document: str) -> None:
    write(data / "a.json", document)
    with pytest.raises(OperationError, match=re.escape("'a.json' is not valid JSON")):
        call("data.read_json", context(data), path="a.json")


def test_read_json_of_a_missing_file_names_it(data: Path) -> None:
    with pytest.raises(OperationError, match=re.escape("no file 'gone.json'")) as err:
        call("data.read_json", context(data), path="gone.json")
    assert not err.value.retryable


# ---------------------------------------------------------------------------------------------------- write_file


def test_write_file_writes_atomically_and_reports_size_and_hash(workspace: Path) -> None:
    content = "Zażółć gęślą jaźń\nline two\n"
    out = call("workspace.write_file", context(workspace), path="reports/day/a.txt", content=content)
    encoded = content.encode("utf-8")
    assert out == {"path": "reports/day/a.txt", "bytes": len(encoded), "sha256": hashlib.sha256(encoded).hexdigest()}
    target = workspace / "reports" / "day" / "a.txt"
    assert target.read_bytes() == encoded
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in workspace.rglob("*")) == ["a.txt", "day", "reports"]  # no temp file left


def test_write_file_again_is_idempotent_and_overwrite_replaces(workspace: Path) -> None:
    ctx = context(workspace)
    first = call("workspace.write_file", ctx, path="a.txt", content="one")
    assert call("workspace.write_file", ctx, path="a.txt", content="one") == first
    second = call("workspace.write_file", ctx, path="./a.txt", content="two!")
    assert second["path"] == "a.txt"
    assert second["bytes"] == 4
    assert (workspace / "a.txt").read_text() == "two!"
    assert [p.name for p in workspace.iterdir()] == ["a.txt"]


def test_write_file_creates_a_missing_workspace(tmp_path: Path) -> None:
    ctx = context(tmp_path / "fresh" / "ws")
    call("workspace.write_file", ctx, path="a.txt", content="x")
    assert (tmp_path / "fresh" / "ws" / "a.txt").read_text() == "x"


@pytest.mark.parametrize("escape", ["../out.txt", "a/../../out.txt", "a/../b.txt"])
def test_write_file_refuses_dotdot(tmp_path: Path, workspace: Path, escape: str) -> None:
    with pytest.raises(OperationError, match=re.escape("contains '..'")) as err:
        call("workspace.write_file", context(workspace), path=escape, content="x")
    assert str(workspace) in str(err.value)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["ws"]


def test_write_file_refuses_an_absolute_path(tmp_path: Path, workspace: Path) -> None:
    target = tmp_path / "abs.txt"
    with pytest.raises(OperationError, match="is absolute"):
        call("workspace.write_file", context(workspace), path=str(target), content="x")
    assert not target.exists()


def test_write_file_refuses_symlinks_that_lead_out(tmp_path: Path, workspace: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside / "victim.txt", "keep me")
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    (workspace / "victim.txt").symlink_to(outside / "victim.txt")
    for path in ("out/new.txt", "victim.txt", "out/deeper/new.txt"):
        with pytest.raises(OperationError, match="outside the workspace"):
            call("workspace.write_file", context(workspace), path=path, content="overwritten")
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert (outside / "victim.txt").read_text() == "keep me"


def test_write_file_refuses_a_directory_as_target(workspace: Path) -> None:
    (workspace / "d").mkdir()
    for path in ("d", "."):
        with pytest.raises(OperationError, match="is a directory"):
            call("workspace.write_file", context(workspace), path=path, content="x")


def test_write_file_under_a_file_is_a_lasting_error(workspace: Path) -> None:
    write(workspace / "plain", "x")
    with pytest.raises(OperationError, match=re.escape("cannot write 'plain/a.txt'")) as err:
        call("workspace.write_file", context(workspace), path="plain/a.txt", content="x")
    assert not err.value.retryable


def test_write_file_bounds_the_content(workspace: Path) -> None:
    with pytest.raises(ValidationError):
        WriteFileInputs(path="big.txt", content="x" * (MAX_WRITE_BYTES + 1))
    wide = "€" * (MAX_WRITE_BYTES // 3 + 1)  # within the character bound, over the byte bound
    with pytest.raises(OperationError, match=f"the limit is {MAX_WRITE_BYTES}"):
        call("workspace.write_file", context(workspace), path="big.txt", content=wide)
    assert list(workspace.iterdir()) == []


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(workspace / "a.txt", "old")

    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)  # the module builtin writes through
    with pytest.raises(OperationError, match="No space left on device") as err:
        call("workspace.write_file", context(workspace), path="a.txt", content="new")
    assert err.value.retryable
    monkeypatch.undo()
    assert os.listdir(workspace) == ["a.txt"]
    assert (workspace / "a.txt").read_text() == "old"
