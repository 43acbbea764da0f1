"""Budgets per run and per project: checked before every call and every model call, from the fold."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from alicorn.anvil.budget import Budget, Usage, UsageTally, check, check_step, parse_budget, usage_of
from alicorn.anvil.errors import BudgetError, BudgetExceededError
from alicorn.anvil.service import Anvil
from alicorn.anvil.terms import RunTerms
from alicorn.journal.events import Draft
from alicorn.journal.store import JournalStore
from alicorn.runtime.executor import Approval
from alicorn.runtime.state import fold
from tests.anvil.support import executor, kinds, node, plan, registry, replays


def chain(n: int, op: str = "t.shape") -> list[dict[str, object]]:
    return [{**node(f"n{i}", op), "depends_on": [f"n{i - 1}"] if i else []} for i in range(n)]


def test_budget_specs_are_read_or_refused_with_the_known_names() -> None:
    assert parse_budget(["steps=50", "money=2.5", "wall_s=10"]) == Budget(steps=50, money=2.5, wall_s=10)
    with pytest.raises(BudgetError, match="steps, effects, tokens, money, wall_s"):
        parse_budget(["calls=5"])
    with pytest.raises(BudgetError, match="steps"):
        parse_budget(["steps=ten"])
    with pytest.raises(BudgetError, match="greater than or equal to 0"):
        parse_budget(["money=-1"])
    assert Budget(steps=5).merged(Budget(effects=1)) == Budget(steps=5, effects=1)
    assert Budget(steps=5).merged(Budget(steps=9)).steps == 9


def test_a_check_says_which_budget_the_limit_the_use_and_by_how_much() -> None:
    found = check(Budget(steps=3), Usage(steps=3), next_step=Usage(steps=1))
    assert found is not None and (found.budget, found.limit, found.used, found.needed, found.over) == (
        "steps",
        3,
        3,
        4,
        1,
    )
    assert "the steps budget of this run is exceeded: limit 3 calls, used 3 calls" in found.sentence()
    assert "over by 1 calls" in found.sentence()
    assert check(Budget(steps=3), Usage(steps=2), next_step=Usage(steps=1)) is None
    project = check_step(Budget(), Budget(money=1.0), Usage(money=0.4), Usage(money=0.7), "hr")
    assert project is not None and project.scope == "project" and project.used == pytest.approx(1.1)
    assert "the money budget of project 'hr' is exceeded" in project.sentence()


def test_a_steps_budget_stops_new_calls_and_says_so(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    state = executor(store, reg, tmp_path).start(plan(chain(5)), terms=RunTerms(budget=Budget(steps=3)))
    assert state.status == "stopped" and state.stop_reason is not None and "steps budget" in state.stop_reason
    assert [state.nodes[f"n{i}"].status for i in range(5)] == ["succeeded"] * 3 + ["skipped"] * 2
    exceeded = next(e.data for e in store.read(state.run_id) if e.kind == "budget.exceeded")
    assert (exceeded["budget"], exceeded["limit"], exceeded["used"], exceeded["over"], exceeded["node"]) == (
        "steps",
        3,
        3,
        1,
        "n3",
    )
    seen = kinds(store, state.run_id)
    assert seen.index("budget.exceeded") + 1 == seen.index("run.stopped") and seen.count("tool.call") == 3
    assert "saga.started" not in seen  # a budget stop is not a failure: nothing is compensated
    replays(store, state.run_id, reg)


def test_an_effects_budget_counts_effects_only(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    nodes = [node("r", "t.read", path="a.csv"), *[node(f"w{i}", "t.write", path=f"{i}.txt") for i in range(3)]]
    for i in range(1, 4):
        nodes[i]["depends_on"] = [nodes[i - 1]["node_id"]]
    state = executor(store, reg, tmp_path).start(plan(nodes), terms=RunTerms(budget=Budget(effects=2)))
    assert state.status == "stopped" and state.budget_exceeded is not None
    assert state.budget_exceeded["budget"] == "effects" and state.nodes["w2"].status == "skipped"
    replays(store, state.run_id, reg)


def test_calls_already_running_finish_when_a_budget_stops_the_run(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    nodes = [node(f"p{i}", "t.shape") for i in range(4)]
    state = executor(store, reg, tmp_path, max_parallel=4).start(plan(nodes), terms=RunTerms(budget=Budget(steps=2)))
    assert [state.nodes[f"p{i}"].status for i in range(4)] == ["succeeded", "succeeded", "skipped", "skipped"]
    replays(store, state.run_id, reg)


class Clock:
    """A clock that moves 10 s per reading (journaled, so replay sees the same times)."""

    def __init__(self) -> None:
        self.t = 0

    def now(self) -> str:
        self.t += 10
        return f"2026-11-30T10:{self.t // 60:02d}:{self.t % 60:02d}.000000Z"

    def monotonic(self) -> float:
        return float(self.t)

    def sleep(self, seconds: float) -> None:
        return None


def test_a_wall_time_budget_excludes_waiting_for_a_human(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    nodes = [node("s", "t.send", url="https://a.io", payload=1), *chain(6)]
    ex = executor(store, reg, tmp_path, clock=Clock(), max_parallel=1)
    waiting = ex.start(plan(nodes), terms=RunTerms(budget=Budget(wall_s=35)))
    assert waiting.status == "awaiting_approval"
    for _ in range(30):  # a long wait for the human: none of it counts
        ex.clock.now()
    state = ex.resume(waiting.run_id, approvals=[Approval("human:bob")])
    assert state.status == "stopped" and state.budget_exceeded is not None
    assert state.budget_exceeded["budget"] == "wall_s" and state.budget_exceeded["limit"] == 35
    assert state.budget_exceeded["used"] == 40  # 10 s before the wait, 30 s after it, not the 300 s wait
    replays(store, waiting.run_id, reg)


def test_project_budgets_sum_usage_over_the_projects_runs(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    ex = executor(store, reg, tmp_path, max_parallel=1)
    terms = RunTerms(project="hr", project_budget=Budget(steps=5))
    first = ex.start(plan(chain(3)), terms=terms)
    assert first.status == "succeeded"
    other = ex.start(plan(chain(3)), terms=RunTerms(project="ops", project_budget=Budget(steps=5)))
    assert other.status == "succeeded"  # another project's runs do not count
    second = ex.start(plan(chain(3)), terms=terms)
    assert second.status == "stopped" and second.budget_exceeded is not None
    assert second.budget_exceeded["scope"] == "project" and second.budget_exceeded["used"] == 5
    inputs = next(e.data for e in store.read(second.run_id) if e.kind == "anvil.inputs")
    assert inputs["project_usage"]["steps"] == 3
    replays(store, second.run_id, reg)


def test_model_calls_are_checked_against_tokens_and_money(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    state = executor(store, reg, tmp_path).start(
        plan([node("a", "t.shape")]), terms=RunTerms(budget=Budget(tokens=1000, money=0.5))
    )
    anvil = Anvil(store, reg)
    anvil.before_model_call(state.run_id, tokens=900, money=0.1)
    usage = {"prompt_tokens": 600, "completion_tokens": 200}
    store.append(
        state.run_id,
        [Draft("llm.response", "2026-11-30T10:00:00.000000Z", {"usage": usage, "cost": 0.45})],
        expect=store.last_seq(state.run_id),
    )
    with pytest.raises(
        BudgetExceededError, match="tokens budget of this run is exceeded: limit 1000 tokens, used 800"
    ) as caught:
        anvil.before_model_call(state.run_id, tokens=300)
    assert caught.value.over == 100
    with pytest.raises(BudgetExceededError, match="money budget"):
        anvil.before_model_call(state.run_id, money=0.1)
    anvil.before_model_call(state.run_id, tokens=200, money=0.05)
    assert usage_of(store.read(state.run_id)).tokens == 800


def test_the_pure_model_call_check_reads_the_runs_events(store: JournalStore, tmp_path: Path) -> None:
    from alicorn.anvil.budget import check_model_call

    state = executor(store, registry(), tmp_path).start(plan([node("a", "t.shape")]))
    events = store.read(state.run_id)
    assert check_model_call(events, Budget(tokens=10), Budget(), "default", tokens=10) is None
    found = check_model_call(events, Budget(), Budget(money=1.0), "default", money=0.5, project_others=Usage(money=0.7))
    assert found is not None and found.scope == "project" and found.over == pytest.approx(0.2)


def test_the_usage_tally_and_the_run_fold_agree(store: JournalStore, tmp_path: Path) -> None:
    reg = registry()
    state = executor(store, reg, tmp_path).start(plan([node("r", "t.read", path="a"), node("w", "t.write", path="b")]))
    events = store.read(state.run_id)
    tally = UsageTally()
    for e in events:
        tally.apply(e.kind, e.at, e.data)
    assert asdict(tally) == asdict(fold(events).usage) and usage_of(events) == Usage(2, 1, 0, 0.0, tally.usage().wall_s)
