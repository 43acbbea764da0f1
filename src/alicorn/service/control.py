"""Run control over HTTP: cancel, resume, resolve an effect whose outcome is unknown, and `why` for a decision.

Each does what its CLI command does, with the signed-in person as the one who did it: `alicorn cancel` journals a
cancellation request (`request_cancel`) that whoever drives the run obeys at its next step; `alicorn resume`
continues an interrupted run; `alicorn resume --resolve NODE=applied|not-applied` journals a person's finding about
an effect. Changing a run needs the approver role and a write token; the state is checked first (409 when the run
is not in a state the action applies to), so a refused request changes nothing. The driving is the workers'.
`resolve_effect` is the one way to resolve: the API's route and the run page's form (alicorn.service.web_effects)
both call it.
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.anvil.errors import AnvilError
from alicorn.anvil.explain import Explanation, explain_node, explain_run
from alicorn.errors import RunError, StreamLockedError
from alicorn.runtime.executor import Resolution, request_cancel
from alicorn.runtime.state import fold
from alicorn.service.actions import Actions, accepted
from alicorn.service.auth import Caller, needs
from alicorn.service.problems import Problem
from alicorn.service.shared import API


class Cancelling(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(min_length=1, max_length=500)] = "cancelled by the operator"


class Resolving(BaseModel):
    model_config = ConfigDict(extra="forbid")
    outcome: Literal["applied", "not-applied"]
    output: dict[str, Any] | None = Field(default=None, description="The effect's output, when it was applied.")
    note: Annotated[str, Field(max_length=500, description="How the person knows (journaled with it).")] = ""


def resolve_effect(
    actions: Actions, run_id: str, node: str, *, applied: bool, by: str, output: dict[str, Any] | None, note: str
) -> None:
    """Check that `node` of `run_id` waits for a person's finding, that `output` fits its operation when `applied`,
    and queue the finding (by `by`) on the workers; Problem (404, 409, 422) before anything is journaled otherwise."""
    state = actions.run(run_id)
    if node not in state.nodes:
        nodes = ", ".join(state.order)
        raise Problem(404, "unknown-node", f"run {run_id} has no node {node!r}; its nodes: {nodes}")
    if state.status != "blocked" or node not in state.blocked():
        waiting = ", ".join(state.blocked()) or "none"
        raise Problem(
            409, "no-unknown-effect",
            f"node {node!r} of run {run_id} has no effect waiting for a decision (waiting: {waiting}); nothing "
            "was done",
        )  # fmt: skip
    checked = None
    if applied:
        operation = next(n["operation"] for n in state.plan["nodes"] if n["node_id"] == node)
        try:
            outputs = actions.service.app.registry.get(operation).outputs
            checked = outputs.model_validate(output or {}).model_dump(mode="json")
        except ValidationError as exc:
            raise Problem(
                422, "invalid-output",
                f"the output given for {node!r} does not match {operation}'s outputs "
                f"({exc.errors()[0]['msg']}); send it as `output`; nothing was done",
            ) from None  # fmt: skip
    finding = Resolution(node, applied, by, checked, note.strip())
    actions.drive(run_id, f"resolve {node} of {run_id}", resolutions=[finding])


def router(actions: Actions, signed_in: Any) -> APIRouter:
    """The run-control and `why` routes over `actions`; `signed_in` is the app's token dependency."""
    routes = APIRouter(prefix=API, tags=["runs"])
    store = actions.store

    reader = needs(signed_in, "viewer", "read", "read why a decision was made")
    operator = needs(signed_in, "approver", "write", "cancel, resume or resolve runs")

    @routes.post("/runs/{run_id}/cancel", status_code=202, summary="Cancel: no new effects, completed ones compensated")
    def cancel(
        run_id: str, caller: Annotated[Caller, Depends(operator)], body: Cancelling | None = None
    ) -> JSONResponse:
        state = actions.run(run_id)
        if state.finished:
            raise Problem(409, "run-finished", f"run {run_id} already finished ({state.status}); nothing to cancel")
        if state.status == "awaiting_approval":
            raise Problem(
                409, "awaiting-approval",
                f"run {run_id} waits for an approval (nothing ran); refuse it instead: POST "
                f"{API}/proposals/{run_id}/reject",
            )  # fmt: skip
        actions.workers(f"cancel {run_id}")  # 503 before the request is journaled when nothing would carry it out
        request_cancel(store, run_id, caller.person, (body or Cancelling()).reason, actions.service.clock.now())
        owner = actions.owner(run_id)

        def job() -> None:
            try:
                actions.executor(run_id).resume(run_id)
            except StreamLockedError:
                return  # another process drives it: it stops the run at its next step
            except RunError:
                if not fold(store.read(run_id), run_id).finished:
                    raise
                # whoever drove it took the request and finished it first
            if owner is not None:
                actions.core().advance(owner)

        actions.submit(owner or run_id, f"cancel {run_id}", job)
        return accepted(run_id)

    @routes.post("/runs/{run_id}/resume", status_code=202, summary="Continue an interrupted run")
    def resume(run_id: str, _: Annotated[Caller, Depends(operator)]) -> JSONResponse:
        state = actions.run(run_id)
        if state.finished:
            raise Problem(409, "run-finished", f"run {run_id} already finished ({state.status}); nothing to resume")
        if state.status == "awaiting_approval":
            raise Problem(
                409, "awaiting-approval",
                f"run {run_id} waits for an approval; POST {API}/proposals/{run_id}/approve (or /reject)",
            )  # fmt: skip
        if state.status == "blocked":
            waiting = ", ".join(state.blocked())
            raise Problem(
                409, "awaiting-resolution",
                f"run {run_id} waits for a person to say whether these effects happened: {waiting}; check the "
                f"target system, then POST {API}/runs/{run_id}/effects/NODE/resolve",
            )  # fmt: skip
        actions.drive(run_id, f"resume {run_id}")
        return accepted(run_id)

    @routes.post(
        "/runs/{run_id}/effects/{node}/resolve", status_code=202, summary="Say whether an unknown effect happened"
    )
    def resolve(run_id: str, node: str, body: Resolving, caller: Annotated[Caller, Depends(operator)]) -> JSONResponse:
        applied = body.outcome == "applied"
        resolve_effect(actions, run_id, node, applied=applied, by=caller.person, output=body.output, note=body.note)
        return accepted(run_id)

    @routes.get("/why/{run_id}", summary="Every decision of a run, each with its why")
    def why_all(run_id: str, _: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        actions.run(run_id)
        return _explained(run_id, lambda: explain_run(store, run_id))

    @routes.get("/why/{run_id}/{decision}", summary="Why: a decision (its seq), or the decisions covering a node")
    def why(run_id: str, decision: str, _: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        actions.run(run_id)
        if decision.isdigit():
            return _explained(run_id, lambda: explain_run(store, f"{run_id}#{decision}"))
        return _explained(run_id, lambda: explain_node(store, run_id, decision))

    return routes


def _explained(run_id: str, find: Any) -> dict[str, Any]:
    try:
        found: list[Explanation] = find()
    except (AnvilError, StopIteration, KeyError, IndexError) as exc:
        detail = str(exc) if isinstance(exc, AnvilError) else f"run {run_id} has no such decision"
        raise Problem(404, "unknown-decision", f"{detail}; GET {API}/runs/{run_id} lists its decisions") from None
    return {
        "run": run_id,
        "explanations": [{"title": e.title, "decision": e.decision, "lines": e.lines, "text": e.text()} for e in found],
    }
