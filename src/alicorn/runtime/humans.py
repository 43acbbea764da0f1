"""Human decisions a session journals: approvals (granted, or carried over by a replan), rejections, resolutions.

Each is an input like a tool result: journaled in the batch that opens a session, and read back from there by
replay. Approvals are checked before anything is journaled: only a human may approve, never the plan's proposer
(compared in canonical form), and an approval that names a plan hash must name the run's own (a stale hash is
refused). An executor given `Approvers` (the app gives the home's people) also refuses a decision by someone who is
not an enrolled approver, and signs each one it journals: the `seal` (signer, key fingerprint, people seq, Ed25519
signature over alicorn.anvil.signing.decision_message) is part of the event, so replay reads it back instead of
signing again, and `alicorn verify` checks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from alicorn.anvil.errors import StaleApprovalError
from alicorn.anvil.identity import canonical_id, check_approver
from alicorn.anvil.signing import terms_digest
from alicorn.errors import RunError
from alicorn.runtime.needs import Approvers

if TYPE_CHECKING:
    from alicorn.runtime.needs import RunSession


@dataclass(frozen=True)
class Approval:
    """A human's decision to let a plan's effects happen; journaled as `approval.granted`.

    `plan_hash`, when given, is the hash the human saw; it must be the run's plan hash. `seal` is the recorded
    signature (replay passes it back); a live approval has none, and the executor's Approvers sign it. `passkey`,
    when given, is the verified WebAuthn assertion of this very decision (alicorn.service.passkeys), journaled as is.
    """

    by: str
    comment: str = ""
    plan_hash: str | None = None
    seal: dict[str, Any] | None = None
    passkey: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.by.strip():
            raise RunError("an approval must name the human who gives it")


@dataclass(frozen=True)
class CarriedApproval:
    """An approval of an earlier plan that a non-material replan keeps; journaled as `approval.carried`, naming
    the original signed approval (`from_seal`: its signer, fingerprint and signature)."""

    by: str
    comment: str
    from_run: str
    from_plan_hash: str
    from_seal: dict[str, Any] | None = None


@dataclass(frozen=True)
class Rejection:
    """A human's refusal of a proposal: the run finishes `rejected`, with no effect (signed like an approval)."""

    by: str
    reason: str
    seal: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise RunError('a rejection needs a reason (--reason "why"); it is journaled for the proposer')


@dataclass(frozen=True)
class Withdrawal:
    """Its proposer (or a human) closes a proposal still waiting for a decision: the run finishes `withdrawn`, with
    no effect. Core withdraws its own proposals when it cannot continue safely."""

    by: str
    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise RunError("a withdrawal needs a reason; it is journaled for whoever reviews the proposal")


@dataclass(frozen=True)
class Resolution:
    """A human's answer about an effect whose outcome was unknown: applied (with its output) or not applied, and
    optionally a note saying how they know (journaled with it, for whoever reviews the run)."""

    node: str
    applied: bool
    by: str
    output: dict[str, Any] | None = None
    note: str = ""


def check_approvals(
    approvals: Iterable[Approval],
    proposer: str,
    run_id: str,
    plan_hash: str,
    approvers: Approvers | None = None,
) -> list[Approval]:
    """Refuse approvals by agents, by the proposer, bound to another plan hash, or (with `approvers`) by someone
    who may not approve or cannot sign; nothing is journaled."""
    checked = []
    for approval in approvals:
        check_approver(approval.by, proposer, run_id)
        if approvers is not None and approval.seal is None:
            approvers.authorize(approval.by, run_id, "approve")
        if approval.plan_hash is not None and approval.plan_hash != plan_hash:
            raise StaleApprovalError(
                f"the approval names plan hash {approval.plan_hash[:16]}…, but run {run_id} executes plan "
                f"{plan_hash[:16]}…: an approval is bound to the plan it was given for. Look at the plan "
                f"(`alicorn proposals`, `alicorn show {run_id}`) and approve its hash; nothing was done",
                run_id=run_id,
            )
        checked.append(approval)
    return checked


