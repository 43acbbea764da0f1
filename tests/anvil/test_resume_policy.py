"""A resumed run meets the policy in force now: what it may still call is decided again, and journaled.

On resume, Anvil decides the operations of the nodes that may still call one (pending, standby, interrupted) under
the current policy, through the same decision path as admission (`anvil.inputs` + `anvil.check`). A tightened rule
stops what it forbids, or makes the run wait for a human; a loosened one approves nothing by itself. Replay
regenerates the new decisions from the journaled inputs, byte for byte.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from alicorn.errors import ApprovalRequiredError
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.runtime.executor import Approval
from tests.anvil.support import DEFAULT_POLICY, checks, executor, kinds, node, plan, ref, registry, replays

# The second node of each plan uses the first one's records, so it has not started when the driver dies.
WRITE = plan([node("load", "t.read", path="a.csv"), node("save", "t.write", path="out.txt", content=ref("load"))])
SEND = plan(
    [node("load", "t.read", path="a.csv"), node("send", "t.send", url="https://api.x.io/in", payload=ref("load"))]
)

NO_WRITES = DEFAULT_POLICY + '\n@id("no-writes")\nforbid (principal, action == Action::"t.write", resource);\n'
NO_SENDS = DEFAULT_POLICY + '\n@id("no-sends")\nforbid (principal, action == Action::"t.send", resource);\n'
WRITES_NEED_APPROVAL = (
    DEFAULT_POLICY
    + '\n@id("writes-need-approval")\nforbid (principal, action == Action::"t.write", resource)\n'
    + "unless { context.approved };\n"
)
SENDS_FREE = DEFAULT_POLICY + '\n@id("sends-free")\npermit (principal, action == Action::"t.send", resource);\n'


class Killed(Exception):
    """The driver "dies" right after a batch is durable (the journal is left at a step boundary)."""


def killed_after_call_of(node_id: str) -> Callable[[Sequence[Event]], None]:
    def listener(events: Sequence[Event]) -> None:
        if any(e.kind == "tool.call" and e.data["node"] == node_id for e in events):
            raise Killed

    return listener


@pytest.fixture
def calls() -> Counter[str]:
    return Counter()


def _interrupted(store: JournalStore, tmp_path: Path, calls: Counter[str], **start: object) -> str:
    """Start WRITE/SEND (given as `plan`) under the default policy and kill its driver while `load` runs."""
    ex = executor(store, registry(calls), tmp_path, DEFAULT_POLICY, on_events=killed_after_call_of("load"))
    with pytest.raises(Killed):
        ex.start(**start)  # type: ignore[arg-type]
    return "run-resume"


def test_a_tightened_policy_stops_what_it_now_forbids(store: JournalStore, tmp_path: Path, calls: Counter) -> None:
    run_id = _interrupted(store, tmp_path, calls, plan=WRITE, run_id="run-resume")
    assert [c["decision"] for c in checks(store, run_id)] == ["allow", "allow"]
    state = executor(store, registry(calls), tmp_path, NO_WRITES).resume(run_id)
    assert state.status == "stopped" and calls["write"] == 0  # the newly forbidden operation never ran
    # A stopped run calls nothing new: the interrupted read is not made again either.
    assert state.nodes["save"].status == "skipped" and state.nodes["load"].status == "skipped" and not calls
    seen = kinds(store, run_id)
    resumed = seen.index("run.resumed")
    assert seen[resumed + 1 : resumed + 4] == ["anvil.inputs", "anvil.check", "anvil.check"]
    rechecked = {c["operation"]: c for c in checks(store, run_id)[2:]}
    assert rechecked["t.write"]["decision"] == "deny" and rechecked["t.write"]["rules"] == ["no-writes"]
    assert rechecked["t.read"]["decision"] == "allow"
    stopped = next(e.data for e in store.read(run_id) if e.kind == "run.stopped")
    assert stopped["cause"] == "policy" and stopped["node"] == "save" and "t.write" in stopped["reason"]
    assert "saga.started" not in seen  # a policy stop keeps what was done, like a budget stop
    replays(store, run_id, registry())


def test_an_approved_run_is_stopped_by_a_rule_that_now_forbids_its_send(
    store: JournalStore, tmp_path: Path, calls: Counter
) -> None:
    run_id = _interrupted(store, tmp_path, calls, plan=SEND, run_id="run-resume", approvals=[Approval("human:bob")])
    state = executor(store, registry(calls), tmp_path, NO_SENDS).resume(run_id)
    assert state.status == "stopped" and calls["send"] == 0
    assert "no-sends" in next(c for c in checks(store, run_id)[2:] if c["operation"] == "t.send")["rules"]
    replays(store, run_id, registry())


def test_a_rule_that_now_needs_an_approval_makes_the_run_wait_for_one(
    store: JournalStore, tmp_path: Path, calls: Counter
) -> None:
    run_id = _interrupted(store, tmp_path, calls, plan=WRITE, run_id="run-resume")
    ex = executor(store, registry(calls), tmp_path, WRITES_NEED_APPROVAL)
    state = ex.resume(run_id)
    assert state.status == "awaiting_approval" and calls["write"] == 0 and calls["read"] == 0
    assert state.awaiting is not None and "writes-need-approval" in state.awaiting["rules"]
    with pytest.raises(ApprovalRequiredError):
        ex.resume(run_id)
    state = ex.resume(run_id, approvals=[Approval("human:bob")])
    assert state.status == "succeeded" and calls == Counter({"read": 1, "write": 1})
    replays(store, run_id, registry())


def test_a_loosened_policy_approves_nothing_by_itself(store: JournalStore, tmp_path: Path, calls: Counter) -> None:
    state = executor(store, registry(calls), tmp_path, DEFAULT_POLICY).start(SEND)
    assert state.status == "awaiting_approval"
    before = [e.line for e in store.read(state.run_id)]
    loose = executor(store, registry(calls), tmp_path, SENDS_FREE)
    with pytest.raises(ApprovalRequiredError):
        loose.resume(state.run_id)
    assert [e.line for e in store.read(state.run_id)] == before and not calls


def test_an_unchanged_policy_only_journals_the_same_decisions_again(
    store: JournalStore, tmp_path: Path, calls: Counter
) -> None:
    run_id = _interrupted(store, tmp_path, calls, plan=WRITE, run_id="run-resume")
    state = executor(store, registry(calls), tmp_path, DEFAULT_POLICY).resume(run_id)
    assert state.status == "succeeded" and calls == Counter({"read": 1, "write": 1})
    first, again = checks(store, run_id)[:2], checks(store, run_id)[2:]
    assert [c["decision"] for c in again] == ["allow", "allow"]
    assert [{k: v for k, v in c.items() if k != "inputs"} for c in again] == [
        {k: v for k, v in c.items() if k != "inputs"} for c in first
    ]
    inputs = [e.data for e in store.read(run_id) if e.kind == "anvil.inputs"]
    assert "text" in inputs[0]["policy"] and "text" not in inputs[1]["policy"]  # the same policy: its digest only
    replays(store, run_id, registry())
