"""Replanning when an executor is unavailable: the same goal hash, once, and never after an effect happened."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from alicorn.app import App
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.errors import OperationError
from alicorn.journal.sqlite import SQLiteStore
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.workflow import BuiltPlan, ResultSummary, Workflow
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.runtime.state import fold as fold_run
from alicorn.validate.base import CheckResult, ValidationReport
from tests.core.support import NOTIFY, SENT, core, registry

CALLS: list[str] = []


class Empty(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _flaky(inputs: Empty, ctx: OperationContext) -> Empty:
    CALLS.append(ctx.run_id)
    if len(CALLS) == 1:
        raise OperationError("the render farm is unreachable", retryable=True)
    if "broken" in ctx.data_root.name:
        raise OperationError("the job file is malformed", retryable=False)
    return Empty()


FLAKY = Operation("test.flaky", "Work on a service that is sometimes down.", Empty, Empty, "none", "repeatable", _flaky)


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    notify_first: bool = False


def _build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    p = Params.model_validate(params.model_dump())
    nodes: list[dict[str, Any]] = [{"node_id": "work", "operation": "test.flaky"}]
    if p.notify_first:
        nodes.insert(0, {"node_id": "tell", "operation": "test.notify", "inputs": {"message": {"value": "start"}}})
        nodes[1]["depends_on"] = ["tell"]
    return BuiltPlan(tuple(Node.model_validate(n) for n in nodes))


def _validate(artifact: Any, criteria: Any) -> ValidationReport:
    ok = bool(artifact) and artifact.get("work") == "succeeded"
    return ValidationReport.of("document", [CheckResult(name="work", passed=ok, detail=str(artifact))])


def _extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    return {"notify_first": True} if "announce" in text.lower() else {}


def _artifact(state: RunState) -> dict[str, Any]:
    return {n: state.nodes[n].status for n in state.order}


FLAKY_WORK = Workflow(
    id="flaky_work",
    title="flaky work",
    summary="do the work on the render farm",
    artifact="document",
    parameters=Params,
    operations=(FLAKY,),
    examples={"en": ("Do the work on the render farm", "Run the farm job", "Process the farm queue", "Farm work")},
    data_dir=Path("."),
    extract=_extract,
    questions={},
    build=_build,
    artifact_of=_artifact,
    criteria=lambda params: {},
    validator=_validate,
    summarize=lambda artifact, report, language: ResultSummary(("work done",)),
)


def _app(home: Path) -> App:
    home.mkdir(parents=True, exist_ok=True)
    reg = registry()
    reg.register(FLAKY)
    return App(home, SQLiteStore(home / "journal.db"), reg)


def test_a_failed_run_is_replanned_once_for_the_same_goal(tmp_path: Path) -> None:
    CALLS.clear()
    app = _app(tmp_path)
    turn = core(app, [FLAKY_WORK]).receive(IntentEnvelope(utterance="Do the work on the render farm", author="human:a"))
    assert turn.report is not None and turn.report.outcome == "complete", turn.report
    state = fold(app.store.read(turn.conversation))
    assert len(state.runs) == 2 and len(state.replans) == 1
    assert "unreachable" in state.replans[0]["reason"] and not state.replans[0]["change"]["material"]
    first, second = (fold_run(app.store.read(r), r) for r in state.runs)
    assert first.status == "failed" and second.status == "succeeded"
    assert first.goal_hash == second.goal_hash == state.goal_hash
    assert app.store.read(second.run_id)[0].data["replan_of"]["run"] == first.run_id
    assert len(state.validations) == 2 and len(app.store.read("world:model")) == 2


def test_no_replan_after_an_effect_happened(tmp_path: Path) -> None:
    CALLS.clear()
    SENT.clear()
    app = _app(tmp_path)
    norbi = core(app, [FLAKY_WORK])
    turn = norbi.receive(IntentEnvelope(utterance="Announce it, then do the work on the render farm", author="human:a"))
    assert turn.phase == "waiting"  # the announcement is an external transmission
    # Work, whether the classifier read the imperative itself or a weak cue yielded to the template (journaled).
    assert fold(app.store.read(turn.conversation)).classification["kind"] == "task"
    turn = norbi.approve(turn.conversation, by="human:a")
    assert len(SENT) == 1
    state = fold(app.store.read(turn.conversation))
    assert state.replans == [] and len(state.runs) == 1  # repeating the plan would announce twice
    assert turn.report is not None and turn.report.outcome in ("partial", "failed")
    assert NOTIFY.name in " ".join(turn.report.jobs_finished) or "tell" in " ".join(turn.report.jobs_finished)


def test_no_replan_when_the_operation_says_retrying_cannot_help(tmp_path: Path) -> None:
    CALLS.clear()
    CALLS.append("the first call already happened")  # so the farm answers; the data itself is bad
    app = _app(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    norbi = Norbi(app, [FLAKY_WORK], data_root=broken)
    turn = norbi.receive(IntentEnvelope(utterance="Do the work on the render farm", author="human:a"))
    state = fold(app.store.read(turn.conversation))
    assert state.replans == [] and len(state.runs) == 1
    assert turn.report is not None and turn.report.outcome == "failed"
    assert any("malformed" in line for line in turn.report.evidence)
