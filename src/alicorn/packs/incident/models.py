"""The values the incident pack's operations pass between them: periods, the change, hypotheses and verdicts."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from alicorn.ops._common import Model

#: An ISO calendar date, the form the job log's `date` column and the `since` slot use.
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
#: Columns every job log must have besides the metric; they are never candidate causes.
ID_FIELD = "job_id"
DATE_FIELD = "date"
#: The most hypotheses the template tests (one plan node each).
MAX_HYPOTHESES = 5
#: The most hypotheses a request may ask for: more than MAX_HYPOTHESES is kept, so the report can say so.
MAX_ASKED = 99
MAX_EVIDENCE = 10

#: `confounded`: the factor's level switched on together with the change (none of the jobs before had it, all of
#: those after do), so no comparison in this data can tell its effect from the change itself; like `untested`, it
#: settles nothing, but it names the prime suspect.
Verdict = Literal["supported", "not supported", "confounded", "untested"]


class SkippedRow(Model):
    """A row of the job log left out, and why (a job that never finished, a job logged twice...)."""

    line: int = Field(ge=1, description="line in the file, the header being line 1")
    job_id: str
    reason: str


class Period(Model):
    """Jobs from `start` to `end` (inclusive) and their metric's median and mean."""

    start: IsoDate
    end: IsoDate
    jobs: int = Field(ge=1)
    median_s: float
    mean_s: float


class Change(Model):
    """Where the metric rose: the first day of the later period, both periods, and the rise."""

    split_date: IsoDate
    before: Period
    after: Period
    increase_s: float = Field(description="median after minus median before")
    increase_pct: float = Field(description="the rise as a percentage of the median before")
    p_value: float = Field(ge=0, le=1, description="Pettitt's approximate significance of the change")
    chosen_by: Literal["Pettitt change point", "given date"]
    candidates: int = Field(ge=1, description="split dates considered")


class Hypothesis(Model):
    """A candidate cause: jobs whose `factor` is at `level` became more common after the change and are slower.

    `kind` says how a job's value is compared with `level`: `category` (equal as text), or, for numeric factors
    split at their median `threshold`, `above` (greater) or `at_most` (less or equal).
    """

    rank: int = Field(ge=1, le=MAX_HYPOTHESES)
    factor: str
    level: str
    kind: Literal["category", "above", "at_most"] = "category"
    threshold: float | None = None
    before_share: float = Field(ge=0, le=1)
    after_share: float = Field(ge=0, le=1)
    shift: float = Field(ge=0, le=1, description="total variation distance of the factor's mix between periods")
    statement: str


class Comparison(Model):
    """Two groups of jobs compared: sizes, medians, the ratio of medians and a one-sided permutation p-value."""

    label: str
    group: int = Field(ge=0)
    rest: int = Field(ge=0)
    median_group_s: float
    median_rest_s: float
    ratio: float = Field(description="median of the group over median of the rest")
    p_value: float = Field(ge=0, le=1)


class TestedHypothesis(Model):
    """One hypothesis's test: the verdict, both comparisons, and the jobs the verdict rests on.

    `formed` is False for a test node whose rank the data offered no hypothesis for (fewer factors changed than
    hypotheses planned): there was nothing to test, and the report leaves it out rather than show a placeholder.
    """

    rank: int = Field(ge=1, le=MAX_HYPOTHESES)
    factor: str
    level: str
    statement: str
    verdict: Verdict
    reason: str
    formed: bool = True
    before_share: float | None = Field(None, ge=0, le=1, description="share of jobs at the level before the change")
    after_share: float | None = Field(None, ge=0, le=1, description="share of jobs at the level after the change")
    after_at_level: int | None = Field(None, ge=0, description="jobs at the level after the change")
    after_rest: int | None = Field(None, ge=0, description="jobs not at the level after the change")
    level_effect: Comparison | None = Field(None, description="after the change: jobs at the level vs the others")
    residual: Comparison | None = Field(None, description="jobs not at the level: after vs before the change")
    evidence: list[str] = Field(default_factory=list, max_length=MAX_EVIDENCE, description="job ids")
    method: str
