"""The facts a decision depends on, apart from the policy that decides over them.

`decide` reads them and `sentences` words them: both import this module and neither imports the other's user, so
the decision and its sentence stay one-way (decide -> sentences -> facts).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from alicorn.anvil.labels import glob_match
from alicorn.anvil.rights import Subject, gaps
from alicorn.anvil.risk import UNKNOWN, PlanRisk

ApprovalState = Literal["none", "granted", "carried"]


@dataclass(frozen=True)
class Facts:
    """Everything a decision depends on (each of these is journaled in the run)."""

    plan_hash: str
    goal_hash: str
    project: str
    risk: PlanRisk
    subject: Subject
    forbidden: tuple[str, ...] = ()
    approval: ApprovalState = "none"
    approved_by: tuple[str, ...] = ()
    material: bool = False
    material_reasons: tuple[str, ...] = ()
    #: Where the run's request came from (its terms): human, trigger or external, and through which channel.
    provenance: str = "human"
    channel: str = "cli"
    #: The plan's secret-labelled sources (`anvil.secret_reads.secret_sources`) and the terms' allowed patterns.
    secret_sources: tuple[str, ...] = ()
    secret_allowed: tuple[str, ...] = ()
    #: The trigger record of a run a schedule's firing started (`RunTerms.trigger`, as journaled), and what the
    #: schedule's own stream says it allows (`alicorn.schedule.allowance`, journaled in `anvil.inputs`): never the
    #: envelope's word for it.
    trigger: dict[str, Any] | None = None
    allowance: dict[str, Any] | None = None

    @property
    def schedule_allows(self) -> tuple[str, ...]:
        """The effect classes the triggering schedule allows without a human (none for a run no schedule started)."""
        if self.trigger is None or self.allowance is None:
            return ()
        if self.allowance.get("schedule") != self.trigger.get("schedule"):
            return ()
        return tuple(str(c) for c in self.allowance.get("effects", ()))

    @property
    def schedule_hosts(self) -> tuple[str, ...] | None:
        """The hosts (patterns) the triggering schedule lets its firings reach without a human: none for a run no
        schedule started, or whose allowance is another schedule's. None when the journaled allowance predates hosts
        (it has no `hosts`): its requests stay as they were journaled, and the built-in policy lets it reach no host."""
        if self.trigger is None or self.allowance is None or "hosts" not in self.allowance:
            return None
        if self.allowance.get("schedule") != self.trigger.get("schedule"):
            return ()
        return tuple(str(h) for h in self.allowance.get("hosts", ()))

    @property
    def hosts_beyond_schedule(self) -> tuple[str, ...]:
        """The plan's hosts its schedule does not name (a host computed at run time is never named)."""
        allowed = self.schedule_hosts or ()
        return tuple(h for h in self.risk.hosts if h == UNKNOWN or not any(glob_match(p, h) for p in allowed))

    @cached_property
    def gaps(self) -> tuple[str, ...]:
        return gaps(self.subject.rights, self.risk, self.project)
