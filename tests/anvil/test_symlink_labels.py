"""A symlink inside the data root is classified by the file it really reaches (red-team report D, #7).

When a run is created, `labels.reaching` records where each literal source really leads (`DataLabels.links`,
journaled with its terms); labels and the secret-read checks then take the most sensitive of the link and its target.
When a file is opened, `ReadGuard` (through `OperationContext.read_check`) classifies again the path and the file it
reaches, so a link made after the plan was judged or approved cannot carry a private or secret file past the run's
decision. Links between files of the same label, and plain files, read as before.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alicorn.anvil.decide import decide
from alicorn.anvil.facts import Facts
from alicorn.anvil.labels import DataLabels, reaching
from alicorn.anvil.policy import compile_policies, default_policy_text
from alicorn.anvil.rights import HUMAN_RIGHTS, Subject
from alicorn.anvil.risk import assess
from alicorn.anvil.secret_reads import ReadGuard, refusal, secret_sources
from alicorn.anvil.terms import RunTerms
from alicorn.app import App, open_app, standard_registry
from alicorn.errors import OperationError
from alicorn.ops.registry import OperationContext
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.runtime.humans import Approval
from tests.loopback import Recorded, recording

REG = standard_registry()
POLICY = compile_policies(default_policy_text())
HUMAN = Subject("human:alice", "human", True, HUMAN_RIGHTS, tier="human")
LABELS = DataLabels(private=("hr/**",), secret=("keys/**",))
STAFF = {"name": "Alice Private", "salary": "99000"}
KEY = {"api_key": "sk-live-ABCDEFGHIJKLMNOP1234567890abcdef"}
NOTES = Path(__file__).resolve().parents[2] / "src" / "alicorn" / "packs" / "notes" / "data"


def plan(*nodes: dict[str, Any], goal: str = "symlinks") -> Plan:
    return Plan.model_validate({"goal": goal, "goal_hash": goal_digest(goal), "nodes": list(nodes)})


def node(node_id: str, operation: str, **inputs: Any) -> dict[str, Any]:
    bound = {k: v if isinstance(v, dict) and "ref" in v else {"value": v} for k, v in inputs.items()}
    return {"node_id": node_id, "operation": operation, "inputs": bound}


def ref(node_id: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node_id, "output": output}}


def read_then_get(path: Any, url: str = "http://127.0.0.1:9/x") -> Plan:
    """The report's reproduction: read a JSON file, then GET with its contents as the query."""
    return plan(
        node("load", "data.read_json", path=path), node("send", "http.get_json", url=url, params=ref("load", "value"))
    )


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """hr/staff.json (private), keys/api.json (secret), pub/plain.json; pub/link.json and pub/cfg.json lead to the
    first two, pub/dir to hr/, pub/alias.json to pub/plain.json; pub/out.json leaves the root."""
    root = tmp_path / "data"
    for folder in ("hr", "keys", "pub"):
        (root / folder).mkdir(parents=True)
    (root / "hr" / "staff.json").write_text(json.dumps(STAFF))
    (root / "keys" / "api.json").write_text(json.dumps(KEY))
    (root / "pub" / "plain.json").write_text('{"weather": "fine"}')
    (root / "pub" / "link.json").symlink_to("../hr/staff.json")
    (root / "pub" / "cfg.json").symlink_to("../keys/api.json")
    (root / "pub" / "dir").symlink_to("../hr", target_is_directory=True)
    (root / "pub" / "alias.json").symlink_to("plain.json")
    (tmp_path / "elsewhere.json").write_text("{}")
    (root / "pub" / "out.json").symlink_to(tmp_path / "elsewhere.json")
    return root


def decided(p: Plan, labels: DataLabels, allowed: tuple[str, ...] = ()) -> Any:
    facts = Facts(
        p.plan_hash(), p.goal_hash, "default", assess(p, REG, labels), HUMAN,
        secret_sources=secret_sources(p, REG, labels), secret_allowed=allowed,
    )  # fmt: skip
    return decide(POLICY, facts)


