"""The PermissionRegistry and the ReputationOracle: rights and reputation as folds of each agent's stream."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.agents import PermissionRegistry, fold_agent
from alicorn.anvil.errors import AnvilError, IdentityError, UnknownAgentError
from alicorn.anvil.reputation import ReputationSettings, RunOutcome, Standing, Tier, changes
from alicorn.anvil.rights import MINIMAL_AGENT_RIGHTS, Rights, RightsChange, gaps, granted, revoked
from alicorn.anvil.risk import assess
from alicorn.anvil.terms import RunTerms
from alicorn.journal.store import JournalStore
from alicorn.runtime.executor import Approval
from tests.anvil.support import executor, node, plan, registry, replays


class Ticks:
    """A clock for the registry's events: one second per reading."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"2026-11-30T10:00:{self.n:02d}.000000Z"


# ---------------------------------------------------------------------------------------------------- rights values


def test_rights_are_values_granted_and_revoked_by_changes() -> None:
    wider = granted(MINIMAL_AGENT_RIGHTS, RightsChange(effects=("external_transmission",), hosts=("*.x.io",)))
    assert wider.effects == ("none", "read", "local_write", "external_transmission")
    assert wider.hosts == ("*.x.io",) and MINIMAL_AGENT_RIGHTS.hosts == ()
    narrower = revoked(wider, RightsChange(effects=("local_write", "external_transmission")))
    assert narrower.effects == ("none", "read") and narrower.hosts == ("*.x.io",)
    assert granted(Rights(), RightsChange(max_amount=50)).max_amount == 50
    assert revoked(Rights(max_amount=50), RightsChange(max_amount=1)).max_amount == 0


def test_gaps_name_everything_beyond_the_rights() -> None:
    reg = registry()
    p = plan(
        [
            node("get", "t.get", url="https://api.x.io/q"),
            node("w", "t.write", path="secret/a.txt"),
            node("pay", "t.pay", account="a", amount=30),
        ]
    )
    rights = Rights(
        effects=("read",), operations=("t.get", "t.write"), projects=("ops",), hosts=("*.x.io",), paths=("out/**",)
    )
    found = gaps(rights, assess(p, reg), "hr")
    assert found == (
        "amount:30",
        "effect:external_transmission",
        "effect:local_write",
        "operation:t.pay",
        "path:secret/a.txt",
        "project:hr",
    )


# ---------------------------------------------------------------------------------------------------- registry


def test_registration_journals_minimal_rights_with_the_cause(store: JournalStore) -> None:
    agents = PermissionRegistry(store, now=Ticks())
    record = agents.register("agent:scout", ("researcher",), cause="new researcher", by="human:ops")
    assert record.registered and record.rights == MINIMAL_AGENT_RIGHTS and record.tier == "standard"
    assert [e.kind for e in store.read("agent:scout")] == ["agent.registered"]
    assert record.history[0].cause == "new researcher" and record.history[0].by == "human:ops"
    with pytest.raises(AnvilError, match="already registered"):
        agents.register("agent:scout", cause="again", by="human:ops")
    with pytest.raises(AnvilError, match="unknown role"):
        agents.register("agent:other", ("boss",), cause="x", by="human:ops")


def test_rights_at_any_moment_are_recomputed_from_the_stream_with_their_causes(store: JournalStore) -> None:
    agents = PermissionRegistry(store, now=Ticks())
    agents.register("agent:scout", cause="hired", by="human:ops")  # :01
    agents.change("agent:scout", RightsChange(hosts=("api.x.io",)), grant=True, cause="needs the API", by="human:ops")
    agents.change(
        "agent:scout", RightsChange(effects=("local_write",)), grant=False, cause="wrote junk", by="human:ops"
    )
    at_start = agents.record("agent:scout", "2026-11-30T10:00:01.000000Z")
    assert at_start.rights == MINIMAL_AGENT_RIGHTS and len(at_start.history) == 1
    middle = agents.record("agent:scout", "2026-11-30T10:00:02.500000Z")
    assert middle.rights.hosts == ("api.x.io",) and "local_write" in middle.rights.effects
    now = agents.record("agent:scout")
    assert now.rights.effects == ("none", "read") and now.rights.hosts == ("api.x.io",)
    assert [(h.kind, h.cause) for h in now.history] == [
        ("agent.registered", "hired"),
        ("rights.granted", "needs the API"),
        ("rights.revoked", "wrote junk"),
    ]
    assert fold_agent("agent:scout", store.read("agent:scout")).rights == now.rights
    assert agents.record("agent:scout", "2026-11-29T00:00:00.000000Z").registered is False


