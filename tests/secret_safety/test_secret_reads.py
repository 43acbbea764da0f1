"""Reads of secret-labelled sources: denied without an allowance in the run's terms, waiting for a human with one,
refused at run time when a computed path turns out secret and unallowed; the policy's rule and sentence say why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.anvil.decide import decide
from alicorn.anvil.errors import SettingsError
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import HUMAN_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.anvil.secret_reads import COMPUTED, allowing, is_allowed, refusal, secret_sources
from alicorn.anvil.terms import RunTerms
from alicorn.app import App, open_app, standard_registry
from alicorn.cli import app as cli
from alicorn.plan.dsl import Plan
from alicorn.runtime.humans import Approval
from tests.secret_safety.test_every_writer import FILE_SECRET, agent_terms, executor, node, plan, ref

LABELS = DataLabels(private=("hr/**",), secret=("keys/**",))
REG = standard_registry()
DEFAULT = compile_policies(default_policy_text())
HUMAN = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")
SECRET_READ = plan(node("load", "data.read_csv", path="keys/service.csv"))
COMPUTED_READ = plan(
    node("where", "data.read_json", path="where.json"),
    node("load", "data.read_csv", path=ref("where", "value")),
)


def facts(p: Plan, allowed: tuple[str, ...] = (), labels: DataLabels = LABELS, **extra: Any) -> Facts:
    sources = secret_sources(p, REG, labels)
    return Facts(
        p.plan_hash(), p.goal_hash, "default", assess(p, REG, labels), HUMAN, secret_sources=sources,
        secret_allowed=allowed, **extra,
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------- pure facts


def test_secret_sources_name_literal_secret_paths_and_computed_ones() -> None:
    assert secret_sources(SECRET_READ, REG, LABELS) == ("keys/service.csv",)
    assert secret_sources(plan(node("load", "data.read_csv", path="hr/staff.csv")), REG, LABELS) == ()
    assert secret_sources(COMPUTED_READ, REG, LABELS) == (COMPUTED,)
    # No pattern can label anything secret: a computed path is no secret read either.
    assert secret_sources(COMPUTED_READ, REG, DataLabels(private=("hr/**",))) == ()


def test_an_allowance_is_a_pattern_and_a_computed_path_needs_one() -> None:
    assert is_allowed("keys/service.csv", ("keys/**",)) and is_allowed("./keys/service.csv", ("keys/service.csv",))
    assert not is_allowed("keys/service.csv", ("keys/other.csv",))
    assert is_allowed(COMPUTED, ("keys/other.csv",)) and not is_allowed(COMPUTED, ())


def test_a_secret_read_without_an_allowance_is_denied_even_approved() -> None:
    for approval in ("none", "granted"):
        v = decide(DEFAULT, facts(SECRET_READ, approval=approval, approved_by=("human:bob",)))
        assert v.decision == "deny" and v.checks[0].rules == ("forbid-secret-read",)
        sentence = v.checks[0].sentence
        assert "'keys/service.csv', labelled secret" in sentence
        assert "--allow-secret-read keys/service.csv" in sentence and "[rules: forbid-secret-read]" in sentence


def test_an_allowed_secret_read_waits_for_a_human_then_runs() -> None:
    waiting = decide(DEFAULT, facts(SECRET_READ, ("keys/**",)))
    assert waiting.decision == "needs_approval"
    assert "forbid-secret-read" in waiting.checks[0].blocked_by
    assert "which its terms allow only once a human approves" in waiting.checks[0].sentence
    approved = decide(DEFAULT, facts(SECRET_READ, ("keys/**",), approval="granted", approved_by=("human:bob",)))
    assert approved.decision == "allow" and "permit-human-approved" in approved.checks[0].rules


def test_an_allowance_for_another_file_does_not_cover_this_one() -> None:
    v = decide(DEFAULT, facts(SECRET_READ, ("keys/other.csv",), approval="granted"))
    assert v.decision == "deny" and v.checks[0].rules == ("forbid-secret-read",)


def test_a_plan_reading_no_secret_is_decided_as_before() -> None:
    v = decide(DEFAULT, facts(plan(node("load", "data.read_csv", path="a.csv"))))
    assert v.decision == "allow" and v.checks[0].rules == ("permit-within-rights",)


def test_the_runtime_refuses_a_resolved_secret_path_the_terms_do_not_name() -> None:
    terms = RunTerms(labels=LABELS, secret_reads=("keys/other.csv",))
    why = refusal("load", "data.read_csv", "path", "read", {"path": "keys/service.csv"}, terms)
    assert why is not None and "forbid-secret-read" in why and "--allow-secret-read keys/service.csv" in why
    assert refusal("load", "data.read_csv", "path", "read", {"path": "keys/other.csv"}, terms) is None
    assert refusal("load", "data.read_csv", "path", "read", {"path": "a.csv"}, terms) is None
    assert refusal("save", "workspace.write_file", "path", "local_write", {"path": "keys/x"}, terms) is None


def test_terms_journal_their_secret_reads_only_when_there_are_some() -> None:
    assert "secret_reads" not in RunTerms().to_created()
    terms = RunTerms(secret_reads=("keys/b", "keys/a", "keys/a"))
    assert terms.to_created()["secret_reads"] == ["keys/a", "keys/b"]
    assert RunTerms.from_created(terms.to_created()) == terms
    with pytest.raises(SettingsError, match="not a pattern relative to the data root"):
        allowing(RunTerms(), ["../etc/passwd"])


# ------------------------------------------------------------------------------------------------ real runs


@pytest.fixture
def application(home: Path) -> Any:
    opened = open_app(home)
    yield opened
    opened.close()


def kinds(application: App, run_id: str) -> list[str]:
    return [e.kind for e in application.store.read(run_id)]


def test_without_an_allowance_nothing_runs_and_the_rule_is_named(application: App, tmp_path: Path) -> None:
    ex = executor(application, tmp_path / "data")
    state = ex.start(SECRET_READ, terms=agent_terms(application), approvals=[Approval("human:bob")])
    assert state.status == "denied"
    assert "tool.call" not in kinds(application, state.run_id)
    [check] = [e.data for e in application.store.read(state.run_id) if e.kind == "anvil.check"]
    assert check["decision"] == "deny" and check["rules"] == ["forbid-secret-read"]


def test_with_an_allowance_but_no_approval_it_waits(application: App, tmp_path: Path) -> None:
    ex = executor(application, tmp_path / "data")
    state = ex.start(SECRET_READ, terms=agent_terms(application, "keys/**"))
    assert state.status == "awaiting_approval"
    events = application.store.read(state.run_id)
    assert "tool.call" not in [e.kind for e in events]
    assert events[0].data["secret_reads"] == ["keys/**"]
    waiting = next(e.data for e in events if e.kind == "run.awaiting_approval")
    assert "forbid-secret-read" in waiting["rules"]


def test_a_computed_path_that_resolves_to_an_unallowed_secret_is_refused_when_it_runs(
    application: App, tmp_path: Path
) -> None:
    ex = executor(application, tmp_path / "data")
    terms = agent_terms(application, "keys/other.csv")
    state = ex.start(COMPUTED_READ, terms=terms, approvals=[Approval("human:bob")])
    assert state.status == "partial"
    assert state.nodes["where"].status == "succeeded" and state.nodes["load"].status == "failed"
    events = application.store.read(state.run_id)
    assert not [e for e in events if e.kind == "tool.call" and e.data["node"] == "load"]
    reason = state.nodes["load"].reason or ""
    assert "forbid-secret-read" in reason and "nothing was read" in reason
    assert FILE_SECRET not in json.dumps([e.data for e in events])


def test_the_cli_flag_allows_a_read_and_a_bad_pattern_is_a_clear_error(home: Path, tmp_path: Path) -> None:
    plan_file = tmp_path / "read.json"
    plan_file.write_text(json.dumps(SECRET_READ.model_dump(mode="json")))
    base = ["run", str(plan_file), "--home", str(home), "--data", str(tmp_path / "data"), "-q"]
    runner = CliRunner()
    denied = runner.invoke(cli, [*base, "--proposed-by", "agent:planner"])
    assert "denied" in denied.output
    waiting = runner.invoke(cli, [*base, "--proposed-by", "agent:planner", "--allow-secret-read", "keys/**"])
    assert "denied" not in waiting.output
    bad = runner.invoke(cli, [*base, "--allow-secret-read", "/etc/shadow"])
    assert bad.exit_code == 1 and "--allow-secret-read" in bad.stderr and "Traceback" not in bad.output
    opened = open_app(home, read_only=True)
    try:
        runs = [opened.store.read(s.stream) for s in opened.store.streams() if s.stream.startswith("run-")]
        assert len(runs) == 2  # the bad pattern started nothing
        first, second = sorted(runs, key=lambda events: "secret_reads" in events[0].data)
    finally:
        opened.close()
    assert [e.data["rules"] for e in first if e.kind == "anvil.check"] == [["forbid-secret-read"]]
    assert "secret_reads" not in first[0].data and second[0].data["secret_reads"] == ["keys/**"]
    assert [e.kind for e in second][-1] == "run.awaiting_approval"
