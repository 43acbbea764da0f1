"""The heartbeat's probes: cheap, deterministic looks at a project that say whether anything needs a person.

Each probe reads the journal or the project's data sources and returns `Finding`s, sentences built from facts with
no model involved; the heartbeat (alicorn.schedule.heartbeat) calls a model only when one of them found something.

    new_files          files in a data source (`[projects.NAME.data]` in alicorn.toml) newer than the last tick
    alarms             rows at or above a severity in the files of an `alarms` data source that changed since then
    stuck_runs         runs blocked (waiting for a person's answer, a file, a resolution) longer than a limit, or
                       "running" with nothing journaled for as long (interrupted, and nobody resumed them)
    unknown_effects    effects whose outcome nobody knows: a person must say whether they happened
    ageing_proposals   plans waiting for approval in the inbox longer than a limit

`RunWatch` keeps what it learnt about each run stream between ticks and folds a run again only when its head
moved, so an idle tick over a journal costs one listing of its streams. `activity` is the "only when idle" rule: a
run in progress, or a conversation touched within the idle window, and the heartbeat does nothing. A run counts as
in progress only while it journals: one "running" with no event for longer than the idle window was interrupted,
and keeping quiet for it would silence the heartbeat for good (stuck_runs reports it instead).
"""

from __future__ import annotations

import csv
import glob
import io
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from alicorn.journal.store import Head, JournalStore, StreamInfo
from alicorn.runtime.state import fold

#: Core's conversation streams (alicorn.core.conversation.PREFIX; Core sits above this package).
CONVERSATION_PREFIX = "conv-"
#: Streams that are never runs (read once to know, then never again by name).
_NOT_RUNS = ("schedule:", "schedules", "heartbeat:", "control:", "agent:", CONVERSATION_PREFIX)
#: Effect states where a person must say what happened (alicorn.runtime.state.EffectState.status).
UNKNOWN_STATES = frozenset({"unknown", "compensation_unknown"})
#: Severity words as numbers (syslog-like, smaller is milder); a number in the column is taken as it is.
SEVERITIES = {
    "debug": 0, "info": 1, "notice": 2, "low": 2, "warning": 3, "warn": 3, "medium": 3, "minor": 3, "error": 4,
    "high": 4, "major": 4, "critical": 5, "crit": 5, "alert": 6, "emergency": 7, "fatal": 7,
}  # fmt: skip
#: The data source name the alarms probe reads.
ALARMS_SOURCE = "alarms"
#: At most this many bytes of one alarms file are read, and this many files per tick: a probe stays cheap.
ALARM_FILE_BYTES = 1 << 20
ALARM_FILES = 20
#: How many names a finding lists before "and N more".
NAMED = 5


@dataclass(frozen=True)
class Finding:
    """One thing a probe found. `key` identifies it across ticks (the breaker compares outcomes by their keys)."""

    probe: str
    key: str
    text: str
    subject: str = ""

    def to_json(self) -> dict[str, str]:
        return {"probe": self.probe, "key": self.key, "text": self.text, "subject": self.subject}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        return cls(str(data["probe"]), str(data["key"]), str(data["text"]), str(data.get("subject", "")))


@dataclass(frozen=True)
class Limits:
    """When a probe speaks: how long a run may stay blocked or a proposal wait, which alarm severity counts, and how
    recently a conversation may have been touched for the heartbeat to keep quiet."""

    blocked_after_s: int = 3600
    proposal_after_s: int = 4 * 3600
    alarm_severity: int = SEVERITIES["error"]
    idle_s: int = 10 * 60


@dataclass(frozen=True)
class RunSummary:
    """What the probes need of one run: its project, status, since when (its last event) and unknown effects."""

    run: str
    project: str
    status: str
    since: str
    unknown: tuple[str, ...] = ()


@dataclass
class RunWatch:
    """Run summaries kept between ticks; a run is folded again only when its stream's head moved."""

    _known: dict[str, tuple[Head, RunSummary]] = field(default_factory=dict)
    _not_runs: set[str] = field(default_factory=set)
    folds: int = 0

    def runs(self, store: JournalStore, infos: Sequence[StreamInfo]) -> list[RunSummary]:
        out: list[RunSummary] = []
        for info in infos:
            name = info.stream
            if name in self._not_runs or name.startswith(_NOT_RUNS):
                continue
            cached = self._known.get(name)
            if cached is not None and cached[0] == info.head:
                out.append(cached[1])
                continue
            events = store.read(name)
            if not events or events[0].kind != "run.created":
                self._not_runs.add(name)
                continue
            self.folds += 1
            state = fold(events, name)
            unknown = tuple(e.node for e in state.effects_log.values() if e.status in UNKNOWN_STATES)
            summary = RunSummary(name, state.project, state.status, info.last_at, unknown)
            self._known[name] = (info.head, summary)
            out.append(summary)
        return out


def _age(now: datetime, at: str) -> float:
    return (now - datetime.fromisoformat(at.replace("Z", "+00:00"))).total_seconds()


def _minutes(seconds: float) -> str:
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"
    return f"{int(seconds // 60)} min"


