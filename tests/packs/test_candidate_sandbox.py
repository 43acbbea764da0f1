"""`build.run_tests` under the sandbox: what the candidate's suite cannot do, how Anvil sees the node, and grants.

The suite is the candidate's own code, so anything a plan wrote into it runs there: these tests write such "tests"
(reading the home, opening sockets, reading the environment) and check that the sandbox holds, that a network grant
turns the node into an external transmission that waits for a human, and that a missing sandbox runs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.anvil.risk import assess
from alicorn.errors import OperationError
from alicorn.ops.registry import OperationContext
from alicorn.packs.candidate.ops import CreateInputs, create_candidate
from alicorn.packs.candidate.runner import RunTestsInputs, run_tests
from alicorn.packs.candidate.slots import CandidateParameters
from alicorn.plan.dsl import Plan, goal_digest
from alicorn.plan.validate import validate_plan
from alicorn.sandbox import bwrap
from tests.loopback import serving

from .test_candidate import SEED, WORKFLOW, registry, run

TEST_FILE = "import unittest\n\n\nclass Probe(unittest.TestCase):\n    def test_probe(self) -> None:\n{body}"


def home_with_candidate(tmp_path: Path) -> tuple[Path, OperationContext]:
    """An Alicorn home (journal, another run's workspace) and our run's workspace holding a candidate."""
    home = tmp_path / "home"
    (home / "workspaces" / "run-2").mkdir(parents=True)
    (home / "journal.db").write_text("journal rows", encoding="utf-8")
    (home / "workspaces" / "run-2" / "notes.txt").write_text("another run", encoding="utf-8")
    ctx = OperationContext("run-1", "tests", 1, "k", home / "workspaces" / "run-1", WORKFLOW.data_dir)
    create_candidate(CreateInputs(app="app"), ctx)
    return home, ctx


def probe(ctx: OperationContext, body: str, **inputs: object) -> str:
    """Add a test with `body` to the candidate and run the suite; returns the transcript (the suite must pass)."""
    test = ctx.workspace / "candidate" / "stockroom" / "tests" / "test_probe.py"
    test.write_text(TEST_FILE.format(body="".join(f"        {line}\n" for line in body.splitlines())))
    out = run_tests(RunTestsInputs.model_validate({"root": "candidate", **inputs}), ctx)
    assert out.ok, out.output_tail
    return out.output_tail


def test_the_suite_sees_no_home_no_journal_no_other_workspace(tmp_path: Path) -> None:
    home, ctx = home_with_candidate(tmp_path)
    paths = [home / "journal.db", home / "workspaces" / "run-2" / "notes.txt", home, ctx.workspace]
    probe(ctx, "import os\n" + "".join(f"self.assertFalse(os.path.exists({str(p)!r}))\n" for p in paths))


def test_the_suite_cannot_write_outside_the_candidate(tmp_path: Path) -> None:
    _home, ctx = home_with_candidate(tmp_path)
    probe(
        ctx,
        "import os\n"
        "for target in ('/workspace/../escape.txt', '/usr/escape.txt', '/escape.txt'):\n"
        "    with self.assertRaises(OSError):\n"
        "        open(target, 'w').write('x')\n"
        "open('made-by-the-suite.txt', 'w').write('ok')\n",
    )
    assert (ctx.workspace / "candidate" / "made-by-the-suite.txt").is_file()
    assert not (ctx.workspace / "escape.txt").exists() and not Path("/escape.txt").exists()


def test_the_suite_sees_no_parent_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdefghij")
    _home, ctx = home_with_candidate(tmp_path)
    probe(
        ctx,
        "import os\nself.assertNotIn('ANTHROPIC_API_KEY', os.environ)\n"
        "self.assertEqual(os.environ['HOME'], '/workspace')",
    )


@pytest.fixture
def port() -> Iterator[int]:
    with serving(b"granted") as number:
        yield number


def test_without_a_grant_the_suite_cannot_reach_a_loopback_server(tmp_path: Path, port: int) -> None:
    _home, ctx = home_with_candidate(tmp_path)
    probe(
        ctx,
        "import socket\n"
        f"with self.assertRaises(OSError):\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n",
    )


def test_a_granted_host_is_reachable_and_others_are_refused(tmp_path: Path, port: int) -> None:
    _home, ctx = home_with_candidate(tmp_path)
    tail = probe(
        ctx,
        "import urllib.error, urllib.request\n"
        f"self.assertEqual(urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=5).read(), b'granted')\n"
        "with self.assertRaises(urllib.error.HTTPError) as caught:\n"
        f"    urllib.request.urlopen('http://localhost:{port}/', timeout=5)\n"
        "self.assertEqual(caught.exception.code, 403)\n",
        allow_hosts=["127.0.0.1"],
    )
    assert f"refused connections to localhost:{port}: not granted to this operation (granted: 127.0.0.1)" in tail


def test_a_missing_sandbox_refuses_and_runs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home, ctx = home_with_candidate(tmp_path)
    test = ctx.workspace / "candidate" / "stockroom" / "tests" / "test_probe.py"
    test.write_text("open('ran.txt', 'w').write('x')\n")
    monkeypatch.setattr(bwrap, "BWRAP", str(tmp_path / "no" / "bwrap"))
    with pytest.raises(OperationError, match=r"sandbox is not available.*apt-get install bubblewrap"):
        run_tests(RunTestsInputs(root="candidate"), ctx)
    assert not (ctx.workspace / "candidate" / "ran.txt").exists()


def candidate_plan(**test_inputs: object) -> Plan:
    built = WORKFLOW.build(CandidateParameters(), frozenset({"installation"}))
    nodes = [n.model_dump(mode="json", exclude_none=True) for n in built.nodes]
    for node in nodes:
        if node["node_id"] == "tests":
            node["inputs"].update({k: {"value": v} for k, v in test_inputs.items()})
    document = {"goal": SEED, "goal_hash": goal_digest(SEED), "nodes": nodes}
    return validate_plan(Plan.model_validate(document), registry())


def test_anvil_sees_code_execution_and_a_grant_as_an_external_transmission() -> None:
    plain = assess(candidate_plan(), registry())
    assert plain.highest == "code_execution" and plain.hosts == ()
    assert plain.by_class()["code_execution"] == ["tests"]
    granted = assess(candidate_plan(allow_hosts=["pypi.org", "files.pythonhosted.org"]), registry())
    assert granted.highest == "external_transmission"
    assert granted.hosts == ("files.pythonhosted.org", "pypi.org")
    assert granted.upgrades() == [
        "tests (build.run_tests) is granted network access to files.pythonhosted.org, pypi.org: an external "
        "transmission"
    ]
    assert assess(candidate_plan(allow_hosts=[]), registry()).highest == "code_execution"


def test_a_humans_build_runs_within_rights_but_a_network_grant_waits_for_approval(tmp_path: Path) -> None:
    from alicorn.journal.sqlite import SQLiteStore
    from alicorn.runtime.executor import Executor, RunEnvironment

    assert run(tmp_path / "plain", CandidateParameters(), frozenset({"installation"})).status == "succeeded"
    store = SQLiteStore(tmp_path / "journal.db")
    try:
        env = RunEnvironment(tmp_path / "ws", WORKFLOW.data_dir)
        state = Executor(store, registry(), env, poll_s=0.02).start(candidate_plan(allow_hosts=["pypi.org"]))
    finally:
        store.close()
    assert state.status == "awaiting_approval"
    assert not (tmp_path / "ws" / state.run_id / "candidate").exists()  # nothing ran
