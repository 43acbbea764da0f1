"""The model router: the best profile for a role's requirements, never a name written in code.

    route(role requirements, profiles, policy, host)
        each profile ─► hard checks (languages, context, abilities, determinism, structured output, latency, cost,
                        hardware, provider installed) ─► rejected with every reason, or a fit with a score
        fits ─► a local fit wins; otherwise an external fit only if the policy allows external providers AND a
                quality justification is given ─► the pick, recorded; otherwise RoutingError (with the record)

Every candidate in the decision carries its outcome and reasons: rejected (why), outranked (by whom, on what),
held back (external without permission or justification), or picked (why). `model.routed` journals the record.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.context.tap import JournalTap
from alicorn.models.errors import RoutingError
from alicorn.models.profiles import ModelProfile


class RoleRequirements(BaseModel):
    """What a role needs from a model. Levels are 0-3, like the profiles' abilities."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str
    languages: tuple[str, ...] = ("en",)
    min_context: int = Field(2048, ge=0)
    reasoning: int = Field(0, ge=0, le=3)
    code: int = Field(0, ge=0, le=3)
    vision: bool = False
    deterministic: bool = False
    structured_output: bool = False
    max_latency_ms: int | None = None
    max_cost_per_1k: float | None = None
    #: The worst calibration (Brier score of the profile's stated confidences, from the world model) allowed.
    max_brier: float | None = Field(None, ge=0, le=1)


#: The roles of the seeds (planner, executor, researcher, decision) and the classifier. Languages are set per
#: project (`with_languages`), since they depend on who talks to it.
ROLES: dict[str, RoleRequirements] = {
    "planner": RoleRequirements(
        role="planner", reasoning=2, min_context=8192, deterministic=True, structured_output=True, max_brier=0.3
    ),
    "executor": RoleRequirements(role="executor", reasoning=1, code=1, min_context=4096, structured_output=True),
    "researcher": RoleRequirements(role="researcher", reasoning=2, min_context=16384),
    "decision": RoleRequirements(
        role="decision", reasoning=2, min_context=4096, deterministic=True, structured_output=True
    ),
    "classifier": RoleRequirements(
        role="classifier",
        min_context=1024,
        deterministic=True,
        structured_output=True,
        max_latency_ms=2000,
        max_brier=0.3,
    ),
    "summarizer": RoleRequirements(role="summarizer", reasoning=1, min_context=8192),
    # Answers a conversation or a question with no effect (Norbi Core); any model that speaks the language will do.
    "assistant": RoleRequirements(role="assistant", min_context=1024),
}


class Host(BaseModel):
    """What this machine offers: memory, a GPU, and which provider kinds are installed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ram_gb: float
    gpu: bool = False
    providers: tuple[str, ...] = ("openai_compatible", "scripted")

    @classmethod
    def detect(cls) -> Host:
        """This machine (RAM from sysconf; llama_cpp counted as installed when it can be imported)."""
        try:
            ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        except (ValueError, OSError, AttributeError):
            ram = 0.0
        providers = ["openai_compatible", "scripted"]
        if importlib.util.find_spec("llama_cpp") is not None:
            providers.append("llama_cpp")
        return cls(ram_gb=round(ram, 1), gpu=False, providers=tuple(providers))


class RoutingPolicy(BaseModel):
    """The project's rule for external providers, and the justification that must come with using one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow_external: bool = False
    justification: str | None = None


Outcome = Literal["picked", "rejected", "outranked", "held_back"]


class Candidate(BaseModel):
    """One profile's fate in a routing decision."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: str
    location: Literal["local", "external"]
    outcome: Outcome
    reasons: tuple[str, ...]
    score: tuple[float, ...] | None = None


class RoutingDecision(BaseModel):
    """The full record: requirements, host, policy, every candidate and the pick (None when nothing fits)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str
    requirements: RoleRequirements
    host: Host
    policy: RoutingPolicy
    candidates: tuple[Candidate, ...]
    pick: str | None
    external: bool = False
    justification: str | None = None

    def explained(self) -> bool:
        """Whether every candidate has at least one reason (the router's promise)."""
        return all(c.reasons for c in self.candidates)

    def explain(self) -> str:
        """The decision for a human, one candidate per line."""
        lines = [f"role {self.role}: " + (f"picked {self.pick}" if self.pick else "no profile fits")]
        for c in self.candidates:
            lines.append(f"  {c.outcome:<9} {c.profile} ({c.location}): " + "; ".join(c.reasons))
        if self.justification:
            lines.append(f"  external justification: {self.justification}")
        return "\n".join(lines)


