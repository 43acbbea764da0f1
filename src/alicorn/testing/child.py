"""A child process for crash tests: start or resume a run over the ledger operations until done, or killed.

    python -m alicorn.testing.child JOURNAL WORKDIR (--plan PLAN.json --run-id RUN | --resume RUN)
        [--resolve-from-ledger LEDGER]

Crash points are armed from ALICORN_CRASH_POINT. Every event the journal acknowledges (committed) is printed as
`ack SEQ HASH` before anything else happens, so the parent can check that no acknowledged event is ever lost.
`--resolve-from-ledger` plays the human who checks the target system: each effect with an unknown outcome is
resolved as applied or not by looking its key up in the ledger.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from alicorn.anvil.people import People
from alicorn.crashpoints import CrashPoints
from alicorn.journal.events import Event
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.plan.validate import parse_plan
from alicorn.runtime.executor import Executor, Resolution, RunEnvironment
from alicorn.runtime.state import fold
from alicorn.testing.ledger import connect, testing_registry
from alicorn.testing.people import enrol

#: The person who approves the runs a child starts.
OPERATOR = "test-operator"


def _ack(events: Sequence[Event]) -> None:
    sys.stdout.write("".join(f"ack {e.seq} {e.hash}\n" for e in events))
    sys.stdout.flush()


def resolutions_from_ledger(store: JournalStore, run_id: str, ledger: Path) -> list[Resolution]:
    """Play the operator who checks the target system: each blocked effect resolved by looking its key up."""
    state = fold(store.read(run_id), run_id)
    out = []
    for node_id in state.blocked():
        key = state.nodes[node_id].key
        with connect(ledger) as db:
            row = db.execute("SELECT id, account, amount FROM applied WHERE key = ?", (key,)).fetchone()
        if row is None:
            out.append(Resolution(node_id, False, "human:operator"))
        else:
            out.append(
                Resolution(node_id, True, "human:operator", {"entry": row[0], "account": row[1], "amount": row[2]})
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("journal", type=Path)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--run-id")
    parser.add_argument("--resume")
    parser.add_argument("--resolve-from-ledger", type=Path)
    parser.add_argument("--durability", choices=["step", "grouped"], default="step")
    args = parser.parse_args(argv)
    crash = CrashPoints.from_env()
    store = SQLiteStore(args.journal)
    # The operator approves as a home's person does: signed, so a resume by the home's CLI or service (which acts
    # only on signed decisions) goes on from it. Enrolled before any crash point is armed.
    people = enrol(People(store, args.workdir / "keys"), OPERATOR)
    store.crash = crash
    env = RunEnvironment(args.workdir / "ws", args.workdir, max_parallel=3)
    executor = Executor(
        store,
        testing_registry(),
        env,
        on_events=_ack,
        crash=crash,
        poll_s=0.05,
        durability=args.durability,
        approvers=people,
    )
    if args.resume:
        resolutions = []
        if args.resolve_from_ledger is not None:
            resolutions = resolutions_from_ledger(store, args.resume, args.resolve_from_ledger)
        state = executor.resume(args.resume, resolutions=resolutions)
    else:
        from alicorn.runtime.executor import Approval

        plan = parse_plan(args.plan.read_text(encoding="utf-8"))
        state = executor.start(plan, run_id=args.run_id, approvals=[Approval(f"human:{OPERATOR}")])
    print(f"status {state.status}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())


def warm() -> None:
    """Import everything a child run needs (the packs' operations included) in the parent, once, so that a forked
    child starts in milliseconds and a kill timed from the fork lands inside the run, not in its imports."""
    testing_registry().fingerprint()
