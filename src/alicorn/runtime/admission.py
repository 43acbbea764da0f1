"""Admission: Anvil's decisions and budgets inside a session, journaled in the run's stream.

At start (and when a human approves a waiting run) a session journals `anvil.inputs` and one `anvil.check` per
operation of the plan, then proceeds (allow), waits for a human with a ProposalEnvelope (`run.awaiting_approval`,
needs_approval) or finishes the run with no effect (`denied`). A resume decides again, under the policy in force
then, the operations the run may still call (`recheck`): a tightened rule stops the run or makes it wait. Before
every node call it checks the run's and the project's budgets from the fold; a call that would exceed one journals
`budget.exceeded` and stops the run like a stop condition (no new calls; calls in flight finish). Everything here
reads journaled values only, so replay regenerates the same events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from alicorn.anvil.budget import Usage, check_step
from alicorn.anvil.decide import Verdict, decide
from alicorn.anvil.facts import ApprovalState, Facts
from alicorn.anvil.policy import Policies
from alicorn.anvil.proposals import ProposalEnvelope, envelope
from alicorn.anvil.replan import compare, summarize
from alicorn.anvil.rights import Subject
from alicorn.anvil.risk import PlanRisk
from alicorn.anvil.secret_reads import refusal, secret_sources
from alicorn.anvil.sentences import decision_sentence
from alicorn.anvil.terms import RunTerms
from alicorn.errors import RunError
from alicorn.journal.events import Event
from alicorn.ops.registry import Operation, Registry
from alicorn.plan.dsl import Plan, effect_rank
from alicorn.runtime.plan_decisions import PlanVerdict, plan_risk, plan_verdict, verdict_key
from alicorn.runtime.state import TERMINAL_NODE, RunState, fold

if TYPE_CHECKING:
    from alicorn.runtime.needs import RunSession


def journal_inputs(session: RunSession, *, usage: bool) -> dict[str, Any]:
    """Journal `anvil.inputs` (the policy's text only the first time this run sees it); return the inputs."""
    data = session.needs.gate.inputs(session.run_id, session.terms, next_seq=session.next_seq, usage=usage)
    policy = dict(data["policy"])
    digest = policy["digest"]
    text = policy.get("text") or session.state.policies.get(digest)
    if text is None:
        raise RunError(f"run {session.run_id}: the journal has no text for the policy set {digest[:12]}…")
    if digest in session.state.policies:
        policy.pop("text", None)
    session.emit("anvil.inputs", {**data, "policy": policy})
    return {**data, "policy": {**policy, "text": text}}


def approval_state(session: RunSession) -> tuple[ApprovalState, tuple[str, ...]]:
    """Whether the current plan hash is approved (granted, or carried over from a non-material replan), and by whom."""
    return _approval_of(session.state)


def _approval_of(state: RunState) -> tuple[ApprovalState, tuple[str, ...]]:
    bound = [a for a in state.approvals if a.get("plan_hash") == state.plan_hash]
    if not bound:
        return "none", ()
    kind: ApprovalState = "granted" if any(not a.get("carried") for a in bound) else "carried"
    return kind, tuple(sorted({a["by"] for a in bound}))


def change_of(session: RunSession) -> Any:
    """The material-change judgement of a replan (None for a first plan)."""
    return _change(session.plan, session.terms, session.registry, session.risk)


def _change(plan: Plan, terms: RunTerms, registry: Registry, risk: PlanRisk, language: str = "en") -> Any:
    origin = terms.replan_of
    if origin is None:
        return None
    new = summarize(plan, registry, risk)
    return compare(origin.summary, new, origin.threshold, from_data=origin.from_data, language=language)


def admit(session: RunSession, operations: frozenset[str] | None = None) -> Verdict:
    """Journal the inputs and one check per operation (of `operations` only, when given); return the verdict.

    Every check is taken on the whole plan's facts (its risk, destinations, the proposer's rights), whichever
    operations are journaled: the same decision as at admission, not a smaller plan's. The facts and the decision
    are computed once per plan, terms, journaled inputs and approval state (`plan_decisions.plan_verdict`).
    """
    inputs = journal_inputs(session, usage=not session.terms.project_budget.empty)
    inputs_seq = session.next_seq - 1
    approval, approvers = approval_state(session)
    policy = inputs["policy"]

    def compute() -> PlanVerdict:
        facts = plan_facts(session, inputs, approval, approvers)
        return PlanVerdict(facts, decide(Policies(policy["text"], policy["source"]), facts))

    terms = session.terms.model_dump(mode="json")
    key = verdict_key(session.state.plan_hash, terms, inputs, (approval, approvers))
    decided = plan_verdict(key, session.registry, compute)
    verdict = Verdict(tuple(decided.checks(operations)))
    for check in verdict.checks:
        session.emit("anvil.check", {**check.to_json(), "inputs": inputs_seq, "policy": policy["digest"]})
    return verdict


def plan_facts(
    session: RunSession, inputs: dict[str, Any], approval: ApprovalState, approvers: tuple[str, ...]
) -> Facts:
    """The whole-plan facts every check of the plan is taken on: the plan's risk and secret sources, the run's
    terms, the journaled inputs (the proposer's snapshot, a trigger's allowance) and the approval state."""
    return _facts(session.state, session.plan, session.terms, session.registry, inputs, (approval, approvers))


def _facts(
    state: RunState,
    plan: Plan,
    terms: RunTerms,
    registry: Registry,
    inputs: dict[str, Any],
    approval: tuple[ApprovalState, tuple[str, ...]],
    language: str = "en",
) -> Facts:
    """The facts of `plan_facts`; a replan's material-change reasons in `language` (English is what is decided on
    and journaled)."""
    risk = plan_risk(plan, state.plan_hash, registry, terms.labels)
    change = _change(plan, terms, registry, risk, language)
    return Facts(
        plan_hash=state.plan_hash,
        goal_hash=state.goal_hash,
        project=terms.project,
        risk=risk,
        subject=Subject.from_json(inputs["principal"]),
        forbidden=terms.forbidden,
        approval=approval[0],
        approved_by=approval[1],
        material=bool(change is not None and change.material),
        material_reasons=tuple(change.reasons) if change is not None else (),
        provenance=terms.provenance,
        channel=terms.channel,
        secret_sources=secret_sources(plan, registry, terms.labels),
        secret_allowed=terms.secret_reads,
        trigger=terms.trigger.model_dump(mode="json") if terms.trigger is not None else None,
        allowance=inputs.get("trigger_allowance"),
    )


def proposal_in(events: Sequence[Event], registry: Registry, language: str) -> ProposalEnvelope | None:
    """The envelope of a run whose journal ends waiting for a person (`anvil.proposals.envelope`), with its reasons
    in `language` where they can be made again exactly (`reasons_in`), as journaled otherwise (English is what the
    journal holds: nothing to make again)."""
    found = envelope(list(events))
    said = reasons_in(events, registry, language) if found is not None and language != "en" else None
    return found if found is None or said is None else found.model_copy(update={"reasons": said})


def reasons_in(events: Sequence[Event], registry: Registry, language: str) -> list[str] | None:
    """Why the run waits for a person, in `language`: the sentence of each check of its last admission that did not
    simply allow (each once, in plan order), made again from the facts the run journaled (its plan and terms, the
    last `anvil.inputs`, its approvals). None when the facts cannot be made again exactly (a run whose journal ends
    elsewhere, one recorded by another version or under operations that changed since): each sentence's English
    must equal, byte for byte, the one journaled, so a translation never says what the decision did not."""
    if not events or events[0].kind != "run.created" or events[-1].kind != "run.awaiting_approval":
        return None
    state = fold(events)
    last_inputs = max((i for i, e in enumerate(events) if e.kind == "anvil.inputs"), default=None)
    if last_inputs is None:
        return None
    try:
        plan = Plan.model_validate(events[0].data["plan"])
        terms = RunTerms.from_created(state.terms)
        inputs, approval = events[last_inputs].data, _approval_of(state)
        facts = _facts(state, plan, terms, registry, inputs, approval)
        worded = _facts(state, plan, terms, registry, inputs, approval, language) if terms.replan_of else facts
    except (KeyError, ValueError, TypeError, LookupError):
        return None
    reasons: list[str] = []
    for event in events[last_inputs + 1 :]:
        data = event.data
        if event.kind != "anvil.check" or data.get("decision") == "allow":
            continue
        kind, operation, blocked, permitted = (data["decision"], data["operation"], tuple(data["blocked_by"]),
                                               tuple(data["permitted_by"]))  # fmt: skip
        if decision_sentence(kind, operation, facts, blocked, permitted) != data.get("sentence"):
            return None
        sentence = decision_sentence(kind, operation, worded, blocked, permitted, language)
        if sentence not in reasons:
            reasons.append(sentence)
    return reasons


def proceed(session: RunSession, verdict: Verdict) -> bool:
    """Act on a verdict: True to run the plan; otherwise the run waits for a human or is closed as denied."""
    if verdict.decision == "allow":
        return True
    if verdict.decision == "needs_approval":
        risk = session.risk
        session.emit(
            "run.awaiting_approval",
            {
                "effects": _awaited_effects(risk, verdict),
                "reason": " ".join(verdict.reasons()),
                "reasons": verdict.reasons(),
                "rules": verdict.rules(),
                "plan_hash": session.state.plan_hash,
                "goal_hash": session.state.goal_hash,
                "proposed_by": session.terms.proposed_by,
                "project": session.terms.project,
                "classes": list(risk.classes),
                "destinations": list(risk.destinations),
            },
        )
        return False
    close(session, "denied", " ".join(verdict.reasons()))
    return False


def _awaited_effects(risk: PlanRisk, verdict: Verdict) -> dict[str, list[str]]:
    """The effect classes the approval is about (above local_write, or beyond the proposer's rights), with nodes."""
    waiting = [c for c in verdict.checks if c.decision == "needs_approval"]
    flagged = {c for c in risk.classes if effect_rank(c) > effect_rank("local_write")}
    for check in waiting:
        flagged |= {g.partition(":")[2] for g in check.request["context"]["rights_gaps"] if g.startswith("effect:")}
    by_class = risk.by_class()
    chosen: dict[str, list[str]] = {c: nodes for c, nodes in by_class.items() if c in flagged}
    if chosen:
        return chosen
    nodes = {n for check in waiting for n in check.nodes}
    return {c: [n for n in found if n in nodes] for c, found in by_class.items() if any(n in nodes for n in found)}


def _may_still_call(session: RunSession) -> list[str]:
    """Nodes that may still call their operation: pending, interrupted (`running` in the fold), and alternatives
    whose primary has not finished (it may yet fail and hand over)."""
    nodes = session.state.nodes
    out = []
    for node_id in session.state.order:
        status = nodes[node_id].status
        if status == "standby":
            primary = session.primary_of.get(node_id)
            if primary is None or nodes[primary].status in TERMINAL_NODE:
                continue
        elif status not in ("pending", "running"):
            continue
        out.append(node_id)
    return out


def recheck(session: RunSession) -> bool:
    """On resume: decide again, under the policy in force now, the operations the run may still call.

    The nodes that may still call one are the pending and interrupted ones, and alternatives that may yet take
    over (`_may_still_call`). Their operations are decided through `admit` (journaled `anvil.inputs` and
    `anvil.check`, on the whole plan's facts and the run's journaled approvals), so replay regenerates the
    decisions. A deny stops the run (`run.stopped`, cause `policy`): nothing new is called, calls in flight finish,
    what was done is kept (as after a budget stop). A needs_approval makes the run wait for a human
    (`run.awaiting_approval`); return False then, the session ends there. An allow changes nothing: a loosened
    policy never approves by itself (a waiting run still needs its human approval).

    Nothing is decided for a run that is stopping or compensating, or has nothing left to call, or when the gate
    says the recorded session did not decide (a journal written before resumes re-checked the policy).
    """
    state = session.state
    if state.stopping or state.saga is not None:
        return True
    remaining = _may_still_call(session)
    if not remaining:
        return True
    rechecks = getattr(session.needs.gate, "rechecks", None)
    if rechecks is not None and not rechecks(session.next_seq):
        return True
    verdict = admit(session, frozenset(session.nodes[n].operation for n in remaining))
    if verdict.decision == "deny":
        denied = [c for c in verdict.checks if c.decision == "deny"]
        first = next(n for n in remaining if any(n in c.nodes for c in denied))
        reason = "the policy in force at resume forbids what is left: " + " ".join(verdict.reasons())
        session.emit("run.stopped", {"node": first, "reason": reason, "cause": "policy"})
        return True
    if verdict.decision == "needs_approval":
        return proceed(session, verdict)
    return True


def close(session: RunSession, status: str, reason: str, **extra: Any) -> None:
    """Finish the run without any effect: every open node is skipped, then `run.finished` with `status`."""
    state = session.state
    for node_id in state.order:
        if state.nodes[node_id].status in ("pending", "standby"):
            session.emit("node.skipped", {"node": node_id, "reason": f"run {status}"})
    counts: dict[str, int] = {}
    for node_id in state.order:
        counts[state.nodes[node_id].status] = counts.get(state.nodes[node_id].status, 0) + 1
    session.emit("run.finished", {"status": status, "reason": reason, "nodes": dict(sorted(counts.items())), **extra})


def over_budget(session: RunSession, node_id: str, op: Operation) -> bool:
    """Before a node call: if it would exceed a budget, journal `budget.exceeded` and stop the run.

    What does not depend on the call (whether any budget applies, the project's other runs' usage) comes from the
    session's call gate; only this run's usage with this step is checked per call."""
    gate = session.decided.gate(session)
    if not gate.budgeted:
        return False
    terms = session.terms
    step = Usage(steps=1, effects=1 if op.has_effect else 0)
    found = check_step(
        terms.budget, terms.project_budget, session.state.usage.usage(session.now), gate.others, terms.project, step
    )
    if found is None:
        return False
    session.emit("budget.exceeded", {"node": node_id, **found.to_json()})
    session.emit("run.stopped", {"node": node_id, "reason": found.sentence(), "cause": "budget"})
    return True


def refused(session: RunSession, node_id: str, op: Operation, resolved: dict[str, Any]) -> str | None:
    """Before a node call: why its resolved inputs may not be read (a secret the terms do not allow), or None.

    Only a node the call gate names can read a secret (a `read` of a path, under labels that can say secret)."""
    if node_id not in session.decided.gate(session).secret_nodes:
        return None
    return refusal(node_id, op.name, op.path_input, op.effect, resolved, session.terms)