def check_rejection(rejection: Rejection, proposer: str, run_id: str, approvers: Approvers | None = None) -> None:
    """Refuse a rejection by an agent or (with `approvers`) by someone who may not reject or cannot sign."""
    check_approver(rejection.by, proposer, run_id, action="reject")
    if approvers is not None and rejection.seal is None:
        approvers.authorize(rejection.by, run_id, "reject")


def decision_body(session: RunSession, decision: str, by: str, note: str) -> dict[str, Any]:
    """What a person signs about this run (alicorn.anvil.signing.decision_message, less the key's fields)."""
    state = session.state
    return {
        "run": session.run_id,
        "plan_hash": state.plan_hash,
        "goal_hash": state.goal_hash,
        "terms": terms_digest(state.terms),
        "decision": decision,
        "by": by,
        "note": note,
    }


def _seal(session: RunSession, recorded: dict[str, Any] | None, decision: str, by: str, note: str) -> dict[str, Any]:
    """The decision's seal: the recorded one (replay), else a new signature by the executor's Approvers."""
    if recorded is not None:
        return {"seal": recorded}
    approvers = session.needs.approvers
    if approvers is None:
        return {}
    return {"seal": approvers.seal(by, decision_body(session, decision, by, note))}


def grant(session: RunSession, approvals: Iterable[Approval]) -> None:
    for approval in approvals:
        by = canonical_id(approval.by)
        session.emit(
            "approval.granted",
            {
                "by": by,
                "comment": approval.comment,
                "plan_hash": session.state.plan_hash,
                "effects": sorted(session.state.effects),
                **_seal(session, approval.seal, "approved", by, approval.comment),
                **({"passkey": approval.passkey} if approval.passkey is not None else {}),
            },
        )


def reject(session: RunSession, rejection: Rejection) -> None:
    by = canonical_id(rejection.by)
    session.emit(
        "approval.rejected",
        {
            "by": by,
            "reason": rejection.reason,
            "plan_hash": session.state.plan_hash,
            **_seal(session, rejection.seal, "rejected", by, rejection.reason),
        },
    )


def carry(session: RunSession, carried: Iterable[CarriedApproval]) -> None:
    for item in carried:
        session.emit(
            "approval.carried",
            {
                "by": item.by,
                "comment": item.comment,
                "from_run": item.from_run,
                "from_plan_hash": item.from_plan_hash,
                "plan_hash": session.state.plan_hash,
                **({"from_seal": item.from_seal} if item.from_seal is not None else {}),
            },
        )


def resolve(session: RunSession, resolutions: Iterable[Resolution]) -> None:
    state = session.state
    for res in resolutions:
        ns = state.nodes.get(res.node)
        effect = state.effects_log.get(res.node)
        if ns is None or effect is None or ns.status != "blocked":
            waiting = ", ".join(state.blocked()) or "none"
            raise RunError(
                f"node {res.node!r} of run {session.run_id} has no effect waiting for a decision (waiting: "
                f"{waiting}); nothing was done"
            )
        output: dict[str, Any] = {}
        if res.applied:
            try:
                output = session.op(res.node).outputs.model_validate(res.output or {}).model_dump(mode="json")
            except ValidationError as exc:
                raise RunError(
                    f"the output given for {res.node!r} does not match {session.op(res.node).name}'s outputs "
                    f"({exc.errors()[0]['msg']}); give it as --output JSON; nothing was done"
                ) from None
        session.emit(
            "effect.resolved",
            {
                "node": res.node,
                "attempt": ns.attempt,
                "key": effect.key,
                "applied": res.applied,
                "by": res.by,
                **({"output": output} if res.applied else {}),
                **({"note": res.note} if res.note else {}),
            },
        )
        if res.applied:
            session.emit(
                "tool.result", {"node": res.node, "attempt": ns.attempt, "ok": True, "output": output, "via": "human"}
            )
            session.emit("effect.done", {"node": res.node, "attempt": ns.attempt, "key": effect.key})
            session.succeed(session.nodes[res.node], ns.attempt, output)
        else:
            session.dirty.add(res.node)
