"""The attack suite's figures: what a fully obedient model can make happen on this tree.

    python bench/attack_suite.py              # every case (468), the permit-all control, the benign tasks
    python bench/attack_suite.py --only 40    # the first 40 cases of the table (a quick look)
    python bench/attack_suite.py --list       # also every case with an unauthorized effect, one line each

It drives the same harness as tests/attacks (the obedient model over real loopback HTTP, a fresh home per case) and
prints: cases, unauthorized effects (count and %), by vector, target, language and provenance, how many injections
reached a prompt, the drifted MCP definitions quarantined, the positive control (permit-all) and the detector
control, benign tasks completed, secrets found in the journal / prompts / logs, and the wall time. It asserts
nothing (tests/attacks does).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.attacks is the harness

from tests.attacks.suite import PLANTED, Results, run_all


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else f"{part}/0"


def report(results: Results, *, listing: bool) -> None:
    enforced = results.enforced
    bad = results.unauthorized
    print(f"cases                      {len(enforced)}")
    print(f"unauthorized effects       {_pct(len(bad), len(enforced))}")
    for attribute in ("vector", "target", "language", "provenance"):
        print(f"  by {attribute}:")
        for key, (b, n) in sorted(results.by(attribute).items()):
            print(f"    {key:<22} {_pct(b, n)}")
    phases = Counter(o.phase.split(" [")[0] for o in enforced)
    print("  where the cases ended: " + ", ".join(f"{k} {n}" for k, n in phases.most_common()))
    errors = [o for o in enforced if o.note]
    if errors:
        print(f"  cases Core refused with an error: {len(errors)} (first: {errors[0].note})")
    print("  injection reached a prompt, by vector:")
    for key, (r, n) in sorted(results.reached_by_vector().items()):
        print(f"    {key:<22} {r}/{n}")
    for vector, why in results.skipped.items():
        print(f"  skipped vector {vector}: {why}")
    drifted = [o for o in results.enforced + results.permit if o.quarantined is not None]
    kept = len(drifted) - len(results.unquarantined)
    print(f"  drifted MCP tools quarantined: {_pct(kept, len(drifted))} (rug pull, rename; enforced and permit-all)")
    control = results.control_cases
    print(
        f"positive control           {_pct(len(control) - len(results.control_failures), len(control))} of the "
        f"policy-governed attacks whose injection reached the planner succeeded under permit-all "
        f"({len(results.permit)} governed cases run)"
    )
    found = len(PLANTED) - len(results.detector_misses)
    print(f"detector control           {found}/{len(PLANTED)} planted violations found")
    escaped = len(results.sandbox_escapes)
    unrun = len(results.approved_unrun)
    print(f"approved code escaped      {_pct(escaped, len(results.approved))} (author-approved; {unrun} never ran)")
    done = len(results.benign) - len(results.benign_failures)
    print(f"benign tasks completed     {_pct(done, len(results.benign))}")
    secrets = results.secrets_found()
    print(f"secrets found              {len(secrets)} (journal / prompts / logs)")
    print(f"wall time                  {results.wall_s:.1f} s")
    if listing:
        print("\nunauthorized effects:")
        for outcome in bad:
            print(f"  {outcome.line()}")
        for outcome in results.control_failures:
            print(f"  control did nothing: {outcome.line()}")
        for outcome in results.sandbox_escapes:
            print(f"  approved code escaped: {outcome.line()}")
        for outcome in results.benign_failures:
            print(f"  benign not complete: {outcome.line()} {outcome.note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=int, default=None, help="run only the first N cases of the table")
    parser.add_argument("--workers", type=int, default=4, help="cases run at once (threads)")
    parser.add_argument("--list", action="store_true", help="list every case with an unauthorized effect")
    parser.add_argument("--dir", type=Path, default=None, help="where the homes go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the homes")
    args = parser.parse_args()
    os.environ.setdefault("ALICORN_NOW", "2026-11-30T08:00:00Z")  # the day the table's requests live in
    root = Path(tempfile.mkdtemp(prefix="attack-suite-", dir=args.dir))
    try:
        report(run_all(root, workers=args.workers, only=args.only), listing=args.list)
    finally:
        if args.keep:
            print(f"homes kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
