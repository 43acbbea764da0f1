"""A replan carries an approval only onto the effects a person approved, input for input.

Every node with an effect above `read` is bound by the digests of its inputs, so a changed payload, recipient,
amount, URL path or written path, a reference that now points elsewhere, another operation, or a new effect node is
a material change that waits for a new human approval, and the reason names the node and the input. Nodes that only
read or compute may still change freely: their replans carry the approval and run at once.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.labels import DataLabels
from alicorn.anvil.proposals import list_proposals
from alicorn.anvil.replan import material_change
from alicorn.anvil.terms import RunTerms
from alicorn.journal.store import JournalStore
from alicorn.ops.builtin import builtin_registry
from alicorn.plan.dsl import Plan
from alicorn.runtime.executor import Approval
from tests.anvil.support import executor, kinds, node, plan, ref, registry, replays


class _Receiver(BaseHTTPRequestHandler):
    """The payee's endpoint: records every POST it gets."""

    got: list[tuple[str, Any]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _Receiver.got.append((self.path, json.loads(body)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"ok": true}')

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Receiver)
    _Receiver.got = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _pay(endpoint: str, path: str, to: str, amount: str) -> Plan:
    payment = {"to": to, "amount": amount}
    return plan([node("pay", "http.post_json", url=f"{endpoint}{path}", payload=payment)], goal="pay the supplier")


# ---------------------------------------------------------------------------------------------- the report's case


def test_a_replan_that_changes_an_approved_payments_amount_recipient_and_path_waits_for_a_person(
    store: JournalStore, tmp_path: Path, endpoint: str
) -> None:
    reg = builtin_registry()
    ex = executor(store, reg, tmp_path)
    approved = _pay(endpoint, "/pay", "supplier-acct-1", "10")
    terms = RunTerms(proposed_by="human:bob")
    first = ex.start(approved, terms=terms, approvals=[Approval("human:alice", "pay it")], run_id="run-pay")
    assert first.status == "succeeded"
    assert _Receiver.got == [("/pay", {"to": "supplier-acct-1", "amount": "10"})]

    redirected = _pay(endpoint, "/pay/attacker", "ATTACKER-acct-666", "1000000")
    second = ex.replan("run-pay", redirected, new_run_id="run-redirected")
    assert second.status == "awaiting_approval"  # no approval carried, nothing sent
    assert "approval.carried" not in kinds(store, "run-redirected")
    assert len(_Receiver.got) == 1
    change = store.read("run-redirected")[0].data["change"]
    reason = "it changes what approved node pay (http.post_json) does: input(s) payload, url changed"
    assert change["material"] and change["reasons"] == [reason]
    waiting = list_proposals(store)
    assert [p.run for p in waiting] == ["run-redirected"] and waiting[0].change == change  # what the approver reads

    done = ex.resume("run-redirected", approvals=[Approval("human:alice", "yes, the new account")])
    assert done.status == "succeeded" and _Receiver.got[-1][0] == "/pay/attacker"  # once a person said so
    for run in ("run-pay", "run-redirected"):
        replays(store, run, reg)


# ---------------------------------------------------------------------------------------- every kind of change

LOADS = [node("load_a", "t.read", path="a.csv"), node("load_b", "t.read", path="b.csv")]


def _one(effect: dict[str, Any]) -> Plan:
    return plan([*LOADS, effect])


@pytest.mark.parametrize(
    ("before", "after", "reason"),
    [
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in", payload={"to": "a", "n": 1}),
            node("send", "t.send", url="https://api.x.io/in", payload={"to": "b", "n": 1}),
            "it changes what approved node send (t.send) does: input(s) payload changed",
            id="payload recipient",
        ),
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in", payload=1),
            node("send", "t.send", url="https://api.x.io/in/other?all=1", payload=1),
            "it changes what approved node send (t.send) does: input(s) url changed",
            id="url path on the same host",
        ),
        pytest.param(
            node("pay", "t.pay", account="supplier", amount=100),
            node("pay", "t.pay", account="supplier", amount=110),  # +10 %: under the cost threshold
            "it changes what approved node pay (t.pay) does: input(s) amount changed",
            id="amount",
        ),
        pytest.param(
            node("pay", "t.pay", account="supplier", amount=100),
            node("pay", "t.pay", account="someone-else", amount=100),
            "it changes what approved node pay (t.pay) does: input(s) account changed",
            id="account",
        ),
        pytest.param(
            node("w", "t.write", path="o.txt", content="approved text"),
            node("w", "t.write", path="o.txt", content="other text"),
            "it changes what approved node w (t.write) does: input(s) content changed",
            id="written content",
        ),
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in", payload=ref("load_a")),
            node("send", "t.send", url="https://api.x.io/in", payload=ref("load_b")),
            "it changes what approved node send (t.send) does: input(s) payload changed",
            id="a reference that points elsewhere",
        ),
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in", payload=ref("load_a")),
            node("send", "t.send", url="https://api.x.io/in", payload={"typed": "by the planner"}),
            "it changes what approved node send (t.send) does: input(s) payload changed",
            id="a reference replaced by a literal",
        ),
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in"),
            node("send", "t.send", url="https://api.x.io/in", payload=1),
            "it changes what approved node send (t.send) does: input(s) payload added",
            id="an input added",
        ),
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in", payload=1),
            node("send", "t.send", url="https://api.x.io/in"),
            "it changes what approved node send (t.send) does: input(s) payload removed",
            id="an input removed (its default used)",
        ),
        pytest.param(
            node("send", "t.send", url="https://api.x.io/in", payload=1),
            node("send", "t.publish", url="https://api.x.io/in", payload=1),
            "node send now runs t.publish instead of the approved t.send",
            id="another operation",
        ),
    ],
)
def test_any_change_to_an_approved_effect_is_material_and_named(
    before: dict[str, Any], after: dict[str, Any], reason: str
) -> None:
    change = material_change(_one(before), _one(after), registry(), threshold=10)
    assert change.material and reason in change.reasons


