"""The candidate template's plan, artifact, criteria and summary.

    create ─► variant ─► tests ─► diff ─► package [─► install]

`create` copies the app into `candidate/` in the workspace, `variant` makes it a demo build, `tests` runs its suite
(the run stops there if any test fails: nothing unproven is packaged), `diff` compares it with the source (after the
suite, or after the variant when running code is forbidden: the diff needs nothing the suite gives), and
`package` archives it into `dist/`. `install` (effect `installation`) is in the plan only when the `install` slot
asks for it and the request does not forbid installation; when installation is forbidden, `left_out` says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from alicorn.i18n import N_, tr
from alicorn.packs.candidate.ops import APPLY_VARIANT, CREATE_CANDIDATE, DIFF
from alicorn.packs.candidate.release import INSTALL, PACKAGE
from alicorn.packs.candidate.runner import RUN_TESTS
from alicorn.packs.candidate.slots import CandidateParameters
from alicorn.packs.workflow import BuiltPlan, LeftOut, ResultSummary, without_forbidden
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.validate.base import ValidationReport

OPERATIONS = (CREATE_CANDIDATE, APPLY_VARIANT, RUN_TESTS, DIFF, PACKAGE, INSTALL)
_EFFECTS: dict[str, EffectClass] = {op.name: op.effect for op in OPERATIONS}
CANDIDATE_DIR = "candidate"


def _ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def _val(value: Any) -> dict[str, Any]:
    return {"value": value}


def parameters(params: BaseModel) -> CandidateParameters:
    """The slots as this template's model, whatever model the caller filled."""
    if isinstance(params, CandidateParameters):
        return params
    return CandidateParameters.model_validate(params.model_dump())


def package_name(p: CandidateParameters) -> str:
    """`<app>-<variant>`, lower case, from the app folder's last part (a valid package name)."""
    stem = re.sub(r"[^a-z0-9._-]+", "-", p.app.rstrip("/").rsplit("/", 1)[-1].lower()).strip("-.") or "app"
    return f"{stem[:50]}-{p.variant}"


def _nodes(p: CandidateParameters, with_install: bool, tested: bool = True) -> list[Node]:
    # Paths are literals, never references: Anvil judges a plan by where it reaches, and a path known only at run
    # time ("path:?") would need a human's approval for what is a plain local build.
    root = _val(CANDIDATE_DIR)
    archive = f"dist/{package_name(p)}.tar.gz"
    raw: list[dict[str, Any]] = [
        {
            "node_id": "create",
            "operation": CREATE_CANDIDATE.name,
            "description": f"Copy the app folder {p.app!r} into an isolated candidate in the run's workspace.",
            "inputs": {"app": _val(p.app), "into": _val(CANDIDATE_DIR)},
            "expected_outputs": ["root", "files", "tree_sha256"],
            "completion": {"kind": "check", "path": "files", "op": "gte", "value": 1},
            "critical": True,
            "stop": {"reason": "the candidate could not be created: there is nothing to build"},
        },
        {
            "node_id": "variant",
            "operation": APPLY_VARIANT.name,
            "description": f"Make the candidate a {p.variant} build (config and generated sample data).",
            "inputs": {"root": root, "variant": _val(p.variant)},
            "expected_outputs": ["changed", "demo"],
            "depends_on": ["create"],
            "critical": True,
            "stop": {"reason": f"the {p.variant} variant could not be applied to the candidate"},
        },
        {
            "node_id": "tests",
            "operation": RUN_TESTS.name,
            "description": N_(
                "Run the candidate's tests (pytest when they are written for it, else unittest) in the sandbox."
            ),
            "inputs": {"root": root},
            "expected_outputs": ["total", "failed", "errors", "ok"],
            "depends_on": ["variant"],
            "critical": True,
            "stop": {
                "reason": "the candidate's tests do not pass: nothing is packaged or installed",
                "when": {"kind": "check", "path": "ok", "op": "eq", "value": False},
            },
        },
        {
            "node_id": "diff",
            "operation": DIFF.name,
            "description": "Compare the candidate with its source: files, lines added and removed.",
            "inputs": {"source": _val(p.app), "root": root},
            "expected_outputs": ["files", "added", "removed", "text"],
            # after the suite, so anything it wrote shows in the diff; the diff needs nothing the suite gives, so
            # with no suite (running code forbidden: "show me the diff, skip the tests") it follows the variant
            "depends_on": ["tests"] if tested else ["variant"],
        },
        {
            "node_id": "package",
            "operation": PACKAGE.name,
            "description": "Archive the tested candidate reproducibly into dist/ with its SHA-256.",
            "inputs": {"root": root, "name": _val(package_name(p)), "into": _val("dist")},
            "expected_outputs": ["path", "sha256", "bytes"],
            "depends_on": ["tests", "diff"],
        },
    ]
    if with_install:
        raw.append(
            {
                "node_id": "install",
                "operation": INSTALL.name,
                "description": N_("Install the package (once per idempotency key)."),
                "inputs": {"package": _val(archive), "sha256": _ref("package", "sha256")},
                "expected_outputs": ["installed", "path"],
            }
        )
    return [Node.model_validate(n) for n in raw]


