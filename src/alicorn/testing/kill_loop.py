"""The randomized kill loop: many runs, each killed at random moments (during its start and its resumes) and
resumed until it ends, every one checked by `check_run`. Used by `bench/kill_loop.py` and a slow test."""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from alicorn.testing.crashes import check_run, drive, run_forked, start_args, write_plan


@dataclass
class KillLoopReport:
    runs: int = 0
    kills: int = 0
    acked_events: int = 0
    duplicated_effects: int = 0
    lost_events: int = 0
    unexplained_runs: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def ok(self) -> bool:
        return self.duplicated_effects == 0 and self.lost_events == 0 and self.unexplained_runs == 0

    def summary(self) -> str:
        return (
            f"{self.runs} runs, {self.kills} kills, {self.acked_events} acknowledged events checked: "
            f"{self.duplicated_effects} duplicated effects, {self.lost_events} lost acknowledged events, "
            f"{self.unexplained_runs} runs in an unexplained state; "
            f"final states {dict(sorted(self.statuses.items()))}; {self.seconds:.0f} s"
        )


def kill_loop(
    target_kills: int,
    *,
    seed: int = 0,
    max_kill_s: float = 0.25,
    workdir: Path | None = None,
    progress: bool = False,
    durability: str = "step",
) -> KillLoopReport:
    """Run until `target_kills` kills have happened; returns the counts. Starts and resumes run with `durability`
    ("grouped": effect-free steps, the plan's sleeps, become durable with the next effect, the run's end or a group's
    timeout, whichever comes first)."""
    rng = random.Random(seed)
    report = KillLoopReport()
    started = time.monotonic()
    base = Path(tempfile.mkdtemp(prefix="alicorn-kill-", dir=workdir))
    try:
        while report.kills < target_kills:
            run_dir = base / f"r{report.runs}"
            run_dir.mkdir()
            fail_at_end = rng.random() < 0.4
            plan_file = write_plan(run_dir, fail_at_end)
            run_id = f"run-kill-{report.runs}"
            first = run_forked(
                start_args(run_dir, plan_file, run_id, durability), kill_after_s=rng.uniform(0, max_kill_s)
            )
            kills = int(first.returncode < 0)
            acked = list(first.acked)
            resume_kill = rng.uniform(0.005, max_kill_s) if rng.random() < 0.5 else None
            rounds = more = 0
            if resume_kill is not None:  # a few resumes that may be killed too...
                rounds, more = drive(
                    run_dir,
                    run_id,
                    acked,
                    kill_after_s=resume_kill,
                    max_rounds=3,
                    must_finish=False,
                    durability=durability,
                )
            extra_rounds, _ = drive(run_dir, run_id, acked, durability=durability)  # ...then resumes left alone
            rounds += extra_rounds
            kills += more
            outcome = check_run(run_dir, run_id, acked, kills, rounds)
            report.runs += 1
            report.kills += kills
            report.acked_events += outcome.acked
            report.duplicated_effects += sum(n - 1 for n in outcome.duplicates.values())
            report.lost_events += len(outcome.lost)
            report.statuses[outcome.status] += 1
            if outcome.problems:
                report.unexplained_runs += 1
                report.problems.extend(f"{run_id}: {p}" for p in outcome.problems)
            shutil.rmtree(run_dir, ignore_errors=True)
            if progress and report.runs % 25 == 0:
                print(f"  {report.summary()}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    report.seconds = time.monotonic() - started
    return report