def activity(infos: Sequence[StreamInfo], runs: Iterable[RunSummary], project: str, now: datetime, idle_s: int) -> str:
    """Why the heartbeat should keep quiet now ("" when everything is idle): a run of the project in progress, or a
    conversation touched within `idle_s` seconds."""
    for run in runs:  # a run whose last event is older is not in progress: it is stalled (stuck_runs says so)
        if run.project == project and run.status in ("new", "running") and _age(now, run.since) <= idle_s:
            return f"run {run.run} is in progress"
    since = now - timedelta(seconds=idle_s)
    for info in infos:
        if (
            info.stream.startswith(CONVERSATION_PREFIX)
            and datetime.fromisoformat(info.last_at.replace("Z", "+00:00")) > since
        ):
            return f"conversation {info.stream} was active {_minutes(_age(now, info.last_at))} ago"
    return ""


def stuck_runs(runs: Iterable[RunSummary], project: str, now: datetime, limits: Limits) -> list[Finding]:
    out = []
    for run in runs:
        age = _age(now, run.since)
        if run.project != project or age <= limits.blocked_after_s:
            continue
        if run.status == "blocked":
            text = f"run {run.run} has been blocked for {_minutes(age)}, waiting for a person (alicorn show {run.run})"
            out.append(Finding("stuck_runs", f"blocked:{run.run}", text, run.run))
        elif run.status in ("new", "running"):
            text = (
                f"run {run.run} is running but has journaled nothing for {_minutes(age)}: it may have been "
                f"interrupted (alicorn resume {run.run})"
            )
            out.append(Finding("stuck_runs", f"stalled:{run.run}", text, run.run))
    return out


def unknown_effects(runs: Iterable[RunSummary], project: str) -> list[Finding]:
    out = []
    for run in runs:
        if run.project == project and run.unknown:
            nodes = ", ".join(run.unknown)
            text = (
                f"run {run.run}: nobody knows whether the effect of {nodes} happened; a person checks and says "
                f"(`alicorn resolve {run.run}`)"
            )
            out.append(Finding("unknown_effects", f"unknown:{run.run}:{nodes}", text, run.run))
    return out


def ageing_proposals(runs: Iterable[RunSummary], project: str, now: datetime, limits: Limits) -> list[Finding]:
    out = []
    for run in runs:
        age = _age(now, run.since)
        if run.project == project and run.status == "awaiting_approval" and age > limits.proposal_after_s:
            text = f"the plan of run {run.run} has waited {_minutes(age)} for approval in the inbox"
            out.append(Finding("ageing_proposals", f"proposal:{run.run}", text, run.run))
    return out


def source_files(patterns: Iterable[str]) -> dict[str, int]:
    """Every file the globs match, with its modification time in ns (a file that vanished meanwhile is left out)."""
    out: dict[str, int] = {}
    for pattern in patterns:
        for path in glob.glob(os.path.expanduser(pattern), recursive=True):
            try:
                stat = os.stat(path)
            except OSError:
                continue
            if os.path.isfile(path):
                out[path] = stat.st_mtime_ns
    return out


def _named(paths: Sequence[str]) -> str:
    shown = ", ".join(os.path.basename(p) for p in paths[:NAMED])
    return shown + (f" and {len(paths) - NAMED} more" if len(paths) > NAMED else "")


def new_files(source: str, files: dict[str, int], mark: int | None) -> list[Finding]:
    """Files of `source` modified after `mark` (None: the first look, which only sets the mark)."""
    if mark is None:
        return []
    fresh = sorted(p for p, ns in files.items() if ns > mark)
    if not fresh:
        return []
    text = f"{len(fresh)} new or changed file(s) in the data source {source!r}: {_named(fresh)}"
    return [Finding("new_files", f"files:{source}:{max(files[p] for p in fresh)}", text, source)]


def _severity(value: object) -> int | None:
    text = str(value or "").strip().lower()
    if text in SEVERITIES:
        return SEVERITIES[text]
    try:
        return int(float(text))
    except ValueError:
        return None


def _rows(path: str) -> list[dict[str, Any]]:
    with open(path, "rb") as handle:
        raw = handle.read(ALARM_FILE_BYTES).decode("utf-8", errors="replace")
    if path.endswith((".jsonl", ".ndjson")):
        rows = []
        for line in raw.splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                rows.append(item)
        return rows
    return [dict(row) for row in csv.DictReader(io.StringIO(raw))]


def alarms(files: dict[str, int], mark: int | None, limits: Limits) -> list[Finding]:
    """Rows whose `severity` is at least `limits.alarm_severity`, in the alarms files changed after `mark`."""
    if mark is None:
        return []
    out = []
    changed = sorted((p for p, ns in files.items() if ns > mark), key=lambda p: files[p])[-ALARM_FILES:]
    for path in changed:
        try:
            rows = _rows(path)
        except OSError:
            continue
        high = [r for r in rows if (s := _severity(r.get("severity"))) is not None and s >= limits.alarm_severity]
        if high:
            worst = max(_severity(r.get("severity")) or 0 for r in high)
            name = next((k for k, v in SEVERITIES.items() if v == worst), str(worst))
            text = (
                f"{len(high)} alarm(s) at or above severity {limits.alarm_severity} in {os.path.basename(path)} "
                f"(the worst: {name})"
            )
            out.append(Finding("alarms", f"alarms:{path}:{files[path]}", text, path))
    return out
