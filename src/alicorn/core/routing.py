"""The models Core's roles use: routed per role and conversation, journaled, calibration-aware.

The router (alicorn.models.router) picks a profile for a role's requirements; this module remembers the pick for the
conversation (one `model.routed` per role and conversation), binds it to the conversation's journal tap, and hands
the router the world model's calibration, so a profile whose predictions proved poor is refused where a role asks.

`model.routed` holds the router's whole record plus `reason`, one sentence saying why the pick won (or why there is
none), which `alicorn ask` shows; `forced` names a profile the operator imposed (`--model PROFILE` for every role,
or `[roles]` in models.toml for one), and `unavailable` the profiles left out because their server could not be
reached earlier in this process: such a profile is not tried again, the role is routed without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from alicorn.context.tap import JournalTap
from alicorn.context.tokens import TokenCounter
from alicorn.core.world import WorldView
from alicorn.models.errors import ModelError, ProviderTimeoutError, ProviderUnavailableError, RoutingError
from alicorn.models.messages import ChatRequest, ChatResponse
from alicorn.models.profiles import ModelProfile
from alicorn.models.providers.base import Provider
from alicorn.models.recorder import ModelCallRecorder, ModelClient
from alicorn.models.router import (
    Candidate,
    Host,
    RoleRequirements,
    RoutingDecision,
    RoutingPolicy,
    consultants_for,
    requirements_for,
    route,
)


@dataclass(frozen=True)
class ModelAccess:
    """The models Core may use: profiles, how a profile becomes a provider, this host, the routing policy.

    `source` says, for the human, where answers come from ("local model", "recorded responses", "scripted").
    `forced` is a profile id used for every role (`alicorn ask --model PROFILE`); `pins` maps a role to the
    profile the operator chose for it (models.toml `[roles]`); `consultants` how many profiles a hard task is
    asked of (alicorn.core.consulting). Either of the first two bypasses the router's ability checks (the
    operator decided), never the project's rule on external providers nor a provider missing on this host.
    """

    profiles: tuple[ModelProfile, ...]
    provider_for: Callable[[ModelProfile], Provider]
    host: Host
    policy: RoutingPolicy = field(default_factory=RoutingPolicy)
    source: str = "models"
    forced: str | None = None
    pins: Mapping[str, str] = field(default_factory=dict)
    #: How many distinct profiles a hard task is asked of (models.toml `[consultants] count`); 1 asks one.
    consultants: int = 1

    def imposed(self, role: str) -> str | None:
        """The profile the operator chose for `role` (`--model` before `[roles]`), or None: the router decides."""
        return self.forced or self.pins.get(role)


class _Watched(Provider):
    """A provider that reports its server unreachable (or timing out), so the profile is not tried again."""

    def __init__(self, inner: Provider, on_down: Callable[[str], None]) -> None:
        self.inner = inner
        self.on_down = on_down
        self.kind = inner.kind

    @property
    def constrains_output(self) -> bool:  # the inner provider may learn it cannot constrain (a server's 400)
        return self.inner.constrains_output

    @constrains_output.setter
    def constrains_output(self, value: bool) -> None:
        self.inner.constrains_output = value

    def token_counter(self) -> TokenCounter | None:
        return self.inner.token_counter()

    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            return self.inner.complete(request)
        except (ProviderUnavailableError, ProviderTimeoutError) as exc:
            self.on_down(str(exc))
            raise

    def close(self) -> None:
        self.inner.close()


class _Unstartable(Provider):
    """A profile whose provider could not be built here (weights missing, an extra not installed): every call
    fails as unavailable, so it is journaled as an `llm.error` and Core goes on without the model."""

    def __init__(self, kind: str, why: str) -> None:
        self.kind = kind
        self.why = why

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise ProviderUnavailableError(self.why)


class RoleClients:
    """Model clients per (role, conversation); None where no profile may be used (Core then works without)."""

    def __init__(self, models: ModelAccess | None, world: Callable[[], WorldView]) -> None:
        self.models = models
        self.world = world
        self._clients: dict[tuple[str, str], ModelClient | None] = {}
        self._consulted: dict[tuple[str, str], list[ModelClient]] = {}
        self._providers: dict[str, Provider] = {}
        #: Profiles whose server could not be reached in this process, with what the provider said.
        self.down: dict[str, str] = {}

    def get(self, role: str, languages: Sequence[str], tap: JournalTap) -> ModelClient | None:
        """The client for `role` in the tap's conversation, routing (and journaling the decision) the first time,
        and again when the routed profile's server went down since."""
        if self.models is None:
            return None
        key = (role, tap.stream)
        if key in self._clients:
            cached = self._clients[key]
            if cached is None or cached.profile.id not in self.down:
                return cached
        need = requirements_for(role, languages=languages)
        calibration = self._calibration()
        decision, reason = decide(self.models, need, calibration=calibration, down=self.down)
        tap.append("model.routed", routed_record(self.models, decision, reason, self.down))
        if decision.pick is None:
            self._clients[key] = None
            return None
        profile = next(p for p in self.models.profiles if p.id == decision.pick)
        client = ModelClient(profile, self._provider(profile, self.models), ModelCallRecorder(tap))
        self._clients[key] = client
        return client

    def consultants(self, role: str, languages: Sequence[str], tap: JournalTap) -> list[ModelClient]:
        """Up to `consultants` distinct profiles for a hard task of `role`, each the router's pick among those not
        yet chosen (journaled once as `model.consulted`, with why each was chosen); [] when fewer than two may be
        used, when consulting is off (`[consultants] count = 1`), or when the operator imposed one profile for the
        role (`--model`, `[roles]`): then the caller asks the one client of `get`."""
        models = self.models
        if models is None or models.consultants < 2 or models.forced is not None or role in models.pins:
            return []
        key = (f"{role}#consultants", tap.stream)
        cached = self._consulted.get(key)
        if cached is not None and not any(c.profile.id in self.down for c in cached):
            return cached
        need = requirements_for(role, languages=languages)
        calibration = self._calibration()
        up = [p for p in models.profiles if p.id not in self.down]
        decisions = consultants_for(
            need, up, models.consultants, policy=models.policy, host=models.host, calibration=calibration
        )
        clients: list[ModelClient] = []
        if len(decisions) >= 2:
            chosen = []
            for decision in decisions:
                profile = next(p for p in models.profiles if p.id == decision.pick)
                clients.append(ModelClient(profile, self._provider(profile, models), ModelCallRecorder(tap)))
                chosen.append({"profile": profile.id, "reason": routed_reason(decision, models.profiles, self.down)})
            tap.append("model.consulted", {"role": role, "asked": models.consultants, "consultants": chosen})
        self._consulted[key] = clients
        return clients

    def _calibration(self) -> dict[str, float]:
        """Each profile's Brier score from the world model's calibration, for the router to refuse poor ones."""
        view = self.world()
        return {name: brier for name in view.calibration if (brier := view.brier(name)) is not None}

    def forget(self, conversation: str) -> None:
        """Drop the conversation's clients (their tap is stale: the stream moved on without it)."""
        self._clients = {k: v for k, v in self._clients.items() if k[1] != conversation}
        self._consulted = {k: v for k, v in self._consulted.items() if k[1] != conversation}

    # ---- deciding ---------------------------------------------------------------------------------------------

    def _provider(self, profile: ModelProfile, models: ModelAccess) -> Provider:
        """One provider per profile, watched: a server found unreachable takes its profile out of routing."""
        if profile.id not in self._providers:

            def down(message: str) -> None:
                self.down[profile.id] = message

            try:
                inner = models.provider_for(profile)
            except ModelError as exc:
                inner = _Unstartable(profile.provider, f"profile {profile.id} could not be started here: {exc}")
            self._providers[profile.id] = _Watched(inner, down)
        return self._providers[profile.id]


