"""`perf.load_jobs`, `perf.find_change` and `perf.propose_hypotheses`: read the render job log, find where render
time rose, and name the factors whose mix changed at that point as candidate causes.

All three are deterministic functions of their inputs and the file: the change point is the split date with the
largest rise of the median (ties: the earliest), and hypotheses are ranked by how much each factor's mix of values
moved between the two periods (ties: by name). The statistical tests live in `testing`, the report in `report`.
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import date
from functools import partial
from typing import Any

from pydantic import Field

from alicorn.errors import OperationError
from alicorn.ops._common import FieldKey, Model, Records, RelativePath
from alicorn.ops.paths import read_path
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.incident import stats
from alicorn.packs.incident.models import (
    DATE_FIELD,
    ID_FIELD,
    MAX_HYPOTHESES,
    Change,
    Hypothesis,
    IsoDate,
    Period,
    SkippedRow,
)

MAX_BYTES = 16 * 1024 * 1024
MAX_JOBS = 100_000
MAX_SKIPPED = 200
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# ------------------------------------------------------------------------------------------------ load_jobs


class LoadJobsInputs(Model):
    path: RelativePath = Field("render_jobs.csv", description="CSV job log under the data root")
    metric: FieldKey = Field("duration_s", description="the numeric column whose rise is investigated")
    max_rows: int = Field(50_000, ge=1, le=MAX_JOBS)


class LoadJobsOutputs(Model):
    jobs: Records = Field(description="one record per job, values typed (numbers, booleans, text)")
    count: int = Field(ge=0)
    columns: list[str]
    skipped: list[SkippedRow] = Field(max_length=MAX_SKIPPED, description="rows left out, first ones")
    skipped_count: int = Field(ge=0)


def _typed(values: list[str]) -> str:
    """The type a column's non-empty values share: int, float, bool or str."""
    present = [v for v in values if v != ""]
    if present and all(re.fullmatch(r"[+-]?\d+", v) for v in present):
        return "int"
    if present and all(_is_float(v) for v in present):
        return "float"
    if present and all(v.lower() in ("true", "false") for v in present):
        return "bool"
    return "str"


