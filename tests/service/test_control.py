"""Run control over real HTTP: resume, cancel, resolve an effect whose outcome is unknown, and `why` — each what
its CLI command does, with the signed-in person journaled; each refusal a problem detail that changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from alicorn.anvil.explain import explain_node, explain_run
from alicorn.crashpoints import ENV_VAR
from alicorn.journal.transfer import import_lines
from alicorn.plan.dsl import goal_digest
from alicorn.runtime.state import fold
from alicorn.testing.ledger import applied_keys
from tests.core.support import samples_as_project_data
from tests.service.acting import ROOT, interrupted_run, run_status, serving, wait_for

CORPUS = Path(__file__).parents[1] / "corpus"


def test_an_interrupted_run_is_resumed_on_request(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with serving(home) as served:
        run = interrupted_run(home, seconds=0.3)  # killed after the service started: nobody resumed it yet
        assert run_status(served, run) == "running"
        with served.client("vic") as client:
            refused = client.post(f"/api/v1/runs/{run}/resume")
        assert refused.status_code == 403 and run_status(served, run) == "running"
        with served.client("abe") as client:
            response = client.post(f"/api/v1/runs/{run}/resume")
            assert response.status_code == 202 and response.json()["location"] == f"/api/v1/runs/{run}"
            wait_for(lambda: run_status(served, run) == "succeeded", "the resumed run")
            before = served.heads()
            again = client.post(f"/api/v1/runs/{run}/resume")
        assert again.status_code == 409 and "already finished (succeeded)" in again.json()["detail"]
        assert served.heads() == before


def test_a_running_run_is_cancelled_by_the_person_who_asks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with serving(home) as served:
        run = interrupted_run(home, seconds=60)
        with served.client("abe") as client:
            assert client.post(f"/api/v1/runs/{run}/resume").status_code == 202
            wait_for(lambda: fold(served.store.read(run), run).sessions == 2, "the worker to drive it")
            response = client.post(f"/api/v1/runs/{run}/cancel", json={"reason": "not needed"})
            assert response.status_code == 202
            wait_for(lambda: run_status(served, run) == "cancelled", "the cancellation", timeout=20)
            before = served.heads()
            again = client.post(f"/api/v1/runs/{run}/cancel")
        assert again.status_code == 409 and served.heads() == before
        requested = [e.data for e in served.store.read(f"control:{run}") if e.kind == "cancel.requested"]
        assert requested == [{"by": "human:abe", "reason": "not needed"}]


def _blind_post_killed(home: Path) -> str:
    """A run whose effect (a post with no deduplication and no way to ask) happened, then its process was killed
    before the result was journaled: its outcome is unknown."""
    samples_as_project_data(home)
    with (home / "alicorn.toml").open("a", encoding="utf-8") as toml:
        toml.write('\n[operations]\nmodules = ["alicorn.testing.ledger:ledger_operations"]\n')
    inputs = {"ledger": {"value": "ledger.db"}, "account": {"value": "acme"}, "amount": {"value": 5}}
    plan = {
        "goal": "post once",
        "goal_hash": goal_digest("post once"),
        "nodes": [{"node_id": "post", "operation": "ledger.post_blind", "inputs": inputs}],
    }
    plan_file = home.parent / "post.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    child = [sys.executable, "-m", "alicorn.testing.child", str(home / "journal.db"), str(home)]
    result = subprocess.run(
        [*child, "--plan", str(plan_file), "--run-id", "run-blind"],
        cwd=ROOT, env={**os.environ, ENV_VAR: "after_effect"}, capture_output=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == -9, result.stderr.decode()
    return "run-blind"


def test_an_unknown_effect_is_resolved_by_a_person(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    run = _blind_post_killed(home)
    assert len(applied_keys(home / "ledger.db")) == 1  # it did happen
    with serving(home) as served:  # the service resumes it at start: the run then waits for a person
        wait_for(lambda: run_status(served, run) == "blocked", "the run to block on the unknown effect")
        before = served.heads()
        cases = [
            ("vic", "post", {"outcome": "applied"}, 403),
            ("abe-read", "post", {"outcome": "applied"}, 403),
            ("abe", "nowhere", {"outcome": "applied"}, 404),
            ("abe", "post", {"outcome": "maybe"}, 422),
            ("abe", "post", {"outcome": "applied", "output": {"entry": "one"}}, 422),  # not the operation's outputs
        ]
        for who, node, body, status in cases:
            with served.client(who) as client:
                response = client.post(f"/api/v1/runs/{run}/effects/{node}/resolve", json=body)
            assert response.status_code == status, (who, node, response.text)
            assert served.heads() == before
        with served.client("abe") as client:
            resume = client.post(f"/api/v1/runs/{run}/resume")
            assert resume.status_code == 409 and "/effects/NODE/resolve" in resume.json()["detail"]
            output = {"entry": 1, "account": "acme", "amount": 5}
            response = client.post(
                f"/api/v1/runs/{run}/effects/post/resolve",
                json={"outcome": "applied", "output": output, "note": "the ledger has entry 1"},
            )
            assert response.status_code == 202
        wait_for(lambda: run_status(served, run) == "succeeded", "the resolved run")
        resolved = next(e.data for e in served.store.read(run) if e.kind == "effect.resolved")
        assert (resolved["by"], resolved["applied"], resolved["output"]) == ("human:abe", True, output)
        assert resolved["note"] == "the ledger has entry 1"
    assert len(applied_keys(home / "ledger.db")) == 1  # never posted twice


def test_why_is_the_sentence_alicorn_why_prints(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with serving(home) as served:
        run = import_lines(served.store, (CORPUS / "anvil-denied.jsonl").read_text().splitlines())[0]
        events = served.store.read(run)
        decision = next(e for e in events if e.kind == "anvil.check")
        node = decision.data["nodes"][0]
        with served.client("vic-read") as client:
            every = client.get(f"/api/v1/why/{run}").json()["explanations"]
            one = client.get(f"/api/v1/why/{run}/{decision.seq}").json()["explanations"]
            covering = client.get(f"/api/v1/why/{run}/{node}").json()["explanations"]
            not_a_decision = client.get(f"/api/v1/why/{run}/1")
            no_node = client.get(f"/api/v1/why/{run}/no-such-node")
            no_run = client.get("/api/v1/why/run-nowhere/3")
            anonymous = served.client(None).get(f"/api/v1/why/{run}")
        assert [e["text"] for e in every] == [e.text() for e in explain_run(served.store, run)]
        assert [e["text"] for e in one] == [explain_run(served.store, f"{run}#{decision.seq}")[0].text()]
        assert [e["text"] for e in covering] == [e.text() for e in explain_node(served.store, run, node)]
        assert one[0]["decision"] == "deny"
        assert not_a_decision.status_code == 404 and "not a decision" in not_a_decision.json()["detail"]
        assert no_node.status_code == 404 and "has no node" in no_node.json()["detail"]
        assert no_run.status_code == 404 and anonymous.status_code == 401


def test_control_refusals_change_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with serving(home) as served:
        finished = import_lines(served.store, (CORPUS / "stop.jsonl").read_text().splitlines())[0]
        before = served.heads()
        cases = [
            (None, f"/api/v1/runs/{finished}/cancel", 401),
            ("vic", f"/api/v1/runs/{finished}/cancel", 403),
            ("abe-read", f"/api/v1/runs/{finished}/cancel", 403),
            ("abe", f"/api/v1/runs/{finished}/cancel", 409),
            ("abe", f"/api/v1/runs/{finished}/resume", 409),
            ("abe", "/api/v1/runs/run-nowhere/cancel", 404),
            ("abe", "/api/v1/runs/control:people/cancel", 404),  # a control stream is not a run
            ("abe", f"/api/v1/runs/{finished}/effects/x/resolve", 422),  # no outcome
        ]
        for who, path, status in cases:
            with served.client(who) as client:
                response = client.post(path, json={})
            assert response.status_code == status, (who, path, response.text)
            assert response.headers["content-type"].startswith("application/problem+json")
            assert served.heads() == before, (who, path)