# ------------------------------------------------------------------------------------------ planning time


def test_reaching_records_where_each_literal_source_really_leads(data: Path) -> None:
    p = plan(
        *(
            node(f"n{i}", "data.read_json", path=path)
            for i, path in enumerate(
                ["pub/link.json", "./pub/dir/staff.json", "pub/plain.json", "pub/out.json", "pub/missing.json"]
            )
        ),
        node("s", "schedule.load_inputs", month="2026-12", rules="pub/cfg.json"),
    )
    found = reaching(LABELS, p, REG, data)
    assert found.links == (
        ("pub/cfg.json", "keys/api.json"),
        ("pub/dir/staff.json", "hr/staff.json"),
        ("pub/link.json", "hr/staff.json"),
    )  # a plain file, a link out of the root (refused when opened) and a missing file record nothing
    nothing = plan(node("a", "data.read_json", path="pub/plain.json"))
    assert reaching(LABELS, nothing, REG, data) is LABELS


def test_a_link_is_labelled_by_the_most_sensitive_of_link_and_target() -> None:
    labels = DataLabels(private=("hr/**",), links=(("pub/link.json", "hr/staff.json"), ("hr/alias.json", "pub/a.json")))
    assert labels.classify("pub/link.json") == "private" and labels.classify("./pub/link.json") == "private"
    assert labels.classify("hr/alias.json") == "private"  # a link never lowers a label
    assert labels.by_patterns("pub/link.json") == "internal"
    assert labels.classify_selection("pub/*.json") == "private"


def test_links_are_journaled_with_the_terms_only_when_there_are_some() -> None:
    assert "links" not in RunTerms(labels=LABELS).to_created()["labels"]
    linked = RunTerms(labels=LABELS.model_copy(update={"links": (("pub/link.json", "hr/staff.json"),)}))
    assert linked.to_created()["labels"]["links"] == [["pub/link.json", "hr/staff.json"]]
    assert RunTerms.from_created(json.loads(json.dumps(linked.to_created()))) == linked
    with pytest.raises(ValueError, match="not a path relative to the data root"):
        DataLabels.model_validate({"links": [["pub/x", "../etc/passwd"]]})


def test_a_private_file_read_through_a_link_then_sent_needs_approval(data: Path) -> None:
    p = read_then_get("pub/link.json")
    assert decided(p, LABELS).decision == "allow"  # the literal path alone: what the report exploited
    labels = reaching(LABELS, p, REG, data)
    risk = assess(p, REG, labels)
    assert risk.outbound == "private" and risk.classes[-1] == "external_transmission"
    assert decided(p, labels).decision == "needs_approval"


def test_a_secret_read_through_a_link_is_refused_like_a_direct_read(data: Path) -> None:
    direct, linked = read_then_get("keys/api.json"), read_then_get("pub/cfg.json")
    labels = reaching(LABELS, linked, REG, data)
    assert secret_sources(linked, REG, labels) == secret_sources(direct, REG, LABELS) == ("keys/api.json",)
    for p, lab in ((direct, LABELS), (linked, labels)):
        verdict = decided(p, lab)
        assert verdict.decision == "deny" and "forbid-secret-read" in verdict.checks[0].rules
        assert "--allow-secret-read keys/api.json" in verdict.checks[0].sentence
    terms = RunTerms(labels=labels)
    why = refusal("load", "data.read_json", "path", "read", {"path": "pub/cfg.json"}, terms)
    assert why is not None and "'pub/cfg.json', which leads to 'keys/api.json'" in why
    assert "--allow-secret-read keys/api.json" in why
    allowed = RunTerms(labels=labels, secret_reads=("keys/api.json",))
    assert refusal("load", "data.read_json", "path", "read", {"path": "pub/cfg.json"}, allowed) is None


# ------------------------------------------------------------------------------------ when a file is opened


