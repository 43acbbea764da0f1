"""Sentences a person understands, for every decision: who may do what, and which rules said so and why.

The default rules have phrases that use the decision's facts (the plan's effects, the rights gaps, the hosts); an
operator's own rules are named by their @id. The sentence is journaled with the decision, in English, so `alicorn
why` shows the words that were true when the decision was taken; the same sentence in the person's language (Polish,
Russian) is made from the same facts when Core or a page shows the decision (`runtime.admission.reasons_in`).
English is the msgid of every phrase, formatted: byte for byte what the journal has always held.
"""

from __future__ import annotations

from collections.abc import Sequence

from alicorn.anvil.facts import Facts
from alicorn.anvil.rights import describe_gap
from alicorn.anvil.secret_reads import COMPUTED, describe, not_allowed
from alicorn.anvil.words import effect_class, hosts_said, label_said, listed
from alicorn.i18n import tr, tr_marked


def _classes(classes: Sequence[str], language: str) -> str:
    return listed([effect_class(c, language) for c in classes], language)


def _above_local_write(facts: Facts, language: str) -> str:
    risk = facts.risk
    # code_execution (sandboxed, no network) is within what the default policy lets run unapproved: not a reason.
    classes = [c for c in risk.classes if c not in ("none", "read", "local_write", "code_execution")]
    where = ""
    if risk.hosts and "external_transmission" in classes:
        where = tr(language, " to {hosts}", hosts=hosts_said(risk.hosts, language))
    return f"{_classes(classes, language)}{where}"


def _approval(facts: Facts, language: str) -> str:
    if facts.approval == "granted":
        who = listed(list(facts.approved_by), language) or tr(language, "a human")
        return tr(language, "{who} approved this plan's hash", who=who)
    if facts.approval == "carried":
        return tr(language, "the approval of the plan this replan replaces carries over: the replan changes nothing "
                            "material")  # fmt: skip
    return tr(language, "a human other than the proposer approves this plan's hash")


def rule_phrase(rule: str, facts: Facts, language: str = "en") -> str:
    """What a rule means for these facts."""
    who = facts.subject.id
    risk = facts.risk
    no_effect = tr(language, "no effect")
    if rule == "permit-within-rights":
        return tr(language, "the whole plan ({classes}) stays within {who}'s rights",
                  classes=_classes(risk.classes, language) or no_effect, who=who)  # fmt: skip
    if rule == "permit-human-approved":
        return _approval(facts, language)
    if rule == "forbid-unknown-agent":
        return tr(language, "{who} is not a registered agent (register it with `alicorn agent register {who}`)",
                  who=who)  # fmt: skip
    if rule == "forbid-forbidden-effects":
        banned = sorted(set(facts.forbidden) & set(risk.classes))
        return tr(language, "the plan has {banned}, which this run forbids", banned=_classes(banned, language))
    if rule == "forbid-secret-outbound":
        return tr(language, "secret data would leave for {hosts}", hosts=listed(list(risk.hosts), language))
    if rule == "untrusted-origin-needs-human":
        return tr(
            language,
            "the request came from {provenance} channel {channel!r}{said}, so nothing happens before an authenticated "
            "human approves (`alicorn approve RUN`)",
            provenance=facts.provenance,
            channel=facts.channel,
            said=_schedule_said(facts, language),
        )
    if rule == "permit-schedule-allowed":
        allowance = facts.allowance or {}
        # Only where the allowance names hosts: the sentences of runs journaled before keep their words.
        named = risk.hosts and facts.schedule_hosts is not None
        reach = tr(language, " reaching only {hosts}, which it names", hosts=listed(list(risk.hosts), language))
        return tr(
            language,
            "schedule {schedule} (active, approved by {by}) allows its firings {allows}, and the plan has only "
            "{classes}{reach}",
            schedule=allowance.get("schedule"),
            by=allowance.get("approved_by") or tr(language, "a human"),
            allows=_classes(facts.schedule_allows, language),
            classes=_classes(risk.classes, language) or no_effect,
            reach=reach if named else "",
        )
    if rule == "schedule-destinations-need-human":
        return _destinations(facts, language)
    if rule == "forbid-secret-read":
        return _secret_read(facts, language)
    if rule == "material-change-needs-approval":
        return tr(language, "it replans the goal with a material change ({reasons})",
                  reasons="; ".join(facts.material_reasons))  # fmt: skip
    return tr(language, "rule {rule!r} says so", rule=rule)


def _schedule_said(facts: Facts, language: str) -> str:
    """For a schedule's firing: what its schedule allows, or why it allows nothing."""
    if facts.trigger is None:
        return ""
    allowance = facts.allowance or {}
    sid, slot = facts.trigger.get("schedule"), facts.trigger.get("slot")
    allows = [c for c in facts.schedule_allows if c not in ("none", "read")]
    if not facts.schedule_allows:
        why = _allowance_reason(allowance, language) or tr(language, "schedule {schedule} could not be read",
                                                           schedule=sid)  # fmt: skip
        return tr(language, " (slot {slot} of schedule {schedule}, which allows nothing without a human: {why})",
                  slot=slot, schedule=sid, why=why)  # fmt: skip
    beyond = sorted(set(facts.risk.classes) - set(facts.schedule_allows))
    also = tr(language, "; the plan also has {classes}", classes=_classes(beyond, language)) if beyond else ""
    allowed = _classes(allows, language) or tr(language, "only looking")
    return tr(language, " (slot {slot} of schedule {schedule}, which allows {allowed}{also})",
              slot=slot, schedule=sid, allowed=allowed, also=also)  # fmt: skip