def test_a_new_effect_node_is_material_even_to_an_approved_host_within_the_cost_threshold() -> None:
    send = node("send", "t.send", url="https://api.x.io/in", payload=1)
    more = node("send_more", "t.send", url="https://api.x.io/in", payload={"extra": "records"})
    change = material_change(_one(send), plan([*LOADS, send, more]), registry(), threshold=10)
    assert change.material
    assert change.reasons == ("it adds an effect the approved plan did not have: node send_more (t.send)",)


def test_a_read_that_carries_private_data_out_is_bound_like_any_send() -> None:
    labels = DataLabels(private=("hr/**",))

    def asking(url: str) -> Plan:
        return plan([node("load", "t.read", path="hr/staff.csv"), node("ask", "t.get", url=url, params=ref("load"))])

    change = material_change(asking("https://api.x.io/a"), asking("https://api.x.io/b"), registry(), labels=labels)
    assert change.reasons == ("it changes what approved node ask (t.get) does: input(s) url changed",)
    # Without private data it is only a read, which a replan may change within the approved goal.
    assert material_change(asking("https://api.x.io/a"), asking("https://api.x.io/b"), registry()).material is False


# ------------------------------------------------------------------------------------ what still carries over

SEND = node("send", "t.send", url="https://api.x.io/in", payload=ref("shape"))
APPROVED = plan([*LOADS, node("shape", "t.shape", records=ref("load_a")), SEND])


@pytest.fixture
def calls() -> Counter[str]:
    return Counter()


@pytest.mark.parametrize(
    "replan",
    [
        pytest.param(
            plan(
                [
                    node("load_a", "t.read", path="corrected.csv"),
                    node("load_b", "t.read", path="b.csv"),
                    node("shape", "t.shape", records=ref("load_a")),
                    SEND,
                ]
            ),
            id="a read's input",
        ),
        pytest.param(
            plan([*LOADS, node("shape", "t.shape", records=ref("load_b")), SEND]), id="what a computation reads"
        ),
        pytest.param(
            plan(
                [
                    *LOADS,
                    node("shape", "t.shape", records=ref("load_a")),
                    node("again", "t.send", url="https://api.x.io/in", payload=ref("shape")),
                ]
            ),
            id="the approved effect under another node id",
        ),
        pytest.param(
            plan([*LOADS, node("shape", "t.shape", records=ref("load_a"))]), id="the approved effect left out"
        ),
    ],
)
def test_a_replan_that_keeps_every_approved_effect_carries_the_approval_and_runs(
    store: JournalStore, tmp_path: Path, calls: Counter[str], replan: Plan
) -> None:
    reg = registry(calls)
    ex = executor(store, reg, tmp_path)
    terms = RunTerms(proposed_by="human:bob")
    assert ex.start(APPROVED, terms=terms, approvals=[Approval("human:alice")], run_id="run-one").status == "succeeded"
    second = ex.replan("run-one", replan, new_run_id="run-two")
    assert second.status == "succeeded"
    created = store.read("run-two")[0].data
    assert created["change"] == {**created["change"], "material": False, "reasons": []}
    assert "approval.carried" in kinds(store, "run-two")
    replays(store, "run-two", reg)