def test_changes_need_a_registered_agent_a_cause_and_something_to_change(store: JournalStore) -> None:
    agents = PermissionRegistry(store)
    with pytest.raises(UnknownAgentError, match="alicorn agent register agent:nobody"):
        agents.change("agent:nobody", RightsChange(hosts=("a",)), grant=True, cause="x", by="human:ops")
    agents.register("agent:a", cause="x", by="human:ops")
    with pytest.raises(AnvilError, match="needs a cause"):
        agents.change("agent:a", RightsChange(hosts=("a",)), grant=True, cause=" ", by="human:ops")
    with pytest.raises(AnvilError, match="nothing to change"):
        agents.change("agent:a", RightsChange(), grant=True, cause="x", by="human:ops")
    with pytest.raises(IdentityError, match="human:NAME or agent:NAME"):
        agents.record("planner")


def test_builtin_roles_register_themselves_on_first_use(store: JournalStore) -> None:
    agents = PermissionRegistry(store)
    assert agents.ensure_builtin("agent:planner") is True
    assert agents.ensure_builtin("agent:planner") is False
    assert agents.ensure_builtin("agent:someone") is False
    assert agents.record("agent:planner").roles == ("planner",)
    assert agents.agents() == ["agent:planner"]


# ---------------------------------------------------------------------------------------------------- reputation


def test_two_first_uses_racing_register_a_builtin_role_once(store: JournalStore) -> None:
    """Two runs starting at once both see agent:planner unregistered; the one that loses the append is not an error."""
    agents, rival = PermissionRegistry(store), PermissionRegistry(store)
    seen = agents.record

    def record_then_lose_the_race(agent: str) -> Any:
        before = seen(agent)
        if not before.registered:
            rival.ensure_builtin(agent)  # the other run's registration lands between the read and the append
        return before

    agents.record = record_then_lose_the_race  # type: ignore[method-assign]
    assert agents.ensure_builtin("agent:planner") is False
    registered = [e for e in store.read("agent:planner") if e.kind == "agent.registered"]
    assert len(registered) == 1


def outcome(status: str, ops: tuple[str, ...] = (), incidents: tuple[str, ...] = ()) -> RunOutcome:
    return RunOutcome("run-1", "agent:a", status, ops, incidents, "shape-1", ("read", "local_write"), ops)


@pytest.mark.parametrize(
    ("status", "kinds", "total"),
    [
        ("succeeded", ["success"], 2),
        ("failed", ["failure"], -3),
        ("partial", ["failure"], -3),
        ("stopped", ["failure"], -3),
        ("denied", ["denial"], -5),
        ("rejected", ["denial"], -5),
        ("cancelled", [], 0),
        ("replaced", [], 0),
    ],
)
def test_each_run_outcome_moves_reputation(status: str, kinds: list[str], total: int) -> None:
    found = changes(outcome(status), Standing(), ReputationSettings())
    assert [c.kind for c in found] == kinds and sum(c.delta for c in found) == total
    assert all("run-1" in c.cause for c in found)


def test_incidents_cost_most_and_curiosity_rewards_first_uses_up_to_a_cap() -> None:
    settings = ReputationSettings(curiosity=2, curiosity_cap=3)
    used = Standing(used=frozenset({"a.op"}))
    found = changes(outcome("succeeded", ("a.op", "b.op", "c.op"), ("pay",)), used, settings)
    assert [(c.kind, c.delta, c.operation) for c in found] == [
        ("success", 2, None),
        ("incident", -10, None),
        ("curiosity", 2, "b.op"),
        ("curiosity", 1, "c.op"),  # the cap (3) leaves one point
    ]
    assert [c.kind for c in changes(outcome("succeeded", ("d.op",)), Standing(curiosity=3), settings)] == ["success"]


