"""The conversation goes on after a report: the next message continues it, and nothing is silently ignored.

    reported ─► message.received ─► the workflow reads it as changes to its slots (`Workflow.follow_up`)
                 │                    └ nothing it can do next ─► followup.declined (an answer that says so)
                 ▼
             the template built again with the changes; its *new* nodes only, each input that pointed at the
             finished run's outputs replaced by the recorded value (nothing is computed again)
                 │  the result's checks failed for the item acted on ─► followup.declined, with the reason
                 ▼
             a new contract (the message as its goal, citing the first goal hash in `follows`) ─► contract.fixed
             ─► plan.proposed (source follow-up:<run>, each effect node naming its changes and recipients)
             ─► the usual path: Anvil, the human's approval, the run, a report

This is the seed's "if the user picks a variant, a *separate* publication plan is created".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from alicorn.app import App
from alicorn.context.tap import JournalTap
from alicorn.core.advice import how_to_start_anew
from alicorn.core.contract import Constraint, OutcomeContract, make_contract
from alicorn.core.conversation import ConversationState
from alicorn.core.intake import IntentEnvelope
from alicorn.core.planner import ProposedPlan
from alicorn.core.turn import Turn
from alicorn.i18n import tr, tr_marked
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.packs.workflow import Workflow
from alicorn.plan.dsl import EffectClass, Node, Plan
from alicorn.plan.validate import validate_plan
from alicorn.runtime.state import RunState
from alicorn.runtime.state import fold as fold_run
from alicorn.validate.base import CheckResult

FOLLOW_UP = "follow-up:"


class FollowUps:
    """Mixed into Norbi: continuing a finished conversation (see the module docstring)."""

    app: App
    workflows: dict[str, Workflow]

    def _language(self, state: ConversationState) -> str:
        raise NotImplementedError

    def _turn(self, state: ConversationState, phase: str, **fields: Any) -> Turn:
        raise NotImplementedError

    def _follow_up(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> Turn | None:
        language = self._language(state)
        message = state.messages[-1]["text"]
        contract = OutcomeContract.model_validate(state.contract) if state.contract else None
        workflow = self.workflows.get(contract.workflow or "") if contract is not None else None
        base = result_run(state)
        run = fold_run(self.app.store.read(base), base) if base else None
        if contract is None or workflow is None or run is None or not run.finished or workflow.follow_up is None:
            how = how_to_start_anew(language, intent.channel)  # worded for where the person is (core.advice)
            return self._decline(state, tap, message, tr(language, "this conversation has no result a next step "
                                 "could build on; {how}", how=how))  # fmt: skip
        if run.status != "succeeded":
            return self._decline(state, tap, message, tr(language, "its run ended {status}, so there is no result "
                                 "to act on", status=run.status))  # fmt: skip
        changes = workflow.follow_up(message, language)
        if not changes:
            return self._decline(state, tap, message, tr(language, "it asks for nothing “{workflow}” can do next "
                                 "with this result; start a new request for other work",
                                 workflow=tr_marked(language, workflow.title)))  # fmt: skip
        parameters = {**contract.parameters, **changes}
        conflict = workflow.conflict(parameters, language)
        if conflict is not None:  # "I pick variant 5" of two: said, and the conversation stays open for the next
            return self._decline(state, tap, message, conflict)
        refusal = self._refused_by_checks(state, run.run_id, workflow, parameters, language)
        if refusal is not None:
            return self._decline(state, tap, message, refusal)
        forbidden: set[EffectClass] = set(forbidden_effects(message))
        nodes = self._new_nodes(workflow, parameters, forbidden, run, language)
        if not nodes:
            return self._decline(state, tap, message, tr(language, "the result already holds what it asks for"))
        envelope = intent.model_copy(update={"utterance": message, "forbid": tuple(sorted(forbidden))})
        follow = make_contract(envelope, {}, forbidden, workflow, parameters, data=dict(contract.data))
        stated = tuple(c for c in contract.constraints if c.kind == "stated")
        follow = follow.model_copy(
            update={"constraints": (*follow.constraints, *_kept(stated, follow)), "follows": contract.goal_hash}
        )
        plan = validate_plan(Plan(goal=follow.goal, goal_hash=follow.goal_hash, nodes=nodes), self.app.registry)
        tap.append("contract.fixed", {"contract": follow.model_dump(mode="json"), "goal_hash": follow.goal_hash})
        proposed = ProposedPlan(plan, f"{FOLLOW_UP}{run.run_id}")
        tap.append("plan.proposed", proposed.to_json())
        return None

    def _decline(self, state: ConversationState, tap: JournalTap, message: str, why: str) -> Turn:
        language = self._language(state)
        text = tr(language, "I cannot act on “{message}”: {why}.", message=message, why=why)
        tap.append("followup.declined", {"message": message, "answer": text})
        turn = self._turn(self._refold(state), "reported", answer=text)
        # This turn's goal was the message, and nothing was done for it: the earlier contract (its goal, parameters
        # and forbidden effects) is not what this turn did, so the header does not repeat it as if it were.
        return replace(turn, understood=declined_header(message, state.goal_hash, language))

    def _refold(self, state: ConversationState) -> ConversationState:
        from alicorn.core.conversation import fold

        return fold(self.app.store.read(state.id))

    def _refused_by_checks(
        self, state: ConversationState, run_id: str, workflow: Workflow, parameters: dict[str, Any], language: str
    ) -> str | None:
        """Why an effect may not act on the result of `run_id`: a check of the run failed for the item it acts on (a
        broken constraint naming that item, or any other failed check)."""
        validated = [v for v in state.validations if v.get("run") == run_id]
        if not validated:
            return tr(language, "the result was never validated")
        item = workflow.item_of(parameters) if workflow.item_of is not None else None
        reasons = []
        for check in validated[-1].get("checks", []):
            if check.get("passed"):
                continue
            items = str((check.get("values") or {}).get("items", ""))
            if check.get("name") == "constraint" and items and item is not None and item not in items.split(", "):
                continue  # the constraint is broken by other items, not by the one acted on
            reasons.append(f"{check.get('name')}: {_said(check, language)}")
        if not reasons:
            return None
        return tr(language, "the result's checks failed ({reasons}), and an effect may not depend on a result that "
                  "failed its checks", reasons="; ".join(reasons))  # fmt: skip

    def _new_nodes(
        self, workflow: Workflow, parameters: dict[str, Any], forbidden: set[EffectClass], run: RunState, language: str
    ) -> list[Node]:
        """The template's nodes the finished run does not have, over its recorded outputs."""
        built = workflow.build(workflow.parameters.model_validate(parameters), frozenset(forbidden))
        done = set(run.order)
        fresh = [n for n in built.nodes if n.node_id not in done]
        nodes = []
        for node in fresh:
            raw = node.model_dump(mode="json")
            inputs: dict[str, Any] = {}
            for name, binding in raw["inputs"].items():
                ref = binding.get("ref") if isinstance(binding, dict) else None
                if ref is not None and ref["node"] in done:
                    output = run.effective_output(ref["node"]) or {}
                    if ref["output"] not in output:
                        return []  # the finished run has no such output: nothing to build on
                    inputs[name] = {"value": output[ref["output"]]}
                else:
                    inputs[name] = binding
            raw["inputs"] = inputs
            raw["depends_on"] = [d for d in raw.get("depends_on", []) if d not in done]
            if workflow.describe_effect is not None:
                values = {k: v["value"] for k, v in inputs.items() if isinstance(v, dict) and "value" in v}
                said = workflow.describe_effect(node.node_id, values, language)
                if said:
                    raw["description"] = said[:1000]
            nodes.append(Node.model_validate(raw))
        return nodes


