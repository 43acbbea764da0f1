"""`build.run_tests`: run the candidate's tests in a sandbox and count the results.

The suite is the candidate's own code, which anyone who wrote into the workspace may have changed, so it runs under
bubblewrap (`alicorn.sandbox`): `suite_main` (pytest for tests written for it, unittest's discovery otherwise) with
`python -I -B -c` in the candidate's folder, with no network,
an environment of a few harmless variables and nothing else, the system and Python read-only, only the candidate's
folder writable (mounted at /workspace; the rest of the run's workspace, the Alicorn home, the journal and other
workspaces are not there at all), CPU / memory / file-size limits, a timeout and a kill of everything it started. -B
keeps it from writing bytecode into the candidate, so the diff and the package see only what the build wrote. A
failing suite is a result (failed > 0), not an operation error; a sandbox that cannot start is an operation error
and nothing runs. Its effect class is `code_execution`.

Outputs depend only on the candidate: run times are cut from the transcript and the candidate's absolute path is
replaced by `<candidate>`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

from pydantic import Field, StringConstraints

from alicorn import sandbox
from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.paths import confine
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.candidate.tree import folder
from alicorn.sandbox.bwrap import INSIDE, Limits, Spec

MAX_TAIL = 4_000
#: The program the sandbox runs: pytest or unittest, whichever the tests are written for (suite_main's docstring).
SUITE_MAIN = Path(__file__).with_name("suite_main.py")
COMMAND = "python -I -B -c <alicorn's suite_main: pytest or unittest, as the tests are written> "
#: The largest file the suite may write (RLIMIT_FSIZE): a candidate's tests write small fixtures, never gigabytes.
FILE_LIMIT = 64 * 1024 * 1024
_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$", re.MULTILINE)
_SUMMARY = re.compile(r"^(OK|FAILED|NO TESTS RAN)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
_VERBOSE = re.compile(r" \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)", re.MULTILINE)


#: A host name or IPv4 address, lower case (what the proxy compares, and what Anvil judged).
HostName = Annotated[
    str,
    StringConstraints(
        max_length=253, pattern=r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
    ),
]


class RunTestsInputs(Model):
    root: RelativePath = Field(description="the candidate's folder in the workspace")
    pattern: str = Field("test*.py", pattern=r"^[A-Za-z0-9_*?.\-]{1,64}$", description="test file name pattern")
    timeout_s: float = Field(120.0, gt=0, le=300)
    memory_mb: int = Field(1024, ge=64, le=8192, description="address-space limit of each process of the suite")
    allow_hosts: list[HostName] = Field(
        default_factory=list,
        max_length=16,
        description="hosts the suite may reach through the sandbox's proxy (a grant makes the node an external "
        "transmission to them, which needs approval); empty: no network at all",
    )


class RunTestsOutputs(Model):
    ran: bool = Field(description="the suite ran to its end (False: timed out or cancelled)")
    total: int = Field(ge=0)
    passed: int = Field(ge=0)
    failed: int = Field(ge=0)
    errors: int = Field(ge=0)
    skipped: int = Field(ge=0)
    ok: bool = Field(description="at least one test ran and none failed or errored")
    timed_out: bool
    returncode: int
    command: str
    output_tail: str = Field(max_length=MAX_TAIL + 100)


def _counts(summary: str) -> dict[str, int]:
    out = {}
    for part in summary.split(","):
        key, _, value = part.strip().partition("=")
        if value.isdigit():
            out[key.strip()] = int(value)
    return out


def parse(transcript: str) -> tuple[int, int, int, int]:
    """(total, failed, errors, skipped) from unittest's transcript; a cut-off run is counted from its -v lines."""
    ran = _RAN.findall(transcript)
    summary = _SUMMARY.findall(transcript)
    if ran and summary:
        counts = _counts(summary[-1][1])
        failed = counts.get("failures", 0) + counts.get("unexpected successes", 0)
        return int(ran[-1]), failed, counts.get("errors", 0), counts.get("skipped", 0)
    marks = _VERBOSE.findall(transcript)
    failed = sum(1 for m in marks if m in ("FAIL", "unexpected success"))
    return len(marks), failed, sum(1 for m in marks if m == "ERROR"), sum(1 for m in marks if m == "skipped")


def _environment() -> dict[str, str]:
    """The child's whole environment: nothing from ours (no tokens, no keys), only what Python needs."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": INSIDE, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}


def _clean(transcript: str, cwd: Path) -> str:
    """The transcript with the candidate's paths (host and sandbox) as `<candidate>` and run times cut."""
    text = transcript.replace(str(cwd), "<candidate>").replace(INSIDE, "<candidate>")
    text = re.sub(r"^(Ran \d+ tests?) in [\d.]+s$", r"\1", text, flags=re.MULTILINE)
    # pytest's own closing line, shown when it stopped early ("no tests ran in 0.01s", "1 error in 0.20s").
    return re.sub(
        r"^((?:no tests ran|\d+ \w+(?:, \d+ \w+)*)) in [\d.]+s(?: \([\d:]+\))?$", r"\1", text, flags=re.MULTILINE
    )


def run_tests(inputs: RunTestsInputs, ctx: OperationContext) -> RunTestsOutputs:
    """Run the candidate's tests in the sandbox (see the module docstring) and count the results."""
    cwd = folder(confine(ctx.workspace, inputs.root, "workspace"), inputs.root, "workspace")
    limits = Limits(
        cpu_s=int(inputs.timeout_s) + 1,
        memory_bytes=inputs.memory_mb * 1024 * 1024,
        file_bytes=FILE_LIMIT,
    )
    argv = [sys.executable, "-I", "-B", "-c", SUITE_MAIN.read_text(encoding="utf-8"), inputs.pattern]
    spec = Spec(cwd, cwd, _environment(), limits, protected=(ctx.data_root,), hosts=frozenset(inputs.allow_hosts))
    done = sandbox.run(spec, argv, inputs.timeout_s, ctx.cancelled)
    if done.cancelled and done.returncode != 0:
        raise OperationError("the test run was cancelled", retryable=True)
    raw = done.output.decode("utf-8", errors="replace")
    transcript = _clean(raw, cwd)
    total, failed, errors, skipped = parse(raw)
    finished = not done.timed_out and bool(_RAN.search(raw))
    tail = transcript[-MAX_TAIL:]
    return RunTestsOutputs(
        ran=finished,
        total=total,
        passed=max(0, total - failed - errors - skipped),
        failed=failed,
        errors=errors,
        skipped=skipped,
        ok=finished and total > 0 and failed == 0 and errors == 0 and done.returncode == 0,
        timed_out=done.timed_out,
        returncode=done.returncode,
        command=COMMAND + inputs.pattern,
        output_tail=("…" if len(transcript) > MAX_TAIL else "") + tail,
    )


RUN_TESTS = Operation(
    "build.run_tests",
    "Run the candidate's tests (with pytest when they are written for it, else unittest) in a sandbox (no "
    "network, empty environment, only the candidate writable, "
    "CPU/memory/time limits); count the results.",
    RunTestsInputs,
    RunTestsOutputs,
    # It executes the candidate's code, which a plan may have written: code execution, confined by the sandbox.
    "code_execution",
    "idempotent",
    run_tests,
    timeout_s=330.0,
    resources=("workspace",),
    path_input="root",
    hosts_input="allow_hosts",
)
