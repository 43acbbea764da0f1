"""The world model, one step ahead (seed B, ADR 6): predict each step's outcome, pick the candidate with the best
prediction, compare after execution, and keep every predictor's calibration.

Two predictors:
- `world:stats` predicts each node: the chance its operation succeeds, from what every earlier run observed
  (a Beta prior of 90 % success worth ten runs, plus the node's retries), so it learns from the journal.
- the planning *model profile* predicts the plan: its stated confidence that the plan reaches a validated result
  (a template chosen by the examples alone gets the template prior instead and is attributed to `template`).

After the run, `world.observed` (one event per run, in the `world:model` stream) holds every prediction beside its
outcome. Calibration is a fold of that stream: the Brier score (mean squared error of the probabilities, 0 is
perfect, 0.25 is a coin toss) per predictor. The router refuses profiles whose Brier score is worse than a role
allows (`RoleRequirements.max_brier`), and Anvil moves the planning agent's reputation by how well its plans were
predicted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Registry
from alicorn.plan.dsl import Plan

STREAM = "world:model"
STATS = "world:stats"
#: Prior: 90 % success, worth ten observations.
PRIOR_SUCCESS = 0.9
PRIOR_WEIGHT = 10.0
#: A predictor's calibration counts (for the router) once it has this many observed predictions.
MIN_PREDICTIONS = 5
#: A template plan with no stated model confidence gets this prior.
TEMPLATE_PRIOR = 0.8


@dataclass(frozen=True)
class Calibration:
    """How well one predictor's probabilities matched what happened."""

    predictor: str
    predictions: int
    brier: float
    mean_predicted: float
    observed_rate: float


@dataclass
class _Tally:
    n: int = 0
    squared: float = 0.0
    predicted: float = 0.0
    observed: float = 0.0

    def add(self, p: float, outcome: bool) -> None:
        self.n += 1
        self.squared += (p - float(outcome)) ** 2
        self.predicted += p
        self.observed += float(outcome)


@dataclass(frozen=True)
class WorldView:
    """The fold of `world.observed` events: outcomes per operation, calibration per predictor."""

    operations: Mapping[str, tuple[int, int]]  # operation -> (succeeded, failed)
    calibration: Mapping[str, Calibration]

    def p_operation(self, operation: str) -> float:
        ok, bad = self.operations.get(operation, (0, 0))
        return (ok + PRIOR_SUCCESS * PRIOR_WEIGHT) / (ok + bad + PRIOR_WEIGHT)

    def brier(self, predictor: str, *, minimum: int = MIN_PREDICTIONS) -> float | None:
        """The predictor's Brier score once it has `minimum` predictions; None before."""
        found = self.calibration.get(predictor)
        return found.brier if found is not None and found.predictions >= minimum else None


def fold_world(events: Iterable[Event]) -> WorldView:
    """The world view after `events` of the `world:model` stream."""
    ops: dict[str, list[int]] = {}
    tallies: dict[str, _Tally] = {}
    for event in events:
        if event.kind != "world.observed":
            continue
        for row in event.data.get("nodes", []):
            counts = ops.setdefault(row["operation"], [0, 0])
            counts[0 if row["observed"] else 1] += 1
            tallies.setdefault(STATS, _Tally()).add(float(row["p"]), bool(row["observed"]))
        plan = event.data.get("plan")
        if plan is not None:
            tallies.setdefault(plan["predictor"], _Tally()).add(float(plan["p"]), bool(plan["observed"]))
    calibration = {
        name: Calibration(name, t.n, t.squared / t.n, t.predicted / t.n, t.observed / t.n)
        for name, t in sorted(tallies.items())
        if t.n
    }
    return WorldView({k: (v[0], v[1]) for k, v in sorted(ops.items())}, calibration)


def read_world(store: JournalStore) -> WorldView:
    return fold_world(store.read(STREAM))


@dataclass(frozen=True)
class Prediction:
    """One candidate plan's predictions: each node's chance of success and the plan's chance of a validated result."""

    candidate: str
    nodes: tuple[tuple[str, str, float], ...]  # (node id, operation, p)
    p_plan: float
    predictor: str
    p_nodes_all: float

    def to_json(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate,
            "nodes": [{"node": n, "operation": op, "p": round(p, 4)} for n, op, p in self.nodes],
            "plan": {"predictor": self.predictor, "p": round(self.p_plan, 4)},
            "p_all_nodes": round(self.p_nodes_all, 4),
        }


def predict(
    candidate: str, plan: Plan, registry: Registry, view: WorldView, *, predictor: str, confidence: float | None
) -> Prediction:
    """Predict every node of `plan` (stats and retries) and the plan's validated outcome (the planner's confidence,
    or the template prior, capped by the chance that every node succeeds)."""
    rows = []
    together = 1.0
    for node in plan.nodes:
        op = registry.get(node.operation)
        attempts = (node.retry or op.retry).max_attempts
        p_once = view.p_operation(node.operation)
        p = 1.0 - (1.0 - p_once) ** attempts
        rows.append((node.node_id, node.operation, p))
        together *= p
    stated = confidence if confidence is not None else TEMPLATE_PRIOR
    return Prediction(candidate, tuple(rows), min(stated, together), predictor, together)


def best(predictions: Sequence[Prediction]) -> Prediction:
    """The candidate with the highest predicted chance of a validated result (ties: fewer nodes, then name)."""
    return min(predictions, key=lambda p: (-round(p.p_plan, 6), len(p.nodes), p.candidate))


def observe(
    store: JournalStore,
    prediction: Mapping[str, Any],
    node_status: Mapping[str, str],
    validated: bool,
    *,
    conversation: str,
    run: str,
    at: str,
) -> Event:
    """Journal prediction against outcome for one run (`world.observed` in the `world:model` stream)."""
    nodes = []
    for row in prediction["nodes"]:
        status = node_status.get(row["node"])
        if status not in ("succeeded", "failed"):
            continue  # skipped or never run: nothing was observed about it
        nodes.append({**row, "observed": status == "succeeded"})
    plan = {**prediction["plan"], "observed": validated}
    data = {"conversation": conversation, "run": run, "nodes": nodes, "plan": plan}
    data["brier"] = round((plan["p"] - float(validated)) ** 2, 4)
    for _ in range(5):
        last = store.last_seq(STREAM)
        try:
            return store.append(STREAM, [Draft("world.observed", at, data)], expect=last)[-1]
        except ConcurrentAppendError:  # another Core appended meanwhile: read again
            continue
    raise RuntimeError("the world model's stream kept changing; observation not recorded")
