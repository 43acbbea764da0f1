"""The inbox over real HTTP: what waits for a person, and approving or rejecting it as the signed-in person, bound
to the plan hash, signed with their key; every refusal a problem detail that changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alicorn.anvil.proposals import list_proposals
from alicorn.app import open_app
from alicorn.plan.dsl import Plan
from alicorn.runtime.signatures import audit_decisions
from alicorn.runtime.state import fold
from tests.service.acting import (
    SEND,
    Acting,
    acting_on_each_engine,
    ask,
    run_status,
    settled,
    wait_for,
)

acting = acting_on_each_engine  # the acting service on each journal engine


def _waiting(acting: Acting) -> tuple[str, str, dict[str, Any]]:
    """A conversation whose plan (proposed by agent:planner) waits for approval: (conversation, run, its body)."""
    with acting.client("ada") as client:
        conv = ask(client, SEND)
        body = settled(client, conv, waiting="approval")
    return conv, body["run"], body


def _proposed_by(acting: Acting, person: str, like: str) -> str:
    """A run of the same plan as run `like`, proposed by `person` (as `alicorn run` does), waiting for approval."""
    application = open_app(acting.home)
    try:
        source = fold(application.store.read(like), like)
        terms = application.anvil.terms(person, project=source.project)
        state = application.executor(Path(source.data_root)).start(Plan.model_validate(source.plan), terms=terms)
    finally:
        application.close()
    assert state.status == "awaiting_approval"
    return state.run_id


def test_the_inbox_is_what_alicorn_proposals_shows(acting: Acting) -> None:
    _, run, _ = _waiting(acting)
    with acting.client("vic-read") as client:
        listed = client.get("/api/v1/proposals").json()["proposals"]
        one = client.get(f"/api/v1/proposals/{run}").json()
    expected = [p.model_dump(mode="json") for p in list_proposals(acting.store)]
    assert listed == expected and [p["run"] for p in listed] == [run]
    assert one == expected[0]
    assert one["proposed_by"] == "agent:planner" and "external_transmission" in one["classes"]
    assert one["reasons"] and one["actions"]  # why approval is needed, and what each acting node will do


def test_an_approval_is_journaled_for_the_person_signed_and_the_conversation_reports(acting: Acting) -> None:
    conv, run, body = _waiting(acting)
    plan_hash = body["proposal"]["plan_hash"]
    with acting.client("abe") as client:
        response = client.post(f"/api/v1/proposals/{run}/approve", json={"plan_hash": plan_hash, "comment": "ok"})
        assert response.status_code == 202 and response.headers["location"] == f"/api/v1/runs/{run}"
        report = settled(client, conv, phase="reported")["report"]
    assert report["outcome"] == "complete"
    assert run_status(acting, run) == "succeeded"
    granted = [e.data for e in acting.store.read(run) if e.kind == "approval.granted"]
    assert len(granted) == 1 and granted[0]["by"] == "human:abe" and granted[0]["comment"] == "ok"
    assert granted[0]["plan_hash"] == plan_hash and granted[0]["seal"]["signer"] == "human:abe"
    assert audit_decisions(acting.store, [run]) == []  # the signature verifies against abe's journaled key


def test_a_rejection_ends_the_run_with_no_effect(acting: Acting) -> None:
    conv, run, body = _waiting(acting)
    with acting.client("amy") as client:
        response = client.post(
            f"/api/v1/proposals/{run}/reject", json={"plan_hash": body["proposal"]["plan_hash"], "reason": "no"}
        )
        assert response.status_code == 202
        settled(client, conv, phase="reported")
    kinds = [e.kind for e in acting.store.read(run)]
    assert run_status(acting, run) == "rejected" and "effect.intended" not in kinds
    rejected = next(e.data for e in acting.store.read(run) if e.kind == "approval.rejected")
    assert rejected["by"] == "human:amy" and rejected["seal"]["signer"] == "human:amy"
    assert audit_decisions(acting.store, [run]) == []


def test_refusals_change_nothing(acting: Acting) -> None:
    _, run, body = _waiting(acting)
    plan_hash = body["proposal"]["plan_hash"]
    own = _proposed_by(acting, "human:abe", run)
    good = {"plan_hash": plan_hash, "comment": ""}
    before = acting.heads()
    cases: list[tuple[str | None, str, dict[str, Any], int, str]] = [
        (None, f"{run}/approve", {"json": good}, 401, "not-signed-in"),
        ("vic", f"{run}/approve", {"json": good}, 403, "role-not-allowed"),  # a viewer, even with a write token
        ("abe-read", f"{run}/approve", {"json": good}, 403, "scope-not-allowed"),  # an approver's read token
        ("abe", f"{own}/approve", {"json": {**good, "plan_hash": plan_hash}}, 403, "proposer-may-not-decide"),
        ("abe", f"{run}/approve", {"json": {**good, "plan_hash": "0" * 64}}, 409, "stale-plan-hash"),
        ("abe", f"{run}/reject", {"json": {"plan_hash": "0" * 64, "reason": "no"}}, 409, "stale-plan-hash"),
        ("abe", f"{run}/approve", {"json": {"comment": "no hash"}}, 422, "invalid-input"),
        ("abe", f"{run}/reject", {"json": {"plan_hash": plan_hash}}, 422, "invalid-input"),  # no reason
        ("abe", f"{run}/approve", {"content": b"{not json", "headers": {"Content-Type": "application/json"}}, 400,
         "malformed-json"),
        ("abe", f"{run}/approve", {"json": {**good, "comment": "x" * 70_000}}, 413, "body-too-large"),
        ("abe", "run-nowhere/approve", {"json": good}, 404, "unknown-run"),
        ("abe", "corpus-nothing/reject", {"json": {"plan_hash": plan_hash, "reason": "no"}}, 404, "unknown-run"),
    ]  # fmt: skip
    for who, path, options, status, slug in cases:
        with acting.client(who) as client:
            response = client.post(f"/api/v1/proposals/{path}", **options)
        assert response.status_code == status, (who, path, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["type"].endswith("/" + slug), (who, path, response.json())
        assert acting.heads() == before, (who, path)
    with acting.client("abe") as client:
        stale = client.post(f"/api/v1/proposals/{run}/approve", json={**good, "plan_hash": "0" * 64}).json()
    assert stale["current_plan_hash"] == plan_hash and plan_hash in stale["detail"]
    assert run_status(acting, run) == run_status(acting, own) == "awaiting_approval"


def test_a_decided_run_is_not_decided_again(acting: Acting) -> None:
    conv, run, body = _waiting(acting)
    plan_hash = body["proposal"]["plan_hash"]
    with acting.client("abe") as client:
        assert client.post(f"/api/v1/proposals/{run}/approve", json={"plan_hash": plan_hash}).status_code == 202
        wait_for(lambda: run_status(acting, run) == "succeeded", "the approved run")
        settled(client, conv, phase="reported")
        before = acting.heads()
        again = client.post(f"/api/v1/proposals/{run}/approve", json={"plan_hash": plan_hash})
        gone = client.get(f"/api/v1/proposals/{run}")
    assert again.status_code == 409 and "succeeded, not waiting for an approval" in again.json()["detail"]
    assert gone.status_code == 404
    assert acting.heads() == before


def test_a_proposer_may_reject_their_own_proposal_as_the_cli_allows(acting: Acting) -> None:
    _, run, body = _waiting(acting)
    own = _proposed_by(acting, "human:abe", run)
    with acting.client("abe") as client:
        refused = client.post(f"/api/v1/proposals/{own}/approve", json={"plan_hash": body["proposal"]["plan_hash"]})
        assert refused.status_code == 403
        taken_back = client.post(
            f"/api/v1/proposals/{own}/reject", json={"plan_hash": body["proposal"]["plan_hash"], "reason": "mine"}
        )
        assert taken_back.status_code == 202
    wait_for(lambda: run_status(acting, own) == "rejected", "the proposer's rejection")


def test_an_agent_never_holds_a_token_so_it_can_never_approve(acting: Acting) -> None:
    before = acting.heads()
    with acting.client("ada") as client:
        response = client.post("/api/v1/tokens", json={"person": "agent:planner", "scope": "write"})
    assert response.status_code == 422 and "agent" in response.json()["detail"]
    assert acting.heads() == before