def test_tiers_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="increasing"):
        ReputationSettings(tiers=(Tier(name="a", min=5, effects=()), Tier(name="b", min=1, effects=())))


def test_run_ends_settle_reputation_once_with_curiosity_and_tier_changes(store: JournalStore, tmp_path: Path) -> None:
    calls: Counter[str] = Counter()
    reg = registry(calls)
    settings = ReputationSettings(
        success=4,
        tiers=(
            Tier(name="restricted", min=-100, effects=("none", "read")),
            Tier(name="standard", min=-10, effects=("none", "read", "local_write")),
            Tier(name="trusted", min=6, effects=("none", "read", "local_write", "external_transmission")),
        ),
    )
    agents = PermissionRegistry(store, reputation=settings, now=Ticks())
    agents.register("agent:scout", cause="test", by="human:ops")
    ex = executor(store, reg, tmp_path, on_finished=lambda state: agents.settle(state.run_id))
    terms = RunTerms(proposed_by="agent:scout")
    first = ex.start(plan([node("r", "t.read", path="a.csv"), node("w", "t.write", path="o.txt")]), terms=terms)
    assert first.status == "succeeded"
    record = agents.record("agent:scout")
    assert record.reputation == 6 and record.used == {"t.read", "t.write"}  # 4 + a curiosity point per new op
    # Reaching "trusted" ranks the agent and makes it eligible; it does not widen its rights beyond local writes.
    assert record.tier == "trusted" and record.eligible == ("external_transmission",)
    assert "external_transmission" not in record.rights.effects
    kinds = [(e.kind, e.data.get("kind")) for e in store.read("agent:scout")]
    assert kinds[1:] == [
        ("reputation.changed", "success"),
        ("reputation.changed", "curiosity"),
        ("reputation.changed", "curiosity"),
        ("tier.changed", None),
    ]
    moved = store.read("agent:scout")[-1].data
    assert "moved agent:scout from tier standard to trusted" in moved["cause"]
    assert "eligible for external_transmission, which only a human grant gives" in moved["cause"]
    assert agents.settle(first.run_id) == []  # once per run
    second = ex.start(plan([node("r", "t.read", path="a.csv")]), terms=terms)  # a new shape, read-only: +1
    assert agents.record("agent:scout").reputation == 7 and second.status == "succeeded"
    denied = ex.start(
        plan([node("r", "t.read", path="a.csv")]), terms=terms.model_copy(update={"forbidden": ("read",)})
    )
    assert denied.status == "denied" and agents.record("agent:scout").reputation == 2
    after = agents.record("agent:scout")
    assert after.tier == "standard" and after.eligible == () and store.read("agent:scout")[-1].kind == "tier.changed"
    replays(store, first.run_id, reg)
    replays(store, denied.run_id, reg)


def test_a_human_run_changes_no_reputation(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    agents = PermissionRegistry(store)
    state = executor(store, reg, tmp_path).start(plan([node("r", "t.read", path="a.csv")]))
    assert agents.settle(state.run_id) == [] and agents.agents() == []


def test_a_rejected_agent_proposal_is_a_denial(store: JournalStore, tmp_path: Path) -> None:
    from alicorn.runtime.executor import Rejection

    reg = registry()
    agents = PermissionRegistry(store)
    agents.register("agent:scout", cause="t", by="human:ops")
    ex = executor(store, reg, tmp_path, on_finished=lambda state: agents.settle(state.run_id))
    p = plan([node("s", "t.send", url="https://a.io", payload=1)])
    waiting = ex.start(p, terms=RunTerms(proposed_by="agent:scout"))
    assert waiting.status == "awaiting_approval"
    assert ex.reject(waiting.run_id, Rejection("human:bob", "no")).status == "rejected"
    assert agents.record("agent:scout").reputation == -5
    approved = ex.start(p, terms=RunTerms(proposed_by="agent:scout"), approvals=[Approval("human:bob")])
    assert approved.status == "succeeded" and agents.record("agent:scout").reputation == -2
