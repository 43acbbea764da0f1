"""Sentences a person understands, for every decision: who may do what, and which rules said so and why.

The default rules have phrases that use the decision's facts (the plan's effects, the rights gaps, the hosts); an
operator's own rules are named by their @id. The sentence is journaled with the decision, so `alicorn why` shows
the words that were true when the decision was taken.
"""

from __future__ import annotations

from collections.abc import Sequence

from alicorn.anvil.facts import Facts
from alicorn.anvil.rights import describe_gap
from alicorn.anvil.secret_reads import COMPUTED, describe, not_allowed


def _list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _above_local_write(facts: Facts) -> str:
    risk = facts.risk
    # code_execution (sandboxed, no network) is within what the default policy lets run unapproved: not a reason.
    classes = [c for c in risk.classes if c not in ("none", "read", "local_write", "code_execution")]
    hosts = [h if h != "?" else "a host computed at run time" for h in risk.hosts]
    where = f" to {_list(hosts)}" if hosts and "external_transmission" in classes else ""
    return f"{_list(classes)}{where}"


def _approval(facts: Facts) -> str:
    if facts.approval == "granted":
        return f"{_list(list(facts.approved_by)) or 'a human'} approved this plan's hash"
    if facts.approval == "carried":
        return "the approval of the plan this replan replaces carries over: the replan changes nothing material"
    return "a human other than the proposer approves this plan's hash"


def rule_phrase(rule: str, facts: Facts) -> str:
    """What a rule means for these facts."""
    who = facts.subject.id
    risk = facts.risk
    if rule == "permit-within-rights":
        return f"the whole plan ({_list(list(risk.classes)) or 'no effect'}) stays within {who}'s rights"
    if rule == "permit-human-approved":
        return _approval(facts)
    if rule == "forbid-unknown-agent":
        return f"{who} is not a registered agent (register it with `alicorn agent register {who}`)"
    if rule == "forbid-forbidden-effects":
        banned = sorted(set(facts.forbidden) & set(risk.classes))
        return f"the plan has {_list(banned)}, which this run forbids"
    if rule == "forbid-secret-outbound":
        return f"secret data would leave for {_list(list(risk.hosts))}"
    if rule == "untrusted-origin-needs-human":
        return (
            f"the request came from {facts.provenance} channel {facts.channel!r}{_schedule_said(facts)}, so nothing "
            f"happens before an authenticated human approves (`alicorn approve RUN`)"
        )
    if rule == "permit-schedule-allowed":
        allowance = facts.allowance or {}
        # Only where the allowance names hosts: the sentences of runs journaled before keep their words.
        named = risk.hosts and facts.schedule_hosts is not None
        reach = f" reaching only {_list(list(risk.hosts))}, which it names" if named else ""
        return (
            f"schedule {allowance.get('schedule')} (active, approved by {allowance.get('approved_by') or 'a human'}) "
            f"allows its firings {_list(list(facts.schedule_allows))}, and the plan has only "
            f"{_list(list(risk.classes)) or 'no effect'}{reach}"
        )
    if rule == "schedule-destinations-need-human":
        return _destinations(facts)
    if rule == "forbid-secret-read":
        return _secret_read(facts)
    if rule == "material-change-needs-approval":
        return "it replans the goal with a material change (" + "; ".join(facts.material_reasons) + ")"
    return f"rule {rule!r} says so"


def _schedule_said(facts: Facts) -> str:
    """For a schedule's firing: what its schedule allows, or why it allows nothing."""
    if facts.trigger is None:
        return ""
    allowance = facts.allowance or {}
    sid = facts.trigger.get("schedule")
    allows = [c for c in facts.schedule_allows if c not in ("none", "read")]
    if not facts.schedule_allows:
        why = allowance.get("reason") or f"schedule {sid} could not be read"
        return f" (slot {facts.trigger.get('slot')} of schedule {sid}, which allows nothing without a human: {why})"
    beyond = sorted(set(facts.risk.classes) - set(facts.schedule_allows))
    also = f"; the plan also has {_list(beyond)}" if beyond else ""
    allowed = _list(allows) or "only looking"
    return f" (slot {facts.trigger.get('slot')} of schedule {sid}, which allows {allowed}{also})"


def _hosts(hosts: Sequence[str]) -> str:
    return _list([h if h != "?" else "a host computed at run time" for h in hosts])


def _destinations(facts: Facts) -> str:
    """Why a schedule's firing may not send where (or what) its plan sends without a human."""
    sid = (facts.trigger or {}).get("schedule")
    named = _list(list(facts.schedule_hosts or ())) or "no host"
    parts = []
    beyond = facts.hosts_beyond_schedule
    if beyond:
        named_ones = [h for h in beyond if h != "?"]
        options = " ".join(f"--host {h}" for h in named_ones)
        fix = f", or the schedule is added again with {options}" if named_ones else ""
        parts.append(
            f"the plan reaches {_hosts(beyond)}, and schedule {sid} lets its firings reach {named} without a human: "
            f"a person approves this run (`alicorn approve RUN`){fix}"
        )
    if facts.risk.outbound in ("private", "secret"):
        parts.append(
            f"the plan sends {facts.risk.outbound} data to {_hosts(facts.risk.hosts)}, and a schedule never sends "
            "private data out on its own: it was approved before anyone saw the data its firings plan over, which may "
            "carry instructions, so a person decides each time"
        )
    return "; ".join(parts) or f"schedule {sid}'s firings send only where it names, with a human's approval"


def _secret_read(facts: Facts) -> str:
    missing = not_allowed(facts.secret_sources, facts.secret_allowed)
    if missing:
        first = next((s for s in missing if s != COMPUTED), "PATTERN")
        return (
            f"the plan reads {describe(facts.secret_sources)}, labelled secret, and this run's terms do not allow "
            f"reading {describe(missing)} (run it with `--allow-secret-read {first}` and have a human approve it)"
        )
    sources = describe(facts.secret_sources)
    return f"the plan reads secret data ({sources}), which its terms allow only once a human approves"


def _why_not(facts: Facts, blocked: tuple[str, ...]) -> str:
    parts = [rule_phrase(rule, facts) for rule in blocked]
    if facts.gaps:
        parts.append(f"it goes beyond {facts.subject.id}'s rights ({_list([describe_gap(g) for g in facts.gaps])})")
    if facts.risk.rank > 3:
        parts.append(f"the plan has effects above local_write ({_above_local_write(facts)})")
    parts += facts.risk.upgrades()
    return "; ".join(parts) or "no rule allows it without an approval"


def _rules(rules: tuple[str, ...]) -> str:
    return f" [rules: {', '.join(rules)}]" if rules else " [no rule matched]"


def decision_sentence(
    kind: str, operation: str, facts: Facts, blocked: tuple[str, ...], permitted: tuple[str, ...]
) -> str:
    """The journaled sentence of one check."""
    who = facts.subject.id
    plan = f"plan {facts.plan_hash[:12]}…"
    if kind == "allow":
        because = "; ".join(rule_phrase(r, facts) for r in permitted)
        return f"Allowed: {who} may run {operation} in {plan}, because {because}.{_rules(permitted)}"
    if kind == "needs_approval":
        return (
            f"Needs a human approval: {who} may run {operation} in {plan} only once {_approval(facts)}, because "
            f"{_why_not(facts, blocked)}.{_rules((*blocked, *permitted))}"
        )
    reasons = "; ".join(rule_phrase(r, facts) for r in blocked) or "no rule permits it, even with a human approval"
    return f"Denied: {who} may not run {operation} in {plan}: {reasons}.{_rules(blocked)}"
