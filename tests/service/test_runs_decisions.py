"""The run list's `decision` and `approver` filters over real HTTP, and an index of an older format rebuilt."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from alicorn.journal.events import Draft
from alicorn.service.index import RunFilter, RunIndex
from tests.service.conftest import Served, at
from tests.service.test_runs import _all_pages, clone_run


def test_decision_is_anvils_at_admission_and_approver_is_who_approved(served: Served) -> None:
    # Copies of the approved run, approved by someone else (the approver is folded from each run's own stream);
    # several share a created time, so paging by two crosses ties in the approvers' own order.
    events = served.store.read("corpus-anvil-approved")
    abes = [f"run-approved-by-abe-{i}" for i in range(5)]
    for i, name in enumerate(abes):
        drafts = [
            Draft(e.kind, at(21, i % 2), {**e.data, "by": "human:abe"} if e.kind == "approval.granted" else e.data)
            for e in events
        ]
        served.store.append(name, drafts, expect=0)
    clone_run(served.store, "corpus-anvil-denied", "run-denied-again", at(22))
    with served.client("vic") as client:

        def runs(**query: Any) -> set[str]:
            return {r["run"] for r in _all_pages(client, 2, **query)}

        needed = {"corpus-anvil-approved", "corpus-anvil-rejected", *abes}
        assert runs(decision="needs_approval") == needed  # approved later: admitted as needing approval
        assert runs(decision="deny") == {"corpus-anvil-denied", "run-denied-again"}
        allowed = runs(decision="allow")
        assert "corpus-alarms" in allowed and not allowed & (needed | {"corpus-anvil-denied"})
        assert runs(approver="reviewer") == {"corpus-anvil-approved"}
        assert runs(approver="HUMAN:Abe") == set(abes)  # compared in canonical form
        assert runs(approver="abe", decision="needs_approval", project="default") == set(abes)
        paged = [r["run"] for r in _all_pages(client, 2, approver="abe")]
        everything = [r["run"] for r in client.get("/api/v1/runs", params={"limit": 500}).json()["runs"]]
        assert paged == [run for run in everything if run in abes]  # newest first, each once
        assert runs(approver="abe", since=at(21, 1)) == {abes[1], abes[3]}
        assert runs(approver="abe", decision="deny") == set()
        assert runs(approver="nobody") == set()
        rows = {r["run"]: r for r in client.get("/api/v1/runs", params={"limit": 500}).json()["runs"]}
        assert (rows["corpus-anvil-approved"]["decision"], rows["corpus-anvil-approved"]["approvers"]) == (
            "needs_approval", ["human:reviewer"],
        )  # fmt: skip
        assert (rows["corpus-anvil-rejected"]["decision"], rows["corpus-anvil-rejected"]["approvers"]) == (
            "needs_approval", [],
        )  # fmt: skip
        bad_decision = client.get("/api/v1/runs", params={"decision": "maybe"})
        assert bad_decision.status_code == 422 and bad_decision.json()["type"].endswith("/invalid-input")
        agent = client.get("/api/v1/runs", params={"approver": "agent:scribe"})
        assert agent.status_code == 422 and agent.json()["type"].endswith("/invalid-approver")
        assert "is an agent; people are humans" in agent.json()["detail"]


_OLD_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE streams (stream TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL);
CREATE TABLE runs (
    run TEXT PRIMARY KEY, status TEXT NOT NULL, project TEXT NOT NULL, workflow TEXT, agent TEXT NOT NULL,
    provenance TEXT NOT NULL, goal TEXT NOT NULL, plan_hash TEXT NOT NULL, created_at TEXT NOT NULL,
    finished_at TEXT, nodes INTEGER NOT NULL, succeeded INTEGER NOT NULL, events INTEGER NOT NULL
);
INSERT INTO meta VALUES ('version', '2');
"""


def test_an_index_of_the_previous_format_is_rebuilt_from_the_journal(served: Served, tmp_path: Path) -> None:
    """A format-2 index (no decision, no approvers) that claims to know every stream's head: opening it drops its
    tables and folds the journal again, so the new columns are filled rather than left empty."""
    path = tmp_path / "old-index.db"
    old = sqlite3.connect(path)
    old.executescript(_OLD_SCHEMA)
    for name, head in served.store.heads().items():
        old.execute("INSERT INTO streams VALUES (?, ?, ?)", (name, head.seq, head.hash))
    old.execute(
        "INSERT INTO runs VALUES ('run-ghost', 'running', 'default', NULL, 'human:x', 'human', 'g', 'h', "
        "'2026-01-01T00:00:00.000000Z', NULL, 1, 0, 1)"
    )
    old.commit()
    old.close()
    index = RunIndex(served.store, path)  # type: ignore[arg-type]
    try:
        found = {r["run"]: r for r in index.page(RunFilter(), limit=500).runs}
        assert set(found) == set(served.runs)  # the ghost row of the old file is gone
        assert found["corpus-anvil-approved"]["approvers"] == ["human:reviewer"]
        approved = index.page(RunFilter(approver="human:reviewer"), limit=5).runs
        assert [r["run"] for r in approved] == ["corpus-anvil-approved"]
    finally:
        index.close()
    with sqlite3.connect(path) as reopened:
        assert reopened.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == ("3",)