def _open(data: Path, p: Plan, terms: RunTerms, path: str, node_id: str = "load") -> Any:
    """Run the node's operation as the runtime would, with the run's guard as its context's read check."""
    op = REG.get("data.read_json")
    guard = ReadGuard(p, REG, terms).for_node(node_id)
    ctx = OperationContext("run-t", node_id, 1, "k", data.parent / "ws", data, read_check=guard)
    return op.run(op.inputs.model_validate({"path": path}), ctx).model_dump()


def test_a_link_made_after_the_plan_was_judged_is_refused_when_opened(data: Path) -> None:
    p = read_then_get("pub/plain.json")
    terms = RunTerms(labels=reaching(LABELS, p, REG, data))  # judged: a plain internal file
    assert terms.labels.links == ()
    (data / "pub" / "plain.json").unlink()
    (data / "pub" / "plain.json").symlink_to("../hr/staff.json")  # then swapped for a link
    with pytest.raises(OperationError) as refused:
        _open(data, p, terms, "pub/plain.json")
    message = str(refused.value)
    assert "'pub/plain.json', which a symlink leads to 'hr/staff.json', labelled private" in message
    assert "admitted on that node reading data labelled at most internal: nothing was read" in message
    assert "Alice" not in message


def test_a_link_the_decision_saw_opens(data: Path) -> None:
    p = read_then_get("pub/link.json")
    assert _open(data, p, RunTerms(labels=reaching(LABELS, p, REG, data)), "pub/link.json")["value"] == STAFF


def test_a_secret_opened_through_a_link_needs_the_terms_allowance(data: Path) -> None:
    p = read_then_get("pub/cfg.json")
    labels = reaching(LABELS, p, REG, data)
    with pytest.raises(OperationError, match=r"--allow-secret-read keys/api\.json"):
        _open(data, p, RunTerms(labels=labels), "pub/cfg.json")
    later = read_then_get("pub/plain.json")  # a link made later to an allowed secret: still above what was judged
    (data / "pub" / "plain.json").unlink()
    (data / "pub" / "plain.json").symlink_to("../keys/api.json")
    with pytest.raises(OperationError, match="labelled secret"):
        _open(data, later, RunTerms(labels=LABELS, secret_reads=("keys/**",)), "pub/plain.json")
    assert _open(data, p, RunTerms(labels=labels, secret_reads=("keys/**",)), "pub/cfg.json")["value"] == KEY


def test_honest_files_and_links_open_as_before(data: Path) -> None:
    p = read_then_get("pub/alias.json")
    assert _open(data, p, RunTerms(labels=LABELS), "pub/alias.json")["value"] == {"weather": "fine"}
    assert _open(data, p, RunTerms(labels=LABELS), "pub/plain.json", "send")["value"] == {"weather": "fine"}
    computed = plan(
        node("where", "data.read_text", path="where.txt"), node("load", "data.read_json", path=ref("where", "text"))
    )
    # A computed path was judged as the most sensitive a pattern allows: a private link is within it, a secret is not.
    assert _open(data, computed, RunTerms(labels=LABELS), "pub/link.json")["value"] == STAFF
    with pytest.raises(OperationError, match="forbid-secret-read"):
        _open(data, computed, RunTerms(labels=LABELS), "pub/cfg.json")


def test_a_file_a_node_opens_beyond_its_declared_sources_is_held_to_their_label() -> None:
    guard = ReadGuard(read_then_get("pub/plain.json"), REG, RunTerms(labels=LABELS))
    why = guard.check("load", "hr/staff.json", "hr/staff.json")
    assert why is not None and "labelled private" in why and "at most internal" in why and "read_inputs" in why
    assert guard.check("load", "pub/other.json", "pub/other.json") is None


