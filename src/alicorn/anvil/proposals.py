"""ProposalEnvelopes: runs that wait for a human decision, with everything the human needs to decide.

A run waits when the policy says needs_approval. Its envelope names the plan hash the approval will be bound to,
the whole-plan effects and destinations, who proposed it, for which project, the reasons in words, the rules that
decided and the checks `alicorn why` explains. It is built from the journal alone.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore


class ProposalEnvelope(BaseModel):
    """A run awaiting approval (see the module docstring)."""

    model_config = ConfigDict(frozen=True)
    run: str
    goal: str
    goal_hash: str
    plan_hash: str
    proposed_by: str
    project: str
    effects: dict[str, list[str]]
    classes: list[str]
    destinations: list[str]
    reasons: list[str]
    rules: list[str]
    checks: list[str]
    since: str
    replan_of: str | None = None
    change: dict[str, Any] | None = None
    #: What each node with an effect will do, in its own words (the changes, the recipients), by node id.
    actions: dict[str, str] = Field(default_factory=dict)


def envelope(events: list[Event]) -> ProposalEnvelope | None:
    """The envelope of a run whose journal ends waiting for approval; None otherwise."""
    if not events or events[0].kind != "run.created" or events[-1].kind != "run.awaiting_approval":
        return None
    created, waiting = events[0].data, events[-1].data
    risk = created.get("risk", {})
    last_inputs = max((e.seq for e in events if e.kind == "anvil.inputs"), default=0)
    checks = [f"{e.stream}#{e.seq}" for e in events if e.kind == "anvil.check" and e.seq > last_inputs]
    replan = created.get("replan_of") or {}
    return ProposalEnvelope(
        run=events[0].stream,
        goal=created["plan"]["goal"],
        goal_hash=created["plan"]["goal_hash"],
        plan_hash=created["plan_hash"],
        proposed_by=created.get("proposed_by", "human:operator"),
        project=created.get("project", "default"),
        effects=waiting.get("effects", {}),
        classes=list(waiting.get("classes", risk.get("classes", []))),
        destinations=list(waiting.get("destinations", [])),
        reasons=list(waiting.get("reasons", [waiting.get("reason", "")])),
        rules=list(waiting.get("rules", [])),
        checks=checks,
        since=events[-1].at,
        replan_of=replan.get("run"),
        change=created.get("change"),
        actions=_actions(created["plan"], waiting.get("effects", {})),
    )


def _actions(plan: dict[str, Any], effects: dict[str, list[str]]) -> dict[str, str]:
    """The descriptions of the nodes whose effects the approval is about."""
    acting = {n for cls, nodes in effects.items() if cls not in ("none", "read") for n in nodes}
    return {
        n["node_id"]: n["description"] for n in plan.get("nodes", []) if n["node_id"] in acting and n.get("description")
    }


def list_proposals(store: JournalStore) -> list[ProposalEnvelope]:
    """Every run of the journal that waits for an approval, oldest first."""
    out = []
    for info in store.streams():
        if info.stream.startswith(("agent:", "control:")):
            continue
        found = envelope(store.read(info.stream))
        if found is not None:
            out.append(found)
    return out
