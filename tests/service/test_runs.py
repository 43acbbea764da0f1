"""Runs, read: the list (filters, keyset paging, from the run index), a run's folded state, and its journal."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from alicorn.journal.events import Draft
from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.render import run_summaries
from alicorn.runtime.state import fold
from alicorn.service.index import INDEX_FILE, RunFilter, RunIndex
from tests.service.conftest import ENGINES, Served, at, engine_journal, serve_home


@pytest.fixture(params=ENGINES)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    """The served home on each engine: the run index walks SQLite's and PostgreSQL's heads alike."""
    yield from serve_home(tmp_path, engine_journal(request))


def another_store(served: Served) -> JournalStore:
    """A second store object on the served journal: its appends are not observed by the service's own."""
    if isinstance(served.store, PostgresJournalStore):
        return PostgresJournalStore(served.store.url, schema=served.store.schema)
    assert isinstance(served.store, SQLiteStore)
    return SQLiteStore(served.store.path)


def clone_run(store: JournalStore, source: str, name: str, when: str, **created: Any) -> None:
    """A copy of recorded run `source` as run `name`, created at `when` with some of its run.created fields set."""
    events = store.read(source)
    drafts = [Draft(e.kind, when, {**e.data, **created} if e.seq == 1 else e.data) for e in events]
    store.append(name, drafts, expect=0)


def _all_pages(client: httpx.Client, limit: int, **query: Any) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):
        params = {**query, "limit": limit, **({"cursor": cursor} if cursor else {})}
        page = client.get("/api/v1/runs", params=params).json()
        runs.extend(page["runs"])
        cursor = page["next_cursor"]
        if cursor is None:
            return runs
    raise AssertionError("paging did not end")


def test_the_list_is_the_same_fold_as_alicorn_runs(served: Served) -> None:
    with served.client("vic") as client:
        listed = {r["run"]: r for r in client.get("/api/v1/runs").json()["runs"]}
    expected = {s["run"]: s for s in run_summaries(served.store)}
    assert set(listed) == set(expected) == set(served.runs)
    for run, summary in expected.items():
        assert (listed[run]["status"], listed[run]["goal"], listed[run]["created_at"]) == (
            summary["status"], summary["goal"], summary["created"],
        )  # fmt: skip
        assert (listed[run]["nodes"], listed[run]["succeeded"]) == (summary["nodes"], summary["succeeded"])


def test_keyset_paging_returns_every_run_once_newest_first(served: Served) -> None:
    for i in range(23):  # several runs share a created time: the run id breaks the tie
        clone_run(served.store, "corpus-stop", f"run-clone-{i:02d}", at(20 + i % 5))
    with served.client("vic") as client:
        everything = client.get("/api/v1/runs", params={"limit": 500}).json()["runs"]
        for limit in (1, 4, 7, 50):
            paged = _all_pages(client, limit)
            assert [r["run"] for r in paged] == [r["run"] for r in everything]
    keys = [(r["created_at"], r["run"]) for r in everything]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys) == 23 + len(served.runs)


def test_filters(served: Served) -> None:
    clone_run(served.store, "corpus-stop", "run-ops-1", at(21), project="ops", proposed_by="agent:ops")
    clone_run(served.store, "corpus-stop", "run-ops-2", at(22, 6), project="ops", proposed_by="agent:ops")
    clone_run(served.store, "corpus-anvil-denied", "run-ops-3", at(23), project="ops", provenance="trigger")
    with served.client("vic") as client:

        def runs(**query: Any) -> set[str]:
            return {r["run"] for r in _all_pages(client, 2, **query)}

        assert runs(project="ops") == {"run-ops-1", "run-ops-2", "run-ops-3"}
        assert runs(project="ops", agent="agent:ops") == {"run-ops-1", "run-ops-2"}
        assert runs(agent="AGENT:Ops") == {"run-ops-1", "run-ops-2"}  # compared in canonical form
        assert runs(provenance="trigger") == {"run-ops-3"}
        assert runs(project="ops", status="denied") == {"run-ops-3"}
        assert runs(status=["denied", "rejected"]) == {"run-ops-3", "corpus-anvil-denied", "corpus-anvil-rejected"}
        assert runs(since="2026-12-22", until="2026-12-23T00:00:00Z") == {"run-ops-2"}
        assert runs(since="2026-12-22T07:00:00+01:00") == {"run-ops-2", "run-ops-3"}
        assert runs(project="nowhere") == set()


