"""Explanations: why a decision was taken, and what an agent could do at a given moment, in plain text.

`alicorn why RUN#SEQ` explains a decision event (`anvil.check` or `budget.exceeded`) from the journal alone: the
decision, its sentence, the rules that decided (with their text, from the policy journaled with the run), the
principal's snapshot and the request the policy evaluated. `alicorn why RUN NODE` finds the decisions that covered
a node; `alicorn why RUN` every decision of the run. For an agent, each explanation also names where every effect
class it held came from (its registration, a tier, or a human grant: event, by whom, when), folded from the agent's
stream up to the snapshot the decision used. `alicorn rights AGENT --at TIME` folds the agent's stream up to TIME and
lists which events granted what, and what its tier makes it eligible for without holding it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from alicorn.anvil.agents import AgentRecord, fold_agent
from alicorn.anvil.errors import AnvilError
from alicorn.anvil.policy import rule_sources
from alicorn.anvil.rights import Rights, describe_gap
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore

#: Event kinds that are decisions `why` explains.
DECISION_KINDS = frozenset({"anvil.check", "budget.exceeded"})


@dataclass(frozen=True)
class Explanation:
    """A titled block of lines."""

    title: str
    lines: list[str] = field(default_factory=list)
    decision: str = ""

    def text(self) -> str:
        return "\n".join([self.title, *self.lines])


def parse_ref(text: str) -> tuple[str, int]:
    """`RUN#SEQ` as (run, seq); AnvilError saying the form otherwise."""
    run, sep, seq = text.rpartition("#")
    if not sep or not run or not seq.isdigit():
        raise AnvilError(
            f"{text!r} is not a decision: write RUN#SEQ (the run id and the event number of an anvil.check or "
            "budget.exceeded; `alicorn journal RUN --kind anvil.` lists them), or `alicorn why RUN NODE`"
        )
    return run, int(seq)


def decisions(events: list[Event]) -> list[Event]:
    """The decision events of a run."""
    return [e for e in events if e.kind in DECISION_KINDS]


def _policy_text(events: list[Event], digest: str) -> str | None:
    for event in events:
        policy = event.data.get("policy") if event.kind == "anvil.inputs" else None
        if isinstance(policy, dict) and policy.get("digest") == digest and "text" in policy:
            return str(policy["text"])
    return None


def _rights_lines(rights: dict[str, Any]) -> list[str]:
    return [f"    {Rights.model_validate(rights).describe()}"]


def _check(events: list[Event], event: Event) -> Explanation:
    data = event.data
    request = data["request"]
    context = request["context"]
    inputs = next((e for e in events if e.seq == data.get("inputs")), None)
    principal = inputs.data.get("principal", {}) if inputs is not None else {}
    lines = [f"decision: {data['decision']}", f"  {data['sentence']}"]
    lines.append(f"operation: {data['operation']} (nodes {', '.join(data['nodes'])}), effect {context['effect']}")
    lines.append(f"plan: {request['resource']['id']}  project: {context['project']}")
    lines.append(
        f"whole plan: effects {', '.join(context['plan_effects']) or 'none'}; destinations "
        f"{', '.join(context['destinations']) or 'none'}; outbound data {context['outbound_label']}"
    )
    gaps = context["rights_gaps"]
    lines.append("beyond rights: " + ("; ".join(describe_gap(g) for g in gaps) if gaps else "nothing"))
    approval = context["approval"] if context["approved"] else "none"
    lines.append(f"approval: {approval}; material change: {'yes' if context['material_change'] else 'no'}")
    if principal.get("kind") == "human":
        lines.append(f"principal: {principal['id']} (a human; rights from the operator's config):")
        lines += _rights_lines(principal["rights"])
    elif principal:
        lines.append(
            f"principal: {principal['id']} ("
            + ("registered" if principal.get("registered") else "NOT registered")
            + f", reputation {principal.get('reputation', 0)}, tier {principal.get('tier') or '-'}; rights as of "
            f"{principal['id']}#{principal.get('as_of', 0)}, see `alicorn rights {principal['id']}`):"
        )
        lines += _rights_lines(principal["rights"])
    source = inputs.data["policy"].get("source", "?") if inputs is not None else "?"
    lines.append(f"policy: {source} (sha256 {data['policy'][:16]}…), inputs at {event.stream}#{data.get('inputs')}")
    text = _policy_text(events, data["policy"])
    rules = list(data["rules"])
    if not rules:
        lines.append("rules that decided: none matched (Cedar denies what no rule permits)")
    else:
        lines.append("rules that decided:")
        sources = rule_sources(text) if text is not None else {}
        for rule in rules:
            role = "blocked it" if rule in data.get("blocked_by", []) else "permitted it"
            lines.append(f"  - {rule} ({role})")
            if rule in sources:
                lines += [f"      {line}" for line in sources[rule].splitlines()]
    lines.append("request: " + json.dumps(request, sort_keys=True, ensure_ascii=False))
    return Explanation(f"{event.stream}#{event.seq} anvil.check at {event.at}", lines, data["decision"])


def _budget(event: Event) -> Explanation:
    data = event.data
    lines = [
        "decision: stop (budget exceeded)",
        f"  {data['sentence']}",
        f"budget: {data['budget']} ({data['scope']} scope, project {data['project']!r})",
        f"limit {data['limit']:g}, used {data['used']:g}, next step needs {data['needed']:g}, over by {data['over']:g}",
        f"stopped before node {data.get('node', '?')}; no new calls started after this event",
    ]
    return Explanation(f"{event.stream}#{event.seq} budget.exceeded at {event.at}", lines, "stop")


def explain(events: list[Event], seq: int) -> Explanation:
    """Explain decision event #`seq` of a run's `events`."""
    event = next((e for e in events if e.seq == seq), None)
    if event is None or event.kind not in DECISION_KINDS:
        found = ", ".join(f"#{e.seq}" for e in decisions(events)) or "none"
        what = f"is {event.kind}" if event is not None else "does not exist"
        raise AnvilError(f"event #{seq} {what}, not a decision; the run's decisions are: {found}")
    return _check(events, event) if event.kind == "anvil.check" else _budget(event)


