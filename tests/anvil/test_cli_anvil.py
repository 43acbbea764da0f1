"""Anvil from the command line: run, proposals, approve, reject, rights, why, agent, policy, budgets, settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.anvil.explain import decisions
from alicorn.cli import app
from alicorn.journal.sqlite import SQLiteStore
from alicorn.plan.dsl import goal_digest
from alicorn.testing.people import act_as

runner = CliRunner()


def cli(home: Path, *args: str) -> Any:
    return runner.invoke(app, [*args, "--home", str(home)], catch_exceptions=False)


def write_plan(path: Path, nodes: list[dict[str, Any]], goal: str = "anvil cli") -> Path:
    path.write_text(json.dumps({"goal": goal, "goal_hash": goal_digest(goal), "nodes": nodes}))
    return path


def events(home: Path, run_id: str) -> list[Any]:
    with SQLiteStore(home / "journal.db", create=False) as store:
        return store.read(run_id)


def runs(home: Path) -> list[str]:
    return [r["run"] for r in json.loads(cli(home, "runs", "--json").stdout)]


def write_node(path: str = "out.txt") -> dict[str, Any]:
    return {
        "node_id": "save",
        "operation": "workspace.write_file",
        "inputs": {"path": {"value": path}, "content": {"value": "hello"}},
    }


def get_node(url: str = "http://127.0.0.1:9/q", params: Any = None) -> dict[str, Any]:
    inputs: dict[str, Any] = {"url": {"value": url}}
    if params is not None:
        inputs["params"] = params
    return {"node_id": "ask", "operation": "http.get_json", "inputs": inputs}


def test_the_process_that_proposes_a_plan_never_approves_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    plan = write_plan(tmp_path / "get.json", [get_node()])
    act_as(monkeypatch, "carol")
    # Carol cannot say Dana wrote it: she could then approve "Dana's" plan herself. Nothing is made.
    for spelled in ("human:dana", "human:DANA", " Human:Dana "):
        spoofed = cli(home, "run", str(plan), "-q", "--proposed-by", spelled)
        assert spoofed.exit_code == 1 and "names another person, but this process runs as human:carol" in spoofed.stderr
    assert not home.exists()
    for proposer in ("agent:planner", None):  # an agent's plan, your own
        named = ["--proposed-by", proposer] if proposer else []
        refused = cli(home, "run", str(plan), "--approve", "-q", *named)
        assert refused.exit_code == 1 and "a process can never both propose and approve" in refused.stderr
        assert f"proposes the plan as {proposer or 'human:carol'}" in refused.stderr
        assert "`alicorn approve RUN`" in refused.stderr
    assert not home.exists()  # nothing journaled, not even a home made
    # Proposed as Carol (any spelling), approved by Carol: the canonical ids are one person.
    post = {
        "node_id": "send",
        "operation": "http.post_json",
        "inputs": {"url": {"value": "http://127.0.0.1:9/x"}, "payload": {"value": {}}},
    }
    assert (
        cli(
            home, "run", str(write_plan(tmp_path / "post.json", [post])), "-q", "--proposed-by", "human:CAROL"
        ).exit_code
        == 4
    )
    mine = cli(home, "approve", runs(home)[0])
    assert mine.exit_code == 1 and "human:carol proposed run" in mine.stderr
    assert [e.kind for e in events(home, runs(home)[0])].count("approval.granted") == 0


def test_an_agents_plan_waits_then_a_human_approves_it_bound_to_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "dana")  # the OS user running every command; on this new home, its first admin
    plan = write_plan(tmp_path / "write.json", [write_node()])
    assert cli(home, "agent", "register", "agent:scribe", "--role", "executor").exit_code == 0
    revoked = cli(home, "agent", "revoke", "agent:scribe", "--effect", "local_write", "--cause", "probation")
    assert revoked.exit_code == 0 and "effects none, read;" in revoked.stdout
    waiting = cli(home, "run", str(plan), "-q", "--proposed-by", "agent:scribe")
    assert waiting.exit_code == 4 and "waiting for approval" in waiting.stdout
    run_id = runs(home)[0]
    listed = json.loads(cli(home, "proposals", "--json").stdout)
    assert [p["run"] for p in listed] == [run_id] and listed[0]["proposed_by"] == "agent:scribe"
    plan_hash = listed[0]["plan_hash"]
    shown = cli(home, "proposals")
    assert plan_hash in shown.stdout and "beyond agent:scribe's rights" in shown.stdout
    stale = cli(home, "approve", run_id, "--plan-hash", "0" * 64, "--as", "dana")
    assert stale.exit_code == 1 and "bound to the plan it was given for" in stale.stderr
    agent = cli(home, "approve", run_id, "--as", "agent:decision")  # --as asserts who you are, never changes it
    assert agent.exit_code == 1 and "runs as the OS user 'dana'" in agent.stderr
    done = cli(home, "approve", run_id, "--plan-hash", plan_hash, "--as", "Dana", "--comment", "fine", "-q")
    assert done.exit_code == 0, done.output
    granted = next(e.data for e in events(home, run_id) if e.kind == "approval.granted")
    assert granted["by"] == "human:dana" and granted["plan_hash"] == plan_hash and granted["comment"] == "fine"
    assert granted["seal"]["signer"] == "human:dana" and granted["seal"]["fingerprint"].startswith("sha256:")
    again = cli(home, "approve", run_id, "--as", "dana")
    assert again.exit_code == 1 and "not waiting for an approval" in again.stderr
    assert cli(home, "replay", run_id).exit_code == 0
    rights = cli(home, "rights", "agent:scribe")
    assert "reputation: 3" in rights.stdout and "cause: probation" in rights.stdout
    assert "first successful use of workspace.write_file" in rights.stdout


def test_reject_finishes_the_run_with_no_effect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "erin")
    plan = write_plan(tmp_path / "get.json", [get_node()])
    assert cli(home, "run", str(plan), "-q", "--proposed-by", "agent:planner").exit_code == 4
    run_id = runs(home)[0]
    cancel = cli(home, "cancel", run_id)
    assert cancel.exit_code == 1 and f"alicorn reject {run_id}" in cancel.stderr
    rejected = cli(home, "reject", run_id, "--reason", "wrong host")
    assert rejected.exit_code == 3 and "rejected" in rejected.stdout
    assert [e.kind for e in events(home, run_id)].count("tool.call") == 0
    assert cli(home, "proposals").stdout.startswith("no run is waiting")


def test_why_explains_a_decision_and_a_node(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = write_plan(tmp_path / "get.json", [get_node()])
    cli(home, "run", str(plan), "-q", "--proposed-by", "agent:planner")
    run_id = runs(home)[0]
    check = next(e for e in events(home, run_id) if e.kind == "anvil.check")
    why = cli(home, "why", f"{run_id}#{check.seq}")
    assert why.exit_code == 0 and "decision: needs_approval" in why.stdout
    assert "permit-human-approved (permitted it)" in why.stdout and "when { context.approved }" in why.stdout
    assert "beyond rights: the host 127.0.0.1" in why.stdout and "host:127.0.0.1" in why.stdout
    assert "principal: agent:planner (registered, reputation 0, tier standard" in why.stdout
    by_node = cli(home, "why", run_id, "ask")
    assert by_node.exit_code == 0 and f"{run_id}#{check.seq} anvil.check" in by_node.stdout
    for bad, message in (
        ("nonsense", "RUN#SEQ"),
        (f"{run_id}#1", "is run.created, not a decision"),
        (f"{run_id}#999", "does not exist"),
    ):
        result = cli(home, "why", bad)
        assert result.exit_code == 1 and message in result.stderr
    assert cli(home, "why", run_id, "nope").exit_code == 1


def test_rights_at_a_moment_show_what_an_agent_could_do_then(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    act_as(monkeypatch, "ops")
    assert cli(home, "agent", "register", "agent:scout").exit_code == 0
    before = events(home, "agent:scout")[0].at
    grant = cli(home, "agent", "grant", "agent:scout", "--host", "api.x.io", "--cause", "needs the API", "--as", "ops")
    assert grant.exit_code == 0 and "hosts api.x.io" in grant.stdout
    then = cli(home, "rights", "agent:scout", "--at", before)
    assert "hosts none" in then.stdout and "needs the API" not in then.stdout
    now = json.loads(cli(home, "rights", "agent:scout", "--json").stdout)
    assert now["rights"]["hosts"] == ["api.x.io"] and now["history"][1]["cause"] == "needs the API"
    assert cli(home, "rights", "agent:scout", "--at", "yesterday").exit_code == 1
    assert "not registered" in cli(home, "rights", "agent:nobody").stdout
    assert "operator's config" in cli(home, "rights", "human:ops").stdout
    assert "agent:scout: reputation 0" in cli(home, "agent", "list").stdout


def test_an_unknown_named_agent_is_refused_before_anything_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = write_plan(tmp_path / "w.json", [write_node()])
    result = cli(home, "run", str(plan), "--proposed-by", "agent:ghost")
    assert result.exit_code == 1 and "agent:ghost is not a registered agent" in result.stderr
    assert not home.exists()  # refused before a home or a journal was made for it
    planner = cli(home, "run", str(plan), "-q", "--proposed-by", "agent:planner")  # a built-in role registers itself
    assert planner.exit_code == 0, planner.output
    bad = cli(home, "run", str(plan), "--proposed-by", "planner")
    assert bad.exit_code == 1 and "human:NAME or agent:NAME" in bad.stderr


def test_budgets_from_the_command_line_and_the_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text("[anvil.budget]\nsteps = 1\n")
    nodes = [{"node_id": f"n{i}", "operation": "util.noop", "depends_on": [f"n{i - 1}"] if i else []} for i in range(3)]
    plan = write_plan(tmp_path / "chain.json", nodes)
    stopped = cli(home, "run", str(plan), "-q")
    assert stopped.exit_code == 3 and "steps budget of this run is exceeded" in stopped.stdout
    more = cli(home, "run", str(plan), "-q", "--budget", "steps=3")
    assert more.exit_code == 0, more.output
    bad = cli(home, "run", str(plan), "--budget", "calls=3")
    assert bad.exit_code == 1 and "--budget 'calls=3'" in bad.stderr


def test_forbidden_effects_deny_the_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = write_plan(tmp_path / "w.json", [write_node()])
    denied = cli(home, "run", str(plan), "-q", "--forbid", "local_write")
    assert denied.exit_code == 3 and "denied" in denied.stdout
    bad = cli(home, "run", str(plan), "--forbid", "publishing")
    assert bad.exit_code == 1 and "forbidden" in bad.stderr


def test_private_data_sent_by_a_get_needs_an_approval(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text('[data]\nprivate = ["hr/**"]\n')
    (tmp_path / "hr").mkdir()
    (tmp_path / "hr" / "staff.json").write_text('{"name": "ann"}')
    load = {"node_id": "load", "operation": "data.read_json", "inputs": {"path": {"value": "hr/staff.json"}}}
    ask = get_node(params={"ref": {"node": "load", "output": "value"}})
    waiting = cli(home, "run", str(write_plan(tmp_path / "leak.json", [load, ask])), "-q", "--data", str(tmp_path))
    assert waiting.exit_code == 4, waiting.output
    created = events(home, runs(home)[0])[0].data
    assert created["risk"]["classes"] == ["read", "external_transmission"] and created["risk"]["outbound"] == "private"
    assert created["labels"]["private"] == ["hr/**"]


def test_policy_files_are_checked_and_a_bad_one_stops_everything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    policy = home / "mine.cedar"
    policy.write_text('@id("no-posts")\nforbid (principal, action == Action::"http.post_jsn", resource);\n')
    (home / "alicorn.toml").write_text('[anvil]\npolicy = "mine.cedar"\n')
    checked = cli(home, "policy", "check")
    assert checked.exit_code == 1 and "no-posts" in checked.stderr and "http.post_jsn" in checked.stderr
    plan = write_plan(tmp_path / "w.json", [write_node()])
    result = cli(home, "run", str(plan), "-q")
    assert result.exit_code == 1 and "no-posts" in result.stderr
    assert runs(home) == []
    policy.write_text('@id("all") permit (principal, action, resource);\n')
    assert "ok: " in cli(home, "policy", "check").stdout
    assert cli(home, "run", str(plan), "-q").exit_code == 0
    assert '@id("all")' in cli(home, "policy", "show").stdout
    default = cli(home, "policy", "check", str(Path(__file__).parents[2] / "src/alicorn/anvil/policies/default.cedar"))
    assert default.exit_code == 0 and "10 rules" in default.stdout


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[anvil]\nforbidden = ['posting']\n", "[anvil]: forbidden.0"),
        ("[anvil.budget]\nsteps = -1\n", "[anvil]: budget.steps"),
        ("[data]\nprivate = ['/etc/**']\n", "[data]: private"),
        ("[anvil]\nunknown = 1\n", "[anvil]: unknown"),
        ("[nope]\n", "unknown section"),
    ],
)
def test_bad_settings_are_clear_errors(tmp_path: Path, config: str, message: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text(config)
    result = cli(home, "runs")
    assert result.exit_code == 1 and message in result.stderr


def test_alicorn_why_explains_every_decision_of_the_demo(tmp_path: Path) -> None:
    home = tmp_path / "home"
    demo = cli(home, "demo")
    assert demo.exit_code == 0, demo.output
    run_id = runs(home)[0]
    found = decisions(events(home, run_id))
    assert found, "the demo's run journals Anvil's decisions"
    explained = 0
    for event in found:
        result = cli(home, "why", f"{run_id}#{event.seq}")
        if (
            result.exit_code == 0
            and event.data["decision"] in result.stdout
            and event.data["sentence"] in result.stdout
        ):
            explained += 1
    assert explained == len(found)  # 100 %


def test_why_an_unknown_run_is_no_run_as_everywhere(tmp_path: Path) -> None:
    """A well-formed run id the journal does not have is "no run", not a decision written wrongly."""
    home = tmp_path / "home"
    cli(home, "run", str(write_plan(tmp_path / "w.json", [write_node()])), "-q")
    result = cli(home, "why", "run-20261130-000000000000")
    assert result.exit_code == 1
    assert "no run 'run-20261130-000000000000'; `alicorn runs` lists the runs" in result.stderr
    assert "is not a decision" not in result.stderr


def test_a_grant_to_an_unused_built_in_role_or_a_bad_option_says_what_to_do(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cli(home, "run", str(write_plan(tmp_path / "w.json", [write_node()])), "-q")
    unused = cli(home, "agent", "grant", "agent:planner", "--cause", "x", "--max-amount", "5")
    said = " ".join(unused.stderr.split())
    assert unused.exit_code == 1 and "agent:planner has not been used yet" in said
    assert "`alicorn agent register agent:planner --role planner`" in said and "register themselves" not in said
    assert cli(home, "agent", "register", "agent:scout").exit_code == 0
    for args, message in (
        (("--effect", "bogus"), "--effect 'bogus' is not an effect class; choose one of none, read, local_write"),
        (("--max-amount", "-1"), "--max-amount -1.0: give an amount of 0 or more"),
    ):
        result = cli(home, "agent", "grant", "agent:scout", "--cause", "x", *args)
        assert result.exit_code == 1 and message in " ".join(result.stderr.split()), result.output
    assert [e.kind for e in events(home, "agent:scout")] == ["agent.registered"]
