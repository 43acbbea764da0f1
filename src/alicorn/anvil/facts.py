"""The facts a decision depends on, apart from the policy that decides over them.

`decide` reads them and `sentences` words them: both import this module and neither imports the other's user, so
the decision and its sentence stay one-way (decide -> sentences -> facts).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from alicorn.anvil.rights import Subject, gaps
from alicorn.anvil.risk import PlanRisk

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

    @cached_property
    def gaps(self) -> tuple[str, ...]:
        return gaps(self.subject.rights, self.risk, self.project)