def _rejections(
    profile: ModelProfile, need: RoleRequirements, host: Host, calibration: Mapping[str, float] | None = None
) -> list[str]:
    reasons = []
    brier = (calibration or {}).get(profile.id)
    if need.max_brier is not None and brier is not None and brier > need.max_brier:
        reasons.append(
            f"poorly calibrated: its predictions score Brier {brier:.3f} > {need.max_brier:g} allowed (world model)"
        )
    missing = [lang for lang in need.languages if lang not in profile.languages]
    if missing:
        reasons.append(f"does not speak {', '.join(missing)} (speaks {', '.join(profile.languages)})")
    if profile.context_length < need.min_context:
        reasons.append(f"context {profile.context_length} < {need.min_context} tokens needed")
    if profile.reasoning < need.reasoning:
        reasons.append(f"reasoning {profile.reasoning} < {need.reasoning}")
    if profile.code < need.code:
        reasons.append(f"code {profile.code} < {need.code}")
    if need.vision and not profile.vision:
        reasons.append("no vision")
    if need.deterministic and not profile.seed:
        reasons.append("no seed support: answers cannot be reproduced")
    if need.structured_output and profile.structured_output == "none":
        reasons.append("no structured output (JSON schema / grammar)")
    if need.max_latency_ms is not None and profile.latency_ms > need.max_latency_ms:
        reasons.append(f"latency {profile.latency_ms} ms > {need.max_latency_ms} ms allowed")
    price = max(profile.cost_input_per_1k, profile.cost_output_per_1k)
    if need.max_cost_per_1k is not None and price > need.max_cost_per_1k:
        reasons.append(f"cost {price:g}/1k tokens > {need.max_cost_per_1k:g} allowed")
    if profile.provider not in host.providers:
        hint = " (pip install 'alicorn[local]')" if profile.provider == "llama_cpp" else ""
        reasons.append(f"provider {profile.provider} is not installed here{hint}")
    if profile.location == "local" and profile.min_ram_gb > host.ram_gb:
        reasons.append(f"needs {profile.min_ram_gb:g} GB RAM, this host has {host.ram_gb:g}")
    if profile.location == "local" and profile.gpu and not host.gpu:
        reasons.append("needs a GPU, this host has none")
    return reasons


def _score(profile: ModelProfile) -> tuple[float, ...]:
    """Higher is better: abilities first, then room (context), then speed, then cheapness."""
    price = profile.cost_input_per_1k + profile.cost_output_per_1k
    return (
        float(profile.reasoning + profile.code),
        float(len(profile.languages)),
        float(profile.context_length),
        -float(profile.latency_ms),
        -price,
    )


_SCORE_NAMES = ("abilities", "languages", "context", "latency", "cost")


def _why_lower(loser: tuple[float, ...], winner: tuple[float, ...]) -> str:
    for name, a, b in zip(_SCORE_NAMES, loser, winner, strict=True):
        if a != b:
            return f"lower {name} ({abs(a):g} vs {abs(b):g})"
    return "equal score; ties go to the profile id that sorts first"


