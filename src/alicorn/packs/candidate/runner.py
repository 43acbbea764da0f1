"""`build.run_tests`: run the candidate's unittest suite in a separate Python process and count the results.

The suite is the candidate's own code, so it runs in a child process: `python -I -B -m unittest discover -v` with
the candidate as its working directory, an environment of a few harmless variables (no secrets, no PYTHON* settings
inherited: -I isolates), no stdin, a timeout, and its own process group so a timeout or a cancellation ends every
process it started. -B keeps it from writing bytecode into the candidate, so the diff and the package see only
what the build wrote. A failing suite is a result (failed > 0), not an operation error.

Outputs depend only on the candidate: run times are cut from the transcript and the candidate's absolute path is
replaced by `<candidate>`.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

from pydantic import Field

from alicorn.errors import OperationError
from alicorn.ops._common import Model, RelativePath
from alicorn.ops.paths import confine
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.candidate.tree import folder

MAX_TAIL = 4_000
_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$", re.MULTILINE)
_SUMMARY = re.compile(r"^(OK|FAILED|NO TESTS RAN)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
_VERBOSE = re.compile(r" \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)", re.MULTILINE)


class RunTestsInputs(Model):
    root: RelativePath = Field(description="the candidate's folder in the workspace")
    pattern: str = Field("test*.py", pattern=r"^[A-Za-z0-9_*?.\-]{1,64}$", description="test file name pattern")
    timeout_s: float = Field(120.0, gt=0, le=300)


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


def _environment(cwd: str) -> dict[str, str]:
    """The child's whole environment: nothing from ours (no tokens, no keys), only what Python needs."""
    return {"PATH": os.defpath, "HOME": cwd, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def run_tests(inputs: RunTestsInputs, ctx: OperationContext) -> RunTestsOutputs:
    """Run the candidate's tests in a child process (see the module docstring) and count the results."""
    cwd = folder(confine(ctx.workspace, inputs.root, "workspace"), inputs.root, "workspace")
    command = [sys.executable, "-I", "-B", "-m", "unittest", "discover", "-v", "-s", ".", "-p", inputs.pattern]
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=_environment(str(cwd)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        raise OperationError(f"cannot start the test run in {inputs.root!r}: {exc.strerror or exc}") from None
    deadline = time.monotonic() + inputs.timeout_s
    timed_out = False
    while True:
        try:
            raw, _ = process.communicate(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            if ctx.cancelled.is_set() or time.monotonic() > deadline:
                timed_out = not ctx.cancelled.is_set()
                _stop(process)
                raw, _ = process.communicate()
                break
    if ctx.cancelled.is_set() and not timed_out and process.returncode != 0:
        raise OperationError("the test run was cancelled", retryable=True)
    transcript = raw.decode("utf-8", errors="replace").replace(str(cwd), "<candidate>")
    transcript = re.sub(r"^(Ran \d+ tests?) in [\d.]+s$", r"\1", transcript, flags=re.MULTILINE)
    total, failed, errors, skipped = parse(raw.decode("utf-8", errors="replace"))
    finished = not timed_out and bool(_RAN.search(raw.decode("utf-8", errors="replace")))
    tail = transcript[-MAX_TAIL:]
    return RunTestsOutputs(
        ran=finished,
        total=total,
        passed=max(0, total - failed - errors - skipped),
        failed=failed,
        errors=errors,
        skipped=skipped,
        ok=finished and total > 0 and failed == 0 and errors == 0 and process.returncode == 0,
        timed_out=timed_out,
        returncode=process.returncode if process.returncode is not None else -1,
        command="python -I -B -m unittest discover -v -s . -p " + inputs.pattern,
        output_tail=("…" if len(transcript) > MAX_TAIL else "") + tail,
    )


RUN_TESTS = Operation(
    "build.run_tests",
    "Run the candidate's unittest suite in a child process (isolated environment, timeout); count the results.",
    RunTestsInputs,
    RunTestsOutputs,
    # It executes the candidate's code inside the workspace: honest about that, it is a local write, not a read.
    "local_write",
    "idempotent",
    run_tests,
    timeout_s=330.0,
    resources=("workspace",),
    path_input="root",
)