def _is_float(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _coerce(value: str, kind: str) -> Any:
    if value == "":
        return None
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return value.lower() == "true"
    return value


def _valid_date(text: str) -> bool:
    if not _DATE.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def load_jobs(inputs: LoadJobsInputs, ctx: OperationContext) -> LoadJobsOutputs:
    """Read the job log: typed values; rows without a usable id, date or metric, and repeated ids, are skipped."""
    target = read_path(ctx, inputs.path)
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        raise OperationError(f"no job log {inputs.path!r} under the data root {str(ctx.data_root)!r}") from None
    except OSError as exc:
        raise OperationError(f"cannot read {inputs.path!r}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise OperationError(f"{inputs.path!r} is {len(raw)} bytes; the limit is {MAX_BYTES}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OperationError(f"{inputs.path!r} is not UTF-8 text; re-encode it as UTF-8") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header:
        raise OperationError(f"{inputs.path!r} is empty; a job log needs a header row")
    columns = [h.strip() for h in header]
    missing = [c for c in (ID_FIELD, DATE_FIELD, inputs.metric) if c not in columns]
    if missing:
        raise OperationError(f"{inputs.path!r} lacks column(s) {', '.join(missing)}; its header is {columns}")
    rows = []
    for number, cells in enumerate(reader, start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(columns):
            raise OperationError(f"{inputs.path!r} line {number}: {len(cells)} fields, the header has {len(columns)}")
        rows.append((number, dict(zip(columns, (c.strip() for c in cells), strict=True))))
        if len(rows) > inputs.max_rows:
            raise OperationError(f"{inputs.path!r} has more than {inputs.max_rows} rows; raise max_rows or split it")
    kinds = {c: _typed([r[c] for _, r in rows]) for c in columns if c not in (ID_FIELD, DATE_FIELD, inputs.metric)}
    jobs: list[dict[str, Any]] = []
    skipped: list[SkippedRow] = []
    first: dict[str, tuple[int, str]] = {}
    for number, row in rows:
        job_id, day, value = row[ID_FIELD], row[DATE_FIELD], row[inputs.metric]
        reason = None
        if not job_id:
            reason = "no job_id"
        elif not _valid_date(day):
            reason = f"date {day!r} is not YYYY-MM-DD"
        elif not _is_float(value) or float(value) < 0:
            reason = f"no usable {inputs.metric} ({value or 'empty'}): the job did not finish"
        elif job_id in first:  # the first finished record of a job wins; a repeat that disagrees is a conflict
            line, kept = first[job_id]
            conflict = f"; its {inputs.metric} {value} disagrees with {kept}" if float(value) != float(kept) else ""
            reason = f"job_id logged again (first on line {line}){conflict}"
        else:
            first[job_id] = (number, value)
        if reason is not None:
            skipped.append(SkippedRow(line=number, job_id=job_id, reason=reason))
            continue
        job: dict[str, Any] = {ID_FIELD: job_id, DATE_FIELD: day, inputs.metric: float(value)}
        job.update({c: _coerce(row[c], kind) for c, kind in kinds.items()})
        jobs.append(job)
    return LoadJobsOutputs(
        jobs=jobs,
        count=len(jobs),
        columns=columns,
        skipped=skipped[:MAX_SKIPPED],
        skipped_count=len(skipped),
    )


# ---------------------------------------------------------------------------------------------- find_change


class FindChangeInputs(Model):
    jobs: Records
    metric: FieldKey = "duration_s"
    since: IsoDate | None = Field(None, description="the first day of the later period, when known")
    min_share: float = Field(0.1, ge=0.0, le=0.5, description="each period holds at least this share of the jobs")


class FindChangeOutputs(Model):
    change: Change
    split_date: IsoDate
    increase_s: float
    increase_pct: float


def metric_of(job: dict[str, Any], metric: str, index: int) -> float:
    """A job's metric as a float, or an OperationError naming the job."""
    value = job.get(metric)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise OperationError(f"job {index} ({job.get(ID_FIELD)!r}) has no numeric {metric!r}; load jobs first")
    return float(value)


def dated(jobs: list[dict[str, Any]], metric: str) -> list[tuple[str, float, dict[str, Any]]]:
    """(date, metric, job) for every job, checked; an OperationError names the first bad job."""
    out = []
    for index, job in enumerate(jobs):
        day = job.get(DATE_FIELD)
        if not isinstance(day, str) or not _valid_date(day):
            raise OperationError(f"job {index} ({job.get(ID_FIELD)!r}) has no {DATE_FIELD!r} in YYYY-MM-DD form")
        out.append((day, metric_of(job, metric, index), job))
    return out


def _period(values: list[tuple[str, float, dict[str, Any]]]) -> Period:
    metric = [v for _, v, _ in values]
    return Period(
        start=min(d for d, _, _ in values),
        end=max(d for d, _, _ in values),
        jobs=len(values),
        median_s=round(stats.median(metric), 3),
        mean_s=round(stats.mean(metric), 3),
    )


def find_change(inputs: FindChangeInputs, ctx: OperationContext) -> FindChangeOutputs:
    """Split the jobs into before/after at the day boundary with the strongest rise (Pettitt), or at `since`.

    Pettitt's statistic for a split after job t is U_t = t(n+1) - 2 W_t, W_t the rank sum of the first t jobs: it
    counts, over every pair across the split, how often the later job is slower. Unlike "the largest rise of the
    median", it is not thrown by a few odd days near either end of the log.
    """
    rows = sorted(dated(inputs.jobs, inputs.metric), key=lambda r: r[0])
    days = sorted({d for d, _, _ in rows})
    n = len(rows)
    if n < 6 or len(days) < 2:
        raise OperationError(f"{n} job(s) over {len(days)} day(s): a change needs at least 6 jobs on 2 days")
    least = max(3, math.ceil(inputs.min_share * n))
    if inputs.since is not None:
        if not days[0] < inputs.since <= days[-1]:
            raise OperationError(
                f"since {inputs.since} is outside the log ({days[0]} to {days[-1]}); give a date after the first day"
            )
        candidates, chosen_by, least = [inputs.since], "given date", 3
    else:
        candidates, chosen_by = days[1:], "Pettitt change point"
    ranks = stats.ranks([v for _, v, _ in rows])
    best: tuple[float, str, int] | None = None
    for day in candidates:
        t = sum(1 for d, _, _ in rows if d < day)
        if t < least or n - t < least:
            continue
        rise = t * (n + 1) - 2 * sum(ranks[:t])
        if best is None or rise > best[0] + 1e-9:  # strictly larger: ties keep the earliest date
            best = (rise, day, t)
    if best is None:
        raise OperationError(f"no split date leaves at least {least} jobs on each side; the log is too short")
    rise, split, t = best
    before_p, after_p = _period(rows[:t]), _period(rows[t:])
    increase = round(after_p.median_s - before_p.median_s, 3)
    pct = round(100.0 * increase / before_p.median_s, 2) if before_p.median_s else 0.0
    # Pettitt's approximate significance of the strongest split (conservative for a chosen split; exact enough).
    p_value = min(1.0, 2.0 * math.exp(-6.0 * max(rise, 0.0) ** 2 / (n**3 + n**2)))
    change = Change(
        split_date=split,
        before=before_p,
        after=after_p,
        increase_s=increase,
        increase_pct=pct,
        p_value=float(f"{p_value:.3g}"),
        chosen_by=chosen_by,
        candidates=len(candidates),
    )
    return FindChangeOutputs(change=change, split_date=split, increase_s=increase, increase_pct=pct)


# ------------------------------------------------------------------------------------------ propose_hypotheses


class ProposeInputs(Model):
    jobs: Records
    split_date: IsoDate
    metric: FieldKey = "duration_s"
    count: int = Field(3, ge=1, le=MAX_HYPOTHESES, description="how many hypotheses to propose")
    exclude: list[FieldKey] = Field(default_factory=list, max_length=64, description="columns not to consider")


class FactorShift(Model):
    factor: str
    shift: float


class ProposeOutputs(Model):
    hypotheses: list[Hypothesis] = Field(max_length=MAX_HYPOTHESES)
    considered: list[FactorShift] = Field(max_length=256, description="every factor considered, ranked")


def level_of(value: Any) -> str:
    """A categorical value as the text a hypothesis names."""
    if value is None:
        return "(missing)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _numeric(values: list[Any]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)


def _label(value: Any, threshold: float | None) -> str:
    """The level a job's value falls in: its text, or which side of the median threshold it lies."""
    if threshold is None or value is None:
        return level_of(value)
    return f"> {threshold:g}" if float(value) > threshold else f"<= {threshold:g}"


def propose_hypotheses(inputs: ProposeInputs, ctx: OperationContext) -> ProposeOutputs:
    """The factors whose mix changed most between the periods, each with the level that grew most."""
    rows = dated(inputs.jobs, inputs.metric)
    before = [j for d, _, j in rows if d < inputs.split_date]
    after = [j for d, _, j in rows if d >= inputs.split_date]
    if not before or not after:
        raise OperationError(f"split date {inputs.split_date} leaves no jobs on one side; use find_change's date")
    skip = {ID_FIELD, DATE_FIELD, inputs.metric, *inputs.exclude}
    factors = sorted({k for _, _, j in rows for k in j} - skip)
    found: list[Hypothesis] = []
    for factor in factors:
        values = [j.get(factor) for _, _, j in rows]
        threshold: float | None = None
        if _numeric(values) and len({v for v in values if v is not None}) > 3:
            threshold = stats.median([float(v) for v in values if v is not None])  # numbers: split at the median
        elif len({level_of(v) for v in values}) > max(20, len(values) // 2):
            continue  # an identifier, not a factor: every job has its own value
        label = partial(_label, threshold=threshold)
        share_b = stats.shares([label(j.get(factor)) for j in before])
        share_a = stats.shares([label(j.get(factor)) for j in after])
        shift = round(stats.total_variation(share_b, share_a), 4)
        if shift <= 0:
            continue
        grown = sorted(share_a, key=lambda lv: (-(share_a[lv] - share_b.get(lv, 0.0)), str(lv)))[0]
        level = str(grown)
        kind = "category" if threshold is None or grown == "(missing)" else "above" if level[0] == ">" else "at_most"
        b, a = share_b.get(grown, 0.0), share_a[grown]
        statement = (
            f"The rise comes from jobs with {factor} {level if kind != 'category' else '= ' + level}, "
            f"which went from {b:.0%} of jobs before {inputs.split_date} to {a:.0%} after"
        )
        found.append(
            Hypothesis(
                rank=1,
                factor=factor,
                level=level,
                kind=kind,
                threshold=threshold,
                before_share=round(b, 4),
                after_share=round(a, 4),
                shift=shift,
                statement=statement,
            )
        )
    found.sort(key=lambda h: (-h.shift, h.factor))
    top = [h.model_copy(update={"rank": i}) for i, h in enumerate(found[: inputs.count], start=1)]
    return ProposeOutputs(hypotheses=top, considered=[FactorShift(factor=h.factor, shift=h.shift) for h in found[:256]])


LOAD_JOBS = Operation(
    "perf.load_jobs",
    "Read a render job log (CSV) under the data root; rows without id, date or metric, and repeats, are skipped.",
    LoadJobsInputs,
    LoadJobsOutputs,
    "read",
    "repeatable",
    load_jobs,
    path_input="path",
)

FIND_CHANGE = Operation(
    "perf.find_change",
    "Split jobs before/after the date where the median of the metric rises most (or at a given date).",
    FindChangeInputs,
    FindChangeOutputs,
    "none",
    "repeatable",
    find_change,
)

PROPOSE_HYPOTHESES = Operation(
    "perf.propose_hypotheses",
    "Rank factors whose mix of values changed between the periods; each becomes a hypothesis about the rise.",
    ProposeInputs,
    ProposeOutputs,
    "none",
    "repeatable",
    propose_hypotheses,
)
