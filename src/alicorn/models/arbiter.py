"""Consultants and the arbiter: for a hard task, several profiles answer; evidence, not votes, settles it.

    consult(clients, request) ─► each client's Opinion {answer, evidence[], tests[], assumptions[]} (or its error)
    arbitrate(answers, known_sources)
        answers grouped into positions (same normalised answer)
        a position with a failing test is refuted
        evidence counts only when its source is known (a context fragment, an artifact, a test run)
        standing: 2 = a passing test, 1 = verified evidence, 0 = neither
        one position alone at the best standing ─► settled, with reasons and its assumptions as caveats
        otherwise ─► unresolved: every position with its support and its own assumptions, for a human

The number of consultants behind a position is recorded and never decides: three unsupported answers lose to one
answer with a passing test, and two equally supported different answers stay unresolved.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from alicorn.models.errors import ModelError
from alicorn.models.messages import ChatRequest
from alicorn.models.recorder import ModelClient
from alicorn.models.structured import ask_structured

_Short = Annotated[str, Field(max_length=500)]


class Evidence(BaseModel):
    """A claim and where it comes from (a fragment id, an artifact sha, a test run id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claim: _Short
    source: Annotated[str, Field(max_length=200)]


class CheckResult(BaseModel):
    """A check the consultant ran or reports, and its outcome."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(max_length=200)]
    passed: bool
    detail: _Short = ""


class Opinion(BaseModel):
    """A consultant's structured answer. Bounded lists: small models repeat items."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: Annotated[str, Field(min_length=1, max_length=1000)]
    evidence: Annotated[list[Evidence], Field(max_length=8)] = []
    tests: Annotated[list[CheckResult], Field(max_length=8)] = []
    assumptions: Annotated[list[_Short], Field(max_length=8)] = []


class ConsultantAnswer(BaseModel):
    """One consultant's opinion, or the error that left it without one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: str
    opinion: Opinion | None
    error: str | None = None


class Position(BaseModel):
    """Everyone who gave the same answer, and what supports or refutes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: str
    supporters: tuple[str, ...]
    passed_tests: tuple[str, ...]
    failed_tests: tuple[str, ...]
    verified_evidence: tuple[str, ...]
    unverified_evidence: tuple[str, ...]
    assumptions: tuple[str, ...]
    standing: int
    refuted: bool


class Verdict(BaseModel):
    """Settled (an answer with reasons) or unresolved (the positions a human must choose between)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    settled: bool
    answer: str | None
    reasons: tuple[str, ...]
    positions: tuple[Position, ...]
    failed_consultants: tuple[str, ...] = ()

    def differences(self) -> list[str]:
        """For an unresolved verdict: what sets each surviving position apart."""
        alive = [p for p in self.positions if not p.refuted]
        shared = set.intersection(*(set(p.assumptions) for p in alive)) if alive else set()
        out = []
        for p in alive:
            own = [a for a in p.assumptions if a not in shared]
            out.append(
                f"{p.answer!r} ({', '.join(p.supporters)}): tests passed {list(p.passed_tests) or 'none'}, "
                f"verified evidence {list(p.verified_evidence) or 'none'}, its own assumptions {own or 'none'}"
            )
        return out


def consult(clients: Sequence[ModelClient], request: ChatRequest, *, max_repairs: int = 1) -> list[ConsultantAnswer]:
    """Ask every client for an Opinion; a consultant that fails is recorded with its error, not dropped."""
    answers = []
    for client in clients:
        try:
            result = ask_structured(client, request, Opinion, max_repairs=max_repairs, purpose="consult")
            answers.append(ConsultantAnswer(profile=client.profile.id, opinion=result.value))
        except ModelError as exc:
            answers.append(
                ConsultantAnswer(profile=client.profile.id, opinion=None, error=f"{type(exc).__name__}: {exc}"[:300])
            )
    return answers


def _normal(answer: str) -> str:
    return re.sub(r"[\s.]+$", "", re.sub(r"\s+", " ", answer.strip().casefold()))


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def arbitrate(
    answers: Sequence[ConsultantAnswer],
    *,
    known_sources: Iterable[str] = (),
    verify: Callable[[Evidence], bool] | None = None,
    same: Callable[[Opinion], str] | None = None,
) -> Verdict:
    """Compare the consultants' evidence, tests and assumptions; settle only when one answer stands alone.

    `same` says which opinions are one position (by default: the same answer, ignoring case and spacing); a caller
    whose answers are free text groups them by what they rest on instead (the records an answer cites)."""
    known = set(known_sources)
    position_of = same or (lambda o: _normal(o.answer))
    check = verify or (lambda e: e.source in known)
    groups: dict[str, list[tuple[str, Opinion]]] = {}
    failed = tuple(a.profile for a in answers if a.opinion is None)
    for a in answers:
        if a.opinion is not None:
            groups.setdefault(position_of(a.opinion), []).append((a.profile, a.opinion))
    positions = []
    for members in groups.values():
        opinions = [o for _, o in members]
        passed = _unique(t.name for o in opinions for t in o.tests if t.passed)
        failing = _unique(t.name for o in opinions for t in o.tests if not t.passed)
        verified = _unique(f"{e.source}: {e.claim}" for o in opinions for e in o.evidence if check(e))
        unverified = _unique(f"{e.source}: {e.claim}" for o in opinions for e in o.evidence if not check(e))
        standing = 2 if passed else 1 if verified else 0
        positions.append(
            Position(
                answer=opinions[0].answer,
                supporters=tuple(p for p, _ in members),
                passed_tests=passed,
                failed_tests=failing,
                verified_evidence=verified,
                unverified_evidence=unverified,
                assumptions=_unique(a for o in opinions for a in o.assumptions),
                standing=standing,
                refuted=bool(failing),
            )
        )
    positions.sort(key=lambda p: (p.refuted, -p.standing, p.answer))
    reasons = [f"{p.answer!r} refuted by failing test(s): {', '.join(p.failed_tests)}" for p in positions if p.refuted]
    reasons += [f"{', '.join(failed)} gave no valid opinion"] if failed else []
    alive = [p for p in positions if not p.refuted]
    if not alive:
        return Verdict(
            settled=False,
            answer=None,
            reasons=(*reasons, "no answer survived"),
            positions=tuple(positions),
            failed_consultants=failed,
        )
    best = alive[0].standing
    top = [p for p in alive if p.standing == best]
    if len(top) == 1 and (best > 0 or len(alive) == 1):
        winner = top[0]
        support = {
            2: f"passing test(s): {', '.join(winner.passed_tests)}",
            1: f"verified evidence: {'; '.join(winner.verified_evidence)}",
            0: "the only answer given (no tests or verified evidence: treat as unconfirmed)",
        }[best]
        reasons.insert(0, f"{winner.answer!r} settled by {support}")
        for other in alive[1:]:
            reasons.append(f"{other.answer!r} ({len(other.supporters)} consultant(s)) has weaker support")
        if winner.assumptions:
            reasons.append("holds under the assumptions: " + "; ".join(winner.assumptions))
        return Verdict(
            settled=True,
            answer=winner.answer,
            reasons=tuple(reasons),
            positions=tuple(positions),
            failed_consultants=failed,
        )
    reasons.insert(0, f"{len(top)} different answers are equally supported; a human must decide")
    return Verdict(
        settled=False, answer=None, reasons=tuple(reasons), positions=tuple(positions), failed_consultants=failed
    )
