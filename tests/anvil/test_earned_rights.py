"""Earned rights are earned: reputation grows with diverse, novel, validated work, never with repetition, and no
reputation alone widens rights beyond local writes; a human grant does, journaled and explained."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.agents import PermissionRegistry, fold_agent
from alicorn.anvil.errors import AnvilError
from alicorn.anvil.explain import explain_node, explain_run, rights_report
from alicorn.anvil.reputation import ReputationSettings, Tier, needs_grant, plan_shape
from alicorn.anvil.rights import RightsChange
from alicorn.anvil.terms import RunTerms
from alicorn.clock import format_time
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.store import JournalStore
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass, goal_digest
from tests.anvil.support import executor, node, plan, registry, replays

AGENT = "agent:farmer"
#: Low thresholds, so that a farmer *reaches* the top tier quickly: the point is that reaching it gives nothing.
LOW = ReputationSettings(
    tiers=(
        Tier(name="restricted", min=-1_000, effects=("none", "read")),
        Tier(name="standard", min=-3, effects=("none", "read", "local_write")),
        Tier(name="trusted", min=2, effects=("none", "read", "local_write", "external_transmission")),
    )
)


class Steps:
    """A clock a few seconds per reading from a pinned moment (the executor's and the registry's time line)."""

    def __init__(self, step_s: float = 2.0) -> None:
        self.moment = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
        self.step = timedelta(seconds=step_s)

    def now(self) -> str:
        self.moment += self.step
        return format_time(self.moment)

    def __call__(self) -> str:
        return self.now()

    def monotonic(self) -> float:
        return self.moment.timestamp()

    def sleep(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)

    def jump(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)


def setup(store: JournalStore, tmp_path: Path, settings: ReputationSettings = LOW) -> tuple[PermissionRegistry, Any]:
    clock = Steps()
    agents = PermissionRegistry(store, reputation=settings, now=clock)
    agents.register(AGENT, cause="a new agent", by="human:ops")
    ex = executor(store, registry(), tmp_path, clock=clock, on_finished=lambda state: agents.settle(state.run_id))
    return agents, ex


TERMS = RunTerms(proposed_by=AGENT)


def above_local_write(effects: tuple[EffectClass, ...]) -> list[EffectClass]:
    return [c for c in effects if needs_grant(c)]


# ---------------------------------------------------------------------------------------------------- the attack


@pytest.mark.parametrize("repeats", [10, 50, 200])
def test_repeating_one_read_only_shape_never_earns_a_right_above_local_writes(tmp_path: Path, repeats: int) -> None:
    store = InMemoryStore()
    agents, ex = setup(store, tmp_path)
    for i in range(repeats):  # new literal values and goal texts each time: the same shape all the same
        p = plan([node("r", "t.read", path=f"in/{i}.csv")], goal=f"read the file, take {i}")
        assert ex.start(p, terms=TERMS).status == "succeeded"
    record = agents.record(AGENT)
    assert record.reputation == 2  # the first run: 1 for new read-only work, 1 for the first use of t.read
    assert record.tier == "trusted" and record.eligible == ("external_transmission",)
    assert above_local_write(record.rights.effects) == []
    stream = store.read(AGENT)
    for n in range(1, len(stream) + 1):  # at no moment did the agent hold anything above local_write
        assert above_local_write(fold_agent(AGENT, stream[:n]).rights.effects) == []
    assert not [e for e in stream if e.kind == "rights.granted"]
    repeats_seen = [e for e in stream if e.kind == "reputation.changed" and e.data["kind"] == "repeat"]
    assert len(repeats_seen) == repeats - 1 and all(e.data["delta"] == 0 for e in repeats_seen)
    assert "repeat of a credited shape" in repeats_seen[-1].data["cause"]
    first_run = next(e.data["run"] for e in stream if e.kind == "reputation.changed")
    assert f"credited in run {first_run}" in repeats_seen[-1].data["cause"]
    send = ex.start(plan([node("s", "t.send", url="https://x.io/in", payload=1)]), terms=TERMS)
    assert send.status == "awaiting_approval"  # a transmission still needs a person
    check = next(e.data for e in store.read(send.run_id) if e.kind == "anvil.check")
    assert "effect:external_transmission" in check["request"]["context"]["rights_gaps"]


def test_the_period_cap_bounds_diverse_read_only_work_on_journaled_times(store: JournalStore, tmp_path: Path) -> None:
    settings = LOW.model_copy(update={"period_cap": 4, "period_s": 3600})
    agents, ex = setup(store, tmp_path, settings)

    def run(*ops: str) -> None:
        nodes = [node(f"n{i}", op, **({"path": "a.csv"} if op == "t.read" else {})) for i, op in enumerate(ops)]
        assert ex.start(plan(nodes), terms=TERMS).status == "succeeded"

    run("t.read")  # +1 new, +1 curiosity (t.read)
    run("t.read")  # a repeat: 0
    run("t.shape")  # +1 new, +1 curiosity (t.shape): the cap (4) is reached
    assert agents.record(AGENT).reputation == 4
    run("t.read", "t.shape")  # new, but capped: journaled with why, and the shape stays uncredited
    capped = store.read(AGENT)[-1].data
    assert capped["kind"] == "capped" and capped["delta"] == 0 and "the cap of 4 points per 3600 s" in capped["cause"]
    assert agents.record(AGENT).reputation == 4 and len(agents.record(AGENT).shapes) == 2
    ex.clock.jump(3600)  # the period passes on the journaled time line, not on the wall clock
    run("t.read", "t.shape")  # the same shape, now credited
    assert agents.record(AGENT).reputation == 5 and len(agents.record(AGENT).shapes) == 3


def test_diverse_validated_work_raises_reputation_and_writes_earn_more_than_reads(
    store: JournalStore, tmp_path: Path
) -> None:
    agents, ex = setup(store, tmp_path, LOW.model_copy(update={"curiosity": 0}))
    ex.start(plan([node("r", "t.read", path="a.csv")]), terms=TERMS)
    assert agents.record(AGENT).reputation == 1  # read-only
    ex.start(plan([node("r", "t.read", path="a.csv"), node("w", "t.write", path="o.txt")]), terms=TERMS)
    assert agents.record(AGENT).reputation == 3  # a local write risked more: 2
    ex.start(plan([node("w", "t.write", path="p.txt")]), terms=TERMS)
    assert agents.record(AGENT).reputation == 5
    ex.start(plan([node("w", "t.write", path="q.txt")]), terms=TERMS)  # a repeat of the last shape: nothing
    record = agents.record(AGENT)
    assert record.reputation == 5 and len(record.shapes) == 3
    success = next(e.data for e in store.read(AGENT) if e.data.get("kind") == "success" and e.data["delta"] == 2)
    assert "work new for agent:farmer" in success["cause"] and "work up to local_write earns 2" in success["cause"]
    assert success["shape"] == plan_shape(["t.read", "t.write"], ["read", "local_write"])


def test_a_failure_and_a_denial_still_cost_whatever_the_shape(store: JournalStore, tmp_path: Path) -> None:
    agents, ex = setup(store, tmp_path)
    ex.start(plan([node("r", "t.read", path="a.csv")]), terms=TERMS)
    denied = ex.start(
        plan([node("r", "t.read", path="a.csv")]), terms=TERMS.model_copy(update={"forbidden": ("read",)})
    )
    assert denied.status == "denied" and agents.record(AGENT).reputation == 2 - 5


def test_a_result_that_fails_validation_takes_the_credit_and_the_shape_back(
    store: JournalStore, tmp_path: Path
) -> None:
    agents, ex = setup(store, tmp_path, LOW.model_copy(update={"curiosity": 0}))
    first = ex.start(plan([node("w", "t.write", path="o.txt")]), terms=TERMS)
    assert agents.record(AGENT).reputation == 2
    agents.withhold(AGENT, first.run_id, "partial (figures)")
    record = agents.record(AGENT)
    assert record.reputation == 0 and record.shapes == {} and record.earned_since("2026-01-01T00:00:00.000000Z") == 0
    ex.start(plan([node("w", "t.write", path="o.txt")]), terms=TERMS)  # a validated one of that shape earns
    assert agents.record(AGENT).reputation == 2


def test_calibration_of_a_repeated_run_earns_nothing(store: JournalStore, tmp_path: Path) -> None:
    agents, ex = setup(store, tmp_path)
    first = ex.start(plan([node("r", "t.read", path="a.csv")]), terms=TERMS)
    again = ex.start(plan([node("r", "t.read", path="b.csv")]), terms=TERMS)
    assert [e.data["delta"] for e in agents.calibrate(AGENT, first.run_id, 0.01)] == [1]
    repeated = agents.calibrate(AGENT, again.run_id, 0.01)
    assert [e.data["delta"] for e in repeated] == [0] and "earned no credit as new work" in repeated[0].data["cause"]
    assert [e.data["delta"] for e in agents.calibrate(AGENT, again.run_id + "x", 0.9)] == [-1]  # misses still cost


# ---------------------------------------------------------------------------------------------------- human grants


def test_only_a_human_grants_a_class_above_local_write(store: JournalStore, tmp_path: Path) -> None:
    agents, _ = setup(store, tmp_path)
    before = [e.line for e in store.read(AGENT)]
    wide = RightsChange(effects=("external_transmission",), hosts=("x.io",))
    for who in ("agent:planner", "anvil", AGENT):
        with pytest.raises(AnvilError, match="only after a human grants it"):
            agents.change(AGENT, wide, grant=True, cause="self-service", by=who)
    assert [e.line for e in store.read(AGENT)] == before  # nothing was journaled
    assert [c for c in EFFECT_ORDER if needs_grant(c)] == list(EFFECT_ORDER[EFFECT_ORDER.index("local_write") + 1 :])


def test_a_human_grant_gives_the_right_is_explained_and_replays(store: JournalStore, tmp_path: Path) -> None:
    agents, ex = setup(store, tmp_path)
    ex.start(plan([node("r", "t.read", path="a.csv")]), terms=TERMS)
    assert agents.record(AGENT).eligible == ("external_transmission",)
    change = RightsChange(effects=("external_transmission",), hosts=("x.io",))
    agents.change(AGENT, change, grant=True, cause="sends the daily digest", by="human:ops")
    record = agents.record(AGENT)
    grant_event = store.read(AGENT)[-1]
    assert "external_transmission" in record.rights.effects and record.eligible == ()
    origin = record.origins["external_transmission"]
    assert (origin.source, origin.by, origin.seq, origin.at) == ("grant", "human:ops", grant_event.seq, grant_event.at)
    assert record.origins["read"].source == "registration"
    report = rights_report(record, None).text()
    assert (
        f"external_transmission: granted by human:ops ({AGENT}#{grant_event.seq} at {grant_event.at}): sends the "
        "daily digest" in report
    )
    assert f"read: from the registration by human:ops ({AGENT}#1" in report
    send = ex.start(plan([node("s", "t.send", url="https://x.io/in", payload=1)]), terms=TERMS)
    check = next(e for e in store.read(send.run_id) if e.kind == "anvil.check")
    assert check.data["request"]["context"]["rights_gaps"] == []  # within its rights now
    (why,) = explain_run(store, f"{send.run_id}#{check.seq}")
    text = why.text()
    assert f"where {AGENT}'s rights came from (as of {AGENT}#{grant_event.seq})" in text
    assert f"external_transmission: granted by human:ops ({AGENT}#{grant_event.seq}" in text
    assert [e.text() for e in explain_run(store, send.run_id)] == [text]  # a bare run id: all its decisions
    assert explain_node(store, send.run_id, "s")[0].text() == text
    replays(store, send.run_id, reg=ex.registry)


def test_falling_below_a_tier_revokes_what_reputation_gave_but_not_what_a_human_granted(
    store: JournalStore, tmp_path: Path
) -> None:
    agents, ex = setup(store, tmp_path)
    agents.change(AGENT, RightsChange(effects=("external_transmission",)), grant=True, cause="digest", by="human:ops")
    ex.start(plan([node("r", "t.read", path="a.csv")]), terms=TERMS.model_copy(update={"forbidden": ("read",)}))
    record = agents.record(AGENT)
    assert record.reputation == -5 and record.tier == "restricted"
    assert record.rights.effects == ("none", "read", "external_transmission")  # local_write (registration) went
    revoked_event = store.read(AGENT)[-1]
    assert revoked_event.kind == "rights.revoked" and revoked_event.data["change"]["effects"] == ["local_write"]
    assert "from tier standard to restricted" in revoked_event.data["cause"]
    ex.start(plan([node("r", "t.read", path="a.csv"), node("s", "t.shape")]), terms=TERMS)  # +1 new, +2 curiosity
    back = agents.record(AGENT)
    assert back.reputation == -2 and back.tier == "standard"
    assert back.origins["local_write"].source == "tier" and back.origins["external_transmission"].source == "grant"
    assert "local_write: from tier standard" in rights_report(back, None).text()


def test_a_tier_grant_above_local_write_in_an_older_journal_is_not_held(store: JournalStore, tmp_path: Path) -> None:
    """Journals written before rights were earned may hold `rights.granted` by a tier for external_transmission
    (the farmed right of issue 13): the fold does not honour it; a human grant afterwards does."""
    agents, _ = setup(store, tmp_path)
    wide = ("none", "read", "local_write", "external_transmission")
    farmed = {
        "change": {"effects": ["external_transmission"]},
        "rights": {**agents.record(AGENT).rights.model_dump(mode="json"), "effects": list(wide)},
        "tier": "trusted",
        "cause": "reputation 20 moved agent:farmer from tier standard to trusted (min 20)",
        "by": "anvil",
    }
    store.append(AGENT, [Draft("rights.granted", "2026-11-30T11:00:00.000000Z", farmed)], expect=1)
    record = agents.record(AGENT)
    assert record.rights.effects == ("none", "read", "local_write")
    assert "not held: external_transmission above local_write came from a tier" in record.history[-1].summary
    agents.change(AGENT, RightsChange(effects=("external_transmission",)), grant=True, cause="reviewed", by="human:o")
    assert agents.record(AGENT).rights.effects == wide


# ---------------------------------------------------------------------------------------------------- determinism


def test_settlement_is_a_pure_function_of_the_journal_byte_for_byte(tmp_path: Path) -> None:
    """Settle the same finished runs again into a fresh journal with the recorded times: the agent's stream comes
    out identical, line for line (hash chain included)."""
    store = InMemoryStore()
    agents, ex = setup(store, tmp_path)
    plans = [
        [node("r", "t.read", path="a.csv")],
        [node("r", "t.read", path="b.csv")],
        [node("r", "t.read", path="a.csv"), node("w", "t.write", path="o.txt")],
    ]
    runs = [ex.start(plan(nodes), terms=TERMS).run_id for nodes in plans]
    agents.change(AGENT, RightsChange(effects=("external_transmission",)), grant=True, cause="d", by="human:ops")
    denied = ex.start(plan(plans[0]), terms=TERMS.model_copy(update={"forbidden": ("read",)}))
    runs.append(denied.run_id)
    original = store.read(AGENT)
    assert {e.data.get("kind") for e in original} >= {"success", "repeat", "denial"}

    again = InMemoryStore()
    for run in runs:
        events = store.read(run)
        again.append(run, [Draft(e.kind, e.at, e.data) for e in events], expect=0)
    times = iter(sorted({e.at for e in original}))  # one reading per registry write, as recorded
    replayed = PermissionRegistry(again, reputation=LOW, now=lambda: next(times))
    replayed.register(AGENT, cause="a new agent", by="human:ops")
    for run in runs[:3]:
        replayed.settle(run)
    replayed.change(AGENT, RightsChange(effects=("external_transmission",)), grant=True, cause="d", by="human:ops")
    replayed.settle(runs[3])
    assert [e.line for e in again.read(AGENT)] == [e.line for e in original]
    for run in runs:
        replays(store, run, ex.registry)


# ---------------------------------------------------------------------------------------------------- command line


def test_a_grant_from_the_command_line_needs_a_signed_in_approver_and_is_explained(tmp_path: Path) -> None:
    import getpass
    import json

    from typer.testing import CliRunner

    from alicorn.cli import app
    from alicorn.journal.sqlite import SQLiteStore

    home = tmp_path / "home"
    me = f"human:{getpass.getuser()}"

    def cli(*args: str) -> Any:
        return CliRunner().invoke(app, [*args, "--home", str(home)], catch_exceptions=False)

    def stream() -> list[str]:
        with SQLiteStore(home / "journal.db", create=False) as store:
            return [e.line for e in store.read("agent:scout")]

    assert cli("agent", "register", "agent:scout").exit_code == 0
    before = stream()
    forged = cli("agent", "grant", "agent:scout", "--effect", "external_transmission", "--cause", "x", "--as", "bob9")
    assert forged.exit_code == 1 and "a person acts only as themselves" in forged.stderr and stream() == before
    ghost = cli("agent", "grant", "agent:ghost", "--effect", "external_transmission", "--cause", "x")
    assert ghost.exit_code == 1 and "alicorn agent register agent:ghost" in ghost.stderr
    with SQLiteStore(home / "journal.db", create=False) as store:  # refused before anyone was signed in or enrolled
        assert [i.stream for i in store.streams()] == ["agent:scout"]
    granted = cli("agent", "grant", "agent:scout", "--effect", "external_transmission", "--cause", "daily digest")
    assert granted.exit_code == 0, granted.output
    seq = len(stream())
    shown = cli("rights", "agent:scout")
    assert f"external_transmission: granted by {me} (agent:scout#{seq} at " in shown.stdout
    assert "daily digest" in shown.stdout and "local_write: from the registration" in shown.stdout
    data = json.loads(cli("rights", "agent:scout", "--json").stdout)
    origin = data["origins"]["external_transmission"]
    assert origin["by"] == me and origin["seq"] == seq and origin["source"] == "grant"
    assert "external_transmission" not in data["eligible"]
    plan_file = tmp_path / "send.json"
    goal = "send the digest"
    nodes = [{"node_id": "ask", "operation": "http.get_json", "inputs": {"url": {"value": "http://127.0.0.1:9/q"}}}]
    plan_file.write_text(json.dumps({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}))
    cli("run", str(plan_file), "-q", "--proposed-by", "agent:scout")
    with SQLiteStore(home / "journal.db", create=False) as store:
        run_id = next(i.stream for i in store.streams() if i.stream.startswith("run-"))
    why = cli("why", run_id)  # a bare run id: every decision of the run
    assert why.exit_code == 0 and "anvil.check" in why.stdout
    assert "where agent:scout's rights came from" in why.stdout
    assert f"external_transmission: granted by {me} (agent:scout#{seq}" in why.stdout
