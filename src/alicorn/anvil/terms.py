"""A run's terms: who proposed it, for which project, within which budgets, with which effects forbidden.

Terms are fixed when a run is created and journaled in `run.created`, so every later decision about the run (and
its replay) reads them from there. A replan's terms add where it came from: the run it replaces and the summary of
that run's plan, which is what `replan.compare` judges the new plan against.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alicorn.anvil.budget import Budget
from alicorn.anvil.identity import parse_principal
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.origin import ORIGIN_KEPT
from alicorn.anvil.replan import DEFAULT_THRESHOLD
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass

#: A project's name: lower-case letters, digits and _ . -, starting with a letter or digit, at most 64 characters.
PROJECT_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
ProjectName = Annotated[str, Field(pattern=PROJECT_PATTERN)]
DEFAULT_PROPOSER = "human:operator"
#: Who started the work a run serves: an authenticated human, an automated trigger, or an external channel.
Provenance = Literal["human", "trigger", "external"]
ChannelName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_.-]{0,39}$")]


class ReplanOrigin(BaseModel):
    """The run a replan replaces, and the facts of its plan."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    run: str
    summary: dict[str, Any]
    threshold: float = Field(DEFAULT_THRESHOLD, ge=0)
    #: The replan's cause came from data or tool output (an error text, a failed check): material whatever it costs.
    from_data: bool = False


class TriggerRecord(BaseModel):
    """What started a triggered run: the schedule, the slot (UTC) and when it fired (`alicorn.schedule`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    schedule: Annotated[str, Field(min_length=1, max_length=100)]
    slot: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")]
    fired_at: Annotated[str, Field(min_length=1, max_length=40)]


class RunTerms(BaseModel):
    """The terms of one run (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    proposed_by: str = DEFAULT_PROPOSER
    project: ProjectName = "default"
    budget: Budget = Budget()
    project_budget: Budget = Budget()
    forbidden: tuple[EffectClass, ...] = ()
    labels: DataLabels = DataLabels()
    replan_of: ReplanOrigin | None = None
    #: Where the request came from. A run started for a trigger or an external channel keeps that provenance for
    #: its whole life (replans and follow-ups included): no later step may upgrade it to "human".
    provenance: Provenance = "human"
    channel: ChannelName = "cli"
    #: Path patterns (relative to the data root) of secret-labelled sources this run may read, once a human approved
    #: its plan (`alicorn run --allow-secret-read PATTERN`; rule forbid-secret-read, `anvil.secret_reads`).
    secret_reads: tuple[str, ...] = ()
    #: The schedule firing that started the run's request (provenance "trigger"), journaled in `run.created`.
    trigger: TriggerRecord | None = None
    #: Whether every session of the run, resumed ones too, is judged with its origin (provenance, channel, trigger):
    #: journaled as ORIGIN_KEPT with them. False only for runs recorded before: their resumed sessions were judged
    #: as a person's, and their replay regenerates exactly that.
    origin_kept: bool = True

    @field_validator("secret_reads")
    @classmethod
    def _secret_patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            if not pattern.strip() or pattern.startswith("/") or ".." in pattern.split("/"):
                raise ValueError(
                    f"secret read {pattern!r} is not a pattern relative to the data root; give one like 'keys/api.txt' "
                    "or 'keys/**'"
                )
        return tuple(sorted(set(pattern.strip() for pattern in value)))

    @field_validator("proposed_by")
    @classmethod
    def _identity(cls, value: str) -> str:
        return parse_principal(value).id

    @field_validator("forbidden")
    @classmethod
    def _ordered(cls, value: tuple[EffectClass, ...]) -> tuple[EffectClass, ...]:
        return tuple(c for c in EFFECT_ORDER if c in set(value))

    def to_created(self) -> dict[str, Any]:
        """The fields `run.created` journals."""
        data: dict[str, Any] = {
            "proposed_by": self.proposed_by,
            "project": self.project,
            "budget": {"run": self.budget.to_json(), "project": self.project_budget.to_json()},
            "forbidden": list(self.forbidden),
            "labels": self.labels.model_dump(mode="json"),
        }
        if self.replan_of is not None:
            data["replan_of"] = self.replan_of.model_dump(mode="json", exclude_defaults=False)
            if not self.replan_of.from_data:
                del data["replan_of"]["from_data"]  # as journaled before the field existed
        if (self.provenance, self.channel) != ("human", "cli"):  # journals from before provenance stay as they were
            data["provenance"] = self.provenance
            data["channel"] = self.channel
        if self.secret_reads:  # journals from before secret reads stay as they were
            data["secret_reads"] = list(self.secret_reads)
        if self.trigger is not None:  # journals of runs no schedule started stay as they were
            data["trigger"] = self.trigger.model_dump(mode="json")
        if self.origin_kept and ("provenance" in data or "trigger" in data):
            data[ORIGIN_KEPT] = True  # read back by `runtime.state` when a session resumes
        return data

    @classmethod
    def from_created(cls, data: dict[str, Any]) -> RunTerms:
        """The terms a `run.created` event journaled (runs recorded before Anvil get the defaults)."""
        budget = data.get("budget") or {}
        return cls(
            proposed_by=data.get("proposed_by", DEFAULT_PROPOSER),
            project=data.get("project", "default"),
            budget=Budget.model_validate(budget.get("run", {})),
            project_budget=Budget.model_validate(budget.get("project", {})),
            forbidden=tuple(data.get("forbidden", ())),
            # Labels journaled before they followed control lack the field: those runs are judged by data alone.
            labels=DataLabels.model_validate({"control_flows": False, **data.get("labels", {})}),
            replan_of=ReplanOrigin.model_validate(data["replan_of"]) if data.get("replan_of") else None,
            provenance=data.get("provenance", "human"),
            channel=data.get("channel", "cli"),
            secret_reads=tuple(data.get("secret_reads", ())),
            trigger=TriggerRecord.model_validate(data["trigger"]) if data.get("trigger") else None,
            # A person's run journals no origin, so no mark either; a run with an origin and no mark is from before it.
            origin_kept=bool(data.get(ORIGIN_KEPT)) or not ("provenance" in data or "trigger" in data),
        )