def test_the_transcript_latest_picks_is_checked_when_opened(data: Path) -> None:
    (data / "hr" / "2026-12-01-board.json").write_bytes((NOTES / "2026-11-27-planning.json").read_bytes())
    (data / "2026-12-01-board.json").symlink_to("hr/2026-12-01-board.json")  # 'latest' now leads into hr/
    shutil.copy(NOTES / "2026-11-25-pereezd.json", data)
    p = plan(node("load", "notes.read_transcript"))
    op = REG.get("notes.read_transcript")
    guard = ReadGuard(p, REG, RunTerms(labels=LABELS)).for_node("load")
    ctx = OperationContext("run-t", "load", 1, "k", data.parent / "ws", data, read_check=guard)
    with pytest.raises(OperationError, match=r"which a symlink leads to 'hr/2026-12-01-board\.json', labelled private"):
        op.run(op.inputs.model_validate({}), ctx)
    (data / "2026-12-01-board.json").unlink()
    assert op.run(op.inputs.model_validate({}), ctx).model_dump()["file"] == "2026-11-25-pereezd.json"


# ----------------------------------------------------------------------------------------------- real runs


@pytest.fixture
def outside() -> Iterator[Recorded]:
    with recording(b"{}") as recorder:
        yield recorder


@pytest.fixture
def application(tmp_path: Path) -> Iterator[App]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text('[data]\nprivate = ["hr/**"]\nsecret = ["keys/**"]\n')
    opened = open_app(home)
    yield opened
    opened.close()


def _executor(application: App, data: Path) -> Any:
    ex = application.executor(data)
    ex.approvers = None  # who may approve is another suite's subject
    return ex


def test_an_honest_read_then_send_runs_unapproved(application: App, data: Path, outside: Recorded) -> None:
    for path in ("pub/plain.json", "pub/alias.json"):
        assert _executor(application, data).start(read_then_get(path, outside.url)).status == "succeeded"
    assert len(outside.requests) == 2


def test_a_run_reading_a_private_file_through_a_link_then_sending_waits(
    application: App, data: Path, outside: Recorded
) -> None:
    state = _executor(application, data).start(read_then_get("pub/link.json", outside.url))
    assert state.status == "awaiting_approval"
    created = application.store.read(state.run_id)[0].data
    assert created["labels"]["links"] == [["pub/link.json", "hr/staff.json"]]
    assert outside.requests == []


def test_a_run_reading_a_secret_through_a_link_is_denied(application: App, data: Path, outside: Recorded) -> None:
    state = _executor(application, data).start(read_then_get("pub/cfg.json", outside.url))
    assert state.status == "denied"
    [check] = [e.data for e in application.store.read(state.run_id) if e.kind == "anvil.check"][:1]
    assert "forbid-secret-read" in check["rules"]
    assert outside.requests == []


def test_a_link_made_after_approval_cannot_launder_a_private_file(
    application: App, data: Path, outside: Recorded
) -> None:
    terms = application.anvil.terms("agent:planner")
    application.anvil.prepare(terms)
    ex = _executor(application, data)
    waiting = ex.start(read_then_get("pub/plain.json", outside.url), terms=terms)
    assert waiting.status == "awaiting_approval"  # an agent's GET to a host it holds no right to
    (data / "pub" / "plain.json").unlink()
    (data / "pub" / "plain.json").symlink_to("../hr/staff.json")
    state = _executor(application, data).resume(waiting.run_id, approvals=[Approval("human:bob")])
    assert state.nodes["load"].status == "failed" and state.nodes["send"].status != "succeeded"
    assert "labelled private" in (state.nodes["load"].reason or "")
    assert outside.requests == []


def test_replay_reads_the_links_from_the_recording_not_from_todays_files(application: App, data: Path) -> None:
    """A run's links are recorded when it is created; a link made afterwards changes nothing its replay checks."""
    from alicorn.runtime.replay import replay_run

    state = _executor(application, data).start(plan(node("load", "data.read_json", path="pub/plain.json")))
    assert state.status == "succeeded"
    plain = data / "pub" / "plain.json"
    plain.unlink()
    plain.symlink_to("../hr/staff.json")  # today the same path leads to private data
    report = replay_run(application.store, state.run_id, application.registry)
    assert report.events == len(application.store.read(state.run_id))
