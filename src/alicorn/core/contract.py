"""The outcome contract: what the result must be, under which constraints, by when, within which budget, and how
it will be judged — fixed once, at intake, and sealed by its goal hash.

The goal hash covers every term (goal, result, workflow and its parameters, constraints, forbidden effect classes,
deadline, budget, acceptance criteria, project). Plans carry it; a replan that cites another hash changes the goal,
which Anvil treats as a material change needing a new human decision. What the person forbade ("do not publish",
"nie wysyłaj", "остановись перед установкой") is a forbidden effect class: the planner is not offered operations of
that class, a template leaves their nodes out, a plan holding one is refused before Anvil sees it, and the run's
terms forbid the class again, so the policy denies it even if everything else failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn import canonical
from alicorn.anvil.budget import Budget
from alicorn.plan.dsl import EffectClass, Plan

if TYPE_CHECKING:
    from alicorn.core.intake import IntentEnvelope
    from alicorn.packs.workflow import Workflow

ResultKind = Literal["answer", "document", "code", "schedule", "conversation", "triage"]


class Constraint(BaseModel):
    """One constraint and where it came from (the words that set it, or the envelope field)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["forbid_effect", "stated"]
    value: str
    source: str


class OutcomeContract(BaseModel):
    """Result, constraints, deadline, budget and acceptance criteria (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: str = Field(min_length=1, max_length=4000)
    result: ResultKind
    workflow: str | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)
    constraints: tuple[Constraint, ...] = ()
    forbidden: tuple[EffectClass, ...] = ()
    deadline: str | None = None
    budget: Budget = Budget()
    acceptance: dict[str, Any] = Field(default_factory=dict)
    project: str = "default"

    @property
    def goal_hash(self) -> str:
        """SHA-256 of the whole contract's canonical JSON: change any term and the hash changes."""
        return canonical.digest(self.model_dump(mode="json"))

    def sentences(self) -> list[str]:
        """The contract for a human, a line per term."""
        lines = [
            f"goal: {self.goal}",
            f"result: {self.result}" + (f" (workflow {self.workflow})" if self.workflow else ""),
        ]
        if self.parameters:
            lines.append("parameters: " + ", ".join(f"{k}={v}" for k, v in sorted(self.parameters.items())))
        for constraint in self.constraints:
            lines.append(f"constraint: {constraint.value} ({constraint.source})")
        lines.append("forbidden effects: " + (", ".join(self.forbidden) or "none"))
        lines.append(f"deadline: {self.deadline or 'none stated'}")
        limits = self.budget.limits()
        lines.append("budget: " + (", ".join(f"{k} {v:g}" for k, v in limits.items()) or "the project's defaults"))
        if self.acceptance:
            lines.append("accepted when: " + ", ".join(f"{k}={v}" for k, v in sorted(self.acceptance.items())))
        lines.append(f"goal hash: {self.goal_hash}")
        return lines


class ContractBreach(ValueError):
    """A plan does not keep its contract: another goal hash, or a node of a forbidden effect class."""


def check_plan(plan: Plan, contract: OutcomeContract, effect_of: Any) -> None:
    """Refuse (ContractBreach, every problem listed) a plan that cites another goal or holds a forbidden effect.

    `effect_of(operation name) -> effect class` comes from the registry, never from the plan.
    """
    problems = []
    if plan.goal_hash != contract.goal_hash:
        problems.append(
            f"the plan cites goal hash {plan.goal_hash[:12]}…, but the contract's is {contract.goal_hash[:12]}…; "
            "a plan must keep the goal it was made for"
        )
    for node in plan.nodes:
        effect = effect_of(node.operation)
        if effect in contract.forbidden:
            problems.append(
                f"node {node.node_id!r} ({node.operation}) has effect class {effect}, which the request forbids; "
                "leave it out"
            )
    if problems:
        raise ContractBreach("; ".join(problems))


def make_contract(
    intent: IntentEnvelope,
    classification: Mapping[str, Any],
    forbidden: set[EffectClass],
    workflow: Workflow | None,
    values: dict[str, Any],
) -> OutcomeContract:
    """The contract of a request: its words as the goal, the template's result and criteria, what it forbids (with
    the words that forbade it), the envelope's constraints and deadline, the project."""
    evidence = {
        str(s.get("evidence", ""))
        for s in classification.get("signals", [])
        if s["field"] == "forbidden" and s["signal"] == "lexicon" and s["value"]
    }
    words = "; ".join(sorted(e for e in evidence if e))
    constraints = [
        Constraint(kind="forbid_effect", value=f"no {c}", source=words or "the request's envelope")
        for c in sorted(forbidden)
    ]
    constraints += [Constraint(kind="stated", value=c, source="envelope") for c in intent.constraints]
    criteria: dict[str, Any] = {}
    result: ResultKind = "document"
    if workflow is not None:
        criteria = workflow.criteria(workflow.parameters.model_validate(values))
        result = workflow.artifact
    return OutcomeContract(
        goal=intent.utterance,
        result=result,
        workflow=workflow.id if workflow else None,
        parameters=values,
        constraints=tuple(constraints),
        forbidden=tuple(sorted(forbidden)),
        deadline=intent.deadline,
        acceptance=criteria,
        project=intent.project,
    )
