"""Shared pieces of the Core tests: an app over a temporary home, a test workflow with an outside effect, scripted
models."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn.app import App
from alicorn.clock import PinnedClock
from alicorn.core.norbi import Norbi
from alicorn.core.routing import ModelAccess
from alicorn.journal.sqlite import SQLiteStore
from alicorn.models.intent.classifier import ForbiddenFlags
from alicorn.models.profiles import ModelProfile
from alicorn.models.providers.scripted import ScriptedProvider, ScriptItem
from alicorn.models.router import Host
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import Operation, OperationContext, Registry
from alicorn.packs.alarms import WORKFLOW as ALARMS
from alicorn.packs.workflow import BuiltPlan, LeftOut, ResultSummary, Workflow
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.testing.people import enrol
from alicorn.validate.base import CheckResult, ValidationReport

SEED_ALARMS = "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human."


class NotifyInputs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    message: str = Field(min_length=1)


class NotifyOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    sent: bool


SENT: list[str] = []


def _notify(inputs: NotifyInputs, ctx: OperationContext) -> NotifyOutputs:
    SENT.append(ctx.idempotency_key)
    return NotifyOutputs(sent=True)


NOTIFY = Operation("test.notify", "Send a message to the team.", NotifyInputs, NotifyOutputs, "external_transmission",
                   "keyed", _notify)  # fmt: skip


class GreetParameters(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    team: str = Field(description="which team to greet")
    send: bool = False


def _extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    found: dict[str, Any] = {}
    lowered = text.lower()
    for team in ("red", "blue"):
        if f"{team} team" in lowered:
            found["team"] = team
    if "send" in lowered and "not send" not in lowered and "don't send" not in lowered:
        found["send"] = True
    return found


def _build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    p = GreetParameters.model_validate(params.model_dump())
    nodes = [Node.model_validate({"node_id": "compose", "operation": "util.noop", "inputs": {}})]
    left_out = []
    if p.send and "external_transmission" in forbidden:
        left_out.append(LeftOut("send", "test.notify", effect="external_transmission"))
    elif p.send:
        nodes.append(
            Node.model_validate(
                {
                    "node_id": "send",
                    "operation": "test.notify",
                    "inputs": {"message": {"value": f"hello {p.team} team"}},
                    "depends_on": ["compose"],
                }
            )
        )
    return BuiltPlan(tuple(nodes), tuple(left_out))


def _artifact(state: RunState) -> dict[str, Any] | None:
    return {"nodes": {n: state.nodes[n].status for n in state.order}}


def _validate(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    nodes = (artifact or {}).get("nodes", {})
    ok = bool(nodes) and all(s == "succeeded" for s in nodes.values())
    return ValidationReport.of("document", [CheckResult(name="completeness", passed=ok, detail=f"nodes: {nodes}")])


GREET = Workflow(
    id="greet_team",
    title="team greeting",
    summary="compose a greeting for a team and, when asked, send it",
    artifact="document",
    parameters=GreetParameters,
    operations=(NOTIFY,),
    examples={
        "en": ("Greet the red team", "Send a hello to the blue team", "Say hi to the team", "Write the team a hello"),
        "pl": ("Przywitaj zespół czerwony",),
        "ru": ("Поприветствуй красную команду",),
    },
    data_dir=Path("."),
    extract=_extract,
    questions={"team": {"en": "Which team: red or blue?", "pl": "Który zespół?", "ru": "Какая команда?"}},
    build=_build,
    artifact_of=_artifact,
    criteria=lambda params: {"nodes": "all succeeded"},
    validator=_validate,
    summarize=lambda artifact, report, language: ResultSummary(("greeting done",), {}, ()),
)


def registry() -> Registry:
    built = builtin_registry()
    built.register(NOTIFY)
    return built


def make_app(home: Path) -> App:
    home.mkdir(parents=True, exist_ok=True)
    return App(home, SQLiteStore(home / "journal.db"), registry())


PROFILE = ModelProfile(
    id="scripted-small",
    provider="scripted",
    model="scripted",
    location="local",
    languages=("en", "pl", "ru"),
    structured_output="json_schema",
    context_length=4096,
    seed=True,
    latency_ms=100,
    privacy="on_device",
    licence="test",
)


def label(kind: str, language: str = "en") -> str:
    """A classifier's answer (the flags schema) naming `kind` and `language` and forbidding nothing."""
    flags = dict.fromkeys(ForbiddenFlags.model_fields, False)
    return json.dumps({"kind": kind, "language": language, "forbidden": flags})


def scripted(script: Sequence[ScriptItem], *, profile: ModelProfile = PROFILE) -> tuple[ModelAccess, ScriptedProvider]:
    provider = ScriptedProvider(script, constrained=True)
    host = Host(ram_gb=16, providers=("scripted",))
    return ModelAccess((profile,), lambda _p: provider, host, source="scripted"), provider


#: The day Core tests live in: "yesterday" is the bundled alarm log's day (2026-11-29).
AS_OF = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


#: The people Core tests approve and reject as, enrolled (with signing keys) in every home `core` opens.
PEOPLE = ("ann", "bob", "alice", "a")


def core(app: App, workflows: Sequence[Workflow] = (ALARMS, GREET), **options: Any) -> Norbi:
    enrol(app, *PEOPLE)
    options.setdefault("clock", PinnedClock(AS_OF))
    options.setdefault("samples", True)  # the bundled sample data stands in for the user's where none is given
    return Norbi(app, workflows, data_root=ALARMS.data_dir, **options)


def samples_as_project_data(home: Path, project: str = "default") -> Path:
    """Declare the bundled sample files as `project`'s data sources in `home`'s alicorn.toml, the way an operator
    declares their own (`[projects.NAME.data]`), so CLI tests run over data Core finds like a user's."""
    from alicorn.packs.catalog import bundled_workflows

    lines = [f"[projects.{project}.data]"]
    for workflow in bundled_workflows():
        for want in workflow.inputs:
            where = workflow.data_dir / ("*.json" if want.format == "json_files" else want.file)
            lines.append(f"{want.name} = {json.dumps(str(where))}")
    home.mkdir(parents=True, exist_ok=True)
    (home / "alicorn.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return home


def memory_home(home: Path, facts: Mapping[str, str]) -> tuple[App, dict[str, str]]:
    """A home whose project memory holds `facts` (key → text; ids m-000…1, 2, … in that order, stated by an
    operator), with the memory operations registered; the app and each fact's record id by key."""
    import itertools

    from alicorn.memory.models import NewRecord, Provenance
    from alicorn.memory.open import open_memory
    from alicorn.ops.memory import memory_operations

    counter = itertools.count(1)
    ids: dict[str, str] = {}
    with open_memory(
        home / "memory.db", project="default", clock=lambda: AS_OF, ids=lambda p: f"{p}-{next(counter):016x}"
    ) as store:
        for key, text in facts.items():
            source = Provenance(origin="operator", ref="cli:ann")
            ids[key] = store.add(NewRecord(text=text, key=key, provenance=source)).record.id
    built = registry()
    for op in memory_operations():
        built.register(op)
    return App(home, SQLiteStore(home / "journal.db"), built), ids