def decide(
    models: ModelAccess,
    need: RoleRequirements,
    *,
    calibration: Mapping[str, float] | None = None,
    down: Mapping[str, str] | None = None,
) -> tuple[RoutingDecision, str]:
    """The profile `models` gives the role `need` describes, and one sentence saying why: the router's pick among
    the profiles not `down`, or the operator's choice (`--model`, `[roles]`) when one is imposed. The one place
    this is decided: `RoleClients` journals it for `alicorn ask`, `alicorn models route` shows it."""
    down = down or {}
    up = [p for p in models.profiles if p.id not in down]
    try:
        free = route(need, up, policy=models.policy, host=models.host, calibration=calibration)
    except RoutingError as exc:
        free = exc.decision
    imposed = models.imposed(need.role)
    if imposed is not None:
        return _imposed(models, free, imposed, down)
    return free, routed_reason(free, models.profiles, down)


def routed_record(
    models: ModelAccess, decision: RoutingDecision, reason: str, down: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """What `model.routed` journals (the module docstring says what each key means)."""
    record: dict[str, Any] = {**decision.model_dump(mode="json"), "reason": reason}
    imposed = models.imposed(decision.role)
    if imposed is not None:
        record["forced"] = imposed
    if down:
        record["unavailable"] = dict(sorted(down.items()))
    return record


def _imposed(
    models: ModelAccess, free: RoutingDecision, imposed: str, down: Mapping[str, str]
) -> tuple[RoutingDecision, str]:
    """The router's record with the operator's choice as the pick (or no pick, saying why it cannot be used)."""
    how = "--model" if models.forced else f"models.toml [roles] {free.role} ="
    profile = next(p for p in models.profiles if p.id == imposed)
    own = next((c for c in free.candidates if c.profile == imposed), None)
    refusal = None
    if imposed in down:
        refusal = f"its server could not be reached earlier: {down[imposed]}"
    elif profile.provider not in models.host.providers:
        refusal = f"its provider {profile.provider} is not installed here"
    elif profile.external and not models.policy.allow_external:
        refusal = "it is external and this project's policy allows no external providers"
    missed = list(own.reasons) if own is not None and own.outcome == "rejected" else []
    if refusal is not None:
        mine = Candidate(
            profile=imposed,
            location=profile.location,
            outcome="rejected",
            reasons=(f"forced by {how} {imposed}, but cannot be used: {refusal}",),
        )
    else:
        reasons = [f"forced by {how} {imposed}"] + ([f"used although {', '.join(missed)}"] if missed else [])
        mine = Candidate(profile=imposed, location=profile.location, outcome="picked", reasons=tuple(reasons))
    candidates = [mine]
    for c in free.candidates:
        if c.profile != imposed:
            reason = f"not considered: {how} {imposed} is forced"
            candidates.append(c.model_copy(update={"outcome": "held_back", "reasons": (reason,)}))
    pick = imposed if refusal is None else None
    decision = free.model_copy(
        update={
            "candidates": tuple(sorted(candidates, key=lambda c: c.profile)),
            "pick": pick,
            "external": profile.external and pick is not None,
        }
    )
    if refusal is not None:
        return decision, f"{imposed} is forced by {how} but cannot be used: {refusal}"
    return decision, f"forced by {how} {imposed}" + (f" (used although {', '.join(missed)})" if missed else "")


def routed_reason(decision: RoutingDecision, profiles: Sequence[ModelProfile], down: Iterable[str]) -> str:
    """One sentence for the human: why the pick won over the others, or why nothing may be used."""
    others = [
        f"{c.profile} {c.outcome.replace('_', ' ')}: {', '.join(c.reasons)}"
        for c in decision.candidates
        if c.profile != decision.pick
    ]
    others += [f"{name} unavailable: its server could not be reached earlier" for name in sorted(down)]
    if decision.pick is None:
        return "no profile fits: " + ("; ".join(others) or "none is configured")
    picked = next(c for c in decision.candidates if c.profile == decision.pick)
    p = next(p for p in profiles if p.id == decision.pick)
    abilities = f"reasoning {p.reasoning}, code {p.code}, context {p.context_length}, {p.location}"
    return f"{picked.reasons[0]} ({abilities})" + (f"; {'; '.join(others)}" if others else "")