def route(
    requirements: RoleRequirements,
    profiles: Iterable[ModelProfile],
    *,
    policy: RoutingPolicy | None = None,
    host: Host | None = None,
    tap: JournalTap | None = None,
    calibration: Mapping[str, float] | None = None,
) -> RoutingDecision:
    """Pick a profile for `requirements`; raise RoutingError (carrying the record) when none may be used.

    `calibration` maps profile ids to the Brier score the world model measured for them (alicorn.core.world);
    a role with `max_brier` refuses a profile whose score is worse.
    """
    policy = policy or RoutingPolicy()
    host = host or Host.detect()
    ordered = sorted(profiles, key=lambda p: p.id)
    rejected = {p.id: _rejections(p, requirements, host, calibration) for p in ordered}
    fits = [p for p in ordered if not rejected[p.id]]
    local = [p for p in fits if p.location == "local"]
    external = [p for p in fits if p.location == "external"]

    def best(pool: list[ModelProfile]) -> ModelProfile:
        # Highest score; equal scores go to the id that sorts first (`ordered` is sorted, `min` keeps the first).
        return min(pool, key=lambda p: tuple(-x for x in _score(p)))

    pick: ModelProfile | None = None
    held: dict[str, str] = {}
    if local:
        pick = best(local)
        for p in external:
            held[p.id] = "external; a local profile fits, so external providers are not considered"
    elif external:
        if not policy.allow_external:
            for p in external:
                held[p.id] = "external providers are not allowed by this project's policy"
        elif not (policy.justification and policy.justification.strip()):
            for p in external:
                held[p.id] = "external providers need a recorded quality justification; none was given"
        else:
            pick = best(external)

    candidates = []
    for p in ordered:
        if rejected[p.id]:
            candidates.append(
                Candidate(profile=p.id, location=p.location, outcome="rejected", reasons=tuple(rejected[p.id]))
            )
        elif p.id in held:
            candidates.append(
                Candidate(
                    profile=p.id, location=p.location, outcome="held_back", reasons=(held[p.id],), score=_score(p)
                )
            )
        elif pick is not None and p.id == pick.id:
            why = "best local fit" if p.location == "local" else "no local profile fits; external allowed and justified"
            candidates.append(
                Candidate(profile=p.id, location=p.location, outcome="picked", reasons=(why,), score=_score(p))
            )
        else:  # a fit that is neither held back nor picked: only possible beside a pick
            winner = pick.id if pick is not None else "nothing"
            why = _why_lower(_score(p), _score(pick)) if pick is not None else "no pick"
            candidates.append(
                Candidate(
                    profile=p.id,
                    location=p.location,
                    outcome="outranked",
                    reasons=(f"fits, but outranked by {winner}: {why}",),
                    score=_score(p),
                )
            )
    decision = RoutingDecision(
        role=requirements.role,
        requirements=requirements,
        host=host,
        policy=policy,
        candidates=tuple(candidates),
        pick=pick.id if pick else None,
        external=bool(pick and pick.external),
        justification=policy.justification if pick is not None and pick.external else None,
    )
    if tap is not None:
        tap.append("model.routed", decision.model_dump(mode="json"))
    if pick is None:
        raise RoutingError(
            f"no model profile may be used for role {requirements.role!r}:\n{decision.explain()}\n"
            "Add a local profile that meets the requirements, or allow external providers with a justification",
            decision,
        )
    return decision


def requirements_for(role: str, *, languages: Iterable[str] | None = None) -> RoleRequirements:
    """The built-in requirements of `role`, with the project's languages when given."""
    try:
        base = ROLES[role]
    except KeyError:
        raise RoutingError(f"unknown role {role!r}; known roles: {', '.join(sorted(ROLES))}", None) from None
    return base.model_copy(update={"languages": tuple(languages)}) if languages is not None else base


def consultants_for(
    requirements: RoleRequirements,
    profiles: Iterable[ModelProfile],
    count: int,
    *,
    policy: RoutingPolicy | None = None,
    host: Host | None = None,
    calibration: Mapping[str, float] | None = None,
) -> list[RoutingDecision]:
    """Up to `count` distinct profiles for a hard task, each chosen by `route` among those not yet chosen."""
    remaining = list(profiles)
    decisions: list[RoutingDecision] = []
    while remaining and len(decisions) < count:
        try:
            decision = route(requirements, remaining, policy=policy, host=host, calibration=calibration)
        except RoutingError:
            break
        decisions.append(decision)
        remaining = [p for p in remaining if p.id != decision.pick]
    return decisions
