"""What depends only on the plan and its terms is decided once per plan, and never outlives what it was decided on.

`runtime.plan_decisions` computes a plan's risk, its facts and verdict, and each session's call gate once, keyed by
what they depend on. These tests count the computations (a run of 30 nodes costs what a run of 3 does), show that a
new approval, a rights change, a policy change or a replan is decided afresh, and that a decision served from the
cache journals, explains (`alicorn why`) and replays exactly as a computed one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.agents import PermissionRegistry
from alicorn.anvil.budget import Budget
from alicorn.anvil.decide import Check, Verdict
from alicorn.anvil.explain import explain_run
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.rights import HUMAN_RIGHTS, RightsChange, Subject
from alicorn.anvil.risk import PlanRisk
from alicorn.anvil.terms import RunTerms
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import Plan
from alicorn.runtime import admission, plan_decisions
from alicorn.runtime.executor import Approval
from alicorn.runtime.plan_decisions import COMPUTED, PlanVerdict, SessionDecisions, plan_verdict
from alicorn.runtime.state import RunState
from tests.anvil.support import DEFAULT_POLICY, checks, executor, node, plan, ref, register, registry, replays

AGENT = "agent:digest"
WRITE = plan([node("load", "t.read", path="a.csv"), node("save", "t.write", path="out.txt", content=ref("load"))])
SEND = plan(
    [node("load", "t.read", path="a.csv"), node("send", "t.send", url="https://api.x.io/in", payload=ref("load"))]
)
HUMAN = Subject("human:bob", "human", True, HUMAN_RIGHTS, tier="human")
NO_WRITES = DEFAULT_POLICY + '\n@id("no-writes")\nforbid (principal, action == Action::"t.write", resource);\n'


def chain(n: int, goal: str = "a chain") -> Plan:
    nodes = [node("s0", "t.shape", records=[])]
    nodes += [node(f"s{i}", "t.shape", records=ref(f"s{i - 1}")) for i in range(1, n)]
    return plan(nodes, goal)


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    plan_decisions.clear()
    yield
    plan_decisions.clear()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often the runtime asks Anvil for each part: the plan's risk, its decision, a budget step, a secret read."""
    seen: Counter[str] = Counter()

    def counting(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(plan_decisions, "assess", counting("assess", plan_decisions.assess))
    monkeypatch.setattr(admission, "decide", counting("decide", admission.decide))
    monkeypatch.setattr(admission, "secret_sources", counting("secret_sources", admission.secret_sources))
    monkeypatch.setattr(admission, "check_step", counting("check_step", admission.check_step))
    monkeypatch.setattr(admission, "refusal", counting("refusal", admission.refusal))
    return seen


def _computed() -> Counter[str]:
    return Counter(COMPUTED)


@pytest.mark.parametrize("n", [3, 30])
def test_the_plan_part_is_computed_once_per_run_whatever_its_length(
    store: JournalStore, tmp_path: Path, counted: Counter[str], n: int
) -> None:
    reg = registry()
    before = _computed()
    state = executor(store, reg, tmp_path, DEFAULT_POLICY).start(chain(n))
    assert state.status == "succeeded"
    # Once per run, not per node: the executor's risk (run.created) is the one the session decides on.
    assert counted == Counter({"assess": 1, "decide": 1, "secret_sources": 1})
    assert _computed() - before == Counter({"risk": 1, "verdict": 1, "gate": 1})
    replays(store, state.run_id, reg)


def test_per_call_only_the_call_is_asked(store: JournalStore, tmp_path: Path, counted: Counter[str]) -> None:
    """With budgets, each call checks this run's usage with its step; with labels that can say secret, only the
    nodes that read a path check the resolved one. The static part is built once."""
    reg = registry()
    terms = RunTerms(budget=Budget(steps=100), labels=DataLabels(secret=("keys/**",)))
    nodes = [node("load", "t.read", path="a.csv"), *chain(5).model_dump(mode="json")["nodes"]]
    state = executor(store, reg, tmp_path, DEFAULT_POLICY).start(plan(nodes), terms=terms)
    assert state.status == "succeeded"
    assert counted["check_step"] == 6 and counted["refusal"] == 1  # the one read, not the five shapes
    assert counted["decide"] == 1 and counted["assess"] == 1


def test_a_budget_still_stops_the_run_at_the_call_that_exceeds_it(store: JournalStore, tmp_path: Path) -> None:
    state = executor(store, registry(), tmp_path, DEFAULT_POLICY).start(
        chain(5), terms=RunTerms(budget=Budget(steps=3))
    )
    assert state.status == "stopped" and state.budget_exceeded is not None
    assert state.budget_exceeded["node"] == "s3" and state.budget_exceeded["budget"] == "steps"


def test_the_same_plan_again_reuses_the_decision_and_journals_explains_and_replays_the_same(
    store: JournalStore, tmp_path: Path, counted: Counter[str]
) -> None:
    reg = registry()
    ex = executor(store, reg, tmp_path, DEFAULT_POLICY)
    first = ex.start(WRITE, run_id="run-first")
    second = ex.start(WRITE, run_id="run-second")
    assert first.status == second.status == "succeeded"
    assert counted["decide"] == 1 and counted["assess"] == 1  # the second run's decision came from the cache

    def decisions(run_id: str) -> list[dict[str, Any]]:
        return [{k: v for k, v in c.items() if k != "inputs"} for c in checks(store, run_id)]

    assert decisions("run-first") == decisions("run-second")

    def why(run_id: str) -> list[str]:  # every decision explained, less its heading (the event and its time)
        return [e.text().split("\n", 1)[1].replace(run_id, "RUN") for e in explain_run(store, run_id)]

    assert why("run-second") == why("run-first") and len(why("run-first")) == 2
    replays(store, "run-first", reg)
    replays(store, "run-second", reg)


def test_a_cached_decision_is_kept_per_registry_and_hands_out_requests_of_its_own() -> None:
    """Served again under its key and registry only; each journaled check's request is a copy, so nothing done
    with one event's data can change a later run's."""
    reg = registry()
    check = Check("t.read", ("load",), "allow", {"context": {"hosts": []}}, ("r",), (), ("r",), "allowed")
    decided = PlanVerdict(Facts("p", "g", "default", PlanRisk(()), HUMAN), Verdict((check,)))
    served = plan_verdict("key", reg, lambda: decided)
    assert plan_verdict("key", reg, lambda: pytest.fail("computed twice")) is served
    other = PlanVerdict(decided.facts, Verdict(()))
    assert plan_verdict("key", registry(), lambda: other) is other  # another registry: computed for it
    served.checks()[0].request["context"]["hosts"].append("x.io")
    assert served.checks()[0].request == {"context": {"hosts": []}} == check.request


def test_a_new_approval_is_decided_afresh_and_never_leaks_to_another_run(
    store: JournalStore, tmp_path: Path, counted: Counter[str]
) -> None:
    reg = registry()
    ex = executor(store, reg, tmp_path, DEFAULT_POLICY)
    waiting = ex.start(SEND, run_id="run-wait")
    assert waiting.status == "awaiting_approval"
    approved = ex.resume("run-wait", approvals=[Approval("human:bob")])
    assert approved.status == "succeeded" and counted["decide"] == 2  # the approval made a new key
    assert [c["decision"] for c in checks(store, "run-wait")[-2:]] == ["allow", "allow"]
    again = ex.start(SEND, run_id="run-again")  # the same plan and terms, no approval: waits again
    assert again.status == "awaiting_approval" and counted["decide"] == 2  # the unapproved decision, reused
    replays(store, "run-wait", reg)


def test_a_rights_change_mid_run_is_seen_by_the_resumed_runs_checks(
    store: JournalStore, tmp_path: Path, counted: Counter[str]
) -> None:
    """An agent's run dies after its read; a human then revokes the agent's local writes. The resume's checks are
    taken on the new snapshot (journaled in its `anvil.inputs`), not on the cached one of the same plan and terms."""
    reg = registry()
    register(store, AGENT)
    terms = RunTerms(proposed_by=AGENT)

    class Killed(Exception):
        pass

    def killed_after_load(events: Sequence[Event]) -> None:
        if any(e.kind == "tool.call" and e.data["node"] == "load" for e in events):
            raise Killed

    dying = executor(store, reg, tmp_path, DEFAULT_POLICY, on_events=killed_after_load)
    with pytest.raises(Killed):
        dying.start(WRITE, run_id="run-agent", terms=terms)
    assert [c["request"]["context"]["within_rights"] for c in checks(store, "run-agent")] == [True, True]
    revoke = RightsChange(effects=("local_write",))
    PermissionRegistry(store).change(AGENT, revoke, grant=False, cause="no more writes", by="human:ops")
    state = executor(store, reg, tmp_path, DEFAULT_POLICY).resume("run-agent")
    after = {c["operation"]: c for c in checks(store, "run-agent")[2:]}
    assert "effect:local_write" in after["t.write"]["request"]["context"]["rights_gaps"] and counted["decide"] == 2
    assert after["t.write"]["decision"] != "allow" and state.status != "succeeded"
    replays(store, "run-agent", reg)


def test_a_policy_change_at_resume_is_decided_under_the_new_policy(
    store: JournalStore, tmp_path: Path, counted: Counter[str]
) -> None:
    reg = registry()

    class Killed(Exception):
        pass

    def killed_after_load(events: Sequence[Event]) -> None:
        if any(e.kind == "tool.call" and e.data["node"] == "load" for e in events):
            raise Killed

    with pytest.raises(Killed):
        executor(store, reg, tmp_path, DEFAULT_POLICY, on_events=killed_after_load).start(WRITE, run_id="run-p")
    state = executor(store, reg, tmp_path, NO_WRITES).resume("run-p")
    assert state.status == "stopped" and counted["decide"] == 2
    assert next(c for c in checks(store, "run-p")[2:] if c["operation"] == "t.write")["decision"] == "deny"
    replays(store, "run-p", reg)


def test_a_replan_is_decided_on_its_own_plan(store: JournalStore, tmp_path: Path, counted: Counter[str]) -> None:
    reg = registry()
    ex = executor(store, reg, tmp_path, DEFAULT_POLICY)
    waiting = ex.start(SEND, run_id="run-old")
    assert waiting.status == "awaiting_approval"
    safer = plan([node("load", "t.read", path="a.csv"), node("keep", "t.shape", records=ref("load"))])
    ex.replan("run-old", safer, new_run_id="run-new")
    assert counted["decide"] == 2
    decided = checks(store, "run-new")
    assert sorted(c["operation"] for c in decided) == ["t.read", "t.shape"]
    assert all(c["request"]["context"]["material_change"] for c in decided)  # judged against the old plan
    replays(store, "run-new", reg)


def test_the_call_gate_is_rebuilt_only_when_new_inputs_replace_the_projects_usage() -> None:
    """A session's gate holds the project's other runs' usage as last journaled; a new `anvil.inputs` (a resume
    with project budgets) replaces it, and the next call reads the new one."""

    class Seen:
        def __init__(self, reg: Registry) -> None:
            self.state = RunState(run_id="run-g")
            self.plan = chain(2)
            self.terms = RunTerms(project_budget=Budget(steps=10))
            self.registry = reg

    session = Seen(registry())
    decided = SessionDecisions()
    session.state.project_usage = {"steps": 2}
    before = _computed()
    first = decided.gate(session)
    assert decided.gate(session) is first and first.budgeted and first.others.steps == 2
    session.state.project_usage = {"steps": 7}  # what the fold does with a new anvil.inputs
    rebuilt = decided.gate(session)
    assert rebuilt is not first and rebuilt.others.steps == 7
    assert _computed() - before == Counter({"gate": 2})