def build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    """The candidate plan for these slots; `install` only when asked for and installation is not forbidden."""
    p = parameters(params)
    nodes = _nodes(p, with_install=p.install, tested=_EFFECTS[RUN_TESTS.name] not in forbidden)
    built = without_forbidden(nodes, forbidden, _EFFECTS)
    if "installation" in forbidden and not p.install:
        # Not asked for either, but say so: the report shows the build stopped before installation on purpose.
        note = LeftOut("install", INSTALL.name, effect="installation")
        return BuiltPlan(nodes=built.nodes, left_out=(*built.left_out, note))
    return built


def _output(state: RunState, node_id: str) -> dict[str, Any] | None:
    node = state.nodes.get(node_id)
    if node is None or node.status != "succeeded":
        return None
    return state.effective_output(node_id)


def artifact_of(state: RunState) -> dict[str, Any] | None:
    """The code artifact: the candidate, its variant, tests, diff, package and installation, as far as they ran."""
    candidate = _output(state, "create")
    if candidate is None:
        return None
    installation = _output(state, "install")
    return {
        "candidate": candidate,
        "variant": _output(state, "variant"),
        "tests": _output(state, "tests"),
        "diff": _output(state, "diff"),
        "package": _output(state, "package"),
        "installed": bool(installation and installation.get("installed")),
        "installation": installation,
    }


def criteria(params: BaseModel) -> dict[str, Any]:
    """Tests must pass, the diff must be clean, a package must exist, installed exactly when asked."""
    p = parameters(params)
    return {"tests_must_pass": True, "require_diff": True, "require_package": True, "installed": p.install}


def summarize(artifact: Mapping[str, Any] | None, report: ValidationReport, language: str = "en") -> ResultSummary:
    """Headline (tests, diff, package, installation) and what a human should look at, in `language`."""
    lang = language
    if artifact is None:
        why = report.summary_in(lang)
        return ResultSummary(lines=(tr(lang, "No candidate was built ({why}).", why=why),), conflicts=(why,))
    lines = []
    candidate = artifact.get("candidate") or {}
    lines.append(
        tr(
            lang,
            "Candidate {root}: {files} file(s) copied.",
            root=candidate.get("root", "?"),
            files=candidate.get("files", "?"),
        )
    )
    tests = artifact.get("tests") or {}
    if tests:
        lines.append(
            tr(
                lang,
                "Tests: {passed} passed, {failed} failed, {errors} errors, {skipped} skipped of {total}.",
                passed=tests.get("passed", 0),
                failed=tests.get("failed", 0),
                errors=tests.get("errors", 0),
                skipped=tests.get("skipped", 0),
                total=tests.get("total", 0),
            )
        )
    diff = artifact.get("diff") or {}
    if diff:
        paths = ", ".join(f.get("path", "?") for f in diff.get("files", []) if isinstance(f, dict))
        lines.append(
            tr(
                lang,
                "Diff: {changed} file(s), +{added} -{removed}: {paths}.",
                changed=diff.get("changed", 0),
                added=diff.get("added", 0),
                removed=diff.get("removed", 0),
                paths=paths,
            )
        )
    package = artifact.get("package") or {}
    if package:
        lines.append(
            tr(
                lang,
                "Package: {path} (sha256 {sha256}…).",
                path=package.get("path"),
                sha256=str(package.get("sha256", ""))[:12],
            )
        )
    lines.append(
        tr(lang, "Installed.") if artifact.get("installed") else tr(lang, "Not installed: stopped before installation.")
    )
    metrics = {
        "tests_total": tests.get("total", 0),
        "tests_failed": tests.get("failed", 0) + tests.get("errors", 0),
        "files_changed": diff.get("changed", 0),
        "package_sha256": package.get("sha256"),
        "installed": bool(artifact.get("installed")),
        "status": report.status,
    }
    return ResultSummary(
        lines=tuple(lines), metrics=metrics, conflicts=tuple(c.sentence(lang) for c in report.failures)
    )
