"""Decisions: allow, needs_approval or deny, per operation of a plan, from whole-plan facts.

`decide` is a pure function of journaled values (the plan's risk, the principal's snapshot, the run's terms, the
approval state and the policy text). For each operation of the plan it asks the policy once as things are; what is
not allowed is asked again as if a human had approved this plan's hash: allowed then means needs_approval, and
never allowed means deny. The plan's decision is the strictest of its operations'. Every check keeps the Cedar
request it evaluated, the rules that decided it and a sentence a person understands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import label_rank
from alicorn.anvil.policy import Policies
from alicorn.anvil.secret_reads import not_allowed
from alicorn.anvil.sentences import decision_sentence
from alicorn.plan.dsl import effect_rank

DecisionKind = Literal["allow", "needs_approval", "deny"]
#: Decisions from the most to the least permissive.
DECISIONS: tuple[DecisionKind, ...] = ("allow", "needs_approval", "deny")


@dataclass(frozen=True)
class Check:
    """One operation's decision, with the request that was evaluated and the rules that decided."""

    operation: str
    nodes: tuple[str, ...]
    decision: DecisionKind
    request: dict[str, Any]
    rules: tuple[str, ...]
    blocked_by: tuple[str, ...]
    permitted_by: tuple[str, ...]
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "nodes": list(self.nodes),
            "decision": self.decision,
            "rules": list(self.rules),
            "blocked_by": list(self.blocked_by),
            "permitted_by": list(self.permitted_by),
            "sentence": self.sentence,
            "request": self.request,
        }


@dataclass(frozen=True)
class Verdict:
    """The plan's decision: the strictest of its checks."""

    checks: tuple[Check, ...]

    @property
    def decision(self) -> DecisionKind:
        return max((c.decision for c in self.checks), key=DECISIONS.index, default="allow")

    def reasons(self) -> list[str]:
        """The sentences of the checks that did not simply allow (deduplicated, in plan order)."""
        out: list[str] = []
        for check in self.checks:
            if check.decision != "allow" and check.sentence not in out:
                out.append(check.sentence)
        return out

    def rules(self) -> list[str]:
        return sorted({r for c in self.checks if c.decision != "allow" for r in c.rules})


def plan_context(facts: Facts) -> dict[str, Any]:
    """The whole-plan part of every check's context (the same for each operation of the plan)."""
    risk = facts.risk
    missing = facts.gaps
    found = {
        "project": facts.project,
        "plan_effects": list(risk.classes),
        "plan_rank": risk.rank,
        "hosts": list(risk.hosts),
        "destinations": list(risk.destinations),
        "outbound_label": risk.outbound,
        "outbound_rank": label_rank(risk.outbound),
        "amount": math.ceil(risk.amount),
        "within_rights": not missing,
        "rights_gaps": list(missing),
        "forbidden": sorted(facts.forbidden),
        "material_change": facts.material,
    }
    if facts.trigger is not None:  # only a triggered run's requests carry them (others stay as they were journaled)
        found["trigger"] = {k: str(facts.trigger.get(k, "")) for k in ("schedule", "slot", "fired_at")}
        found["schedule_allows"] = sorted(facts.schedule_allows)
        if facts.schedule_hosts is not None:  # an allowance journaled before hosts existed keeps its requests
            found["schedule_hosts"] = sorted(facts.schedule_hosts)
            found["hosts_beyond_schedule"] = list(facts.hosts_beyond_schedule)
    return found


def context(facts: Facts, operation: str, *, approved: bool, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Cedar context of one operation's check: whole-plan facts plus the operation's effective class."""
    effect = facts.risk.effective_of(operation)
    return {
        **(base if base is not None else plan_context(facts)),
        "effect": effect,
        "effect_rank": effect_rank(effect),
        "approved": approved,
        "approval": (facts.approval if facts.approval != "none" else "granted") if approved else "none",
    }


def entities(facts: Facts) -> list[dict[str, Any]]:
    """The principal (with its standing) and the plan, as Cedar entities."""
    subject = facts.subject
    uid = {"type": "Agent" if subject.kind == "agent" else "Human", "id": subject.id}
    attrs: dict[str, Any] = {}
    if subject.kind == "agent":
        attrs = {
            "registered": subject.registered,
            "reputation": subject.reputation,
            "roles": list(subject.roles),
            "tier": subject.tier,
        }
    plan = {"type": "Plan", "id": facts.plan_hash}
    # Provenance is a fact of the plan (its run's request), not of one check: `resource.provenance` in a rule.
    plan_attrs = {
        "project": facts.project,
        "goal_hash": facts.goal_hash,
        "provenance": facts.provenance,
        "channel": facts.channel,
        # Secret reads are facts of the plan too (as attributes, the journaled requests of plans that read no secret
        # stay byte for byte what they were): `resource.reads_secret`, `resource.secret_reads_allowed`.
        "reads_secret": bool(facts.secret_sources),
        "secret_reads_allowed": not not_allowed(facts.secret_sources, facts.secret_allowed),
    }
    return [
        {"uid": uid, "attrs": attrs, "parents": []},
        {"uid": plan, "attrs": plan_attrs, "parents": []},
    ]


def _request(facts: Facts, operation: str, approved: bool, base: dict[str, Any]) -> dict[str, Any]:
    return {
        "principal": {"type": "Agent" if facts.subject.kind == "agent" else "Human", "id": facts.subject.id},
        "action": {"type": "Action", "id": operation},
        "resource": {"type": "Plan", "id": facts.plan_hash},
        "context": context(facts, operation, approved=approved, base=base),
    }


def decide(policies: Policies, facts: Facts) -> Verdict:
    """Decide every operation of the plan (see the module docstring for the flow)."""
    operations = list(facts.risk.operations)
    approved = facts.approval != "none"
    base = plan_context(facts)
    first = [_request(facts, op, approved, base) for op in operations]
    found = entities(facts)
    results = policies.authorize(first, found)
    retry = [op for op, (allowed, _) in zip(operations, results, strict=True) if not allowed and not approved]
    again = policies.authorize([_request(facts, op, True, base) for op in retry], found) if retry else []
    second = dict(zip(retry, again, strict=True))
    checks = []
    blocked: tuple[str, ...]
    permitted: tuple[str, ...]
    rules: tuple[str, ...]
    for op, request, (allowed, reasons) in zip(operations, first, results, strict=True):
        if allowed:
            kind: DecisionKind = "allow"
            blocked, permitted, rules = (), tuple(reasons), tuple(reasons)
        elif op in second and second[op][0]:
            kind = "needs_approval"
            blocked, permitted = tuple(reasons), tuple(second[op][1])
            rules = tuple(sorted({*blocked, *permitted}))
        else:
            kind = "deny"
            last = second[op][1] if op in second else reasons
            blocked, permitted, rules = tuple(last), (), tuple(last)
        sentence = decision_sentence(kind, op, facts, blocked, permitted)
        checks.append(Check(op, facts.risk.nodes_of(op), kind, request, rules, blocked, permitted, sentence))
    return Verdict(tuple(checks))
