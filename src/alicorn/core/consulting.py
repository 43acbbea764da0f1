"""Consultants and the arbiter in Core: a hard task is asked of several profiles, and evidence settles it.

Two tasks are hard: a free plan (no template fits, so nothing but the model says what the work is) and a question
whose best memory records are about as relevant as each other (the answer depends on which one it rests on). Where
the home's profile list allows (two or more profiles fit the role, models.toml `[consultants] count`, default 3;
a role pinned in `[roles]` or `--model` asks one), every consultant answers on its own, and
`alicorn.models.arbiter.arbitrate` compares what supports each answer; the number of consultants behind an answer
never decides.

Plans: each consultant writes a free plan (repaired as usual). A plan that passed the validator and the contract
check is an opinion with those two passing tests; a consultant that wrote no valid plan gave none. One position is
every plan with the same *effects*: the same nodes with an effect beyond reading, with the same literal inputs
(what it writes where, what it sends to whom); plans that only read and compute differently are one position. A
single position is settled (the world model picks among its
plans); two or more are a disagreement no evidence settles, so the human chooses: a question listing each plan's
operations and effects, and "none of these". The choice is journaled (`clarification.answered`) and the chosen
plan is checked again before it is proposed.

Answers: each consultant's cited answer is an opinion whose evidence is the records it cites, verified because they
were retrieved for this question. A position is every answer citing the same records. A single position is settled
(its first answer is given, the other consultants named); several are shown side by side with their sources, and
the reply says the models disagree, so the person judges.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alicorn.core.choosing import NONE_WORDS
from alicorn.core.contract import OutcomeContract, check_plan
from alicorn.core.planner import PlanningError, ProposedPlan, plan_from_model
from alicorn.errors import PlanError
from alicorn.i18n import tr
from alicorn.models.arbiter import CheckResult, ConsultantAnswer, Evidence, Opinion, Verdict, arbitrate
from alicorn.models.recorder import ModelClient
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import LiteralInput, Plan
from alicorn.plan.validate import validate_plan

#: Effect classes that change nothing outside the run: plans differing only in these nodes' inputs agree.
_QUIET = ("none", "read")
#: Two best records closer in similarity than this make a question hard (the answer depends on which is used).
AMBIGUOUS_MARGIN = 0.02


# ---- plans ----------------------------------------------------------------------------------------------------


def effects_key(plan: Plan, registry: Registry) -> str:
    """What a plan does outside the run, canonically: each node with an effect beyond reading, as its operation,
    class and literal inputs. Two plans with the same key are one position, however their reading and computing
    differ (nothing but the world model's prediction tells those apart)."""
    rows = []
    for node in plan.nodes:
        effect = registry.get(node.operation).effect
        if effect not in _QUIET:
            rows.append(
                [node.operation, effect, {k: b.model_dump(mode="json") for k, b in sorted(node.inputs.items())}]
            )
    return json.dumps(sorted(rows, key=json.dumps), sort_keys=True, ensure_ascii=False)


def plan_summary(plan: Plan, registry: Registry) -> str:
    """One line for a person: the operations in order, then each effect beyond reading with where it lands."""
    steps = " → ".join(node.operation for node in plan.nodes)
    effects = []
    for node in plan.nodes:
        effect = registry.get(node.operation).effect
        if effect in _QUIET:
            continue
        literal = [f"{k}={json.dumps(b.value, ensure_ascii=False)[:60]}" for k, b in sorted(node.inputs.items())
                   if isinstance(b, LiteralInput)]  # fmt: skip
        effects.append(f"{effect} by {node.node_id}" + (f" ({', '.join(literal[:3])})" if literal else ""))
    return steps + (f"; effects: {'; '.join(effects)}" if effects else "; effects: none beyond reading")


@dataclass(frozen=True)
class PlanConsultation:
    """Every consultant's plan (or why it wrote none), the arbiter's verdict, and the plans of each position."""

    proposals: tuple[tuple[str, ProposedPlan | None, tuple[str, ...]], ...]
    verdict: Verdict
    #: a position's effects digest (the end of its answer) → the valid plans behind it, in consultant order.
    by_position: Mapping[str, tuple[ProposedPlan, ...]]

    def plans_of(self, answer: str) -> tuple[ProposedPlan, ...]:
        """The plans behind a position of the verdict."""
        return tuple(self.by_position.get(_digest_of(answer), ()))

    @property
    def winners(self) -> tuple[ProposedPlan, ...]:
        """The settled position's plans (empty when unsettled)."""
        return self.plans_of(self.verdict.answer) if self.verdict.answer is not None else ()

    @property
    def problems(self) -> list[str]:
        return [f"{profile}: {p}" for profile, proposed, problems in self.proposals if proposed is None
                for p in problems[-1:]]  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "consultants": [
                {
                    "profile": profile,
                    "plan_hash": proposed.plan.plan_hash() if proposed is not None else None,
                    "problems": list(problems),
                }
                for profile, proposed, problems in self.proposals
            ],
            "verdict": self.verdict.model_dump(mode="json"),
        }


def _plan_answer(proposed: ProposedPlan, registry: Registry) -> str:
    """An opinion's text: the plan's summary, then ` #` and the digest of its effects key, which is what the
    arbiter groups positions by (`_digest_of`): plans that do the same outside the run are one position however
    they are written."""
    digest = hashlib.sha256(effects_key(proposed.plan, registry).encode()).hexdigest()[:16]
    return f"{plan_summary(proposed.plan, registry)[:960]} #{digest}"


def _digest_of(answer: str) -> str:
    return answer.rsplit(" #", 1)[-1]


