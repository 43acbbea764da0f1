"""Labels follow control as well as data: a node that runs only because of what another node saw (it waits for it,
it is its alternative, or the other may stop the run first) carries that node's label. So a request to a public
host that is made only when a private file held something is judged as sending private data. Runs recorded before
(their journaled labels lack `control_flows`) are judged, and replay, by data alone."""

from __future__ import annotations

from typing import Any

from alicorn.anvil.decide import decide
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels, propagate
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import HUMAN_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.anvil.terms import RunTerms
from alicorn.plan.dsl import Plan
from alicorn.plan.validate import validate_plan
from tests.anvil.support import node, plan, registry

REG = registry()
LABELS = DataLabels(private=("hr/**",), public=("open/**",))
DATA_ONLY = LABELS.model_copy(update={"control_flows": False})
ALICE = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")


def _valid(nodes: list[dict[str, Any]]) -> Plan:
    return validate_plan(plan(nodes), REG)


def _ping(node_id: str = "ping", **extra: Any) -> dict[str, Any]:
    """A read of a public URL with literal inputs only: alone, it sends nothing of the run's data."""
    return {**node(node_id, "t.get", url="https://status.example.org/ping", params=[]), **extra}


def _read_hr(node_id: str = "hr", **extra: Any) -> dict[str, Any]:
    return {**node(node_id, "t.read", path="hr/staff.csv"), **extra}


def _effective(p: Plan, labels: DataLabels, node_id: str) -> tuple[str, str]:
    risk = assess(p, REG, labels)
    found = next(n for n in risk.nodes if n.node == node_id)
    return found.effective, risk.outbound


def test_a_request_made_only_after_a_private_read_succeeded_carries_its_label() -> None:
    p = _valid([_read_hr(), _ping(depends_on=["hr"])])
    assert propagate(p, REG, LABELS)["ping"].inputs == "private"
    assert propagate(p, REG, LABELS)["ping"].carriers == ("hr",)
    assert _effective(p, LABELS, "ping") == ("external_transmission", "private")
    # by data alone (a run recorded before), the same request was a plain read
    assert _effective(p, DATA_ONLY, "ping") == ("read", "public")


def test_control_carries_through_a_node_that_saw_nothing_itself() -> None:
    middle = node("middle", "t.shape")
    p = _valid([_read_hr(), {**middle, "depends_on": ["hr"]}, _ping(depends_on=["middle"])])
    labels = propagate(p, REG, LABELS)
    assert labels["middle"].output == "private" and labels["ping"].inputs == "private"


def test_an_alternative_runs_only_when_its_primary_failed_so_it_carries_the_primarys_label() -> None:
    p = _valid([_read_hr(alternative="ping"), _ping()])
    assert propagate(p, REG, LABELS)["ping"].inputs == "private"
    assert _effective(p, LABELS, "ping")[0] == "external_transmission"


def test_a_stop_condition_decides_every_node_that_does_not_wait_for_it() -> None:
    stop = {"reason": "nothing to do", "when": {"kind": "check", "path": "records", "op": "eq", "value": []}}
    p = _valid(
        [{**_read_hr(stop=stop), "depends_on": ["before"]}, _ping(), node("before", "t.read", path="open/a.csv")]
    )
    labels = propagate(p, REG, LABELS)
    assert labels["ping"].inputs == "private"  # may not run: the stop may come first
    assert labels["before"].inputs == "public"  # the stop waits for it: it ran whatever the stop says


def test_nodes_that_nothing_private_decides_are_unchanged() -> None:
    p = _valid([node("pub", "t.read", path="open/a.csv"), _ping(depends_on=["pub"])])
    assert _effective(p, LABELS, "ping") == ("read", "public")


def test_the_decision_for_a_control_leak_needs_a_person() -> None:
    p = _valid([_read_hr(), _ping(depends_on=["hr"])])
    risk = assess(p, REG, LABELS)
    facts = Facts(plan_hash="h", goal_hash=p.goal_hash, project="default", risk=risk, subject=ALICE)
    verdict = decide(compile_policies(default_policy_text()), facts)
    assert verdict.decision == "needs_approval", verdict


def test_labels_journaled_before_control_flows_are_read_as_data_only_and_journaled_as_they_were() -> None:
    new = RunTerms(labels=LABELS)
    created = new.to_created()
    assert created["labels"]["control_flows"] is True
    assert RunTerms.from_created(created) == new
    recorded = {**created, "labels": {k: v for k, v in created["labels"].items() if k != "control_flows"}}
    old = RunTerms.from_created(recorded)
    assert old.labels.control_flows is False
    assert old.to_created()["labels"] == recorded["labels"]  # replay regenerates the recorded bytes
