"""Operations and helpers for Anvil's tests: small real operations that declare where they reach."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

from alicorn.anvil.agents import PermissionRegistry
from alicorn.anvil.gate import LiveGate
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import RightsChange
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.executor import Executor, RunEnvironment
from alicorn.runtime.replay import replay_run


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Read(_M):
    path: str


class Records(_M):
    records: list[dict[str, Any]] = []


class Shape(_M):
    records: list[dict[str, Any]] = []


class Send(_M):
    url: str
    payload: JsonValue = None


class Get(_M):
    url: str
    params: JsonValue = None


class Write(_M):
    path: str
    content: JsonValue = None


class Pay(_M):
    account: str
    amount: float


class Done(_M):
    ok: bool = True


def registry(calls: Counter[str] | None = None) -> Registry:
    """t.read (a data file), t.shape (no effect), t.get (a read that reaches a URL), t.send (an external
    transmission), t.write (a local write), t.pay (moves money), t.publish."""
    seen = calls if calls is not None else Counter()

    def counted(name: str, out: Any) -> Any:
        def run(inputs: Any, ctx: OperationContext) -> Any:
            seen[name] += 1
            return out(inputs)

        return run

    def records(i: Any) -> Records:
        return Records(records=[{"source": getattr(i, "path", "")}])

    def shape(i: Any) -> Records:
        return Records(records=list(i.records))

    return Registry(
        [
            Operation(
                "t.read",
                "read a file",
                Read,
                Records,
                "read",
                "repeatable",
                counted("read", records),
                path_input="path",
            ),
            Operation("t.shape", "reshape", Shape, Records, "none", "repeatable", counted("shape", shape)),
            Operation(
                "t.get", "GET", Get, Done, "read", "repeatable", counted("get", lambda i: Done()), url_input="url"
            ),
            Operation(
                "t.send",
                "POST",
                Send,
                Done,
                "external_transmission",
                "keyed",
                counted("send", lambda i: Done()),
                url_input="url",
            ),
            Operation(
                "t.write",
                "write",
                Write,
                Done,
                "local_write",
                "idempotent",
                counted("write", lambda i: Done()),
                path_input="path",
            ),
            Operation(
                "t.pay",
                "pay",
                Pay,
                Done,
                "external_transmission",
                "keyed",
                counted("pay", lambda i: Done()),
                amount_input="amount",
            ),
            Operation(
                "t.publish",
                "publish",
                Send,
                Done,
                "publication",
                "keyed",
                counted("publish", lambda i: Done()),
                url_input="url",
            ),
        ]
    )


def plan(nodes: list[dict[str, Any]], goal: str = "anvil test") -> Plan:
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes})


def val(value: Any) -> dict[str, Any]:
    return {"value": value}


def ref(node: str, output: str = "records") -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def node(node_id: str, operation: str, **inputs: Any) -> dict[str, Any]:
    bound = {k: (v if isinstance(v, dict) and ("ref" in v or "value" in v) else val(v)) for k, v in inputs.items()}
    return {"node_id": node_id, "operation": operation, "inputs": bound}


def executor(store: JournalStore, reg: Registry, tmp_path: Path, policy: str | None = None, **kwargs: Any) -> Executor:
    env = RunEnvironment(tmp_path / "ws", tmp_path, max_parallel=kwargs.pop("max_parallel", 4))
    gate = None
    if policy is not None:
        gate = LiveGate(store, compile_policies(policy, "test policy"), PermissionRegistry(store))
    return Executor(store, reg, env, gate=gate, **kwargs)


def register(
    store: JournalStore, agent: str, *, grant: RightsChange | None = None, revoke: RightsChange | None = None
) -> None:
    agents = PermissionRegistry(store)
    agents.register(agent, (), cause="test", by="human:tester")
    if grant is not None:
        agents.change(agent, grant, grant=True, cause="test grant", by="human:tester")
    if revoke is not None:
        agents.change(agent, revoke, grant=False, cause="test revoke", by="human:tester")


def kinds(store: JournalStore, run_id: str) -> list[str]:
    return [e.kind for e in store.read(run_id)]


def checks(store: JournalStore, run_id: str) -> list[dict[str, Any]]:
    return [e.data for e in store.read(run_id) if e.kind == "anvil.check"]


def replays(store: JournalStore, run_id: str, reg: Registry) -> None:
    """Every run a test makes must replay byte for byte, its Anvil decisions included."""
    assert replay_run(store, run_id, reg).events == len(store.read(run_id))


DEFAULT_POLICY = default_policy_text()