def consult_plans(
    clients: Sequence[ModelClient], request_text: str, contract: OutcomeContract, registry: Registry
) -> PlanConsultation:
    """Ask every consultant for a free plan, then let the arbiter compare them (see the module docstring)."""
    proposals: list[tuple[str, ProposedPlan | None, tuple[str, ...]]] = []
    answers: list[ConsultantAnswer] = []
    by_position: dict[str, list[ProposedPlan]] = {}
    for client in clients:
        profile = client.profile.id
        try:
            proposed = plan_from_model(client, request_text, contract, registry)
        except PlanningError as exc:
            problems = tuple(exc.attempts or [str(exc)])
            proposals.append((profile, None, problems))
            answers.append(ConsultantAnswer(profile=profile, opinion=None, error=str(exc)[:300]))
            continue
        proposals.append((profile, proposed, proposed.problems))
        answer = _plan_answer(proposed, registry)
        by_position.setdefault(_digest_of(answer), []).append(proposed)
        tests = [CheckResult(name="plan validates", passed=True), CheckResult(name="contract holds", passed=True)]
        answers.append(ConsultantAnswer(profile=profile, opinion=Opinion(answer=answer, tests=tests)))
    verdict = arbitrate(answers, same=lambda opinion: _digest_of(opinion.answer))
    return PlanConsultation(tuple(proposals), verdict, {k: tuple(v) for k, v in by_position.items()})


def plan_question(consultation: PlanConsultation, language: str, registry: Registry) -> dict[str, Any]:
    """`clarification.asked`'s data when the consultants' plans disagree: each plan numbered with who wrote it,
    what it does and its effects, and "none of these"; the plans themselves ride along to be chosen from."""
    plans = []
    lines = []
    for number, position in enumerate((p for p in consultation.verdict.positions if not p.refuted), 1):
        proposed = consultation.plans_of(position.answer)[0]
        summary = plan_summary(proposed.plan, registry)
        lines.append(f"{number}) {', '.join(position.supporters)}: {summary}")
        plans.append(
            {"profiles": list(position.supporters), "summary": summary, "plan": proposed.plan.model_dump(mode="json"),
             "source": proposed.source, "repairs": proposed.repairs}
        )  # fmt: skip
    lines.append(f"{len(plans) + 1}) " + tr(language, "none of these"))
    question = tr(
        language,
        "The models I consulted wrote different plans, and nothing in them settles which is right. Which plan "
        "should I propose? {options}",
        options="\n" + "\n".join(f"  {line}" for line in lines),
    )
    return {"question": question, "plans": plans}


def pending_plan_choice(questions: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the last question offered consultants' plans and the human has answered it."""
    return bool(questions) and bool(questions[-1].get("plans")) and len(answers) >= len(questions)


NONE_CHOSEN = "none"


def chosen_plan(question: Mapping[str, Any], answer: str) -> dict[str, Any] | str | None:
    """The plan entry the human picked (by number, or by a consultant's name), NONE_CHOSEN, or None when the
    answer names no option."""
    plans: list[dict[str, Any]] = list(question.get("plans", ()))
    text = " ".join(answer.casefold().split()).strip(" .!?")
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(plans):
            return plans[number - 1]
        return NONE_CHOSEN if number == len(plans) + 1 else None
    if text in NONE_WORDS:
        return NONE_CHOSEN
    named = [p for p in plans if any(profile.casefold() in text for profile in p["profiles"])]
    return named[0] if len(named) == 1 else None


def recheck_choice(entry: Mapping[str, Any], contract: OutcomeContract, registry: Registry) -> ProposedPlan:
    """The chosen plan, checked again (the registry may have changed while the human decided); PlanError or
    ContractBreach when it no longer passes."""
    plan = validate_plan(Plan.model_validate(entry["plan"]), registry)
    if plan.goal_hash != contract.goal_hash:
        raise PlanError([f"the chosen plan serves goal {plan.goal_hash[:12]}…, not this contract's"])
    check_plan(plan, contract, lambda name: registry.get(name).effect)
    profiles = ", ".join(entry["profiles"])
    return ProposedPlan(
        plan,
        str(entry["source"]),
        int(entry.get("repairs", 0)),
        problems=(f"chosen by the human among the consultants' plans ({profiles})",),
    )


# ---- answers --------------------------------------------------------------------------------------------------


def hard_question(found: Sequence[Mapping[str, Any]]) -> bool:
    """Two or more records count as evidence and the best two are about as relevant (see AMBIGUOUS_MARGIN)."""
    if len(found) < 2:
        return False
    first, second = (float(h.get("similarity") or 0.0) for h in found[:2])
    return first - second < AMBIGUOUS_MARGIN


@dataclass(frozen=True)
class CitedOpinion:
    """One consultant's cited answer (or the error that left it without one)."""

    profile: str
    answer: str | None
    citations: tuple[str, ...] = ()
    error: str | None = None


def arbitrate_answers(opinions: Sequence[CitedOpinion], retrieved: Sequence[str]) -> Verdict:
    """The arbiter over cited answers: evidence is a cited record that was retrieved; a position is the set of
    records an answer rests on (free texts that say the same in other words are one position)."""
    answers = [
        ConsultantAnswer(
            profile=o.profile,
            opinion=Opinion(
                answer=o.answer[:1000],
                evidence=[Evidence(claim="cited", source=c) for c in o.citations[:8]],
            )
            if o.answer
            else None,
            error=o.error,
        )
        for o in opinions
    ]
    return arbitrate(
        answers, known_sources=retrieved, same=lambda op: json.dumps(sorted({e.source for e in op.evidence}))
    )
