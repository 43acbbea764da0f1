"""Benchmark of Anvil's policy checks, with a baseline measured in the same run, and the splitting figure.

    python bench/policy_bench.py             # default: 3,000 timed decisions per workload, 500 random plans
    python bench/policy_bench.py --quick

Figures (it prints; it asserts nothing):

* latency of one check: `decide()` over a plan's whole-plan facts (Cedar evaluation of each operation, the second
  "as if approved" evaluation where needed, the sentence), in microseconds per check, median and p95;
* the baseline: a plain Python dict lookup of the same rights (is the operation's effect in the principal's effect
  set?), per check, timed the same way in the same run; the ratio is check / lookup;
* admission of a whole plan: `assess()` (labels, risk) plus `decide()`;
* splitting, renaming and reordering attempts on random plans: how many were tried, and how many could not lower a
  decision (every one must be caught).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from alicorn.anvil.decide import DECISIONS, decide
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import HUMAN_RIGHTS, MINIMAL_AGENT_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.ops.builtin import builtin_registry
from alicorn.packs import pack_dir
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.plan.validate import parse_plan, validate_plan

REG = builtin_registry()
LABELS = DataLabels(private=("hr/**",), secret=("keys/**",))
POLICY = compile_policies(default_policy_text())
AGENT = Subject("agent:planner", "agent", True, MINIMAL_AGENT_RIGHTS, ("planner",), 0, "standard", 1)
HUMAN = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")


def facts(plan: Plan, subject: Subject) -> Facts:
    return Facts(plan.plan_hash(), plan.goal_hash, "default", assess(plan, REG, LABELS), subject)


def samples(fn: Callable[[], Any], n: int, per: int) -> list[float]:
    """Microseconds per unit of `fn` (which does `per` units), n timings after a warm-up."""
    for _ in range(min(200, n)):
        fn()
    out = []
    for _ in range(n):
        start = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - start) / 1000 / per)
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def line(label: str, values: list[float]) -> str:
    return f"{label:<58} median {statistics.median(values):9.3f} µs   p95 {p95(values):9.3f} µs"


# ---------------------------------------------------------------------------------------------------- random plans


def _plan(nodes: list[dict[str, Any]], goal: str = "bench") -> Plan:
    return validate_plan(parse_plan({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}), REG)


def _v(value: Any) -> dict[str, Any]:
    return {"value": value}


def _r(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def random_plan(rnd: random.Random) -> Plan:
    nodes: list[dict[str, Any]] = []
    sources: list[str] = []
    for i in range(rnd.randint(1, 8)):
        nid = f"n{i}"
        kind = rnd.choice(["read", "sort", "get", "send", "write"]) if sources else "read"
        url = f"https://{rnd.choice(['api.x.io', 'b.example.com'])}/{i}"
        if kind == "read":
            path = rnd.choice(["alarms.json", "hr/staff.json", "keys/k.json", "open/a.json"])
            nodes.append({"node_id": nid, "operation": "data.read_json", "inputs": {"path": _v(path)}})
            sources.append(nid)
        elif kind == "sort":
            src = rnd.choice(sources)
            nodes.append(
                {
                    "node_id": nid,
                    "operation": "records.sort",
                    "inputs": {"records": _r(src, "records"), "by": _v(["id"])},
                }
            )
        elif kind == "get":
            params = _r(rnd.choice(sources), "value") if rnd.random() < 0.6 else _v({"q": i})
            nodes.append({"node_id": nid, "operation": "http.get_json", "inputs": {"url": _v(url), "params": params}})
        elif kind == "send":
            payload = _r(rnd.choice(sources), "value") if rnd.random() < 0.6 else _v(i)
            nodes.append(
                {"node_id": nid, "operation": "http.post_json", "inputs": {"url": _v(url), "payload": payload}}
            )
        else:
            nodes.append(
                {
                    "node_id": nid,
                    "operation": "workspace.write_file",
                    "inputs": {"path": _v(f"o{i}.txt"), "content": _v("x")},
                }
            )
    return _plan(nodes)


def rename(plan: Plan, rnd: random.Random) -> Plan:
    text = plan.model_dump_json()
    for node in sorted((n.node_id for n in plan.nodes), key=len, reverse=True):
        text = text.replace(f'"{node}"', f'"z{rnd.randrange(10**9)}-{node}"')
    return validate_plan(text, REG)


def reorder(plan: Plan, rnd: random.Random) -> Plan:
    nodes = [n.model_dump(mode="json") for n in plan.nodes]
    rnd.shuffle(nodes)
    return _plan(nodes)


def split(plan: Plan, rnd: random.Random) -> Plan:
    """Every send, GET and write becomes 2-5 small ones (to the same host); order shuffled."""
    nodes: list[dict[str, Any]] = []
    for node in plan.nodes:
        data = node.model_dump(mode="json")
        if node.operation in ("http.post_json", "http.get_json", "workspace.write_file"):
            for k in range(rnd.randint(2, 5)):
                nodes.append({**data, "node_id": f"{node.node_id}-part{k}"})
        else:
            nodes.append(data)
    rnd.shuffle(nodes)
    return _plan(nodes)


def strictest(plan: Plan, subject: Subject) -> int:
    return max(DECISIONS.index(c.decision) for c in decide(POLICY, facts(plan, subject)).checks)


def attempts(count: int) -> tuple[int, int]:
    rnd = random.Random(2026)
    tried = caught = 0
    for _ in range(count):
        plan = random_plan(rnd)
        for subject in (AGENT, HUMAN):
            before = strictest(plan, subject)
            for transform in (rename, reorder, split):
                tried += 1
                caught += strictest(transform(plan, rnd), subject) >= before
    return tried, caught


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=3000, help="timed decisions per workload")
    parser.add_argument("--plans", type=int, default=500, help="random plans for the splitting figure")
    parser.add_argument("--quick", action="store_true", help="-n 500 --plans 100")
    args = parser.parse_args()
    n, plans = (500, 100) if args.quick else (args.n, args.plans)

    alarms = parse_plan((pack_dir("alarms") / "plan.json").read_text(encoding="utf-8"))
    send = _plan(
        [
            {"node_id": "load", "operation": "data.read_json", "inputs": {"path": _v("hr/staff.json")}},
            {
                "node_id": "send",
                "operation": "http.post_json",
                "inputs": {"url": _v("https://api.x.io"), "payload": _r("load", "value")},
            },
        ]
    )
    alarms_facts, send_facts = facts(alarms, AGENT), facts(send, AGENT)
    alarms_checks = len(decide(POLICY, alarms_facts).checks)
    send_checks = len(decide(POLICY, send_facts).checks)

    rights = {AGENT.id: set(AGENT.rights.effects)}
    ops = [(op, REG.get(op).effect) for op in assess(alarms, REG, LABELS).operations]

    def lookup() -> None:
        allowed = rights[AGENT.id]
        for _, effect in ops:
            _ = effect in allowed

    print(f"Anvil policy checks: {n} timed decisions per workload (perf_counter_ns), default policy set\n")
    allow = samples(lambda: decide(POLICY, alarms_facts), n, alarms_checks)
    base = samples(lookup, n, len(ops))
    needs = samples(lambda: decide(POLICY, send_facts), n, send_checks)
    whole = samples(lambda: decide(POLICY, facts(alarms, AGENT)), n, 1)
    print(line(f"check, allow path (alarms plan, {alarms_checks} checks per decide)", allow))
    print(line(f"check, needs_approval path (2 Cedar evaluations, {send_checks} checks)", needs))
    print(line("baseline: dict lookup of the same rights, per operation", base))
    print(line("admission of the alarms plan (assess + decide), per plan", whole))
    ratio = statistics.median(allow) / statistics.median(base)
    print(f"\nratio check / dict lookup (medians, allow path): {ratio:,.0f}x")

    start = time.perf_counter()
    tried, caught = attempts(plans)
    print(
        f"\nsplitting / renaming / reordering attempts on {plans} random plans x 2 principals: tried {tried}, caught "
        f"{caught} ({caught / tried:.0%}) in {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