def declined_header(message: str, goal_hash: str | None, language: str) -> tuple[str, ...]:
    """The header of a turn that declined a message after the report: its goal, and that nothing was done."""
    if goal_hash:
        status = tr(
            language,
            "status: declined; nothing was planned or run, and the result of goal {hash}… stands",
            hash=goal_hash[:16],
        )
    else:
        status = tr(language, "status: declined; nothing was planned or run")
    return (tr(language, "goal: {goal}", goal=message), status)


def result_run(state: ConversationState) -> str | None:
    """The run whose result a next step builds on: the latest one that was not itself a next step's (a picked
    variant's publication, approved, rejected or failed, leaves the schedule it picked from to pick from again)."""
    for run in reversed(state.runs):
        if not state.run_sources.get(run, "").startswith(FOLLOW_UP):
            return run
    return None


def _kept(stated: tuple[Constraint, ...], contract: OutcomeContract) -> tuple[Constraint, ...]:
    """The first request's stated constraints still bind the follow-up (once each)."""
    have = {c.value for c in contract.constraints}
    return tuple(c for c in stated if c.value not in have)


def _said(check: dict[str, Any], language: str) -> str:
    """A journaled check's sentence in `language` (its English detail if it does not read as a check)."""
    try:
        return CheckResult.model_validate(check).sentence(language)
    except ValueError:
        return str(check.get("detail", ""))
