"""The table operations an ordinary request on files needs: read text, select, group and aggregate, join, write CSV.

Each is checked on a small table whose answer is known, on its bad inputs (a clear error naming the record or the
field), and end to end: a plan read_csv → join → group → sort → write_csv over the user's files runs through the
executor, and its CSV holds the known totals.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from alicorn.app import standard_registry
from alicorn.errors import OperationError
from alicorn.journal.memory import InMemoryStore
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Executor, RunEnvironment

from .helpers import context

REGISTRY = standard_registry()


def call(name: str, ctx: Any, **inputs: Any) -> dict[str, Any]:
    """Run operation `name` on JSON inputs, the way the runtime does, and return its outputs as JSON."""
    op = REGISTRY.get(name)
    result = op.run(op.inputs.model_validate(inputs), ctx)
    dumped: dict[str, Any] = result.model_dump(mode="json")
    return dumped


ORDERS = [
    {"customer": "ann", "region": "north", "items": 3, "total": 12.5},
    {"customer": "bob", "region": "south", "items": 10, "total": 40.0},
    {"customer": "ann", "region": "north", "items": 9, "total": 30.0},
    {"customer": "cid", "region": "south", "items": None, "total": 5.0},
]
CUSTOMERS = [{"customer": "ann", "name": "Ann Lee"}, {"customer": "bob", "name": "Bob Ray"}]


def test_select_keeps_renames_and_orders_fields(tmp_path: Path) -> None:
    out = call("records.select", context(tmp_path), records=ORDERS[:2], fields=["total", "customer", "missing"],
               rename={"customer": "who"})  # fmt: skip
    assert out["records"] == [
        {"total": 12.5, "who": "ann", "missing": None},
        {"total": 40.0, "who": "bob", "missing": None},
    ]
    with pytest.raises(ValidationError, match="not kept"):
        REGISTRY.get("records.select").inputs.model_validate({"records": [], "fields": ["a"], "rename": {"b": "c"}})
    with pytest.raises(ValidationError, match="same name"):
        REGISTRY.get("records.select").inputs.model_validate(
            {"records": [], "fields": ["a", "b"], "rename": {"a": "b"}}
        )


def test_group_aggregates_in_first_seen_order(tmp_path: Path) -> None:
    aggregates = [
        {"op": "count", "name": "orders"},
        {"op": "count", "field": "items", "name": "with_items"},
        {"op": "sum", "field": "items", "name": "items"},
        {"op": "sum", "field": "total", "name": "revenue"},
        {"op": "mean", "field": "total", "name": "mean"},
        {"op": "min", "field": "total", "name": "smallest"},
        {"op": "max", "field": "items", "name": "most"},
        {"op": "distinct", "field": "customer", "name": "customers"},
    ]
    out = call("records.group", context(tmp_path), records=ORDERS, by=["region"], aggregates=aggregates)
    assert out["records"] == [
        {"region": "north", "orders": 2, "with_items": 2, "items": 12, "revenue": 42.5, "mean": 21.25,
         "smallest": 12.5, "most": 9, "customers": 1},
        {"region": "south", "orders": 2, "with_items": 1, "items": 10, "revenue": 45.0, "mean": 22.5,
         "smallest": 5.0, "most": 10, "customers": 2},
    ]  # fmt: skip
    total = call("records.group", context(tmp_path), records=[], aggregates=[{"op": "count", "name": "n"}])
    assert total["records"] == [{"n": 0}]  # no group fields: one total row, also over nothing


def test_group_refuses_text_where_a_number_is_aggregated_naming_the_record(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"total": 1}, {"total": "12,50"}]
    with pytest.raises(OperationError, match=r"record 1: field 'total' is '12,50', not a number"):
        call(
            "records.group", context(tmp_path), records=rows, aggregates=[{"op": "sum", "field": "total", "name": "s"}]
        )
    with pytest.raises(ValidationError, match="needs the field"):
        REGISTRY.get("records.group").inputs.model_validate({"records": [], "aggregates": [{"op": "sum", "name": "s"}]})
    with pytest.raises(ValidationError, match="its own name"):
        REGISTRY.get("records.group").inputs.model_validate(
            {"records": [], "by": ["a"], "aggregates": [{"op": "count", "name": "a"}]}
        )


def test_join_inner_and_left_keep_the_left_order_and_prefix_clashing_fields(tmp_path: Path) -> None:
    inner = call("records.join", context(tmp_path), left=ORDERS, right=CUSTOMERS, on=["customer"])
    assert [r["name"] for r in inner["records"]] == ["Ann Lee", "Bob Ray", "Ann Lee"]
    assert inner["unmatched"] == 1 and inner["count"] == 3
    left = call("records.join", context(tmp_path), left=ORDERS, right=CUSTOMERS, on=["customer"], how="left")
    assert left["count"] == 4 and "name" not in left["records"][3]
    clash = call("records.join", context(tmp_path), left=[{"k": 1, "v": "l"}], right=[{"k": 1, "v": "r"}], on=["k"])
    assert clash["records"] == [{"k": 1, "v": "l", "right_v": "r"}]


def test_read_text_reads_utf8_whole_and_refuses_binary(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("\ufeffpierwsza linia\nвторая строка\n", encoding="utf-8")
    out = call("data.read_text", context(tmp_path), path="notes.txt")
    assert out == {"text": "pierwsza linia\nвторая строка\n", "lines": 2, "chars": 29}
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(OperationError, match="binary file, not text"):
        call("data.read_text", context(tmp_path), path="photo.png")
    with pytest.raises(OperationError, match=r"no file 'gone\.txt'"):
        call("data.read_text", context(tmp_path), path="gone.txt")


def test_write_csv_writes_a_header_and_quotes_what_needs_it(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"name": "Lee, Ann", "n": 2, "ok": True}, {"name": 'say "hi"', "tags": ["a"]}]
    out = call("workspace.write_csv", context(tmp_path), path="out/report.csv", records=rows)
    assert out["columns"] == ["name", "n", "ok", "tags"] and out["rows"] == 2
    text = (tmp_path / "out" / "report.csv").read_text(encoding="utf-8")
    assert list(csv.reader(io.StringIO(text))) == [
        ["name", "n", "ok", "tags"],
        ["Lee, Ann", "2", "true", ""],
        ['say "hi"', "", "", '["a"]'],
    ]
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "link").symlink_to(tmp_path)  # a symlink may not lead a write out of the workspace
    with pytest.raises(OperationError, match="outside the workspace"):
        call("workspace.write_csv", context(tmp_path / "ws"), path="link/x.csv", records=rows)


def test_an_ordinary_question_on_files_is_a_plan_of_these_operations(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "orders.csv").write_text("customer,items\nann,3\nbob,10\nann,9\ncid,1\n", encoding="utf-8")
    (data / "customers.csv").write_text("customer,region\nann,north\nbob,south\ncid,south\n", encoding="utf-8")

    def node(node_id: str, operation: str, **inputs: Any) -> dict[str, Any]:
        bound = {k: v if isinstance(v, dict) and "ref" in v else {"value": v} for k, v in inputs.items()}
        return {"node_id": node_id, "operation": operation, "inputs": bound}

    def ref(node_id: str) -> dict[str, Any]:
        return {"ref": {"node": node_id, "output": "records"}}

    goal = "items ordered per region, largest first, as a CSV"
    plan = Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": [
        node("orders", "data.read_csv", path="orders.csv", columns={"items": "int"}),
        node("customers", "data.read_csv", path="customers.csv"),
        node("joined", "records.join", left=ref("orders"), right=ref("customers"), on=["customer"]),
        node("per_region", "records.group", records=ref("joined"), by=["region"],
             aggregates=[{"op": "sum", "field": "items", "name": "items"}, {"op": "count", "name": "orders"}]),
        node("ordered", "records.sort", records=ref("per_region"), by=["items"], descending=True),
        node("save", "workspace.write_csv", path="per_region.csv", records=ref("ordered")),
    ]})  # fmt: skip
    store = InMemoryStore()
    executor = Executor(store, REGISTRY, RunEnvironment(tmp_path / "ws", data))
    state = executor.start(plan, run_id="run-tables")
    assert state.status == "succeeded", state
    text = (tmp_path / "ws" / "run-tables" / "per_region.csv").read_text(encoding="utf-8")
    assert text == "region,items,orders\nnorth,12,2\nsouth,11,2\n"
