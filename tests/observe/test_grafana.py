"""The Grafana dashboards and provisioning: every panel's query runs against ClickHouse (chdb) with a real run's
spans loaded, after the data source's macros are replaced as documented in docs/observability.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from alicorn.observe import clickhouse as ch
from alicorn.observe.export import trace
from tests.observe.conftest import Journal

GRAFANA = Path(__file__).resolve().parents[2] / "deploy" / "grafana"
PLUGIN = "grafana-clickhouse-datasource"
#: The dashboard's time range while testing: wide enough to hold the fixture's run (2026-11-30).
FROM, TO = "2026-01-01 00:00:00", "2027-01-01 00:00:00"


def substitute(sql: str) -> str:
    """The grafana-clickhouse-datasource macros as the plugin expands them, for the test's time range."""
    sql = re.sub(
        r"\$__timeFilter\((\w+)\)",
        lambda m: f"{m[1]} >= toDateTime('{FROM}') AND {m[1]} <= toDateTime('{TO}')",
        sql,
    )
    sql = re.sub(
        r"\$__timeInterval\((\w+)\)", lambda m: f"toStartOfInterval(toDateTime({m[1]}), INTERVAL 3600 second)", sql
    )
    sql = sql.replace("$__fromTime", f"toDateTime('{FROM}')").replace("$__toTime", f"toDateTime('{TO}')")
    sql = sql.replace("$__interval_s", "3600")
    if "$" in sql:
        raise AssertionError(f"a macro or variable the test does not know: {sql}")
    return sql


def panels() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted((GRAFANA / "dashboards").glob("*.json")):
        dashboard = json.loads(path.read_text())
        for panel in dashboard["panels"]:
            out.extend((f"{path.name}: {panel['title']}", target) for target in panel["targets"])
    return out


PANELS = panels()


@pytest.fixture(scope="module")
def loaded(journal: Journal, chdb_session: Any) -> Any:
    chdb_session.query(f"DROP TABLE IF EXISTS {ch.DATABASE}.{ch.TABLE}")
    ch.load(chdb_session, trace(journal.store, journal.ran.conversation).spans)
    return chdb_session


def test_the_dashboards_have_panels() -> None:
    assert len(PANELS) >= 10


@pytest.mark.parametrize(("title", "target"), PANELS, ids=[t for t, _ in PANELS])
def test_every_panel_query_runs_and_answers(loaded: Any, title: str, target: dict[str, Any]) -> None:
    assert target["datasource"] == {"type": PLUGIN, "uid": "alicorn-clickhouse"}
    rows = ch.select(loaded, substitute(target["rawSql"]))
    assert rows, f"{title}: no rows for a journal that has a finished run"


def test_provisioning_names_the_data_source_the_panels_use() -> None:
    sources = yaml.safe_load((GRAFANA / "provisioning" / "datasources" / "clickhouse.yaml").read_text())
    [source] = sources["datasources"]
    assert (source["type"], source["uid"], source["jsonData"]["defaultDatabase"]) == (
        PLUGIN,
        "alicorn-clickhouse",
        "otel",
    )
    assert "password" not in source["jsonData"] and source["secureJsonData"]["password"].startswith("${")
    boards = yaml.safe_load((GRAFANA / "provisioning" / "dashboards" / "alicorn.yaml").read_text())
    assert boards["providers"][0]["type"] == "file"
