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

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn import canonical
from alicorn.anvil.budget import Budget
from alicorn.anvil.words import effect_said, effects_said
from alicorn.i18n import N_, tr, tr_marked
from alicorn.plan.dsl import EffectClass, Plan
from alicorn.validate.base import ARTIFACT_LABELS
from alicorn.validate.constraints import Measure, read_bound

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


#: A constraint's source when it is not the request's own words, as a contract's sentences say it.
CONSTRAINT_SOURCES = {
    "the request's envelope": N_("the request's envelope"),
    "envelope": N_("the request's envelope"),
    "words": N_("the request's words"),
}


#: The class a reading of the lexicon forbids, at the end of its evidence ("hold off → emailing [publication]").
_READ_CLASS = re.compile(r" \[([a-z_]+)\]$")


def _evidence_of(items: Sequence[str], effect: str) -> str:
    """The readings that forbid `effect`, without their class; an item that names no class counts for every one."""
    own = []
    for item in items:
        named = _READ_CLASS.search(item)
        if named is None or named.group(1) == effect:
            own.append(_READ_CLASS.sub("", item))
    return "; ".join(own)


#: Quotation marks around a person's own words, per language.
_QUOTES = {"pl": ("„", "”"), "ru": ("«", "»")}
#: The reader's notes inside a trigger ("wait (put off)", "until (held)"): the lexicon's own words, in English.
_READERS_NOTE = re.compile(r"\s*\([^()]*\)")


def words_said(evidence: str, language: str) -> str:
    """The words that forbade an effect ("hold off (put off) → sending; …"), as a person reads them: each trigger's
    own words in quotes, the lexicon's notes on how it read them left out (they are English and for developers),
    each pair once: „wstrzymaj się” → wysyłką."""
    opening, closing = _QUOTES.get(language, ("“", "”"))
    said: list[str] = []
    for item in evidence.split("; "):
        trigger, arrow, word = item.partition(" → ")
        trigger = " ".join(_READERS_NOTE.sub(" ", trigger).split())
        if not trigger:
            continue
        pair = f"{opening}{trigger}{closing} → {word}" if arrow else f"{opening}{trigger}{closing}"
        if pair not in said:
            said.append(pair)
    return "; ".join(said) if said else evidence


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
    #: The data the result is made from: each input's files by sha256 (the goal is about *this* data).
    data: dict[str, list[str]] = Field(default_factory=dict)
    #: For a follow-up (publish the variant a person picked): the goal hash of the result it acts on.
    follows: str | None = None

    @property
    def goal_hash(self) -> str:
        """SHA-256 of the whole contract's canonical JSON: change any term and the hash changes."""
        return canonical.digest(self.model_dump(mode="json"))

    def sentences(self, language: str = "en") -> list[str]:
        """The contract for a human, a line per term, in `language` (values stay as written)."""
        none = tr(language, "none")
        lines = [tr(language, "goal: {goal}", goal=self.goal)]
        kind = ARTIFACT_LABELS.get(self.result)
        result = tr_marked(language, kind) if kind else self.result  # "document", said in `language`
        if self.workflow:
            lines.append(tr(language, "result: {result} (workflow {workflow})", result=result, workflow=self.workflow))
        else:
            lines.append(tr(language, "result: {result}", result=result))
        if self.parameters:  # a slot nobody set (None: "since", "asked_period") is not said
            values = ", ".join(f"{k}={v}" for k, v in sorted(self.parameters.items()) if v is not None)
            lines.append(tr(language, "parameters: {values}", values=values))
        for constraint in self.constraints:
            value = constraint.value
            if constraint.kind == "forbid_effect" and value.startswith("no "):
                value = tr(language, "no {effect}", effect=effect_said(value.removeprefix("no "), language))
            source = CONSTRAINT_SOURCES.get(constraint.source)
            if source:
                said = tr_marked(language, source)
            elif constraint.kind == "forbid_effect":
                said = words_said(constraint.source, language)
            else:
                said = constraint.source
            lines.append(tr(language, "constraint: {value} ({source})", value=value, source=said))
        lines.append(
            tr(language, "forbidden effects: {classes}", classes=effects_said(self.forbidden, language) or none)
        )
        lines.append(tr(language, "deadline: {deadline}", deadline=self.deadline or tr(language, "none stated")))
        limits = ", ".join(f"{k} {v:g}" for k, v in self.budget.limits().items())
        lines.append(tr(language, "budget: {limits}", limits=limits or tr(language, "the project's defaults")))
        if self.acceptance:
            criteria = ", ".join(f"{k}={v}" for k, v in sorted(self.acceptance.items()))
            lines.append(tr(language, "accepted when: {criteria}", criteria=criteria))
        for name, digests in sorted(self.data.items()):
            lines.append(
                tr(language, "data {name}: {digests}", name=name, digests=", ".join(d[:16] + "…" for d in digests))
            )
        if self.follows:
            lines.append(tr(language, "follows the result of goal {goal}…", goal=self.follows[:16]))
        lines.append(tr(language, "goal hash: {hash}", hash=self.goal_hash))
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


_CLAUSE = re.compile(r"[;\n]|,(?!\d)|\.(?!\d)|\s(?:and|but|i|oraz|ale|и|но|а)\s")


def bounds_in(text: str, measures: Sequence[Measure]) -> list[str]:
    """The clauses of `text` that state a bound on one of `measures` ("keep overtime under 200 h")."""
    if not measures:
        return []
    return [c.strip() for c in _CLAUSE.split(text) if c.strip() and read_bound(c, measures) is not None]


def make_contract(
    intent: IntentEnvelope,
    classification: Mapping[str, Any],
    forbidden: set[EffectClass],
    workflow: Workflow | None,
    values: dict[str, Any],
    *,
    data: dict[str, list[str]] | None = None,
) -> OutcomeContract:
    """The contract of a request: its words as the goal, the template's result and criteria, what it forbids (with
    the words that forbade it), the envelope's constraints and deadline, the project."""
    evidence = {
        str(s.get("evidence", ""))
        for s in classification.get("signals", [])
        if s["field"] == "forbidden" and s["signal"] == "lexicon" and s["value"]
    }
    items = sorted({item for e in evidence if e for item in e.split("; ")})
    constraints = [
        Constraint(kind="forbid_effect", value=f"no {c}", source=_evidence_of(items, c) or "the request's envelope")
        for c in sorted(forbidden)
    ]
    constraints += [Constraint(kind="stated", value=c, source="envelope") for c in intent.constraints]
    if workflow is not None:  # a bound on a figure the result carries, said in the request's own words
        constraints += [
            Constraint(kind="stated", value=c, source="words") for c in bounds_in(intent.utterance, workflow.measures)
        ]
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
        data=data or {},
    )
