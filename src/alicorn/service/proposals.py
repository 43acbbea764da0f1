"""The inbox over HTTP: runs waiting for a human, and approving or rejecting them (what `alicorn proposals`,
`alicorn approve` and `alicorn reject` do, through the same checks and the same executor).

An approval or a rejection names the plan hash the person reviewed: a hash that is not the run's current plan's is
stale (409, naming the current one). Deciding needs the approver role and a write token, and is refused (403) to
the plan's proposer and to an agent, exactly as the CLI refuses it: before anything is journaled. What passes is
journaled by a worker, with the signed-in person as the decider and signed with their key in the home
(`People.seal`), then the run goes on (or ends `rejected`) and its conversation, if it has one, reports.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from alicorn.anvil.errors import AgentApprovalError, ApprovalError, ProposerApprovalError
from alicorn.anvil.proposals import envelope, list_proposals
from alicorn.errors import RunError
from alicorn.runtime.humans import Approval, Rejection, check_approvals, check_rejection
from alicorn.runtime.state import RunState
from alicorn.service.actions import Actions, accepted
from alicorn.service.auth import Caller, needs
from alicorn.service.problems import Problem
from alicorn.service.shared import API
from alicorn.service.web_passkeys import proof_for_api

PlanHash = Annotated[str, Field(min_length=1, max_length=200, description="The plan hash you reviewed.")]


class Approving(BaseModel):
    model_config = ConfigDict(extra="forbid")
    plan_hash: PlanHash
    comment: Annotated[str, Field(max_length=2000)] = ""
    passkey: dict[str, Any] | None = Field(
        None,
        description="A WebAuthn assertion (PublicKeyCredential JSON) answering POST /api/v1/passkeys/"
        "approval-challenge for this run, plan hash and comment; needed when the home requires passkeys.",
    )


class Rejecting(BaseModel):
    model_config = ConfigDict(extra="forbid")
    plan_hash: PlanHash
    reason: Annotated[str, Field(min_length=1, max_length=2000)]


def router(actions: Actions, signed_in: Any) -> APIRouter:
    """The proposal routes over `actions`; `signed_in` is the app's token dependency."""
    routes = APIRouter(prefix=f"{API}/proposals", tags=["proposals"])

    reader = needs(signed_in, "viewer", "read", "read proposals")
    decider = needs(signed_in, "approver", "write", "approve or reject runs")

    @routes.get("", summary="Runs waiting for a human: effects, destinations, recipients, changes and why")
    def inbox(_: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        return {"proposals": [p.model_dump(mode="json") for p in list_proposals(actions.store)]}

    @routes.get("/{run_id}", summary="One run's proposal (404 when it waits for no approval)")
    def one(run_id: str, _: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        found = envelope(actions.service.run_events(run_id))
        if found is None:
            raise Problem(404, "not-a-proposal", f"run {run_id} waits for no approval; GET {API}/proposals lists those")
        return found.model_dump(mode="json")

    @routes.post("/{run_id}/approve", status_code=202, summary="Approve as yourself, bound to the plan hash")
    def approve(run_id: str, body: Approving, caller: Annotated[Caller, Depends(decider)]) -> JSONResponse:
        state = _waiting(actions, run_id, "approve")
        unbound = Approval(caller.person, body.comment)  # who may: 403 first; then which plan: 409
        _refusals(lambda: check_approvals([unbound], state.proposed_by, run_id, state.plan_hash, actions.people))
        _current(state, body.plan_hash, "approve")
        proof = proof_for_api(actions.service, caller.person, state, body.comment, body.passkey)
        mine = Approval(caller.person, body.comment, body.plan_hash, passkey=proof)
        actions.drive(run_id, f"approve {run_id}", approvals=[mine])
        return accepted(run_id)

    @routes.post("/{run_id}/reject", status_code=202, summary="Refuse as yourself: the run ends with no effect")
    def reject(run_id: str, body: Rejecting, caller: Annotated[Caller, Depends(decider)]) -> JSONResponse:
        state = _waiting(actions, run_id, "reject")
        mine = Rejection(caller.person, body.reason)
        _refusals(lambda: check_rejection(mine, state.proposed_by, run_id, actions.people))
        _current(state, body.plan_hash, "reject")
        actions.drive(run_id, f"reject {run_id}", rejection=mine)
        return accepted(run_id)

    return routes


def _waiting(actions: Actions, run_id: str, action: str) -> RunState:
    state = actions.run(run_id)
    if state.status != "awaiting_approval":
        more = f"; it was replaced by run {state.replaced_by}: {action} that one" if state.replaced_by else ""
        raise Problem(
            409, "not-awaiting-approval", f"run {run_id} is {state.status}, not waiting for an approval{more}"
        )
    return state


def _refusals(check: Any) -> None:
    """Run the CLI's own checks; each refusal a problem detail (403: this person may not decide)."""
    try:
        check()
    except (AgentApprovalError, ProposerApprovalError) as exc:
        raise Problem(403, "proposer-may-not-decide", str(exc)) from None
    except ApprovalError as exc:
        raise Problem(403, "may-not-decide", str(exc)) from None
    except RunError as exc:
        raise Problem(422, "decision-refused", str(exc)) from None


def _current(state: RunState, plan_hash: str, action: str) -> None:
    if plan_hash != state.plan_hash:
        raise Problem(
            409, "stale-plan-hash",
            f"plan hash {plan_hash[:24]} is not run {state.run_id}'s current plan, which is {state.plan_hash}: "
            f"look at that plan (GET {API}/proposals/{state.run_id}) and {action} its hash; nothing was done",
            current_plan_hash=state.plan_hash,
        )  # fmt: skip