def test_workflow_comes_from_the_conversation_that_linked_the_run(served: Served) -> None:
    clone_run(served.store, "corpus-stop", "run-conv-a-1", at(24))
    conversation = [
        Draft("workflow.selected", at(24), {"workflow": "schedule", "decided_by": "examples"}),
        Draft("run.linked", at(24), {"run": "run-conv-a-1", "plan_hash": "x", "goal_hash": "y"}),
        Draft("run.linked", at(24), {"run": "run-conv-a-2", "plan_hash": "x", "goal_hash": "y"}),
    ]
    served.store.append("conv-a", conversation, expect=0)
    with served.client("vic") as client:
        assert {r["run"] for r in _all_pages(client, 5, workflow="schedule")} == {"run-conv-a-1"}
        clone_run(served.store, "corpus-stop", "run-conv-a-2", at(25))  # a run indexed after its link
        assert {r["run"] for r in _all_pages(client, 5, workflow="schedule")} == {"run-conv-a-1", "run-conv-a-2"}


def test_the_index_catches_up_and_is_only_a_cache(served: Served, tmp_path: Path) -> None:
    with served.client("vic") as client:
        assert len(client.get("/api/v1/runs").json()["runs"]) == len(served.runs)
        clone_run(served.store, "corpus-stop", "run-late", at(26))  # another connection appends: seen next request
        first = client.get("/api/v1/runs", params={"limit": 1}).json()["runs"][0]
        assert first["run"] == "run-late"
        head = served.store.head("run-late")
        assert head is not None
        served.store.append("run-late", [Draft("run.note", at(26), {"n": 1})], expect=head.seq)
        assert client.get("/api/v1/runs", params={"limit": 1}).json()["runs"][0]["events"] == head.seq + 1
    index_file = served.home / INDEX_FILE
    assert index_file.is_file()
    # The same projection folded from scratch elsewhere gives the same rows: the journal is the truth.
    fresh = RunIndex(served.store, tmp_path / "fresh.db")
    try:
        assert fresh.reconcile() >= len(served.runs) + 1
        assert fresh.reconcile() == 0  # nothing changed since: nothing is folded again
        with served.client("vic") as client:
            served_rows = client.get("/api/v1/runs", params={"limit": 500}).json()["runs"]
        assert fresh.page(RunFilter(), limit=500).runs == served_rows
    finally:
        fresh.close()


def test_appends_of_the_service_own_store_are_observed_not_scanned(served: Served) -> None:
    index = served.service.index
    index.inline_streams = -1  # never walk the heads on a request: only what observe reported is folded
    own = served.service.app.store
    with served.client("vic") as client:
        client.get("/api/v1/runs")
        clone_run(own, "corpus-stop", "run-own", at(28))
        assert client.get("/api/v1/runs", params={"limit": 1}).json()["runs"][0]["run"] == "run-own"


def test_writes_elsewhere_are_caught_up_in_the_background_on_big_journals(served: Served, tmp_path: Path) -> None:
    index = RunIndex(served.store, tmp_path / "bg.db", inline_streams=-1, min_interval_s=0.0)
    try:
        index.catch_up()  # the first one folds everything, inline
        assert index.count() == len(served.runs)
        with another_store(served) as elsewhere:  # another connection: not observed by `served.store`
            clone_run(elsewhere, "corpus-stop", "run-elsewhere", at(29))
        deadline = time.monotonic() + 10
        while index.count() == len(served.runs):
            assert time.monotonic() < deadline, "the background walk never caught up"
            index.catch_up()
            time.sleep(0.01)
        assert index.page(RunFilter(), limit=1).runs[0]["run"] == "run-elsewhere"
    finally:
        index.close()