def origin_lines(record: AgentRecord, indent: str = "  ") -> list[str]:
    """Each effect class the agent holds and where it came from; then what its tier makes it eligible for."""
    lines = []
    for effect in record.rights.effects:
        origin = record.origins.get(effect)
        lines.append(f"{indent}{effect}: " + (origin.describe(record.id) if origin else "origin not recorded"))
    if record.eligible:
        lines.append(
            f"{indent}eligible by tier {record.tier}, not held: {', '.join(record.eligible)} (reputation alone never "
            f"grants a class above local_write; a human does: `alicorn agent grant {record.id} --effect "
            f"{record.eligible[0]} --cause WHY`)"
        )
    return lines


def _explained(store: JournalStore, events: list[Event], seq: int) -> Explanation:
    """Explain decision #`seq`; for a check of a registered agent's plan, add where each of its rights came from,
    as of the snapshot the decision used (the agent's stream folded up to `as_of`)."""
    found = explain(events, seq)
    check = next(e for e in events if e.seq == seq)
    source = next((e for e in events if e.seq == check.data.get("inputs") and e.kind == "anvil.inputs"), None)
    principal = source.data.get("principal", {}) if source is not None else {}
    agent = str(principal.get("id", ""))
    if principal.get("kind") != "agent" or not principal.get("registered") or store.head(agent) is None:
        return found
    as_of = int(principal.get("as_of", 0))
    record = fold_agent(agent, [e for e in store.read(agent) if e.seq <= as_of])
    lines = [f"where {agent}'s rights came from (as of {agent}#{as_of}):", *origin_lines(record)]
    return Explanation(found.title, [*found.lines, *lines], found.decision)


def explain_ref(store: JournalStore, ref: str) -> Explanation:
    run, seq = parse_ref(ref)
    store.require(run)
    return _explained(store, store.read(run), seq)


def explain_run(store: JournalStore, text: str) -> list[Explanation]:
    """`RUN#SEQ`: that decision; a bare run id: every decision of the run (in journal order)."""
    if "#" in text or store.head(text) is None:
        return [explain_ref(store, text)]
    events = store.read(text)
    found = decisions(events)
    if not found:
        raise AnvilError(f"run {text} has no decision to explain (a run recorded before Anvil, or not a run)")
    return [_explained(store, events, e.seq) for e in found]


def explain_node(store: JournalStore, run_id: str, node: str) -> list[Explanation]:
    """Every decision that covered `node`: the checks of its operation, and a budget stop before it."""
    store.require(run_id)
    events = store.read(run_id)
    nodes = [n["node_id"] for n in events[0].data["plan"]["nodes"]] if events[0].kind == "run.created" else []
    if node not in nodes:
        raise AnvilError(f"run {run_id} has no node {node!r}; its nodes are: {', '.join(nodes)}")
    found = [
        _explained(store, events, e.seq)
        for e in decisions(events)
        if (e.kind == "anvil.check" and node in e.data["nodes"]) or e.data.get("node") == node
    ]
    if not found:
        raise AnvilError(f"no decision in run {run_id} covers node {node!r} (a run recorded before Anvil?)")
    return found


def rights_report(record: AgentRecord, at: str | None) -> Explanation:
    """What an agent could do at `at` (or now), and which events made it so."""
    when = f"at {at}" if at else "now"
    if not record.registered:
        return Explanation(f"{record.id} {when}: not registered (no rights; the policy denies its plans)")
    lines = [
        f"roles: {', '.join(record.roles) or 'none'}",
        f"reputation: {record.reputation} (tier {record.tier or '-'})",
        f"rights: {record.rights.describe()}",
        "effect classes held, and where each came from:",
        *origin_lines(record, "  "),
        f"operations used successfully: {', '.join(sorted(record.used)) or 'none'}",
        f"plan shapes credited as new work: {len(record.shapes)}",
        "history (each event with its cause):",
    ]
    for entry in record.history:
        lines.append(f"  #{entry.seq} {entry.at} {entry.kind}: {entry.summary}")
        lines.append(f"      cause: {entry.cause or '-'} (by {entry.by or '-'})")
    return Explanation(f"{record.id} {when}", lines)