def _allowance_reason(allowance: dict[str, object], language: str) -> str:
    """Why a schedule allows nothing: its journaled English reason, or in another language the same reason made
    from the msgid and values the schedule journaled beside it (`schedule.allowance`; absent before they were)."""
    said = allowance.get("reason_said")
    if language != "en" and isinstance(said, dict) and isinstance(said.get("message"), str):
        values = said.get("values")
        values = values if isinstance(values, dict) else {}
        return tr_marked(language, str(said["message"]), **{str(k): str(v) for k, v in values.items()})
    return str(allowance.get("reason") or "")


def _destinations(facts: Facts, language: str) -> str:
    """Why a schedule's firing may not send where (or what) its plan sends without a human."""
    sid = (facts.trigger or {}).get("schedule")
    named = listed(list(facts.schedule_hosts or ()), language) or tr(language, "no host")
    parts = []
    beyond = facts.hosts_beyond_schedule
    if beyond:
        named_ones = [h for h in beyond if h != "?"]
        options = " ".join(f"--host {h}" for h in named_ones)
        fix = tr(language, ", or the schedule is added again with {options}", options=options) if named_ones else ""
        parts.append(
            tr(
                language,
                "the plan reaches {hosts}, and schedule {schedule} lets its firings reach {named} without a human: "
                "a person approves this run (`alicorn approve RUN`){fix}",
                hosts=hosts_said(beyond, language),
                schedule=sid,
                named=named,
                fix=fix,
            )
        )
    if facts.risk.outbound in ("private", "secret"):
        parts.append(
            tr(
                language,
                "the plan sends {label} data to {hosts}, and a schedule never sends private data out on its own: it "
                "was approved before anyone saw the data its firings plan over, which may carry instructions, so a "
                "person decides each time",
                label=label_said(facts.risk.outbound, language),
                hosts=hosts_said(facts.risk.hosts, language),
            )
        )
    return "; ".join(parts) or tr(
        language, "schedule {schedule}'s firings send only where it names, with a human's approval", schedule=sid
    )


def _secret_read(facts: Facts, language: str) -> str:
    missing = not_allowed(facts.secret_sources, facts.secret_allowed)
    if missing:
        first = next((s for s in missing if s != COMPUTED), "PATTERN")
        return tr(
            language,
            "the plan reads {sources}, labelled secret, and this run's terms do not allow reading {missing} (run it "
            "with `--allow-secret-read {first}` and have a human approve it)",
            sources=describe(facts.secret_sources, language),
            missing=describe(missing, language),
            first=first,
        )
    return tr(language, "the plan reads secret data ({sources}), which its terms allow only once a human approves",
              sources=describe(facts.secret_sources, language))  # fmt: skip


def _why_not(facts: Facts, blocked: tuple[str, ...], language: str) -> str:
    parts = [rule_phrase(rule, facts, language) for rule in blocked]
    if facts.gaps:
        gaps = listed([describe_gap(g, language) for g in facts.gaps], language)
        parts.append(tr(language, "it goes beyond {who}'s rights ({gaps})", who=facts.subject.id, gaps=gaps))
    if facts.risk.rank > 3:
        above = _above_local_write(facts, language)
        parts.append(tr(language, "the plan has effects above local_write ({effects})", effects=above))
    parts += facts.risk.upgrades(language)
    return "; ".join(parts) or tr(language, "no rule allows it without an approval")


def _rules(rules: tuple[str, ...], language: str) -> str:
    return tr(language, " [rules: {rules}]", rules=", ".join(rules)) if rules else tr(language, " [no rule matched]")


def decision_sentence(
    kind: str,
    operation: str,
    facts: Facts,
    blocked: tuple[str, ...],
    permitted: tuple[str, ...],
    language: str = "en",
) -> str:
    """The sentence of one check: in English, the one journaled with it; in `language`, the same for a person."""
    who = facts.subject.id
    plan = tr(language, "plan {hash}…", hash=facts.plan_hash[:12])
    if kind == "allow":
        because = "; ".join(rule_phrase(r, facts, language) for r in permitted)
        return tr(language, "Allowed: {who} may run {operation} in {plan}, because {because}.{rules}",
                  who=who, operation=operation, plan=plan, because=because,
                  rules=_rules(permitted, language))  # fmt: skip
    if kind == "needs_approval":
        return tr(
            language,
            "Needs a human approval: {who} may run {operation} in {plan} only once {approval}, because {why}.{rules}",
            who=who,
            operation=operation,
            plan=plan,
            approval=_approval(facts, language),
            why=_why_not(facts, blocked, language),
            rules=_rules((*blocked, *permitted), language),
        )
    reasons = "; ".join(rule_phrase(r, facts, language) for r in blocked) or tr(
        language, "no rule permits it, even with a human approval"
    )
    return tr(language, "Denied: {who} may not run {operation} in {plan}: {reasons}.{rules}",
              who=who, operation=operation, plan=plan, reasons=reasons, rules=_rules(blocked, language))  # fmt: skip


def cause_of(sentence: str, language: str = "en") -> str:
    """What a decision's sentence in `language` gives as its cause: the words after its "because" (the same for every
    operation a plan-wide fact holds back), or the whole sentence when it has none."""
    return sentence.split(tr(language, ", because "), 1)[-1]
