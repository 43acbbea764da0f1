"""The models Core's roles use: routed per role and conversation, journaled, calibration-aware.

The router (alicorn.models.router) picks a profile for a role's requirements; this module remembers the pick for the
conversation (one `model.routed` per role and conversation), binds it to the conversation's journal tap, and hands
the router the world model's calibration, so a profile whose predictions proved poor is refused where a role asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from alicorn.context.tap import JournalTap
from alicorn.core.world import WorldView
from alicorn.models.errors import RoutingError
from alicorn.models.profiles import ModelProfile
from alicorn.models.providers.base import Provider
from alicorn.models.recorder import ModelCallRecorder, ModelClient
from alicorn.models.router import Host, RoutingPolicy, requirements_for, route


@dataclass(frozen=True)
class ModelAccess:
    """The models Core may use: profiles, how a profile becomes a provider, this host, the routing policy.

    `source` says, for the human, where answers come from ("local model", "recorded responses", "scripted").
    """

    profiles: tuple[ModelProfile, ...]
    provider_for: Callable[[ModelProfile], Provider]
    host: Host
    policy: RoutingPolicy = field(default_factory=RoutingPolicy)
    source: str = "models"


class RoleClients:
    """Model clients per (role, conversation); None where no profile may be used (Core then works without)."""

    def __init__(self, models: ModelAccess | None, world: Callable[[], WorldView]) -> None:
        self.models = models
        self.world = world
        self._clients: dict[tuple[str, str], ModelClient | None] = {}

    def get(self, role: str, languages: Sequence[str], tap: JournalTap) -> ModelClient | None:
        """The client for `role` in the tap's conversation, routing (and journaling the decision) the first time."""
        if self.models is None:
            return None
        key = (role, tap.stream)
        if key in self._clients:
            return self._clients[key]
        need = requirements_for(role, languages=languages)
        view = self.world()
        calibration = {name: brier for name in view.calibration if (brier := view.brier(name)) is not None}
        try:
            decision = route(
                need,
                self.models.profiles,
                policy=self.models.policy,
                host=self.models.host,
                tap=tap,
                calibration=calibration,
            )
        except RoutingError:
            self._clients[key] = None
            return None
        profile = next(p for p in self.models.profiles if p.id == decision.pick)
        client = ModelClient(profile, self.models.provider_for(profile), ModelCallRecorder(tap))
        self._clients[key] = client
        return client

    def forget(self, conversation: str) -> None:
        """Drop the conversation's clients (their tap is stale: the stream moved on without it)."""
        self._clients = {k: v for k, v in self._clients.items() if k[1] != conversation}
