"""The effect audit: every registered operation's claim, reviewed, and the code it runs checked against it.

`REVIEWED` states, for every operation of the standard registry (built-ins and bundled packs), the effect class it
must declare, where it must say it reaches (url / path / hosts input), and why. A new operation, a removed one or a
changed claim fails here until somebody reviews it and updates this table. The second half reads each operation's
module: only the modules named in `MAY_REACH` may use process, network or dynamic-code facilities, and each of them
only with the effect class that admits it. Behavioural checks of the claims live beside the operations
(tests/sandbox for code execution, tests/anvil/test_http_get.py for http, tests/ops/test_pack_effect_outcomes.py).
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

from alicorn.app import standard_registry
from alicorn.ops.registry import Operation

REGISTRY = standard_registry()

#: name -> (effect, {reach: input}, why). Simulated effects (outbox files) declare the class of what they stand for.
REVIEWED: dict[str, tuple[str, dict[str, str], str]] = {
    "build.apply_variant": ("local_write", {"path": "root"}, "rewrites config/data inside the candidate folder"),
    "build.create_candidate": ("local_write", {"path": "app"}, "copies the app from the data root into the workspace"),
    "build.diff": ("read", {"path": "source"}, "compares two folders, writes nothing"),
    "build.install": (
        "installation",
        {"path": "package"},
        "copies the package into the install outbox (simulated installation)",
    ),
    "build.package": ("local_write", {"path": "root"}, "writes a tar.gz into the workspace"),
    "build.run_tests": (
        "code_execution",
        {"path": "root", "hosts": "allow_hosts"},
        "runs the candidate's own code: under bubblewrap, network only to granted hosts",
    ),
    "data.read_csv": ("read", {"path": "path"}, "reads a file confined to the data root"),
    "data.read_json": ("read", {"path": "path"}, "reads a file confined to the data root"),
    "data.read_text": ("read", {"path": "path"}, "reads a file confined to the data root"),
    "http.get_json": ("read", {"url": "url"}, "a GET to the URL's host: upgraded by data flow when it carries data"),
    "http.post_json": ("external_transmission", {"url": "url"}, "POSTs its body to the URL's host"),
    "memory.get": ("read", {}, "reads records of the home's memory store (never creates one)"),
    "memory.search": ("read", {}, "searches the home's memory store (never creates one)"),
    "notes.draft_reply": ("none", {}, "renders text"),
    "notes.extract_tasks": ("none", {}, "pure extraction"),
    "notes.read_transcript": ("read", {"path": "conversation"}, "reads a transcript from the data root"),
    "notes.send_reply": ("external_transmission", {}, "sends mail (simulated: an outbox file)"),
    "notes.write_note": ("none", {}, "renders text (saving it is workspace.write_file)"),
    "perf.find_change": ("none", {}, "pure computation"),
    "perf.load_jobs": ("read", {"path": "path"}, "reads job records from the data root"),
    "perf.propose_hypotheses": ("none", {}, "pure computation"),
    "perf.summarize_tests": ("none", {}, "pure computation"),
    "perf.test_hypothesis": ("none", {}, "statistics over loaded records, runs no code"),
    "records.dedupe": ("none", {}, "pure computation"),
    "records.filter": ("none", {}, "pure computation"),
    "records.group": ("none", {}, "pure computation"),
    "records.join": ("none", {}, "pure computation"),
    "records.select": ("none", {}, "pure computation"),
    "records.sort": ("none", {}, "pure computation"),
    "report.render_text": ("none", {}, "renders text"),
    "schedule.check_labour_law": ("none", {}, "pure computation"),
    "schedule.compare_costs": ("none", {}, "pure computation"),
    "schedule.generate_variants": ("none", {}, "CP-SAT in process, on its inputs"),
    "schedule.load_inputs": ("read", {"path": "employees"}, "reads schedule inputs from the data root"),
    "schedule.present": ("none", {}, "renders text"),
    "schedule.publish": ("publication", {}, "publishes the schedule (simulated: an outbox file)"),
    "schedule.simulate_coverage": ("none", {}, "pure computation"),
    "util.noop": ("none", {}, "does nothing"),
    "util.sleep": ("none", {}, "waits"),
    "workspace.write_csv": ("local_write", {"path": "path"}, "writes one CSV file confined to the workspace"),
    "workspace.write_file": ("local_write", {"path": "path"}, "writes one file confined to the workspace"),
}

#: Names whose use means a module can start processes, reach the network or run code it was given.
REACHING = {
    "subprocess",
    "socket",
    "urllib.request",
    "http.client",
    "httpx",
    "requests",
    "importlib",
    "ctypes",
    "multiprocessing",
    "pty",
    "alicorn.sandbox",
}
#: Builtins that run code given as data, and `os` functions that start processes.
CODE_BUILTINS = {"exec", "eval", "compile", "__import__", "breakpoint"}
OS_PROCESS = {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "startfile"}
OS_PROCESS |= {
    f"{base}{tail}" for base in ("exec", "spawn") for tail in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")
}

#: module -> (facilities it may use, the effect classes its operations must then declare).
MAY_REACH: dict[str, tuple[set[str], set[str]]] = {
    "alicorn.ops.http": ({"urllib.request", "http.client"}, {"read", "external_transmission"}),
    "alicorn.packs.candidate.runner": ({"alicorn.sandbox"}, {"code_execution"}),
}


def _reaches(op: Operation) -> dict[str, str]:
    found = {"url": op.url_input, "path": op.path_input, "amount": op.amount_input, "hosts": op.hosts_input}
    return {k: v for k, v in found.items() if v is not None}


def test_every_operation_has_a_reviewed_claim() -> None:
    assert sorted(REVIEWED) == REGISTRY.names(), "a new or removed operation: review its effect class here"


@pytest.mark.parametrize("name", sorted(REVIEWED))
def test_each_operation_declares_its_reviewed_effect_and_reach(name: str) -> None:
    effect, reaches, _why = REVIEWED[name]
    op = REGISTRY.get(name)
    assert (op.effect, _reaches(op)) == (effect, reaches)


def _used(module: str) -> tuple[set[str], set[str]]:
    """(reaching modules imported, reaching calls made) by a module, read from its source."""
    return _scan(Path(inspect.getfile(sys.modules[module])).read_text(encoding="utf-8"))


def _scan(source: str) -> tuple[set[str], set[str]]:
    imported: set[str] = set()
    calls: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in CODE_BUILTINS:
                calls.add(func.id)
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in OS_PROCESS:
                calls.add(f"{func.value.id}.{func.attr}")
        imported |= {r for n in names for r in REACHING if n == r or n.startswith(r + ".")}
    return imported, calls


@pytest.mark.parametrize("module", sorted({op.run.__module__ for op in REGISTRY.operations()}))
def test_only_reviewed_modules_start_processes_reach_the_network_or_run_code(module: str) -> None:
    imported, calls = _used(module)
    allowed, classes = MAY_REACH.get(module, (set(), set()))
    assert calls == set(), f"{module} calls {sorted(calls)}: review it and its operations' effect class"
    assert imported <= allowed, f"{module} uses {sorted(imported - allowed)}: review its operations' effect class"
    if imported:
        declared = {op.effect for op in REGISTRY.operations() if op.run.__module__ == module}
        assert declared <= classes, f"{module} reaches out with {sorted(imported)} but declares {sorted(declared)}"


def test_the_audit_notices_processes_sockets_and_dynamic_code() -> None:
    imported, _calls = _used("alicorn.sandbox.bwrap")
    assert "subprocess" in imported and "alicorn.sandbox" in imported  # the scanner sees what the sandbox uses
    source = (
        "import socket\nfrom importlib import import_module\nimport os\n"
        "os.system('x')\nos.execv('/bin/sh', [])\neval('1')\nre.compile('x')\nx.compile('y')\n"
    )
    assert _scan(source) == ({"socket", "importlib"}, {"os.system", "os.execv", "eval"})


def test_code_execution_sits_between_local_write_and_external_transmission() -> None:
    from alicorn.plan.dsl import EFFECT_ORDER

    assert EFFECT_ORDER.index("code_execution") == EFFECT_ORDER.index("local_write") + 1
    assert EFFECT_ORDER.index("external_transmission") == EFFECT_ORDER.index("code_execution") + 1