def test_a_restored_journal_is_folded_again(served: Served, tmp_path: Path) -> None:
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    with SQLiteStore(first) as store:
        clone_run(served.store, "corpus-stop", "run-a", at(1))
        copy_into(served.store, store, "run-a", "run-a")
        copy_into(served.store, store, "corpus-fan-out", "run-b")
        index = RunIndex(store, tmp_path / "index.db")
        try:
            index.catch_up()
            assert {r["run"]: r["status"] for r in index.page(RunFilter(), limit=9).runs} == {
                "run-a": "stopped", "run-b": "succeeded",
            }  # fmt: skip
        finally:
            index.close()
    # Another journal, the same index file: run-a has other events (a restore), run-b is gone.
    with SQLiteStore(second) as store:
        copy_into(served.store, store, "corpus-anvil-denied", "run-a")
        index = RunIndex(store, tmp_path / "index.db")
        try:
            index.catch_up()
            assert [(r["run"], r["status"]) for r in index.page(RunFilter(), limit=9).runs] == [("run-a", "denied")]
        finally:
            index.close()


def copy_into(source: JournalStore, target: JournalStore, from_run: str, name: str) -> None:
    events = source.read(from_run)
    target.append(name, [Draft(e.kind, e.at, e.data) for e in events], expect=0)


def test_detail_is_the_fold_with_effects_and_decisions(served: Served) -> None:
    with served.client("vic") as client:
        detail = client.get("/api/v1/runs/corpus-anvil-approved").json()
    state = fold(served.store.read("corpus-anvil-approved"), "corpus-anvil-approved")
    assert detail["status"] == state.status == "succeeded"
    assert detail["plan_hash"] == state.plan_hash and detail["goal_hash"] == state.goal_hash
    assert [(n["node"], n["status"]) for n in detail["nodes"]] == [(i, state.nodes[i].status) for i in state.order]
    [effect] = detail["effects"]
    assert effect["key"] == state.effects_log[effect["node"]].key and effect["status"] == "done"
    assert effect["outcome_unknown"] is False
    assert [d["decision"] for d in detail["decisions"]] == ["needs_approval", "allow"]
    assert all(d["why"][0] == f"decision: {d['decision']}" for d in detail["decisions"])
    assert "rules that decided:" in detail["decisions"][1]["why"]
    assert detail["approvals"] and detail["approvals"][0]["by"] == "human:reviewer"


def test_detail_names_unknown_outcomes(served: Served) -> None:
    with served.client("vic") as client:
        details = [client.get(f"/api/v1/runs/{run}").json() for run in served.runs]
    for detail in details:
        state = fold(served.store.read(detail["run"]), detail["run"])
        assert detail["may_be_pending"] == [e.node for e in state.effects_log.values() if e.outcome_unknown]
        assert [e["outcome_unknown"] for e in detail["effects"]] == [
            e.outcome_unknown for e in state.effects_log.values()
        ]


def test_journal_paging_and_kind_filter(served: Served) -> None:
    run = "corpus-retry-alternative"
    events = served.store.read(run)
    with served.client("vic") as client:
        got: list[dict[str, Any]] = []
        after = 0
        while True:
            page = client.get(f"/api/v1/runs/{run}/journal", params={"after": after, "limit": 4}).json()
            got.extend(page["events"])
            if page["next_after"] is None:
                break
            after = page["next_after"]
        assert [(e["seq"], e["hash"], e["prev"]) for e in got] == [(e.seq, e.hash, e.prev) for e in events]
        tools = client.get(f"/api/v1/runs/{run}/journal", params={"kind": ["tool.", "node.failed"]}).json()
        expected = [e.seq for e in events if e.kind.startswith("tool.") or e.kind == "node.failed"]
        assert [e["seq"] for e in tools["events"]] == expected and expected
        late = client.get(f"/api/v1/runs/{run}/journal", params={"after": events[-2].seq}).json()
        assert [e["seq"] for e in late["events"]] == [events[-1].seq] and late["next_after"] is None
