"""The Anvil service: one place that holds a home's policy, agents and settings (built by the app, no singleton).

It gives the executor its live gate, turns command-line choices into a run's terms, registers built-in role agents
on first use, settles reputations when runs end, lists proposals and guards model calls with the budgets
(`before_model_call`, for the models package).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from alicorn.anvil.agents import PermissionRegistry, utc_now
from alicorn.anvil.budget import Budget, Usage, check_model_call
from alicorn.anvil.errors import BudgetExceededError, UnknownAgentError
from alicorn.anvil.gate import LiveGate, TriggerAllowance, project_usage
from alicorn.anvil.identity import parse_principal
from alicorn.anvil.labels import DataLabels
from alicorn.anvil.policy import Policies, load_policies
from alicorn.anvil.settings import AnvilSettings
from alicorn.anvil.terms import RunTerms
from alicorn.errors import UnknownStreamError
from alicorn.journal.events import Event
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import Registry


class Anvil:
    """Permissions, reputation, budgets and policy for one Alicorn home."""

    def __init__(
        self,
        store: JournalStore,
        registry: Registry,
        settings: AnvilSettings | None = None,
        labels: DataLabels | None = None,
        *,
        home: Path = Path("."),
        now: Callable[[], str] = utc_now,
    ) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings or AnvilSettings()
        self.labels = labels or DataLabels()
        self.home = home
        self.agents = PermissionRegistry(
            store, reputation=self.settings.reputation, initial_rights=self.settings.agent_rights, now=now
        )

    @functools.cached_property
    def policies(self) -> Policies:
        """The policy set in force: the operator's file, or the shipped default; validated against the registry."""
        return load_policies(self.settings.policy_path(self.home), self.registry.names())

    def gate(self, trigger_allowance: TriggerAllowance | None = None) -> LiveGate:
        """The live gate; `trigger_allowance` reads what a triggered run's schedule allows (the app hands it in)."""
        return LiveGate(self.store, self.policies, self.agents, self.settings.human_rights, trigger_allowance)

    def terms(
        self,
        proposed_by: str,
        *,
        project: str = "default",
        budget: Budget | None = None,
        forbidden: tuple[str, ...] = (),
        provenance: str = "human",
        channel: str = "cli",
    ) -> RunTerms:
        """A run's terms from the operator's settings and the run's own choices (and where its request came from)."""
        return self.settings.terms(
            proposed_by=proposed_by,
            project=project,
            budget=budget,
            forbidden=forbidden,
            labels=self.labels,
            provenance=provenance,
            channel=channel,
        )

    def prepare(self, terms: RunTerms, *, strict: bool = True) -> None:
        """Before a run starts: register a built-in role agent on first use; refuse an unknown named agent.

        With `strict=False` an unknown agent is left to the policy (which denies it, journaled in the run).
        """
        principal = parse_principal(terms.proposed_by)
        if principal.is_human:
            return
        self.agents.ensure_builtin(principal.id)
        if strict and not self.agents.record(principal.id).registered:
            raise UnknownAgentError(principal.id)

    def settle(self, run_id: str) -> list[Event]:
        """Journal the reputation changes of a finished run (a no-op for humans' runs and settled runs)."""
        return self.agents.settle(run_id)

    def before_model_call(self, run_id: str, *, tokens: int = 0, money: float = 0.0) -> None:
        """Refuse (BudgetExceededError) a model call of about `tokens` and `money` that would exceed a budget.

        For the models package: call it before each model call of a run; the call's own `llm.response` in the run's
        stream then counts towards the budgets.
        """
        events = self.store.read(run_id)
        if not events or events[0].kind != "run.created":
            raise UnknownStreamError(run_id)
        terms = RunTerms.from_created(events[0].data)
        others = Usage() if terms.project_budget.empty else project_usage(self.store, terms.project, exclude=run_id)
        found = check_model_call(
            events, terms.budget, terms.project_budget, terms.project, tokens=tokens, money=money, project_others=others
        )
        if found is not None:
            raise BudgetExceededError(
                f"model call refused for run {run_id}: {found.sentence()}",
                budget=found.budget,
                limit=found.limit,
                used=found.used,
                over=found.over,
            )
