"""Every file an operation reads is known to the data labels and the secret-read checks (red-team report D, #5, #12).

A path input a node leaves out is read at its default, and classified so; every input an operation declares as a
file it reads (`read_inputs`: schedule.load_inputs' vacations, demand and rules) is classified; an input that
selects files instead of naming one (`notes.read_transcript`'s "latest" or a date, a folder read whole) is
classified by the most sensitive file its selection could match. Plans that read nothing labelled still run as
before, unapproved.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from alicorn.anvil.decide import decide
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels, patterns_overlap, propagate
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import HUMAN_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.anvil.secret_reads import COMPUTED, describe, is_allowed, secret_sources
from alicorn.app import App, open_app, standard_registry
from alicorn.ops.registry import Operation, Registry
from alicorn.plan.dsl import Plan, goal_digest
from tests.loopback import Recorded, recording

REG = standard_registry()
PACKS = Path(__file__).resolve().parents[2] / "src" / "alicorn" / "packs"
POLICY = compile_policies(default_policy_text())
HUMAN = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")
URL = "http://127.0.0.1:9/x"


def plan(*nodes: dict[str, Any], goal: str = "file inputs") -> Plan:
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": list(nodes)})


def node(node_id: str, operation: str, **inputs: Any) -> dict[str, Any]:
    bound = {k: v if isinstance(v, dict) and "ref" in v else {"value": v} for k, v in inputs.items()}
    return {"node_id": node_id, "operation": operation, "inputs": bound}


def ref(node_id: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node_id, "output": output}}


def jobs_then_get(url: str = URL, **load: Any) -> Plan:
    """The report's reproduction: perf.load_jobs (its path named or left to its default), then a GET of the change."""
    return plan(
        node("load", "perf.load_jobs", **load),
        node("chg", "perf.find_change", jobs=ref("load", "jobs")),
        node("send", "http.get_json", url=url, params=ref("chg", "change")),
    )


def load_inputs(**given: Any) -> Plan:
    return plan(node("load", "schedule.load_inputs", month="2026-12", **given))


def decided(p: Plan, labels: DataLabels, allowed: tuple[str, ...] = ()) -> Any:
    facts = Facts(
        p.plan_hash(), p.goal_hash, "default", assess(p, REG, labels), HUMAN,
        secret_sources=secret_sources(p, REG, labels), secret_allowed=allowed,
    )  # fmt: skip
    return decide(POLICY, facts)


# --------------------------------------------------------------------------------------------- defaults (#5)


def test_a_path_left_to_its_default_is_classified_as_the_file_it_reads() -> None:
    labels = DataLabels(private=("render_jobs.csv",))
    named, left_out = jobs_then_get(path="render_jobs.csv"), jobs_then_get()
    assert propagate(left_out, REG, labels)["load"].source == "private"
    for p in (named, left_out):
        risk = assess(p, REG, labels)
        assert risk.classes == ("none", "read", "external_transmission") and risk.outbound == "private"
        assert risk.upgrades() == [
            "send (http.get_json) sends private data from chg to 127.0.0.1: an external transmission"
        ]
        assert decided(p, labels).decision == "needs_approval"


def test_a_default_that_names_an_unlabelled_file_changes_nothing() -> None:
    risk = assess(jobs_then_get(), REG, DataLabels(private=("hr/**",)))
    assert risk.classes == ("none", "read") and risk.outbound == "internal" and risk.upgrades() == []
    assert decided(jobs_then_get(), DataLabels(private=("hr/**",))).decision == "allow"


# ------------------------------------------------------------------------------------ several inputs (#12)


@pytest.mark.parametrize(
    ("name", "default"), [("vacations", "vacations.csv"), ("demand", "demand.csv"), ("rules", "rules.json")]
)
def test_every_file_an_operation_reads_is_a_source(name: str, default: str) -> None:
    labels = DataLabels(secret=("keys/**", default))
    named = load_inputs(**{name: "keys/x.csv"})
    assert secret_sources(named, REG, labels) == ("keys/x.csv",)
    assert secret_sources(load_inputs(), REG, labels) == (default,)  # left out: read at its default
    assert secret_sources(load_inputs(**{name: "other.csv"}), REG, labels) == ()
    verdict = decided(named, labels)
    assert verdict.decision == "deny" and verdict.checks[0].rules == ("forbid-secret-read",)
    assert "--allow-secret-read keys/x.csv" in verdict.checks[0].sentence


