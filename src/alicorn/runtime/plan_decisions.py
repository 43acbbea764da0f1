"""What Anvil decides once per plan and its terms, and the little each node call still asks it.

Every check of a run is taken on whole-plan facts: the plan's risk (effect set, destinations, data labels), its
secret sources, a replan's material-change judgement, the proposer's snapshot and a trigger's allowance (both from
`anvil.inputs`) and the approval state. None of them depends on the call, so each is computed once, keyed by
exactly what it is a function of, and reused:

- `plan_risk`: the risk of (plan hash, data labels, registry). The executor journals it in `run.created` and the
  session decides on it: one assessment serves both, and every later run of the same plan in this process.
- `plan_verdict`: the facts and the verdict, keyed by (plan hash, terms digest, the journaled inputs without the
  project's usage, approval state). A new approval, a rights or policy change (new inputs) or a replan (new plan
  hash and terms) is a new key, so a cached decision never outlives what it was decided on.
- `SessionDecisions.gate`: the static part of the per-call gate (whether a budget applies at all, the project's
  other runs' usage as last journaled, and the nodes whose resolved inputs can be a secret read), rebuilt only when
  a new `anvil.inputs` replaces that usage.

Per call Anvil is asked only what depends on the call: the budgets with this step, and, for a node that can read a
secret, its resolved path. The journal is unchanged (`anvil.inputs` and each `anvil.check` say what they said): the
caches change how events are computed, never what they say, so replay regenerates them byte for byte. `COMPUTED`
counts each computation, for the tests that pin "once per plan" and for `bench/runtime_bench.py`.
"""

from __future__ import annotations

import copy
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from alicorn import canonical
from alicorn.anvil.budget import Usage
from alicorn.anvil.decide import Check, Verdict
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.risk import PlanRisk, assess
from alicorn.anvil.terms import RunTerms
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import Plan
from alicorn.runtime.state import RunState

#: How many times each per-plan part was computed in this process (tests and the benchmark read the deltas).
COMPUTED: Counter[str] = Counter()
#: Entries kept per cache: plans a long-lived process (a service, a scheduler) decides again and again.
CACHE_SIZE = 64

T = TypeVar("T")


class _Cache:
    """A small thread-safe LRU whose entries also hold the registry they were computed with: a lookup made with
    another registry object misses (a registry never changes an operation's contract once registered)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[Registry, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, registry: Registry, compute: Callable[[], T]) -> T:
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0] is registry:
                self._entries.move_to_end(key)
                value: T = found[1]
                return value
        value = compute()
        with self._lock:
            self._entries[key] = (registry, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_RISKS = _Cache()
_VERDICTS = _Cache()


def clear() -> None:
    """Forget every cached plan decision (a test's fresh start; the next lookup computes again)."""
    _RISKS.clear()
    _VERDICTS.clear()


def plan_risk(plan: Plan, plan_hash: str, registry: Registry, labels: DataLabels) -> PlanRisk:
    """The plan's whole-plan risk under `labels` (`anvil.risk.assess`), computed once per plan, labels and registry."""

    def compute() -> PlanRisk:
        COMPUTED["risk"] += 1
        return assess(plan, registry, labels)

    return _RISKS.get((plan_hash, labels), registry, compute)


@dataclass(frozen=True)
class PlanVerdict:
    """The whole-plan facts and the decision of every operation of the plan on them."""

    facts: Facts
    verdict: Verdict

    def checks(self, operations: frozenset[str] | None = None) -> list[Check]:
        """The checks to journal (of `operations` only, when given), each with a request of its own: a cached
        decision's requests are never handed out to be kept, so no event can change another's."""
        chosen = [c for c in self.verdict.checks if operations is None or c.operation in operations]
        return [replace(c, request=copy.deepcopy(c.request)) for c in chosen]


def verdict_key(
    plan_hash: str, terms: dict[str, Any], inputs: dict[str, Any], approval: tuple[str, tuple[str, ...]]
) -> str:
    """What a plan's decision is a function of: the plan, the run's terms, the journaled inputs (the policy by its
    digest; the project's usage left out, only budgets read it) and the approval state."""
    decided = {k: v for k, v in inputs.items() if k != "project_usage"}
    decided["policy"] = {k: v for k, v in inputs["policy"].items() if k != "text"}
    return canonical.digest({"plan": plan_hash, "terms": terms, "inputs": decided, "approval": list(approval)})


def plan_verdict(key: str, registry: Registry, compute: Callable[[], PlanVerdict]) -> PlanVerdict:
    """The plan's facts and verdict under `key` (`verdict_key`), computed only the first time it is asked."""

    def counted() -> PlanVerdict:
        COMPUTED["verdict"] += 1
        return compute()

    return _VERDICTS.get(key, registry, counted)


@dataclass(frozen=True)
class CallGate:
    """The per-call gate's static part, for one session: what every node call would otherwise recompute."""

    budgeted: bool  # whether the run or its project has any budget at all
    others: Usage  # the project's other runs' usage, as the last `anvil.inputs` journaled it
    source: dict[str, Any] | None  # the fold's `project_usage` that `others` was read from (its identity)
    secret_nodes: frozenset[str]  # the nodes whose resolved inputs can be a secret read


class GateSource(Protocol):
    """What the call gate reads of a session (a `RunSession` is one)."""

    @property
    def state(self) -> RunState: ...
    @property
    def plan(self) -> Plan: ...
    @property
    def terms(self) -> RunTerms: ...
    @property
    def registry(self) -> Registry: ...


class SessionDecisions:
    """One session's call gate, built at its first call and again only after an `anvil.inputs` replaced the usage
    it read (the plan, the terms and the registry do not change within a session)."""

    def __init__(self) -> None:
        self._gate: CallGate | None = None

    def gate(self, session: GateSource) -> CallGate:
        usage = session.state.project_usage
        gate = self._gate
        if gate is not None and gate.source is usage:
            return gate
        COMPUTED["gate"] += 1
        terms = session.terms
        secret_nodes: frozenset[str] = frozenset()
        if terms.labels.worst() == "secret":  # otherwise no path can be labelled secret
            secret_nodes = frozenset(
                n.node_id
                for n in session.plan.nodes
                if (op := session.registry.get(n.operation)).path_input is not None and op.effect == "read"
            )
        gate = CallGate(
            budgeted=not (terms.budget.empty and terms.project_budget.empty),
            others=Usage.from_json(usage or {}),
            source=usage,
            secret_nodes=secret_nodes,
        )
        self._gate = gate
        return gate
