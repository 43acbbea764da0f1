"""`perf.test_hypothesis`: test one candidate cause of the rise with two seeded permutation tests.

A factor level L explains the rise when both hold:

1. *level effect*: after the change, jobs at L are slower than the other jobs (one-sided permutation test of the
   means, p < alpha, and the ratio of medians at least 1 + min_effect);
2. *no residual rise*: jobs not at L did not get slower from before to after (the same test does not find a rise
   of at least min_effect). If they did, something other than L is (also) behind the rise.

A level that is merely slow by nature (4k frames, long shots) passes the first test but fails the second, because
the rise persists without it; a level that is new but not slow (a new scene) fails the first. The verdict is
"supported" only when both hold; "untested" when the data are too thin to say (fewer than 3 jobs in a group).

A level that switched on together with the change (no job before it has it, every job after does, give or take
fewer than 3) cannot be put to the first test at all: after the change there are no jobs without it to compare
with. That is not a thin sample: the level is confounded with time, and, unless another hypothesis explains the
rise, the prime suspect. The verdict is "confounded", and the reason says it coincides with the change and that
only jobs run with and without it on the same days can separate the two.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from alicorn.errors import OperationError
from alicorn.ops._common import FieldKey, Model, Records
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.incident import stats
from alicorn.packs.incident.models import (
    ID_FIELD,
    MAX_EVIDENCE,
    MAX_HYPOTHESES,
    Comparison,
    Hypothesis,
    IsoDate,
    TestedHypothesis,
    Verdict,
)
from alicorn.packs.incident.ops import dated, level_of

MIN_GROUP = 3


class CheckInputs(Model):
    jobs: Records
    split_date: IsoDate
    hypotheses: list[Hypothesis] = Field(max_length=MAX_HYPOTHESES)
    rank: int = Field(ge=1, le=MAX_HYPOTHESES, description="which hypothesis (1-based) this node tests")
    metric: FieldKey = "duration_s"
    permutations: int = Field(2000, ge=100, le=20_000)
    alpha: float = Field(0.05, gt=0, lt=0.5)
    min_effect: float = Field(0.1, ge=0, le=5, description="a rise smaller than this fraction does not count")
    seed: int = Field(20261015, ge=0, description="seeds the shuffles: same inputs, same p-values")


class CheckOutputs(Model):
    result: TestedHypothesis
    verdict: Verdict
    supported: bool


def matches(hypothesis: Hypothesis, value: Any) -> bool:
    """Whether a job's value of the hypothesis's factor is at its level."""
    if hypothesis.kind == "category":
        return level_of(value) == hypothesis.level
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) or hypothesis.threshold is None:
        return False
    above = float(value) > hypothesis.threshold
    return above if hypothesis.kind == "above" else not above


def _compare(label: str, group: list[float], rest: list[float], permutations: int, seed: str) -> Comparison:
    mg, mr = stats.median(group), stats.median(rest)
    return Comparison(
        label=label,
        group=len(group),
        rest=len(rest),
        median_group_s=round(mg, 3),
        median_rest_s=round(mr, 3),
        ratio=round(mg / mr, 4) if mr > 0 else 0.0,
        p_value=round(stats.permutation_p(group, rest, permutations, seed), 5),
    )


def _slowest(jobs: list[tuple[float, dict[str, Any]]], n: int) -> list[str]:
    ordered = sorted(jobs, key=lambda pair: (-pair[0], str(pair[1].get(ID_FIELD))))
    return [str(j.get(ID_FIELD)) for _, j in ordered[:n]]


def check_hypothesis(inputs: CheckInputs, ctx: OperationContext) -> CheckOutputs:
    """Test hypothesis number `rank` (see the module docstring); a missing one is reported untested."""
    method = (
        f"one-sided permutation tests of means ({inputs.permutations} seeded shuffles, seed {inputs.seed}); "
        f"alpha {inputs.alpha}, minimum effect {inputs.min_effect:.0%}"
    )
    if inputs.rank > len(inputs.hypotheses):
        return _not_formed(inputs, method)
    h = inputs.hypotheses[inputs.rank - 1]
    rows = dated(inputs.jobs, inputs.metric)
    after = [(v, j) for d, v, j in rows if d >= inputs.split_date]
    before = [(v, j) for d, v, j in rows if d < inputs.split_date]
    if not after or not before:
        raise OperationError(f"split date {inputs.split_date} leaves no jobs on one side; use find_change's date")
    at_level = [(v, j) for v, j in after if matches(h, j.get(h.factor))]
    others_after = [(v, j) for v, j in after if not matches(h, j.get(h.factor))]
    at_level_before = [v for v, j in before if matches(h, j.get(h.factor))]
    others_before = [v for v, j in before if not matches(h, j.get(h.factor))]
    evidence = _slowest(at_level, MAX_EVIDENCE // 2) + _slowest(others_after, MAX_EVIDENCE // 2)
    counts = (len(at_level), len(others_after))
    if max(len(others_after), len(at_level_before)) < MIN_GROUP <= min(len(at_level), len(others_before)):
        reason = _confounded_reason(inputs.split_date, len(at_level), len(after), len(at_level_before), len(before))
        return _tested(inputs, h, "confounded", reason, method, evidence, counts)
    if min(len(at_level), len(others_after)) < MIN_GROUP:
        why = f"after the change {len(at_level)} job(s) are at the level and {len(others_after)} are not"
        reason = f"too few jobs to compare ({why}; at least {MIN_GROUP} each)"
        return _tested(inputs, h, "untested", reason, method, evidence, counts)
    seed = f"{inputs.seed}:{h.factor}={h.level}"
    level_effect = _compare(
        f"after {inputs.split_date}: {h.factor} {h.level} vs the rest",
        [v for v, _ in at_level],
        [v for v, _ in others_after],
        inputs.permutations,
        seed + ":level",
    )
    residual: Comparison | None = None
    if len(others_before) >= MIN_GROUP:
        residual = _compare(
            f"{h.factor} not {h.level}: after vs before {inputs.split_date}",
            [v for v, _ in others_after],
            others_before,
            inputs.permutations,
            seed + ":residual",
        )
    threshold = 1.0 + inputs.min_effect
    slower = level_effect.p_value < inputs.alpha and level_effect.ratio >= threshold
    persists = residual is not None and residual.p_value < inputs.alpha and residual.ratio >= threshold
    if slower and not persists:
        verdict: Verdict = "supported"
        reason = (
            f"jobs at the level are {level_effect.ratio:.2f}x slower (p={level_effect.p_value:g}), and without them "
            "render time did not rise"
        )
    elif not slower:
        verdict = "not supported"
        reason = (
            f"after the change jobs at the level are not clearly slower than the rest "
            f"({level_effect.ratio:.2f}x, p={level_effect.p_value:g})"
        )
    else:
        assert residual is not None  # persists implies a residual comparison
        verdict = "not supported"
        reason = (
            f"jobs at the level are slower ({level_effect.ratio:.2f}x), but the rise persists without them "
            f"({residual.ratio:.2f}x, p={residual.p_value:g}): something else drives it"
        )
    return _tested(inputs, h, verdict, reason, method, evidence, counts, level_effect, residual)


def _confounded_reason(split_date: str, at_level: int, after: int, at_level_before: int, before: int) -> str:
    if at_level == after and at_level_before == 0:
        how = f"every job from {split_date} has it ({after}) and none of the {before} before does: it coincides exactly"
    else:
        how = (
            f"{at_level} of the {after} jobs from {split_date} have it and {at_level_before} of the {before} before "
            "do: it nearly coincides"
        )
    return (
        f"{how} with the change, so comparing jobs with and without it cannot separate its effect from the change "
        "itself (confounded with time); only jobs run with and without it on the same days would settle it"
    )


def _tested(
    inputs: CheckInputs,
    h: Hypothesis,
    verdict: Verdict,
    reason: str,
    method: str,
    evidence: list[str],
    counts: tuple[int, int],
    level_effect: Comparison | None = None,
    residual: Comparison | None = None,
) -> CheckOutputs:
    """Hypothesis `h`'s verdict and why, with the jobs at its level and not after the change (`counts`), and the
    comparisons made; none for one the data cannot settle (`untested`: too few jobs; `confounded`: see the module
    docstring)."""
    result = TestedHypothesis(
        rank=inputs.rank,
        factor=h.factor,
        level=h.level,
        statement=h.statement,
        verdict=verdict,
        reason=reason,
        before_share=h.before_share,
        after_share=h.after_share,
        after_at_level=counts[0],
        after_rest=counts[1],
        level_effect=level_effect,
        residual=residual,
        evidence=evidence,
        method=method,
    )
    return CheckOutputs(result=result, verdict=verdict, supported=verdict == "supported")


def _not_formed(inputs: CheckInputs, method: str) -> CheckOutputs:
    """No hypothesis of this rank: the data offered fewer candidate factors than the plan has test nodes."""
    result = TestedHypothesis(
        rank=inputs.rank,
        factor="",
        level="",
        statement=f"no hypothesis number {inputs.rank}",
        verdict="untested",
        reason=f"only {len(inputs.hypotheses)} hypothesis(es) could be formed from the data",
        formed=False,
        method=method,
    )
    return CheckOutputs(result=result, verdict="untested", supported=False)


TEST_HYPOTHESIS = Operation(
    "perf.test_hypothesis",
    "Test one hypothesis about a rise: is its level slower after the change, and does the rise vanish without it?",
    CheckInputs,
    CheckOutputs,
    "none",
    "repeatable",
    check_hypothesis,
    timeout_s=120.0,
)