def test_a_computed_read_input_is_assumed_the_most_sensitive() -> None:
    labels = DataLabels(secret=("keys/**",))
    computed = plan(
        node("where", "data.read_text", path="where.txt"),
        node("load", "schedule.load_inputs", month="2026-12", demand=ref("where", "text")),
    )
    assert secret_sources(computed, REG, labels) == (COMPUTED,)
    assert propagate(computed, REG, DataLabels(private=("hr/**",)))["load"].source == "private"


# ---------------------------------------------------------------------------------------- selections (#12)

TRANSCRIPTS = DataLabels(private=("2026-11-27*.json",))


@pytest.mark.parametrize(
    ("given", "label"),
    [
        ({}, "private"),  # the default: 'latest', which may pick the private one
        ({"conversation": "latest"}, "private"),
        ({"conversation": "LATEST "}, "private"),
        ({"conversation": "2026-11-27"}, "private"),
        ({"conversation": "2026-11-28"}, "internal"),  # no file of that day is labelled
        ({"conversation": "2026-11-27-planning"}, "private"),  # the file it names, '.json' added
        ({"conversation": "2026-11-25-pereezd.json"}, "internal"),
    ],
)
def test_a_selector_is_labelled_by_the_most_sensitive_file_it_may_choose(given: dict[str, Any], label: str) -> None:
    p = plan(node("load", "notes.read_transcript", **given))
    assert propagate(p, REG, TRANSCRIPTS)["load"].source == label


def test_a_selector_whose_choices_no_pattern_reaches_keeps_the_default_label() -> None:
    p = plan(node("load", "notes.read_transcript"))
    assert propagate(p, REG, DataLabels(private=("hr/**",), secret=("keys/**",)))["load"].source == "internal"
    assert secret_sources(p, REG, DataLabels(secret=("keys/**",))) == ()


def test_a_selection_that_may_pick_a_secret_needs_an_allowance_and_a_human() -> None:
    labels = DataLabels(secret=("2026-*.json",))
    p = plan(node("load", "notes.read_transcript"))
    assert secret_sources(p, REG, labels) == ("????-??-??*.json",)
    assert describe(secret_sources(p, REG, labels)) == "a file matching '????-??-??*.json'"
    denied = decided(p, labels)
    assert denied.decision == "deny" and denied.checks[0].rules == ("forbid-secret-read",)
    assert is_allowed("????-??-??*.json", ("2026-11-27-planning.json",))  # which file: checked when it is opened
    assert decided(p, labels, ("2026-*.json",)).decision == "needs_approval"


def test_a_folder_read_whole_is_labelled_by_the_files_under_it() -> None:
    labels = DataLabels(secret=("app/config/**",), private=("hr/**",))
    diff = plan(node("d", "build.diff", source="app", root="cand"))
    assert secret_sources(diff, REG, labels) == ("app/**",)
    copy = plan(node("c", "build.create_candidate", app="hr"))
    assert propagate(copy, REG, labels)["c"].output == "private"
    assert propagate(plan(node("c", "build.create_candidate", app="web")), REG, labels)["c"].output == "internal"


