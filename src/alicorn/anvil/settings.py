"""The operator's Anvil settings: the `[anvil]` and `[data]` sections of alicorn.toml.

[anvil]
policy = "policies/mine.cedar"       # the policy set (default: the one shipped with Alicorn)
forbidden = ["publication"]          # effect classes no run may have
replan_threshold = 0.25              # cost growth above which a replan is material (+25 %)

[anvil.budget]                       # every run's limits (a run's --budget overrides them)
steps = 500
money = 2.0

[anvil.projects.hr]                  # a project's limits, summed over its runs
money = 20

[anvil.agent_rights]                 # what a newly registered agent may do (default: none, read, local_write)
[anvil.human_rights]                 # what a human proposer may do without a second human
[anvil.reputation]                   # points, curiosity bonus and tiers (see reputation.py)

[data]                               # classification of data files, relative to the data root
private = ["hr/**"]
secret = ["keys/**"]
default = "internal"
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.anvil.budget import Budget
from alicorn.anvil.errors import AnvilError, SettingsError
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.replan import DEFAULT_THRESHOLD
from alicorn.anvil.reputation import ReputationSettings
from alicorn.anvil.rights import HUMAN_RIGHTS, MINIMAL_AGENT_RIGHTS, Rights
from alicorn.anvil.terms import RunTerms
from alicorn.plan.dsl import EffectClass


class AnvilSettings(BaseModel):
    """`[anvil]` of alicorn.toml (every field optional)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    policy: str | None = Field(None, description="policy file, relative to the Alicorn home")
    forbidden: tuple[EffectClass, ...] = ()
    replan_threshold: float = Field(DEFAULT_THRESHOLD, ge=0)
    budget: Budget = Budget()
    projects: dict[str, Budget] = Field(default_factory=dict)
    agent_rights: Rights = MINIMAL_AGENT_RIGHTS
    human_rights: Rights = HUMAN_RIGHTS
    reputation: ReputationSettings = ReputationSettings()

    def policy_path(self, home: Path) -> Path | None:
        if self.policy is None:
            return None
        path = Path(self.policy).expanduser()
        return path if path.is_absolute() else home / path

    def terms(
        self,
        *,
        proposed_by: str,
        project: str = "default",
        budget: Budget | None = None,
        forbidden: tuple[str, ...] = (),
        labels: DataLabels | None = None,
        provenance: str = "human",
        channel: str = "cli",
    ) -> RunTerms:
        """A run's terms: the operator's defaults, with the run's own budget limits and forbidden effects added.

        AnvilError names the bad value (an unknown effect class, a project name, an identity).
        """
        try:
            return RunTerms.model_validate(
                {
                    "proposed_by": proposed_by,
                    "project": project,
                    "budget": self.budget.merged(budget or Budget()),
                    "project_budget": self.projects.get(project, Budget()),
                    "forbidden": (*self.forbidden, *forbidden),
                    "labels": labels or DataLabels(),
                    "provenance": provenance,
                    "channel": channel,
                }
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise AnvilError(f"the run's terms are invalid: {where}: {err['msg']}") from None


def parse_settings(anvil: Any, data: Any, where: str) -> tuple[AnvilSettings, DataLabels]:
    """Validate the two sections (dicts from TOML); SettingsError naming the field and the fix."""
    try:
        settings = AnvilSettings.model_validate(anvil or {})
    except ValidationError as exc:
        raise SettingsError(f"{where} [anvil]: {_first(exc)}; see docs/anvil.md for the settings") from None
    try:
        labels = DataLabels.model_validate(data or {})
    except ValidationError as exc:
        raise SettingsError(
            f'{where} [data]: {_first(exc)}; write e.g. private = ["hr/**"] (levels: public, internal, private, '
            "secret; default = the label of unnamed files)"
        ) from None
    return settings, labels


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}" if where else str(err["msg"])
