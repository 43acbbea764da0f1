"""Anvil's exceptions: every one is a bad input or a refused decision, and none leaves anything half-done.

AlicornError
└── AnvilError                       Anvil cannot do what was asked; nothing was executed or journaled
    ├── PolicyError                  the policy set cannot be used
    │   ├── PolicyParseError         the policy text is not valid Cedar (or a rule lacks a unique @id)
    │   └── PolicyValidationError    a rule refers to an unknown operation or context field
    ├── IdentityError                an id is not `human:NAME` or `agent:NAME`, or `--as` is not the OS user
    ├── PeopleError                  the home's people cannot be changed as asked (only an admin may)
    ├── UnknownAgentError            the agent is not in the PermissionRegistry
    ├── ApprovalError                an approval or rejection is refused
    │   ├── AgentApprovalError       an agent tried to approve (only humans approve)
    │   ├── ProposerApprovalError    whoever proposed a plan tried to approve it
    │   ├── StaleApprovalError       the approval names a plan hash that is not the run's plan
    │   ├── UnknownPersonError       the approver is not one of the home's people
    │   ├── RoleError                the person's role does not allow approving (a viewer)
    │   ├── SigningKeyError          the person's signing key is missing or is not the one journaled
    │   └── NotAwaitingApprovalError the run is not waiting for an approval
    ├── BudgetError                  a budget cannot be read (`--budget steps=ten`)
    │   └── BudgetExceededError      a model call would exceed a budget
    └── SettingsError                the [anvil] or [data] part of alicorn.toml is invalid
"""

from __future__ import annotations

from alicorn.errors import AlicornError


class AnvilError(AlicornError):
    """Anvil refused or could not do what was asked; nothing was executed."""


class PolicyError(AnvilError):
    """The policy set cannot be used."""


class PolicyParseError(PolicyError):
    """The policy text does not parse as Cedar, or a rule has no (unique) `@id` annotation."""


class PolicyValidationError(PolicyError):
    """The policy refers to operations, entity types or context fields that do not exist."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = list(problems)
        body = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"the policy set {source} does not fit this Alicorn's operations and context:\n{body}\n"
            'Fix the rules (operations are actions: Action::"data.read_csv"; `alicorn schema operations` lists '
            "them; docs/anvil.md lists the context fields), then run `alicorn policy check`"
        )


class IdentityError(AnvilError):
    """An identity is not written as `human:NAME` or `agent:NAME`."""


class UnknownAgentError(AnvilError):
    """The agent has never been registered."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        super().__init__(
            f"{agent} is not a registered agent; register it first with `alicorn agent register {agent}` "
            "(the built-in roles agent:planner, agent:executor, agent:researcher and agent:decision register "
            "themselves on first use)"
        )


class ApprovalError(AnvilError):
    """An approval or a rejection was refused; the run was not changed."""

    def __init__(self, message: str, *, run_id: str | None = None) -> None:
        super().__init__(message)
        self.run_id = run_id


class AgentApprovalError(ApprovalError):
    """Agents never approve anything."""


class ProposerApprovalError(ApprovalError):
    """Whoever proposed a plan can never approve it."""


class StaleApprovalError(ApprovalError):
    """The approval is bound to a plan hash that is not (or no longer) the run's plan."""


class NotAwaitingApprovalError(ApprovalError):
    """The run is not waiting for an approval."""


class PeopleError(AnvilError):
    """The home's list of people cannot be changed as asked (not an admin, the last admin, an unknown person)."""


class UnknownPersonError(ApprovalError):
    """The human who approves or rejects is not one of the home's people."""


class RoleError(ApprovalError):
    """The person's role does not allow what they tried (a viewer approving)."""


class SigningKeyError(ApprovalError):
    """The person's private signing key is missing, unreadable, or not the key the people stream journaled."""


class BudgetError(AnvilError):
    """A budget specification cannot be read."""


class BudgetExceededError(BudgetError):
    """A model call would exceed a budget; nothing was called."""

    def __init__(self, message: str, *, budget: str, limit: float, used: float, over: float) -> None:
        super().__init__(message)
        self.budget = budget
        self.limit = limit
        self.used = used
        self.over = over


class SettingsError(AnvilError):
    """The operator's [anvil] or [data] settings are invalid."""