@pytest.mark.parametrize(
    ("first", "second", "overlap"),
    [
        ("hr/**", "????-??-??*.json", False),  # a selection that never crosses a '/'
        ("hr/**", "*/*.json", True),
        ("**/*.key", "x*.json", False),
        ("**/*.key", "app/**", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/xb", False),
        ("keys/**", "keys", False),
        ("a?c", "a/c", False),
        ("2026-11-27*.json", "2026-11-2?-*.json", True),
    ],
)
def test_patterns_overlap_when_some_path_matches_both(first: str, second: str, overlap: bool) -> None:
    assert patterns_overlap(first, second) is overlap
    assert patterns_overlap(second, first) is overlap


# ---------------------------------------------------------------------------------------------- declarations


class _In(BaseModel):
    path: str = "out.txt"
    url: str = "http://example.org/hook"
    other: str = "x"


class _Out(BaseModel):
    ok: bool = True


def _op(**declared: Any) -> Operation:
    base: dict[str, Any] = {"effect": "local_write", "idempotency": "idempotent"}
    base.update(declared)
    return Operation(
        "t.op", "test", _In, _Out, base.pop("effect"), base.pop("idempotency"), lambda i, c: _Out(), **base
    )  # fmt: skip


def test_a_declared_read_input_must_be_an_input_and_selects_needs_one() -> None:
    with pytest.raises(ValueError, match="declares read_inputs 'nope', which is not one of its inputs"):
        Registry([_op(read_inputs=("nope",))])
    with pytest.raises(ValueError, match="declares `selects` but reads no input"):
        Registry([_op(selects=lambda v: (v,))])


def test_the_reads_enter_an_operations_contract_only_where_declared() -> None:
    assert REG.get("data.read_csv").describe()["reaches"] == {"url": None, "path": "path", "amount": None}
    reaches = REG.get("schedule.load_inputs").describe()["reaches"]
    assert reaches["reads"] == ["vacations", "demand", "rules"] and reaches["path"] == "employees"
    assert REG.get("notes.read_transcript").describe()["reaches"]["selects"] is True


def test_a_destination_left_to_its_default_is_a_destination() -> None:
    writes = Registry([_op(path_input="path")])
    assert assess(plan(node("w", "t.op")), writes).paths == ("out.txt",)
    sends = Registry([_op(effect="read", idempotency="repeatable", url_input="url")])
    assert assess(plan(node("s", "t.op")), sends).hosts == ("example.org",)


# ------------------------------------------------------------------------------------------------- real runs


@pytest.fixture
def outside() -> Iterator[Recorded]:
    with recording(b'{"ok": true}') as recorder:
        yield recorder


def _app(tmp_path: Path, data_section: str) -> App:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(data_section)
    return open_app(home)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    shutil.copy(PACKS / "incident" / "data" / "render_jobs.csv", root)
    for name in ("employees.csv", "vacations.csv", "demand.csv", "rules.json"):
        shutil.copy(PACKS / "schedule" / "data" / name, root)
    for transcript in (PACKS / "notes" / "data").glob("*.json"):
        shutil.copy(transcript, root)
    (root / "keys").mkdir()
    shutil.copy(PACKS / "schedule" / "data" / "vacations.csv", root / "keys" / "vacations.csv")
    return root


def _start(application: App, data: Path, p: Plan) -> Any:
    ex = application.executor(data)
    ex.approvers = None  # who may approve is another suite's subject
    return ex.start(p)


def test_a_private_file_read_at_its_default_path_then_sent_waits_for_a_human(
    tmp_path: Path, data: Path, outside: Recorded
) -> None:
    application = _app(tmp_path, '[data]\nprivate = ["render_jobs.csv"]\n')
    try:
        for p in (jobs_then_get(outside.url), jobs_then_get(outside.url, path="render_jobs.csv")):
            state = _start(application, data, p)
            assert state.status == "awaiting_approval"
            waiting = next(e.data for e in application.store.read(state.run_id) if e.kind == "run.awaiting_approval")
            assert "sends private data from chg to 127.0.0.1" in waiting["reason"]
    finally:
        application.close()
    assert outside.requests == []


def test_the_same_plan_over_unlabelled_data_runs_unapproved(tmp_path: Path, data: Path, outside: Recorded) -> None:
    application = _app(tmp_path, '[data]\nprivate = ["hr/**"]\nsecret = ["keys/**"]\n')
    try:
        assert _start(application, data, jobs_then_get(outside.url)).status == "succeeded"
        assert _start(application, data, load_inputs()).status == "succeeded"
        latest = plan(
            node("load", "notes.read_transcript"),
            node("send", "http.get_json", url=outside.url, params=ref("load", "quality")),
        )
        assert _start(application, data, latest).status == "succeeded"
    finally:
        application.close()
    assert len(outside.requests) == 2


def test_a_secret_vacations_file_is_refused_like_a_direct_read(tmp_path: Path, data: Path) -> None:
    application = _app(tmp_path, '[data]\nsecret = ["keys/**"]\n')
    try:
        direct = _start(application, data, plan(node("load", "data.read_csv", path="keys/vacations.csv")))
        through = _start(application, data, load_inputs(vacations="keys/vacations.csv"))
        for state in (direct, through):
            assert state.status == "denied"
            events = application.store.read(state.run_id)
            assert "tool.call" not in [e.kind for e in events]
            [check] = [e.data for e in events if e.kind == "anvil.check"]
            assert check["rules"] == ["forbid-secret-read"]
            assert "--allow-secret-read keys/vacations.csv" in check["sentence"]
    finally:
        application.close()


def test_the_latest_transcript_labelled_private_then_sent_waits_for_a_human(
    tmp_path: Path, data: Path, outside: Recorded
) -> None:
    application = _app(tmp_path, '[data]\nprivate = ["2026-11-2?-planning.json"]\n')
    try:
        latest = plan(
            node("load", "notes.read_transcript"),
            node("send", "http.get_json", url=outside.url, params=ref("load", "quality")),
        )
        state = _start(application, data, latest)
        assert state.status == "awaiting_approval"
        created = application.store.read(state.run_id)[0].data
        assert created["risk"]["outbound"] == "private"
        assert "links" not in json.dumps(created["labels"])  # nothing here is a link: journaled as before
    finally:
        application.close()
    assert outside.requests == []
